//! SavedModels that TensorFlow wrote (`saved_model.pb`: a `SavedModel` message holding one
//! MetaGraph with its function library, object graph and signatures; `variables/` a TensorFlow
//! checkpoint), read and run from Rust with no Python.
//!
//! Functions run by interpreting their `FunctionDef`s node by node, each TensorFlow op through
//! the op table (`op_table.rs`), calls (`StatefulPartitionedCall`, `PartitionedCall`) by
//! running the callee: inlining at run time. Default attributes that TensorFlow strips from
//! saved nodes come from the MetaGraph's own op list. An op outside the table is an
//! `UnimplementedError` naming it.

mod model;
mod node_attrs;
mod op_table;
mod run_function;

pub use model::{SignatureSpec, TfSavedModel};

#[cfg(test)]
mod tests;
