//! Opens a checkpoint in either format: TensorFlow's tensor bundle (what ferroflow writes) or
//! ferroflow's first format, whose `.index` is JSON. The index's first byte tells them apart:
//! an SSTable starts with a data block, whose first entry's shared-prefix count is 0, never `{`.

use super::atomic::io_error;
use super::bundle_read::BundleReader;
use super::legacy::LegacyReader;
use super::paths::index_path;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use serde_json::Value;
use std::path::Path;

/// What a checkpoint holds for one key.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: String,
    pub dtype: DType,
    pub shape: Shape,
}

pub struct CheckpointReader {
    format: Format,
    /// Every entry but the object graph, sorted by key (as `tf.train.list_variables`).
    entries: Vec<Entry>,
}

enum Format {
    Bundle(BundleReader),
    Legacy(LegacyReader),
}

impl CheckpointReader {
    pub fn open(prefix: &Path) -> Result<CheckpointReader> {
        let index_file = index_path(prefix);
        let index = std::fs::read(&index_file).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::NotFound(format!(
                "Unsuccessful TensorSliceReader constructor: Failed to find any matching files \
                 for {}",
                prefix.display()
            )),
            _ => io_error(e, &index_file),
        })?;
        let format = if index.first() == Some(&b'{') {
            Format::Legacy(LegacyReader::open(prefix, &index, &index_file)?)
        } else {
            Format::Bundle(BundleReader::open(prefix, &index, &index_file)?)
        };
        let mut entries: Vec<Entry> = match &format {
            Format::Bundle(r) => r.entries().cloned().collect(),
            Format::Legacy(r) => r.entries().to_vec(),
        };
        entries.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(CheckpointReader { format, entries })
    }

    /// The object graph in its JSON form (null when the checkpoint has none).
    pub fn object_graph(&self) -> &Value {
        match &self.format {
            Format::Bundle(r) => r.object_graph(),
            Format::Legacy(r) => r.object_graph(),
        }
    }

    /// The object graph as stored: a serialized `TrackableObjectGraph` (TensorFlow's format)
    /// or JSON text (ferroflow's first format).
    pub fn object_graph_bytes(&self) -> Vec<u8> {
        match &self.format {
            Format::Bundle(r) => r.object_graph_bytes().to_vec(),
            Format::Legacy(r) => r.object_graph().to_string().into_bytes(),
        }
    }

    /// Whether the checkpoint is in TensorFlow's format.
    pub fn is_tensorflow_format(&self) -> bool {
        matches!(self.format, Format::Bundle(_))
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn tensor(&self, key: &str) -> Result<Tensor> {
        match &self.format {
            Format::Bundle(r) => r.tensor(key),
            Format::Legacy(r) => r.tensor(key),
        }
    }
}
