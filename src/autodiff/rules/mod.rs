//! Gradient rules, one per primitive family. Each takes the recorded inputs and outputs and the
//! outputs' gradients and returns the inputs' gradients (None where none flows: indices,
//! conditions). Rules follow TensorFlow's registered gradients, ties and zeros included.

mod elementwise;
mod linalg;
mod reduce;
mod select;

use crate::dispatch::{apply1, Op};
use crate::error::{Error, Result};
use crate::ops;
use crate::ops::binary::BinaryOp;
use crate::ops::patches::{PatchFill, PatchSpec};
use crate::ops::reduce::ReduceOp;
use crate::ops::unary::UnaryOp;
use crate::shape::Shape;
use crate::tensor::Tensor;

/// Whether a primitive passes gradients at all; others are not recorded (TensorFlow registers
/// them as not differentiable or with no gradient).
pub(crate) fn has_gradient(op: &Op) -> bool {
    use BinaryOp as B;
    match op {
        Op::Unary(u) => u.differentiable(),
        Op::Binary(b) => matches!(
            b,
            B::Add
                | B::Sub
                | B::Mul
                | B::Div
                | B::FloorMod
                | B::Pow
                | B::Maximum
                | B::Minimum
                | B::Atan2
                | B::Complex
        ),
        Op::Reduce { op, .. } => !matches!(op, ReduceOp::All | ReduceOp::Any),
        Op::ArgReduce { .. }
        | Op::WhereIndices
        | Op::Unique { .. }
        | Op::Range
        | Op::Random(_)
        | Op::RngState
        | Op::RngSkip(_)
        | Op::StatelessRandom(_)
        | Op::Shape(_) => false,
        _ => true,
    }
}

pub(crate) fn gradient(
    op: &Op,
    inputs: &[Tensor],
    outputs: &[Tensor],
    upstream: &[Option<Tensor>],
) -> Result<Vec<Option<Tensor>>> {
    // Multi-output ops (sort) take their values' gradient; the rest have one output.
    let g = match upstream.first() {
        Some(Some(g)) => g,
        _ => return Ok(vec![None; inputs.len()]),
    };
    let x = &inputs[0];
    let y = &outputs[0];
    match op {
        Op::Unary(u) => Ok(vec![elementwise::unary(*u, x, y, g)?]),
        Op::Binary(b) => elementwise::binary(*b, x, &inputs[1], y, g),
        Op::Cast(_) => Ok(vec![elementwise::cast(x, g)?]),
        Op::Select => elementwise::select(inputs, g),
        Op::Reduce { op, axes, .. } => Ok(vec![reduce::reduce(*op, axes, x, y, g)?]),
        Op::Cumulative { op, axis, exclusive, reverse } => {
            Ok(vec![Some(reduce::cumulative(*op, *axis, *exclusive, *reverse, x, y, g)?)])
        }
        Op::Softmax { log } => Ok(vec![Some(reduce::softmax(*log, y, g)?)]),
        Op::MatMul(attrs) => linalg::matmul(*attrs, x, &inputs[1], g),
        Op::Reshape(_) => Ok(vec![Some(reshape_to(g, x.shape())?)]),
        Op::Transpose(perm) => {
            let perm: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
            Ok(vec![Some(ops::transpose(g, Some(&ops::inverse_permutation(&perm)))?)])
        }
        Op::BroadcastTo(_) => Ok(vec![Some(unbroadcast(g, x.shape())?)]),
        Op::Concat(axis) => select::concat(inputs, *axis, g),
        Op::Tile(multiples) => Ok(vec![Some(select::tile(x, multiples, g)?)]),
        Op::Pad { paddings, mode } => Ok(vec![Some(select::pad(op, x, paddings, *mode, g)?), None]),
        Op::StridedSlice(_) | Op::Gather { .. } | Op::GatherNd => {
            let mut grads = vec![Some(select::scatter_back(op, inputs, g)?)];
            grads.resize(inputs.len(), None);
            Ok(grads)
        }
        Op::ScatterNd(_) => Ok(vec![None, Some(ops::gather_nd(g, x)?)]),
        Op::Sort { .. } => Ok(vec![Some(select::sort(x, &outputs[1], g)?)]),
        Op::Fill(_) => Ok(vec![Some(ops::reduce_sum(g, None, false)?)]),
        // Each is the other's adjoint (both are linear).
        // The fill value is a constant: the adjoint reads and writes zeros there.
        Op::Patches(spec) => {
            let image = [x.dims()[1], x.dims()[2]];
            let spec = PatchSpec { fill: PatchFill::Zero, ..spec.clone() };
            Ok(vec![Some(apply1(&Op::PatchesGrad { spec, image }, &[g])?)])
        }
        Op::PatchesGrad { spec, .. } => {
            let spec = PatchSpec { fill: PatchFill::Zero, ..spec.clone() };
            Ok(vec![Some(apply1(&Op::Patches(spec), &[g])?)])
        }
        // TensorFlow's MaxPoolGradGrad: linear in the pooled gradient, which reads `g` at each
        // window's first maximum; piecewise constant in the image (zero gradient).
        Op::MaxPoolGrad(spec) => Ok(vec![None, Some(ops::conv::at_first_maxima(x, g, spec)?)]),
        Op::Composite(c) => c.gradient(inputs, outputs, g),
        Op::ArgReduce { .. }
        | Op::WhereIndices
        | Op::Unique { .. }
        | Op::Range
        | Op::Random(_)
        | Op::RngState
        | Op::RngSkip(_)
        | Op::StatelessRandom(_)
        | Op::Shape(_) => Ok(vec![None; inputs.len()]),
    }
}

fn reshape_to(g: &Tensor, shape: &Shape) -> Result<Tensor> {
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
