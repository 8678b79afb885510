//! Reads a checkpoint in TensorFlow's format (see `bundle_write`): the index is read and
//! checked whole when opened; each tensor's bytes are read from its data file when asked for.
//! Offsets, sizes, shard numbers, dtypes and shapes all come from the file and are checked
//! before they index or size anything; a damaged file is `DataLoss`.

use super::atomic::io_error;
use super::bundle_write::BUNDLE_VERSION;
use super::paths::{shard_path, OBJECT_GRAPH_KEY};
use super::reader::Entry;
use super::{bundle_bytes, object_graph_proto, sstable_read};
use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::proto::tensorflow::{
    bundle_header_proto::Endianness, BundleEntryProto, BundleHeaderProto, TrackableObjectGraph,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use prost::Message;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// More data files than any real checkpoint has; a larger count is a corrupt header.
const MAX_SHARDS: i32 = 1 << 16;

pub struct BundleReader {
    prefix: PathBuf,
    num_shards: usize,
    /// Every entry but the object graph, by key, with its dtype and shape already checked.
    entries: BTreeMap<String, (Entry, BundleEntryProto)>,
    object_graph: Value,
    object_graph_bytes: Vec<u8>,
}

impl BundleReader {
    /// Reads `index` (the bytes of `<prefix>.index`).
    pub fn open(prefix: &Path, index: &[u8], index_file: &Path) -> Result<BundleReader> {
        let corrupt = |why: &str| {
            Error::DataLoss(format!(
                "Unable to read file ({}). Perhaps the file is corrupt or was produced by a \
                 newer version of TensorFlow with format changes ({why})",
                index_file.display()
            ))
        };
        let table = sstable_read::read_all(index).map_err(|why| corrupt(&why))?;
        let mut rows = table.into_iter();
        let header = match rows.next() {
            Some((key, value)) if key.is_empty() => BundleHeaderProto::decode(value.as_slice())
                .map_err(|_| corrupt("unable to parse header"))?,
            _ => return Err(corrupt("failed to seek to header entry")),
        };
        if header.endianness != Endianness::Little as i32 {
            return Err(Error::Unimplemented(format!(
                "{} was written on a big-endian machine; ferroflow reads little-endian \
                 checkpoints only",
                index_file.display()
            )));
        }
        if let Some(version) = &header.version {
            if version.min_consumer > BUNDLE_VERSION {
                return Err(Error::InvalidArgument(format!(
                    "Checkpoint min consumer version {} above current version {BUNDLE_VERSION} \
                     for TensorFlow",
                    version.min_consumer
                )));
            }
        }
        if !(1..=MAX_SHARDS).contains(&header.num_shards) {
            return Err(corrupt(&format!("{} data files", header.num_shards)));
        }
        let num_shards = header.num_shards as usize;
        let mut entries = BTreeMap::new();
        for (key, value) in rows {
            let key = String::from_utf8(key).map_err(|_| corrupt("a key is not UTF-8"))?;
            let proto = BundleEntryProto::decode(value.as_slice())
                .map_err(|_| Error::DataLoss(format!("Entry for key {key} not parseable.")))?;
            let entry = checked_entry(&key, &proto, num_shards).map_err(|why| corrupt(&why))?;
            entries.insert(key, (entry, proto));
        }
        let mut reader = BundleReader {
            prefix: prefix.to_path_buf(),
            num_shards,
            entries,
            object_graph: Value::Null,
            object_graph_bytes: Vec::new(),
        };
        if let Some((entry, proto)) = reader.entries.remove(OBJECT_GRAPH_KEY) {
            let graph = reader.read(&entry, &proto)?;
            let bytes = match graph.host()? {
                Buffer::Str(s) if s.len() == 1 => s[0].as_bytes().to_vec(),
                _ => return Err(corrupt("the object graph is not a string scalar")),
            };
            let proto = TrackableObjectGraph::decode(bytes.as_slice())
                .map_err(|_| corrupt("the object graph does not parse"))?;
            reader.object_graph = object_graph_proto::to_json(&proto);
            reader.object_graph_bytes = bytes;
        }
        Ok(reader)
    }

    pub fn object_graph(&self) -> &Value {
        &self.object_graph
    }

    /// The serialized `TrackableObjectGraph` as stored (empty when there is none).
    pub fn object_graph_bytes(&self) -> &[u8] {
        &self.object_graph_bytes
    }

    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values().map(|(entry, _)| entry)
    }

    pub fn tensor(&self, key: &str) -> Result<Tensor> {
        let (entry, proto) = self
            .entries
            .get(key)
            .ok_or_else(|| Error::NotFound(format!("Key {key} not found in checkpoint")))?;
        self.read(entry, proto)
    }

    fn read(&self, entry: &Entry, proto: &BundleEntryProto) -> Result<Tensor> {
        if !proto.slices.is_empty() {
            return Err(Error::Unimplemented(format!(
                "'{}' is saved as slices of a partitioned variable, which ferroflow does not \
                 read",
                entry.key
            )));
        }
        // `checked_entry` made these non-negative and the shard id in range.
        let path = shard_path(&self.prefix, proto.shard_id as usize, self.num_shards);
        let bytes = read_range(&path, proto.offset as u64, proto.size as u64)?;
        bundle_bytes::decode(&entry.key, entry.dtype, entry.shape.dims(), &bytes, proto.crc32c)
    }
}

fn checked_entry(
    key: &str,
    proto: &BundleEntryProto,
    num_shards: usize,
) -> std::result::Result<Entry, String> {
    let dtype = u32::try_from(proto.dtype)
        .ok()
        .and_then(|d| DType::from_enum(d).ok())
        .ok_or_else(|| format!("'{key}' has dtype {}, which ferroflow cannot hold", proto.dtype))?;
    let shape = proto.shape.clone().unwrap_or_default();
    if shape.unknown_rank {
        return Err(format!("'{key}' has a shape of unknown rank"));
    }
    let dims = shape
        .dim
        .iter()
        .map(|d| usize::try_from(d.size).map_err(|_| format!("'{key}' has a negative dimension")))
        .collect::<std::result::Result<Vec<usize>, _>>()?;
    dims.iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| format!("'{key}' has too many elements"))?;
    let shard_ok = usize::try_from(proto.shard_id).is_ok_and(|s| s < num_shards);
    if proto.slices.is_empty() && (!shard_ok || proto.offset < 0 || proto.size < 0) {
        return Err(format!("'{key}' points outside the data files"));
    }
    Ok(Entry { key: key.to_string(), dtype, shape: Shape(dims) })
}

/// `size` bytes at `offset` of `path`, checked against the file's length before allocating.
fn read_range(path: &Path, offset: u64, size: u64) -> Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let missing = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => Error::DataLoss(format!(
            "{} is missing: the checkpoint's data file was deleted or never finished",
            path.display()
        )),
        _ => io_error(e, path),
    };
    let mut file = std::fs::File::open(path).map_err(missing)?;
    let length = file.metadata().map_err(|e| io_error(e, path))?.len();
    if offset.checked_add(size).is_none_or(|end| end > length) {
        return Err(Error::DataLoss(format!(
            "{} is truncated: an entry needs bytes {offset}..{} of {length}",
            path.display(),
            offset.saturating_add(size)
        )));
    }
    let mut bytes = vec![0; size as usize];
    file.seek(SeekFrom::Start(offset)).map_err(|e| io_error(e, path))?;
    file.read_exact(&mut bytes).map_err(|e| io_error(e, path))?;
    Ok(bytes)
}
