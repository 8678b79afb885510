//! Checkpoint files, shared by `tf.train.Checkpoint` and SavedModel variables:
//! `<prefix>.index` is JSON (a format tag and the caller's object graph) and
//! `<prefix>.data-00000-of-00001` holds the tensors as safetensors. Both are written under a
//! temporary name and renamed, data first, so a reader (which opens the index first) never sees
//! a half-written checkpoint; a corrupt or hostile file is a `DataLoss` error, never a panic.
//! The format is described in `docs/checkpoint-format.md`.

mod atomic;
mod files;
pub(crate) mod tensor_bytes;

pub(crate) use atomic::io_error;
pub use atomic::write_atomic;
pub use files::{data_path, index_path, write, CheckpointReader, Entry};

#[cfg(test)]
mod tests;
