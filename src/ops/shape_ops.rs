//! Movement primitives: reshape, transpose, broadcast_to, concat, tile, pad and strided slice.
//! Reshape shares storage; the others copy through ndarray's strided views.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::element::Movable;
use crate::error::{Error, Result};
use crate::kernels::broadcast::{broadcast_copy, materialize};
use crate::ops::primitive::TensorType;
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::with_movable;
use ndarray::{ArrayViewD, Axis, IxDyn, Slice};

// The primitives' attributes (their `Primitive` declarations are in `shape_decl.rs`).

/// `Reshape`: the new dims, one of which may be -1 (inferred from the element count).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Reshape(pub Vec<i64>);

/// `Transpose`: output axis `i` is input axis `perm[i]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Transpose(pub Vec<usize>);

/// `BroadcastTo`: the full output shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct BroadcastTo(pub Shape);

/// `ConcatV2` along this (normalised) axis.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Concat(pub usize);

/// `PadV2` (or a mirror pad): `(before, after)` per axis. Inputs: x and a scalar constant.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Pad {
    pub paddings: Vec<(usize, usize)>,
    pub mode: PadMode,
}

/// `Tile`: how many copies along each axis.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Tile(pub Vec<usize>);

/// TensorFlow's `Shape`: the input's dims as a vector of this (integer) dtype, for `tf.shape`
/// where a traced size is unknown.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct ShapeOf(pub DType);

/// The padded elements: `v[source]`, or the fill value (`constant`'s one element).
fn padded<T: Movable>(v: &[T], sources: &[Option<usize>], constant: &Buffer) -> Result<Buffer> {
    let fill = T::unwrap_vec(constant)
        .and_then(|c| c.first())
        .ok_or_else(|| Error::Internal("pad: fill value of another dtype".into()))?;
    let out = crate::kernels::parallel::generate(sources.len(), |i| match sources[i] {
        Some(src) => v[src].clone(),
        None => fill.clone(),
    });
    Ok(T::wrap_vec(out))
}

fn view<'a, T>(data: &'a [T], shape: &Shape) -> Result<ArrayViewD<'a, T>> {
    ArrayViewD::from_shape(IxDyn(shape.dims()), data)
        .map_err(|e| Error::Internal(format!("bad buffer for shape {shape}: {e}")))
}

/// Reshape to `dims`, where one entry may be -1 (inferred).
pub fn reshape(x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    Ok(x.with_shape(reshape_shape(x.num_elements(), dims)?))
}

/// The requested dims with the -1 counted as 1, and where the -1 is (at most one).
pub(crate) fn reshape_request(dims: &[i64]) -> Result<(Shape, Option<usize>)> {
    let unknown: Vec<usize> =
        dims.iter().enumerate().filter(|(_, &d)| d == -1).map(|(i, _)| i).collect();
    if unknown.len() > 1 {
        return Err(Error::InvalidArgument(format!(
            "Only one input size may be -1, not both {} and {} [Op:Reshape]",
            unknown[0], unknown[1]
        )));
    }
    let known: Vec<i64> = dims.iter().map(|&d| if d == -1 { 1 } else { d }).collect();
    let partial =
        Shape::checked(&known).map_err(|e| Error::InvalidArgument(format!("{e} [Op:Reshape]")))?;
    Ok((partial, unknown.first().copied()))
}

/// The shape rule of `Reshape`: `n` elements viewed as `dims`.
pub(crate) fn reshape_shape(n: usize, dims: &[i64]) -> Result<Shape> {
    let (partial, unknown) = reshape_request(dims)?;
    let mut out = partial.0.clone();
    if let Some(u) = unknown {
        let p = partial.num_elements();
        if p == 0 || !n.is_multiple_of(p) {
            return Err(Error::InvalidArgument(format!(
                "Input to reshape is a tensor with {n} values, but the requested shape requires a multiple of {p} [Op:Reshape]"
            )));
        }
        out[u] = n / p;
    } else if partial.num_elements() != n {
        return Err(Error::InvalidArgument(format!(
            "Input to reshape is a tensor with {n} values, but the requested shape has {} [Op:Reshape]",
            partial.num_elements()
        )));
    }
    Ok(Shape(out))
}

/// The shape rule of `Transpose` (shared with the GPU kernel): `perm` must permute the axes.
pub fn transpose_shape(shape: &Shape, perm: &[usize]) -> Result<Shape> {
    check_permutation(shape.rank(), perm)?;
    Ok(Shape(perm.iter().map(|&p| shape.dims()[p]).collect()))
}

pub(crate) fn check_permutation(rank: usize, perm: &[usize]) -> Result<()> {
    let mut seen = vec![false; rank];
    if perm.len() != rank
        || perm.iter().any(|&p| p >= rank || std::mem::replace(&mut seen[p], true))
    {
        return Err(Error::InvalidArgument(format!(
            "transpose expects a permutation of 0..{rank}, got {perm:?} [Op:Transpose]"
        )));
    }
    Ok(())
}

pub fn transpose(x: &Tensor, perm: &[usize]) -> Result<Tensor> {
    let out_shape = transpose_shape(x.shape(), perm)?;
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return Ok(x.clone());
    }
    let out = with_movable!(x.buffer(), v => {
        Movable::wrap_vec(crate::kernels::transpose::permute(v, x.shape().dims(), perm))
    });
    Ok(Tensor::from_buffer_unchecked(out, out_shape))
}

pub fn broadcast_to(x: &Tensor, shape: &Shape) -> Result<Tensor> {
    if x.shape() == shape {
        return Ok(x.clone());
    }
    crate::shape::check_alloc(shape.num_elements(), x.dtype())?;
    let err = || {
        Error::InvalidArgument(format!(
            "Unable to broadcast tensor of shape {} to tensor of shape {shape} [Op:BroadcastTo]",
            x.shape()
        ))
    };
    if shape.rank() < x.rank() {
        return Err(err());
    }
    let out = with_movable!(x.buffer(), v => {
        let base = view(v, x.shape())?;
        let b = base.broadcast(IxDyn(shape.dims())).ok_or_else(err)?;
        Movable::wrap_vec(broadcast_copy(v, x.shape(), &b))
    });
    Ok(Tensor::from_buffer_unchecked(out, shape.clone()))
}

/// The shape rule of `ConcatV2` (shared with the GPU kernel).
pub fn concat_shape(inputs: &[&Tensor], axis: usize) -> Result<Shape> {
    let first = inputs
        .first()
        .ok_or_else(|| Error::InvalidArgument("concat needs at least one tensor".into()))?;
    let rank = first.rank();
    if axis >= rank {
        return Err(Error::InvalidArgument(format!(
            "ConcatOp : Expected concatenating dimensions in the range [{}, {rank}), but got {axis} [Op:ConcatV2]",
            -(rank as i64)
        )));
    }
    for t in inputs {
        if t.dtype() != first.dtype() {
            return Err(Error::dtype_mismatch("ConcatV2", first.dtype(), t.dtype()));
        }
        let same_other_dims =
            t.rank() == rank && (0..rank).all(|a| a == axis || t.dims()[a] == first.dims()[a]);
        if !same_other_dims {
            return Err(Error::InvalidArgument(format!(
                "ConcatOp : Dimension {} in both shapes must be equal: shape[0] = {} vs. shape[{}] = {} [Op:ConcatV2]",
                (0..rank.min(t.rank())).find(|&a| a != axis && t.dims()[a] != first.dims()[a]).unwrap_or(0),
                first.shape(),
                inputs.iter().position(|x| std::ptr::eq(*x, *t)).unwrap_or(0),
                t.shape()
            )));
        }
    }
    let mut dims = first.dims().to_vec();
    dims[axis] = inputs.iter().map(|t| t.dims()[axis]).sum();
    Ok(Shape(dims))
}

pub fn concat(inputs: &[&Tensor], axis: usize) -> Result<Tensor> {
    let out_shape = concat_shape(inputs, axis)?;
    let outer: usize = out_shape.dims()[..axis].iter().product();
    let out = with_movable!(inputs[0].buffer(), v0 => concat_typed(v0, inputs, axis, outer)?);
    Ok(Tensor::from_buffer_unchecked(out, out_shape))
}

fn concat_typed<T: Movable>(
    _first: &[T],
    inputs: &[&Tensor],
    axis: usize,
    outer: usize,
) -> Result<Buffer> {
    let parts: Vec<&Vec<T>> = inputs
        .iter()
        .map(|t| T::unwrap_vec(t.buffer()))
        .collect::<Option<_>>()
        .ok_or_else(|| Error::Internal("concat: dtype mismatch".into()))?;
    let rows: Vec<usize> = inputs.iter().map(|t| t.dims()[axis..].iter().product()).collect();
    // Each output row (one per `outer` index) is the inputs' rows side by side; `starts[p]`
    // is where input `p`'s row begins in it.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(rows.iter().scan(0, |end, &row| {
            *end += row;
            Some(*end)
        }))
        .collect();
    let width = starts[rows.len()];
    // Chunks of the output are copied on all cores: stacking a tf.data batch of images (tens
    // of MB) on one thread left the others idle.
    let out = crate::kernels::parallel::build(outer * width, |offset, dst| {
        let mut written = 0;
        while written < dst.len() {
            let position = offset + written;
            let (o, within) = (position / width, position % width);
            // The last input starting at or before `within`: zero-width inputs are skipped.
            let p = starts.partition_point(|&s| s <= within) - 1;
            let from = within - starts[p];
            let n = (rows[p] - from).min(dst.len() - written);
            let src = &parts[p][o * rows[p] + from..][..n];
            for (d, s) in dst[written..written + n].iter_mut().zip(src) {
                d.write(s.clone());
            }
            written += n;
        }
    });
    Ok(T::wrap_vec(out))
}

/// The shape rule of `Tile` (shared with the GPU kernel).
pub fn tile_shape(x: &Tensor, multiples: &[usize]) -> Result<Shape> {
    Shape::checked(&known_i64(&tile_dims(&TensorType::of(x), multiples)?))
}

/// `Tile`'s rule on static dims: a size is known where the input's is or the multiple is 0.
/// Sizes saturate, so an overflow is `Shape::checked`'s error.
pub(crate) fn tile_dims(x: &TensorType, multiples: &[usize]) -> Result<Vec<Option<usize>>> {
    if multiples.len() != x.rank() {
        return Err(Error::InvalidArgument(format!(
            "Expected multiples argument to be a vector of length {} but got length {} [Op:Tile]",
            x.rank(),
            multiples.len()
        )));
    }
    Ok(x.dims
        .iter()
        .zip(multiples)
        .map(|(&d, &m)| if m == 0 { Some(0) } else { d.map(|d| d.saturating_mul(m)) })
        .collect())
}

/// Fully known static dims as a request for `Shape::checked` (too large saturates to an error).
fn known_i64(dims: &[Option<usize>]) -> Vec<i64> {
    dims.iter().map(|d| d.map_or(i64::MAX, |d| i64::try_from(d).unwrap_or(i64::MAX))).collect()
}

pub fn tile(x: &Tensor, multiples: &[usize]) -> Result<Tensor> {
    let out_shape = tile_shape(x, multiples)?;
    // Tiling is a broadcast of an interleaved view: [d] -> [m, d] -> reshape [m*d].
    let mut expanded = Vec::with_capacity(2 * x.rank());
    let mut target = Vec::with_capacity(2 * x.rank());
    for (&d, &m) in x.dims().iter().zip(multiples) {
        expanded.extend([1, d]);
        target.extend([m, d]);
    }
    let b = broadcast_to(&x.with_shape(Shape(expanded)), &Shape(target))?;
    Ok(b.with_shape(out_shape))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum PadMode {
    Constant,
    Reflect,
    Symmetric,
}

/// Pads each axis by `(before, after)`; `constant` is a scalar tensor of x's dtype.
/// The shape rule of `PadV2`/`MirrorPad` (shared with the GPU kernel).
pub fn pad_shape(
    x: &Tensor,
    paddings: &[(usize, usize)],
    mode: PadMode,
    constant: &Tensor,
) -> Result<Shape> {
    let dims = pad_dims(&TensorType::of(x), paddings, mode, &TensorType::of(constant))?;
    let out_shape = Shape::checked(&known_i64(&dims))?;
    crate::shape::check_alloc(out_shape.num_elements(), x.dtype())?;
    Ok(out_shape)
}

/// `PadV2`/`MirrorPad`'s rule on static dims: a size is known where the input's is. Sizes
/// saturate, so an overflow is `Shape::checked`'s error.
pub(crate) fn pad_dims(
    x: &TensorType,
    paddings: &[(usize, usize)],
    mode: PadMode,
    constant: &TensorType,
) -> Result<Vec<Option<usize>>> {
    if paddings.len() != x.rank() {
        return Err(Error::InvalidArgument(format!(
            "The first dimension of paddings must be the rank of inputs[{}], got {} [Op:PadV2]",
            x.rank(),
            paddings.len()
        )));
    }
    if constant.dtype != x.dtype {
        return Err(Error::InvalidArgument(format!(
            "cannot compute PadV2 as input #2(zero-based) was expected to be a {} tensor but is a {} tensor [Op:PadV2]",
            x.dtype.name(),
            constant.dtype.name()
        )));
    }
    if !constant.dims.is_empty() {
        let dims: Vec<String> =
            constant.dims.iter().map(|d| d.map_or("?".into(), |d| d.to_string())).collect();
        return Err(Error::InvalidArgument(format!(
            "constant_values must be a scalar. Found: [{}] [Op:PadV2]",
            dims.join(",")
        )));
    }
    for (axis, (&(b, a), d)) in paddings.iter().zip(&x.dims).enumerate() {
        let Some(d) = *d else { continue };
        let limit = match mode {
            PadMode::Constant => usize::MAX,
            PadMode::Reflect => d.saturating_sub(1),
            PadMode::Symmetric => d,
        };
        if b > limit || a > limit {
            return Err(Error::InvalidArgument(format!(
                "paddings must be no greater than the dimension size: {b}, {a} greater than {d} for axis {axis} [Op:MirrorPad]"
            )));
        }
    }
    Ok(x.dims
        .iter()
        .zip(paddings)
        .map(|(d, &(b, a))| d.map(|d| d.saturating_add(b).saturating_add(a)))
        .collect())
}

pub fn pad(
    x: &Tensor,
    paddings: &[(usize, usize)],
    mode: PadMode,
    constant: &Tensor,
) -> Result<Tensor> {
    let out_shape = pad_shape(x, paddings, mode, constant)?;
    let in_strides = x.shape().strides();
    let out_strides = out_shape.strides();
    // Where each output element comes from: an input position, or None for the fill value.
    let sources: Vec<Option<usize>> =
        crate::kernels::parallel::generate(out_shape.num_elements(), |flat| {
            let mut src = 0usize;
            let mut rest = flat;
            for axis in 0..out_strides.len() {
                let i = rest / out_strides[axis];
                rest %= out_strides[axis];
                let (before, d) = (paddings[axis].0 as i64, x.dims()[axis] as i64);
                let mut j = i as i64 - before;
                if j < 0 || j >= d {
                    match mode {
                        PadMode::Constant => return None,
                        PadMode::Reflect => j = if j < 0 { -j } else { 2 * (d - 1) - j },
                        PadMode::Symmetric => j = if j < 0 { -j - 1 } else { 2 * d - 1 - j },
                    }
                }
                src += j as usize * in_strides[axis];
            }
            Some(src)
        });
    let out = with_movable!(x.buffer(), v => padded(v, &sources, constant.buffer())?);
    Ok(Tensor::from_buffer_unchecked(out, out_shape))
}

/// A resolved strided slice: per input axis `(start, len, step)` (step may be negative), then
/// the output shape (which drops shrunk axes and adds new ones). It keeps the user's items and
/// the input shape they were resolved against, so a traced graph re-resolves them when an
/// input of another shape arrives.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SliceSpec {
    pub ranges: Vec<(usize, usize, isize)>,
    pub out_shape: Shape,
    pub items: Vec<crate::ops::slicing::SliceItem>,
    pub input: Shape,
}

pub fn strided_slice(x: &Tensor, spec: &SliceSpec) -> Result<Tensor> {
    if spec.ranges.len() != x.rank() {
        return Err(Error::Internal("slice spec rank mismatch".into()));
    }
    let out = with_movable!(x.buffer(), v => {
        let mut view = view(v, x.shape())?;
        for (axis, &(start, len, step)) in spec.ranges.iter().enumerate() {
            let s = if len == 0 {
                Slice::new(0, Some(0), 1)
            } else if step > 0 {
                Slice::new(start as isize, Some(start as isize + (len as isize - 1) * step + 1), step)
            } else {
                // ndarray applies a negative step from the end of the range.
                let low = start as isize + (len as isize - 1) * step;
                Slice::new(low, Some(start as isize + 1), step)
            };
            view.slice_axis_inplace(Axis(axis), s);
        }
        Movable::wrap_vec(materialize(&view))
    });
    let b: Buffer = out;
    Tensor::from_buffer(b, spec.out_shape.clone())
}

/// The registry test's table: one entry (at least) per TensorFlow name of this family.
#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    use crate::ops::slicing::{resolve, SliceItem};

    fn f32s(v: &[f32], dims: &[usize]) -> Tensor {
        Tensor::from_slice(v, dims).unwrap()
    }
    let x23 = || f32s(&[0.5, -1.0, 2.0, 3.5, -0.25, 4.0], &[2, 3]);
    let slice = |items: &[SliceItem]| resolve(&Shape(vec![2, 3]), items).unwrap();
    let range = |start, stop, step| SliceItem::Range { start, stop, step };
    let pad = |mode| Pad { paddings: vec![(1, 0), (2, 1)], mode };
    vec![
        (Op::Reshape(Reshape(vec![3, -1])), vec![x23()]),
        (Op::Transpose(Transpose(vec![1, 0])), vec![x23()]),
        (Op::BroadcastTo(BroadcastTo(Shape(vec![2, 2, 3]))), vec![x23()]),
        (Op::Concat(Concat(1)), vec![x23(), f32s(&[7.0, 8.0], &[2, 1])]),
        (Op::StridedSlice(slice(&[range(Some(1), None, 1), range(None, None, -2)])), vec![x23()]),
        (
            Op::StridedSlice(slice(&[
                SliceItem::Ellipsis,
                SliceItem::NewAxis,
                SliceItem::Index(-1),
            ])),
            vec![x23()],
        ),
        (Op::Pad(pad(PadMode::Constant)), vec![x23(), Tensor::scalar(0.5f32)]),
        (Op::Pad(pad(PadMode::Reflect)), vec![x23(), Tensor::scalar(0.0f32)]),
        (Op::Pad(pad(PadMode::Symmetric)), vec![x23(), Tensor::scalar(0.0f32)]),
        (Op::Tile(Tile(vec![2, 1])), vec![x23()]),
        (Op::Shape(ShapeOf(DType::I32)), vec![x23()]),
        (Op::Shape(ShapeOf(DType::I64)), vec![x23()]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iota(d: &[usize]) -> Tensor {
        let n: usize = d.iter().product();
        Tensor::from_slice(&(0..n as i32).collect::<Vec<_>>(), d).unwrap()
    }

    #[test]
    fn transpose_and_reshape() {
        let x = iota(&[2, 3]);
        let t = transpose(&x, &[1, 0]).unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![0, 3, 1, 4, 2, 5]);
        let r = reshape(&x, &[-1, 2]).unwrap();
        assert_eq!(r.dims(), &[3, 2]);
        assert!(r.shares_storage(&x));
        assert!(reshape(&x, &[4, -1]).is_err());
        assert!(reshape(&x, &[-1, -1]).is_err());
    }

    #[test]
    fn tile_and_pad() {
        let x = iota(&[2]);
        assert_eq!(tile(&x, &[3]).unwrap().to_vec::<i32>().unwrap(), vec![0, 1, 0, 1, 0, 1]);
        let z = Tensor::scalar(9i32);
        let x = iota(&[3]);
        let p = |m| pad(&x, &[(2, 2)], m, &z).unwrap().to_vec::<i32>().unwrap();
        assert_eq!(p(PadMode::Constant), vec![9, 9, 0, 1, 2, 9, 9]);
        assert_eq!(p(PadMode::Reflect), vec![2, 1, 0, 1, 2, 1, 0]);
        assert_eq!(p(PadMode::Symmetric), vec![1, 0, 0, 1, 2, 2, 1]);
    }

    #[test]
    fn negative_step_slice() {
        let x = iota(&[5]);
        let spec = SliceSpec {
            ranges: vec![(4, 3, -2)],
            out_shape: Shape(vec![3]),
            items: Vec::new(),
            input: Shape(vec![5]),
        };
        assert_eq!(strided_slice(&x, &spec).unwrap().to_vec::<i32>().unwrap(), vec![4, 2, 0]);
    }
}
