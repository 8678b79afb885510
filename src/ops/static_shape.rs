//! Compositions that need sizes, written so a traced size that is unknown stays unknown: they
//! read the static dims (what the trace knows; every dim outside traces) instead of the example
//! value's, and where a size they need is unknown they compute it from a `Shape` node when the
//! graph runs. Reading an example's size instead would tie the graph to the traced shapes.

use super::shape_input::ShapeArg;
use super::shape_ops::{BroadcastTo, Reshape, ShapeOf};
use super::{apply1, cast, reduce, slicing::SliceItem, stack, strided_slice, ReduceOp};
use crate::dispatch::Op;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::graph::trace;
use crate::tensor::Tensor;

/// One dimension of a reshape's target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    Size(usize),
    /// The input's size along this axis.
    Of(usize),
}

/// The dims of `x` as far as they are known (see `trace::static_dims`).
pub fn static_dims(x: &Tensor) -> Vec<Option<usize>> {
    trace::static_dims(x)
}

/// `x`'s dims as an int32 vector, computed when the graph runs.
pub fn shape_vector(x: &Tensor) -> Result<Tensor> {
    apply1(&Op::Shape(ShapeOf(DType::I32)), &[x])
}

/// `x`'s size along `axis` as an int32 scalar computed when the graph runs.
fn size_along(shape: &Tensor, axis: usize) -> Result<Tensor> {
    strided_slice(shape, &[SliceItem::Index(axis as i64)])
}

/// `x` reshaped to `target` (`Dim::Of` naming `x`'s axes).
pub fn reshape_keeping(x: &Tensor, target: &[Dim]) -> Result<Tensor> {
    reshape_from(x, x, target)
}

/// `t` reshaped to `like`'s shape, which may be known only when the graph runs.
pub fn reshape_like(t: &Tensor, like: &Tensor) -> Result<Tensor> {
    // A value of unknown rank (a host call's result): its shape when the graph runs.
    if crate::graph::trace::has_unknown_rank(like) {
        return ShapeArg::Traced(shape_vector(like)?)
            .apply(&[t], |dims| Ok(Op::Reshape(Reshape(dims.to_vec()))));
    }
    if t.shape() == like.shape() {
        return Ok(t.clone());
    }
    let target: Vec<Dim> = (0..like.rank()).map(Dim::Of).collect();
    reshape_from(t, like, &target)
}

/// `t` reshaped to `like`'s exact shape: where `like` has unknown sizes the shape is a `Shape`
/// node's value, never a -1, so a `t` of another element count raises when the graph runs.
pub fn reshape_exact(t: &Tensor, like: &Tensor) -> Result<Tensor> {
    let arg = shape_arg_of(like)?;
    if let ShapeArg::Dims(dims) = &arg {
        if t.shape().dims_i64() == *dims {
            return Ok(t.clone());
        }
    }
    arg.apply(&[t], |dims| Ok(Op::Reshape(Reshape(dims.to_vec()))))
}

/// Whether a reshape to `sizes` can leave its one unknown size to a -1: not beside a known 0,
/// where the -1 cannot be resolved from the element count.
fn takes_minus_one(sizes: &[Option<i64>]) -> bool {
    match sizes.iter().filter(|s| s.is_none()).count() {
        0 => true,
        1 => !sizes.contains(&Some(0)),
        _ => false,
    }
}

/// `x` reshaped to `target`, whose `Dim::Of` name axes of `source`. A known size is an
/// attribute; a single unknown one becomes the reshape's -1; more than one make the target a
/// shape input computed from `source`'s dims when the graph runs.
pub fn reshape_from(x: &Tensor, source: &Tensor, target: &[Dim]) -> Result<Tensor> {
    let known = static_dims(source);
    let sizes: Vec<Option<i64>> = target
        .iter()
        .map(|d| match *d {
            Dim::Size(n) => Some(n as i64),
            Dim::Of(a) => known.get(a).copied().flatten().map(|n| n as i64),
        })
        .collect();
    if takes_minus_one(&sizes) {
        let dims: Vec<i64> = sizes.iter().map(|s| s.unwrap_or(-1)).collect();
        return super::reshape(x, &dims);
    }
    let shape = shape_vector(source)?;
    let items = target
        .iter()
        .map(|d| match *d {
            Dim::Size(n) => Ok(Tensor::scalar(n as i32)),
            Dim::Of(a) => size_along(&shape, a),
        })
        .collect::<Result<Vec<Tensor>>>()?;
    let refs: Vec<&Tensor> = items.iter().collect();
    let target = ShapeArg::Traced(stack(&refs, 0)?);
    target.apply(&[x], |dims| Ok(Op::Reshape(Reshape(dims.to_vec()))))
}

/// How many elements the reduction of `x` over `axes` gathers, as a scalar of `dtype`:
/// a constant where those sizes are known, else computed when the graph runs.
pub fn count_over(x: &Tensor, axes: &[usize], dtype: DType) -> Result<Tensor> {
    let known = static_dims(x);
    if let Some(sizes) = axes.iter().map(|&a| known[a]).collect::<Option<Vec<usize>>>() {
        let count = sizes.iter().product::<usize>() as f64;
        return Ok(
            crate::with_dtype!(dtype, T => Tensor::scalar(T::from_f64(count)), else Tensor::scalar(count as f32)),
        );
    }
    let shape = shape_vector(x)?;
    let sizes = axes.iter().map(|&a| size_along(&shape, a)).collect::<Result<Vec<Tensor>>>()?;
    let refs: Vec<&Tensor> = sizes.iter().collect();
    cast(&reduce(ReduceOp::Prod, &stack(&refs, 0)?, None, false)?, dtype)
}

/// `x`'s shape as a shape argument: its dims where all are known, else a `Shape` node's value.
pub fn shape_arg_of(x: &Tensor) -> Result<ShapeArg> {
    match static_dims(x).into_iter().collect::<Option<Vec<usize>>>() {
        Some(dims) => Ok(ShapeArg::Dims(dims.iter().map(|&d| d as i64).collect())),
        None => shape_vector(x).map(ShapeArg::Traced),
    }
}

/// `t` broadcast to `x`'s shape, which may be known only when the graph runs.
pub fn broadcast_like(t: &Tensor, x: &Tensor) -> Result<Tensor> {
    shape_arg_of(x)?
        .apply(&[t], |dims| Ok(Op::BroadcastTo(BroadcastTo(crate::shape::Shape::checked(dims)?))))
}

/// `x` reshaped to the sizes of `axes`, each an axis of some tensor: a size the trace knows is
/// an attribute, a single unknown one the reshape's -1, more make the target a shape input
/// computed from those tensors' dims when the graph runs.
pub fn reshape_to_axes_of(x: &Tensor, axes: &[(&Tensor, usize)]) -> Result<Tensor> {
    let groups: Vec<Vec<(&Tensor, usize)>> = axes.iter().map(|&a| vec![a]).collect();
    reshape_to_products(x, &groups)
}

/// `x` reshaped so that each target dim is the product of the sizes of a group of axes (each
/// an axis of some tensor; an empty group is 1), with the same rules as `reshape_to_axes_of`.
pub fn reshape_to_products(x: &Tensor, groups: &[Vec<(&Tensor, usize)>]) -> Result<Tensor> {
    let product = |group: &[(&Tensor, usize)]| -> Option<i64> {
        group.iter().try_fold(1i64, |p, &(t, a)| static_dims(t)[a].map(|n| p * n as i64))
    };
    let sizes: Vec<Option<i64>> = groups.iter().map(|g| product(g)).collect();
    if takes_minus_one(&sizes) {
        let dims: Vec<i64> = sizes.iter().map(|s| s.unwrap_or(-1)).collect();
        return super::reshape(x, &dims);
    }
    let items = groups
        .iter()
        .zip(&sizes)
        .map(|(group, known)| match known {
            Some(n) => Ok(Tensor::scalar(*n as i32)),
            // One axis: its size as such (what the trace knows of the elements stays known).
            None if group.len() == 1 => size_along(&shape_vector(group[0].0)?, group[0].1),
            None => {
                let parts = group
                    .iter()
                    .map(|&(t, a)| size_along(&shape_vector(t)?, a))
                    .collect::<Result<Vec<Tensor>>>()?;
                let refs: Vec<&Tensor> = parts.iter().collect();
                reduce(ReduceOp::Prod, &stack(&refs, 0)?, None, false)
            }
        })
        .collect::<Result<Vec<Tensor>>>()?;
    let refs: Vec<&Tensor> = items.iter().collect();
    ShapeArg::Traced(stack(&refs, 0)?).apply(&[x], |dims| Ok(Op::Reshape(Reshape(dims.to_vec()))))
}

/// `x` as a matrix: its leading `split` axes (in order) as rows, the rest as columns, with
/// products of sizes known only at run time computed then.
pub fn reshape_to_matrix(x: &Tensor, split: usize) -> Result<Tensor> {
    let known = static_dims(x);
    let product = |range: std::ops::Range<usize>| -> Option<i64> {
        known[range].iter().try_fold(1i64, |p, d| d.map(|d| p * d as i64))
    };
    let (rows, cols) = (product(0..split), product(split..x.rank()));
    match (rows, cols) {
        (Some(r), Some(c)) => super::reshape(x, &[r, c]),
        (None, Some(c)) if c > 0 => super::reshape(x, &[-1, c]),
        (Some(r), None) if r > 0 => super::reshape(x, &[r, -1]),
        _ => {
            let lead: Vec<usize> = (0..split).collect();
            let rest: Vec<usize> = (split..x.rank()).collect();
            let r = count_over(x, &lead, DType::I32)?;
            let c = count_over(x, &rest, DType::I32)?;
            ShapeArg::Traced(stack(&[&r, &c], 0)?)
                .apply(&[x], |dims| Ok(Op::Reshape(Reshape(dims.to_vec()))))
        }
    }
}
