//! Checkpoints in ferroflow's first format (before TensorFlow's became the default): the
//! `.index` is JSON (a format tag and the object graph) and the data file is safetensors.
//! They are still read; only tests write them.

use super::atomic::io_error;
use super::paths::data_path;
use super::reader::Entry;
use super::tensor_bytes::{from_bytes, stored_form};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use safetensors::tensor::Metadata;
use safetensors::SafeTensors;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

pub(super) const FORMAT: &str = "ferroflow-checkpoint";
pub(super) const VERSION: u64 = 1;
/// Metadata key naming each entry's ferroflow dtype (safetensors' dtypes are coarser).
pub(super) const DTYPES_KEY: &str = "ferroflow.dtypes";
/// Metadata key holding each entry's CRC-32 of its stored bytes.
pub(super) const CRC_KEY: &str = "ferroflow.crc32";
/// The shapes of string entries, which are stored as one flat run of bytes.
pub(super) const STRING_SHAPES_KEY: &str = "ferroflow.string_shapes";

/// An opened checkpoint: the object graph, the entries, and the data (read whole, validated).
pub struct LegacyReader {
    object_graph: Value,
    entries: Vec<Entry>,
    data: Vec<u8>,
    /// Where each key's stored bytes lie in `data`, its stored dims and its checksum.
    locations: Locations,
}

impl LegacyReader {
    /// Reads `index` (the JSON of `<prefix>.index`) and the data file beside it.
    pub fn open(prefix: &Path, index: &[u8], index_file: &Path) -> Result<LegacyReader> {
        let object_graph = parse_index(index, index_file)?;
        let data_file = data_path(prefix);
        let data = std::fs::read(&data_file).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::DataLoss(format!(
                "{} is missing: the checkpoint's data file was deleted or never finished",
                data_file.display()
            )),
            _ => io_error(e, &data_file),
        })?;
        let corrupt = |e: safetensors::SafeTensorError| {
            Error::DataLoss(format!("{} is corrupt: {e}", data_file.display()))
        };
        // `deserialize` checks that the header parses and the offsets tile the data exactly.
        SafeTensors::deserialize(&data).map_err(corrupt)?;
        let (header, metadata) = SafeTensors::read_metadata(&data).map_err(corrupt)?;
        let (entries, locations) = entries_of(&metadata, 8 + header, &data_file)?;
        Ok(LegacyReader { object_graph, entries, data, locations })
    }

    pub fn object_graph(&self) -> &Value {
        &self.object_graph
    }

    /// Every entry, sorted by key (as `tf.train.list_variables`).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn tensor(&self, key: &str) -> Result<Tensor> {
        let entry = self
            .entries
            .iter()
            .find(|e| e.key == key)
            .ok_or_else(|| Error::NotFound(format!("Key {key} not found in checkpoint")))?;
        let (range, dims, crc) = &self.locations[key];
        let bytes = &self.data[range.clone()];
        if crc32fast::hash(bytes) != *crc {
            return Err(Error::DataLoss(format!(
                "checksum mismatch for '{key}': the checkpoint's data file is corrupt"
            )));
        }
        let dims = if entry.dtype.is_string() { entry.shape.dims() } else { dims.as_slice() };
        from_bytes(entry.dtype, dims, bytes)
    }
}

fn parse_index(bytes: &[u8], path: &Path) -> Result<Value> {
    let corrupt =
        |why: &str| Error::DataLoss(format!("{} is not a checkpoint index: {why}", path.display()));
    let index: Value = serde_json::from_slice(bytes).map_err(|e| corrupt(&e.to_string()))?;
    if index.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(corrupt("no ferroflow format tag"));
    }
    match index.get("version").and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(v) => return Err(corrupt(&format!("format version {v}; this build reads {VERSION}"))),
        None => return Err(corrupt("no format version")),
    }
    index.get("object_graph").cloned().ok_or_else(|| corrupt("no object graph"))
}

type Locations = HashMap<String, (std::ops::Range<usize>, Vec<usize>, u32)>;

fn entries_of(metadata: &Metadata, start: usize, path: &Path) -> Result<(Vec<Entry>, Locations)> {
    let corrupt = |why: String| Error::DataLoss(format!("{} is corrupt: {why}", path.display()));
    let table = |name: &str| -> Result<serde_json::Map<String, Value>> {
        metadata
            .metadata()
            .as_ref()
            .and_then(|m| m.get(name))
            .and_then(|s| serde_json::from_str(s).ok())
            .ok_or_else(|| corrupt(format!("no {name} table")))
    };
    let (dtypes, crcs) = (table(DTYPES_KEY)?, table(CRC_KEY)?);
    // Files written before strings were supported have no shapes table.
    let string_shapes = table(STRING_SHAPES_KEY).unwrap_or_default();
    let mut entries = Vec::new();
    let mut locations = HashMap::new();
    for (key, info) in metadata.tensors() {
        let name = dtypes
            .get(&key)
            .and_then(Value::as_str)
            .ok_or_else(|| corrupt(format!("no dtype for '{key}'")))?;
        let dtype =
            DType::from_name(name).map_err(|_| corrupt(format!("unknown dtype '{name}'")))?;
        if stored_form(dtype, &[]).0 != info.dtype {
            return Err(corrupt(format!("'{key}' is stored as {:?}, not {name}", info.dtype)));
        }
        let (begin, end) = info.data_offsets;
        let dims = match dtype {
            DType::C128 => info.shape.split_last().map(|(_, d)| d.to_vec()).unwrap_or_default(),
            DType::String => string_shapes
                .get(&key)
                .and_then(|d| serde_json::from_value::<Vec<usize>>(d.clone()).ok())
                .ok_or_else(|| corrupt(format!("no shape for string entry '{key}'")))?,
            _ => info.shape.clone(),
        };
        entries.push(Entry { key: key.clone(), dtype, shape: Shape(dims) });
        let crc = crcs
            .get(&key)
            .and_then(Value::as_u64)
            .and_then(|c| u32::try_from(c).ok())
            .ok_or_else(|| corrupt(format!("no checksum for '{key}'")))?;
        locations.insert(key, (start + begin..start + end, info.shape.clone(), crc));
    }
    entries.sort_by(|a, b| a.key.cmp(&b.key));
    Ok((entries, locations))
}
