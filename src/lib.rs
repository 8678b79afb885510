//! ferroflow: a TensorFlow-2-style machine-learning framework in Rust.
//!
//! Tensors are cheap handles to reference-counted storage; every op goes through one funnel,
//! [`dispatch::apply`]; CPU kernels use ndarray and rayon. The Python package (feature `python`)
//! presents TensorFlow's API on top of this crate.
//!
//! ```
//! use ferroflow::{ops, Tensor};
//! let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
//! let total = ops::reduce_sum(&x, None, false).unwrap();
//! assert_eq!(total.to_vec::<f32>().unwrap(), vec![21.0]);
//! ```
// Proving a frozen pyclass holding a tape `Sync` walks tensors, their GPU storage and
// wgpu-core's types: deeper than the default limit of 128 once tapes hold more state.
#![recursion_limit = "256"]

pub mod autodiff;
pub mod buffer;
pub mod check_numerics;
pub mod checkpoint;
pub mod device;
pub mod dispatch;
pub mod dtype;
pub mod element;
pub mod error;
#[cfg(feature = "gpu")]
pub mod gpu;
/// Without the `gpu` feature, a backend with no devices and the same interface.
#[cfg(not(feature = "gpu"))]
#[path = "gpu_stub.rs"]
pub mod gpu;
pub mod graph;
pub mod io;
pub mod kernels;
pub mod ops;
pub mod proto;
pub mod roofline;
mod row_stack;
pub mod saved_model;
pub mod serve;
pub mod shape;
pub mod tensor;
pub mod tstring;
pub mod variable;

#[cfg(feature = "python")]
mod python;
#[cfg(test)]
mod test_support;

pub use autodiff::Tape;
pub use buffer::Buffer;
pub use device::Device;
pub use dtype::DType;
pub use error::{Error, Result};
pub use saved_model::SavedModel;
pub use shape::Shape;
pub use tensor::Tensor;
pub use variable::Variable;
