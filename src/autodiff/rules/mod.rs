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
use crate::ops::static_shape::{reshape_exact, static_dims};
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

/// Sums a broadcast gradient back to `x`'s shape: over the leading axes `x` lacks and the
/// axes where it has 1. Static dims decide, so a traced size can stay unknown; where only the
/// sizes of the run can (x's size unknown, g's known and above 1) the example's decide and the
/// trace is specialised. The result is reshaped to `x`'s exact shape, so a size that differs
/// when the graph runs raises instead of passing a gradient of the wrong shape.
pub(crate) fn unbroadcast(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let (x_dims, g_dims) = (static_dims(x), static_dims(g));
    if g.shape() == x.shape() && x_dims == g_dims && x_dims.iter().all(Option::is_some) {
        return Ok(g.clone());
    }
    let lead = g.rank().checked_sub(x.rank()).ok_or_else(|| {
        Error::Internal(format!("gradient {} cannot reduce to {}", g.shape(), x.shape()))
    })?;
    let broadcast_along = |a: usize| match (x_dims[a - lead], g_dims[a]) {
        (Some(1), Some(1)) => false,
        (Some(1), _) => true,
        (Some(_), _) | (None, None) | (None, Some(1)) => false,
        (None, Some(_)) => x.dims()[a - lead] == 1,
    };
    let axes: Vec<i64> =
        (0..g.rank()).filter(|&a| a < lead || broadcast_along(a)).map(|a| a as i64).collect();
    let summed = if axes.is_empty() { g.clone() } else { ops::reduce_sum(g, Some(&axes), true)? };
    reshape_exact(&summed, x)
}

/// Complex gradients multiply by conjugated derivatives (TensorFlow's convention).
pub(crate) fn conj(x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_complex() {
        ops::unary(UnaryOp::Conj, x)
    } else {
        Ok(x.clone())
    }
}
