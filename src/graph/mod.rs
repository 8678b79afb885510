//! `tf.function` graphs: tracing records the ops a Python (or Rust) function runs through the
//! dispatch funnel; passes rewrite the graph; the executor runs it without the function.

pub mod control;
mod control_grad;
pub mod deferred;
pub mod executor;
pub mod fused;
mod fused_cpu;
mod instance;
pub mod ir;
pub(crate) mod known_ints;
pub mod loop_saves;
pub mod op_times;
pub mod passes;
pub mod print;
pub mod trace;
mod while_grad;

#[cfg(test)]
pub(crate) mod tests;

pub use crate::ops::primitive::TensorType;
pub use executor::{run, Mode};
pub use ir::{Graph, Node, NodeKind, ValueRef};
