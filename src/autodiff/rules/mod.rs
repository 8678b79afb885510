//! Gradient rules, one module per primitive family, which the primitives' declarations call.
//! Each takes the recorded inputs and outputs and the outputs' gradients and returns the
//! inputs' gradients (None where none flows: indices, conditions). Rules follow TensorFlow's
//! registered gradients, ties and zeros included.

pub(crate) mod elementwise;
pub(crate) mod linalg;
pub(crate) mod reduce;
pub(crate) mod select;

use crate::dispatch::Op;
use crate::error::{Error, Result};
use crate::ops;
use crate::ops::unary::UnaryOp;
use crate::shape::Shape;
use crate::tensor::Tensor;

/// Whether a primitive passes gradients at all; others are not recorded (TensorFlow registers
/// them as not differentiable or with no gradient).
pub(crate) fn has_gradient(op: &Op) -> bool {
    op.primitive().differentiable()
}

/// The inputs' gradients from the outputs' (`Primitive::gradient_of_outputs`: by default none
/// flow when the first output's gradient is absent, as multi-output ops such as sort
/// differentiate through their values).
pub(crate) fn gradient(
    op: &Op,
    inputs: &[Tensor],
    outputs: &[Tensor],
    upstream: &[Option<Tensor>],
) -> Result<Vec<Option<Tensor>>> {
    op.primitive().gradient_of_outputs(inputs, outputs, upstream)
}

pub(crate) fn reshape_to(g: &Tensor, shape: &Shape) -> Result<Tensor> {
    if g.shape() == shape {
        return Ok(g.clone());
    }
    ops::reshape(g, &shape.dims_i64())
}

/// Sums a broadcast gradient back to `shape`: over the leading axes `shape` lacks and the axes
/// where it has 1.
pub(crate) fn unbroadcast(g: &Tensor, shape: &Shape) -> Result<Tensor> {
    if g.shape() == shape {
        return Ok(g.clone());
    }
    let lead = g.rank().checked_sub(shape.rank()).ok_or_else(|| {
        Error::Internal(format!("gradient {} cannot reduce to {}", g.shape(), shape))
    })?;
    let axes: Vec<i64> = (0..g.rank())
        .filter(|&a| a < lead || (shape.dims()[a - lead] == 1 && g.dims()[a] != 1))
        .map(|a| a as i64)
        .collect();
    let summed = if axes.is_empty() { g.clone() } else { ops::reduce_sum(g, Some(&axes), true)? };
    reshape_to(&summed, shape)
}

/// Complex gradients multiply by conjugated derivatives (TensorFlow's convention).
pub(crate) fn conj(x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_complex() {
        ops::unary(UnaryOp::Conj, x)
    } else {
        Ok(x.clone())
    }
}
