//! Checkpoint files, shared by `tf.train.Checkpoint` and SavedModel variables, in TensorFlow's
//! format (a tensor bundle): `<prefix>.index` is an SSTable of `BundleEntryProto`s and
//! `<prefix>.data-NNNNN-of-NNNNN` hold the tensors, with masked CRC-32C checksums; the object
//! graph is the string entry `_CHECKPOINTABLE_OBJECT_GRAPH`. Checkpoints in ferroflow's first
//! format (JSON index, safetensors data) still load. Files are written under a temporary name
//! and renamed, data first, so a reader (which opens the index first) never sees a half-written
//! checkpoint; a corrupt or hostile file is a `DataLoss` error, never a panic.
//! The format is described in `docs/checkpoint-format.md`.

mod atomic;
mod bundle_bytes;
mod bundle_read;
mod bundle_write;
mod legacy;
#[cfg(test)]
mod legacy_write;
mod object_graph_proto;
mod paths;
mod reader;
mod sstable_format;
mod sstable_read;
mod sstable_write;
pub(crate) mod tensor_bytes;

pub(crate) use atomic::io_error;
pub use atomic::write_atomic;
pub use bundle_write::{object_graph_bytes, write};
pub use paths::{data_path, index_path, shard_path, OBJECT_GRAPH_KEY};
pub use reader::{CheckpointReader, Entry};

#[cfg(test)]
mod tests;
