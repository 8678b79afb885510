//! Gradients of ops that move or select elements: concat, tile, pad, slices, gathers, sort.
//! Selections scatter the gradient back to where each output element came from; the positions
//! come from running the same op over the input's element positions, so one rule covers every
//! slicing and gathering mode, and the scatter sums elements selected more than once.

use super::reshape_to;
use crate::dispatch::{apply1, Op};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::shape_ops::PadMode;
use crate::ops::static_shape::reshape_like;
use crate::ops::{self, scalar_like};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// Element positions 0..n of `shape`, int32 when they fit.
fn positions(shape: &Shape) -> Result<Tensor> {
    let n = shape.num_elements();
    let iota = if n <= i32::MAX as usize {
        ops::range(&Tensor::scalar(0i32), &Tensor::scalar(n as i32), &Tensor::scalar(1i32))?
    } else {
        ops::range(&Tensor::scalar(0i64), &Tensor::scalar(n as i64), &Tensor::scalar(1i64))?
    };
    reshape_to(&iota, shape)
}

/// Adds each element of `g` into the input position `selected` names for it.
fn scatter(selected: &Tensor, g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let n = x.num_elements() as i64;
    let index = ops::reshape(selected, &[-1, 1])?;
    let summed = ops::scatter_nd(&index, &ops::reshape(g, &[-1])?, &[n])?;
    reshape_like(&summed, x)
}

/// Strided slices, gather and gather_nd: the op applied to positions, then a scatter.
pub(crate) fn scatter_back(op: &Op, inputs: &[Tensor], g: &Tensor) -> Result<Tensor> {
    let iota = positions(inputs[0].shape())?;
    let mut args: Vec<&Tensor> = vec![&iota];
    args.extend(inputs[1..].iter());
    let selected = apply1(op, &args)?;
    scatter(&selected, g, &inputs[0])
}

pub(crate) fn pad(
    op: &Op,
    x: &Tensor,
    paddings: &[(usize, usize)],
    mode: PadMode,
    g: &Tensor,
) -> Result<Tensor> {
    if mode == PadMode::Constant {
        let begin: Vec<i64> = paddings.iter().map(|p| p.0 as i64).collect();
        return ops::slice(g, &begin, &x.shape().dims_i64());
    }
    // Mirrored elements are copies of inputs: each input collects all its copies.
    let iota = positions(x.shape())?;
    let selected = apply1(op, &[&iota, &scalar_like(&iota, 0.0)])?;
    scatter(&selected, g, x)
}

pub(crate) fn concat(inputs: &[Tensor], axis: usize, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    let mut begin = vec![0i64; g.rank()];
    let mut grads = Vec::with_capacity(inputs.len());
    for input in inputs {
        grads.push(Some(ops::slice(g, &begin, &input.shape().dims_i64())?));
        begin[axis] += input.dims()[axis] as i64;
    }
    Ok(grads)
}

/// Tiles are summed: `g` viewed as (multiple, size) pairs per axis, summed over multiples.
pub(crate) fn tile(x: &Tensor, multiples: &[usize], g: &Tensor) -> Result<Tensor> {
    let split: Vec<i64> =
        multiples.iter().zip(x.dims()).flat_map(|(&m, &d)| [m as i64, d as i64]).collect();
    let axes: Vec<i64> = (0..multiples.len()).map(|a| 2 * a as i64).collect();
    let viewed = ops::reshape(g, &split)?;
    reshape_like(&ops::reduce_sum(&viewed, Some(&axes), false)?, x)
}

/// top_k / sort values: each kept value's gradient goes back to its row position.
pub(crate) fn sort(x: &Tensor, indices: &Tensor, g: &Tensor) -> Result<Tensor> {
    let n = x.dims().last().copied().unwrap_or(1);
    if x.num_elements() == 0 || n == 0 {
        return ops::zeros_like(x);
    }
    let rows = x.num_elements() / n;
    let k = indices.dims().last().copied().unwrap_or(1) as i64;
    let wide = x.num_elements() > i32::MAX as usize;
    let index_dtype = if wide { DType::I64 } else { DType::I32 };
    let starts = ops::range(
        &ops::cast(&Tensor::scalar(0i64), index_dtype)?,
        &ops::cast(&Tensor::scalar((rows * n) as i64), index_dtype)?,
        &ops::cast(&Tensor::scalar(n as i64), index_dtype)?,
    )?;
    let within = ops::reshape(&ops::cast(indices, index_dtype)?, &[rows as i64, k])?;
    let flat = ops::add(&within, &ops::reshape(&starts, &[rows as i64, 1])?)?;
    scatter(&flat, g, x)
}
