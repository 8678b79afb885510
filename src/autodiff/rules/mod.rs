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
use crate::ops::static_shape::{reshape_exact, shape_vector, static_dims};
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
/// axes where it has 1. `others` are the operands `x` was broadcast against (their static
/// dims, right-aligned; `None` where an operand lacks the axis). Static dims decide where
/// they can: an axis is summed where `x` has 1, and kept where `x`'s size is known above 1, or
/// g's is 1, or every other operand lacks the axis or has 1 there (then g's size is `x`'s).
/// Where only the run can tell (x's size unknown and another operand's unknown or above 1),
/// the axes come from `BroadcastGradientArgs` over the shapes when the graph runs, as in
/// TensorFlow's graphs: one trace serves sizes 1 and n alike.
pub(crate) fn unbroadcast(g: &Tensor, x: &Tensor, others: &[Vec<Option<usize>>]) -> Result<Tensor> {
    let (x_dims, g_dims) = (static_dims(x), static_dims(g));
    if g.shape() == x.shape() && x_dims == g_dims && x_dims.iter().all(Option::is_some) {
        return Ok(g.clone());
    }
    let rank = g.rank();
    let lead = rank.checked_sub(x.rank()).ok_or_else(|| {
        Error::Internal(format!("gradient {} cannot reduce to {}", g.shape(), x.shape()))
    })?;
    // The size of the other operands along g's axis `a`, where they have one and it is not 1.
    let others_broadcast = |a: usize| {
        others.iter().any(|o| {
            let Some(k) = (a + o.len()).checked_sub(rank) else { return false };
            o[k] != Some(1)
        })
    };
    let summed_along = |a: usize| -> Option<bool> {
        if a < lead {
            return Some(true);
        }
        match (x_dims[a - lead], g_dims[a]) {
            (Some(1), Some(1)) => Some(false),
            (Some(1), _) => Some(true),
            (Some(_), _) | (None, Some(1)) => Some(false),
            (None, _) if !others_broadcast(a) => Some(false),
            (None, _) => None,
        }
    };
    let Some(axes) = (0..rank)
        .map(|a| summed_along(a).map(|s| s.then_some(a as i64)))
        .collect::<Option<Vec<Option<i64>>>>()
    else {
        return unbroadcast_when_run(g, x);
    };
    let axes: Vec<i64> = axes.into_iter().flatten().collect();
    let summed = if axes.is_empty() { g.clone() } else { ops::reduce_sum(g, Some(&axes), true)? };
    reshape_exact(&summed, x)
}

/// `unbroadcast` with the axes computed from the shapes when the graph runs.
fn unbroadcast_when_run(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    use crate::ops::broadcast_args::BroadcastGradientArgs;
    use crate::ops::reduce::{Reduce, ReduceOp};
    use crate::ops::shape_input::apply_with_shape;
    let x_shape = shape_vector(x)?;
    let g_shape = shape_vector(g)?;
    let axes = crate::dispatch::apply(
        &Op::BroadcastGradientArgs(BroadcastGradientArgs),
        &[&x_shape, &g_shape],
    )?
    .swap_remove(0);
    let sum = Op::Reduce(Reduce { op: ReduceOp::Sum, axes: Vec::new(), keepdims: true });
    let summed = apply_with_shape(sum, &[g], &axes)?;
    reshape_exact(&summed, x)
}

/// The static dims of an operand `x` was broadcast against, for `unbroadcast`.
pub(crate) fn operand_dims(t: &Tensor) -> Vec<Option<usize>> {
    static_dims(t)
}

/// Complex gradients multiply by conjugated derivatives (TensorFlow's convention).
pub(crate) fn conj(x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_complex() {
        ops::unary(UnaryOp::Conj, x)
    } else {
        Ok(x.clone())
    }
}
