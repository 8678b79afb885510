//! SavedModels that TensorFlow wrote (`saved_model.pb`: a `SavedModel` message holding one
//! MetaGraph with its function library, object graph and signatures; `variables/` a TensorFlow
//! checkpoint), read and run from Rust with no Python.
//!
//! Functions run by interpreting their `FunctionDef`s node by node, each TensorFlow op through
//! the op table (`op_table.rs`), calls (`StatefulPartitionedCall`, `PartitionedCall`) by
//! running the callee: inlining at run time. Default attributes that TensorFlow strips from
//! saved nodes come from the MetaGraph's own op list. An op outside the table is an
//! `UnimplementedError` naming it.

mod captures;
mod model;
mod node_attrs;
mod objects;
mod op_call;
mod op_table;
mod ops_array;
mod ops_control;
mod ops_lookup;
mod ops_nn;
mod ops_ragged;
mod ops_strings;
mod ops_tensor_list;
mod registry_defaults;
mod resources;
mod run_function;

pub use model::{SignatureSpec, TfSavedModel};
pub use objects::ObjectNode;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_fixtures;
#[cfg(test)]
mod tests_lookup;
#[cfg(test)]
mod tests_ops;
