//! Gradients of ops that move or select elements: concat, tile, pad, slices, gathers, sort.
//! Selections scatter the gradient back to where each output element came from; the positions
//! come from running the same op over the input's element positions, so one rule covers every
//! slicing and gathering mode, and the scatter sums elements selected more than once.

use super::reshape_to;
use crate::dispatch::{apply1, Op};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::index::ScatterNd;
use crate::ops::shape_input::ShapeArg;
use crate::ops::shape_ops::PadMode;
use crate::ops::slicing::{SliceItem, FULL};
use crate::ops::static_shape::{count_over, reshape_from, reshape_like, static_dims, Dim};
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

/// Whether every dim of `x` is known (always outside traces).
fn fully_known(x: &Tensor) -> bool {
    static_dims(x).iter().all(Option::is_some)
}

/// `x`'s element count as an int32 scalar computed when the graph runs.
fn count_when_run(x: &Tensor) -> Result<Tensor> {
    let all: Vec<usize> = (0..x.rank()).collect();
    count_over(x, &all, DType::I32)
}

/// Element positions of `x`: a constant where its dims are known, else a range over its
/// run-time size, so a traced gradient holds for every size (no specialised retrace).
fn positions_of(x: &Tensor) -> Result<Tensor> {
    if fully_known(x) {
        return positions(x.shape());
    }
    let iota = ops::range(&Tensor::scalar(0i32), &count_when_run(x)?, &Tensor::scalar(1i32))?;
    reshape_like(&iota, x)
}

/// Adds each element of `g` into the input position `selected` names for it.
fn scatter(selected: &Tensor, g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let index = ops::reshape(selected, &[-1, 1])?;
    let updates = ops::reshape(g, &[-1])?;
    let summed = if fully_known(x) {
        ops::scatter_nd(&index, &updates, &[x.num_elements() as i64])?
    } else {
        let length = ops::reshape(&count_when_run(x)?, &[1])?;
        ShapeArg::Traced(length).apply(&[&index, &updates], |dims| {
            Ok(Op::ScatterNd(ScatterNd(Shape::checked(dims)?)))
        })?
    };
    reshape_like(&summed, x)
}

/// `values` (one row of params per index, any leading shape) summed into zeros shaped like
/// `params` at the rows `indices` name: one scatter of whole rows (TensorFlow's
/// IndexedSlices made dense), with no element positions made; a loop summing them adds the
/// rows in place (`passes::scatter_add`). `None` where params' dims are not all known, or
/// it has no elements (the positions' scatter handles those).
pub(crate) fn scatter_rows(
    params: &Tensor,
    indices: &Tensor,
    values: &Tensor,
) -> Result<Option<Tensor>> {
    let Some(dims) = static_dims(params).into_iter().collect::<Option<Vec<usize>>>() else {
        return Ok(None);
    };
    if dims.is_empty() || dims.contains(&0) {
        return Ok(None);
    }
    let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let rows = ops::reshape(indices, &[-1, 1])?;
    let updates = ops::reshape(values, &[&[-1][..], &shape[1..]].concat())?;
    Ok(Some(ops::scatter_nd(&rows, &updates, &shape)?))
}

/// Strided slices, gather and gather_nd: the op applied to positions, then a scatter.
pub(crate) fn scatter_back(op: &Op, inputs: &[Tensor], g: &Tensor) -> Result<Tensor> {
    let iota = positions_of(&inputs[0])?;
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
        // g[before : -after] on every axis: no size of x is read, so the slice holds for
        // every size (the example's sizes here made a later call's gradient the wrong shape).
        let items: Vec<SliceItem> = paddings
            .iter()
            .map(|&(before, after)| SliceItem::Range {
                start: (before > 0).then_some(before as i64),
                stop: (after > 0).then(|| -(after as i64)),
                step: 1,
            })
            .collect();
        return ops::strided_slice(g, &items);
    }
    // Mirrored elements are copies of inputs: each input collects all its copies.
    let iota = positions_of(x)?;
    let selected = apply1(op, &[&iota, &scalar_like(&iota, 0.0)])?;
    scatter(&selected, g, x)
}

/// Each input's part of `g` along the concat axis. Only the sizes along that axis are read:
/// statically known, they make strided slices; otherwise the parts are gathers of ranges
/// computed from the inputs' run-time sizes, so one trace serves every size.
pub(crate) fn concat(inputs: &[Tensor], axis: usize, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    let sizes: Option<Vec<usize>> = inputs.iter().map(|t| static_dims(t)[axis]).collect();
    let mut grads = Vec::with_capacity(inputs.len());
    match sizes {
        Some(sizes) => {
            let mut start = 0i64;
            for size in sizes {
                let mut items = vec![FULL; g.rank()];
                let stop = start + size as i64;
                items[axis] = SliceItem::Range { start: Some(start), stop: Some(stop), step: 1 };
                grads.push(Some(ops::strided_slice(g, &items)?));
                start = stop;
            }
        }
        None => {
            let mut start = Tensor::scalar(0i32);
            for input in inputs {
                let stop = ops::add(&start, &count_over(input, &[axis], DType::I32)?)?;
                let part = ops::range(&start, &stop, &Tensor::scalar(1i32))?;
                grads.push(Some(ops::gather(g, &part, axis as i64, 0)?));
                start = stop;
            }
        }
    }
    Ok(grads)
}

/// Tiles are summed: `g` viewed as (multiple, size) pairs per axis, summed over multiples.
pub(crate) fn tile(x: &Tensor, multiples: &[usize], g: &Tensor) -> Result<Tensor> {
    // x's sizes where the trace knows them, else its run-time ones.
    let split: Vec<Dim> =
        multiples.iter().enumerate().flat_map(|(a, &m)| [Dim::Size(m), Dim::Of(a)]).collect();
    let axes: Vec<i64> = (0..multiples.len()).map(|a| 2 * a as i64).collect();
    let viewed = reshape_from(g, x, &split)?;
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
