//! Gradients of reductions, scans and softmax.

use crate::error::Result;
use crate::ops::reduce::{CumOp, ReduceOp};
use crate::ops::static_shape::{broadcast_like, reshape_from, Dim};
use crate::ops::{self, UnaryOp};
use crate::tensor::Tensor;

/// `g` reshaped to the reduction's output with the reduced axes kept as 1.
fn kept(g: &Tensor, x: &Tensor, axes: &[usize]) -> Result<Tensor> {
    let dims: Vec<usize> =
        (0..x.rank()).map(|a| if axes.contains(&a) { 1 } else { x.shape().dims()[a] }).collect();
    if g.shape().dims() == dims {
        return Ok(g.clone());
    }
    let target: Vec<Dim> =
        (0..x.rank()).map(|a| if axes.contains(&a) { Dim::Size(1) } else { Dim::Of(a) }).collect();
    reshape_from(g, x, &target)
}

pub(crate) fn reduce(
    op: ReduceOp,
    axes: &[usize],
    x: &Tensor,
    y: &Tensor,
    g: &Tensor,
) -> Result<Option<Tensor>> {
    let g_kept = kept(g, x, axes)?;
    let axes_i64: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let grad = match op {
        ReduceOp::Sum => broadcast_like(&g_kept, x)?,
        ReduceOp::Max | ReduceOp::Min => {
            // Ties share the gradient equally (TensorFlow's indicator rule).
            let hit = ops::equal(x, &kept(y, x, axes)?)?;
            let indicators = ops::cast(&hit, x.dtype())?;
            let count = ops::reduce_sum(&indicators, Some(&axes_i64), true)?;
            ops::mul(&ops::div(&indicators, &count)?, &g_kept)?
        }
        ReduceOp::Prod => {
            // TensorFlow's ProdGrad conjugates the other factors (complex inputs).
            let others = product_of_others(x, axes)?;
            let others =
                if x.dtype().is_complex() { ops::unary(UnaryOp::Conj, &others)? } else { others };
            ops::mul(&others, &g_kept)?
        }
        ReduceOp::All | ReduceOp::Any => return Ok(None),
    };
    Ok(Some(grad))
}

/// For each element, the product of the other elements of its reduction group, from exclusive
/// cumulative products both ways (no division, so zeros are handled), as TensorFlow's ProdGrad.
fn product_of_others(x: &Tensor, axes: &[usize]) -> Result<Tensor> {
    if axes.is_empty() {
        return ops::ones_like(x);
    }
    if x.num_elements() == 0 {
        return ops::zeros_like(x);
    }
    let others: Vec<usize> = (0..x.rank()).filter(|a| !axes.contains(a)).collect();
    let perm: Vec<i64> = axes.iter().chain(&others).map(|&a| a as i64).collect();
    let moved = ops::transpose(x, Some(&perm))?;
    let reduced: usize = axes.iter().map(|&a| x.dims()[a]).product();
    let flat = ops::reshape(&moved, &[reduced as i64, -1])?;
    let left = ops::cumulative(CumOp::Prod, &flat, 0, true, false)?;
    let right = ops::cumulative(CumOp::Prod, &flat, 0, true, true)?;
    let both = ops::reshape(&ops::mul(&left, &right)?, &moved.shape().dims_i64())?;
    ops::transpose(&both, Some(&ops::inverse_permutation(&perm)))
}

pub(crate) fn cumulative(
    op: CumOp,
    axis: usize,
    exclusive: bool,
    reverse: bool,
    x: &Tensor,
    y: &Tensor,
    g: &Tensor,
) -> Result<Tensor> {
    let axis = axis as i64;
    match op {
        CumOp::Sum => ops::cumulative(CumOp::Sum, g, axis, exclusive, !reverse),
        // TensorFlow's CumprodGrad: divides by x, so zeros in x give inf/nan there as well.
        CumOp::Prod => {
            let summed = ops::cumulative(CumOp::Sum, &ops::mul(y, g)?, axis, exclusive, !reverse)?;
            ops::div(&summed, x)
        }
    }
}

pub(crate) fn softmax(log: bool, y: &Tensor, g: &Tensor) -> Result<Tensor> {
    if log {
        let total = ops::reduce_sum(g, Some(&[-1]), true)?;
        ops::sub(g, &ops::mul(&ops::unary(UnaryOp::Exp, y)?, &total)?)
    } else {
        let dot = ops::reduce_sum(&ops::mul(g, y)?, Some(&[-1]), true)?;
        ops::mul(&ops::sub(g, &dot)?, y)
    }
}
