//! SavedModel directories: a model's variables and the traced graphs of its functions, loadable
//! from Python (`tf.saved_model.load`) or from Rust with no Python at all ([`SavedModel`]).
//!
//! ```text
//! <dir>/saved_model.json                  object tree, functions, signatures, graphs (JSON)
//! <dir>/saved_model.pb                    the same model in TensorFlow's format, for TensorFlow
//! <dir>/variables/variables.index|data-*  the variables, as a checkpoint
//! <dir>/constants.index|data-*            the graphs' constant tensors, as a checkpoint
//! <dir>/assets/                           (empty; TensorFlow's layout)
//! ```
//!
//! The format is described in `docs/saved-model-format.md`.

mod either_format;
pub mod format;
mod graph_codec;
mod load;
pub mod tensorflow;
mod to_tensorflow;
mod write;

pub use either_format::SavedModel;
pub use graph_codec::SinkFactory;
pub use load::{default_sink, FerroflowSavedModel, LoadedConcrete};
pub use write::write;

#[cfg(test)]
mod tests;
