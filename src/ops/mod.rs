//! The op library. Each family file holds its primitives (attributes, dtype rules, CPU kernel);
//! this module is the public functional API over `dispatch::apply`, normalising TensorFlow-style
//! arguments (negative axes, optional axes, -1 sizes) before they reach a primitive.

pub mod assert;
pub mod batch_norm;
pub mod betainc;
pub mod binary;
pub mod bitcast;
pub mod broadcast_args;
pub mod cast;
pub mod codecs;
pub mod composite;
pub mod conv;
mod conv_cpu;
pub mod creation;
pub mod edit_distance;
pub mod einsum;
pub mod ensure_shape;
pub mod fft;
pub mod host_call;
pub mod index;
mod index_decl;
pub mod linalg;
pub mod math;
pub mod matmul;
mod max_pool_grad_cpu;
pub mod nms;
pub mod nn;
pub mod parse_example;
pub mod patches;
mod pool_cpu;
pub mod primitive;
pub mod quantized;
pub mod random;
pub mod read_file;
pub mod reduce;
mod reduce_decl;
pub mod registry;
#[cfg(test)]
mod registry_tests;
pub mod resize;
pub mod scatter_add;
pub mod segment;
pub mod select;
mod shape_decl;
pub mod shape_input;
pub mod shape_ops;
pub mod slicing;
pub mod sobol;
pub mod sort;
pub mod special_fns;
pub(crate) mod special_grads;
pub mod split;
pub mod static_shape;
pub mod strings;
pub mod unary;

use crate::dispatch::{apply, apply1, Op};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::shape::{normalize_axes, normalize_axis, Shape};
use crate::tensor::Tensor;
pub use binary::BinaryOp;
pub use matmul::MatMulAttrs;
pub use reduce::{ArgOp, CumOp, ReduceOp};
pub use shape_ops::PadMode;
pub use slicing::SliceItem;
use static_shape::{static_dims, Dim};
pub use unary::UnaryOp;

pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    apply1(&Op::Unary(op), &[x])
}

pub fn binary(op: BinaryOp, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    apply1(&Op::Binary(op), &[x, y])
}

macro_rules! named_unary {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        pub fn $name(x: &Tensor) -> Result<Tensor> { unary(UnaryOp::$op, x) }
    )*};
}
named_unary!(neg => Neg, abs => Abs, square => Square, sqrt => Sqrt, exp => Exp, log => Log,
    log1p => Log1p, tanh => Tanh, sigmoid => Sigmoid, erf => Erf, logical_not => LogicalNot);

macro_rules! named_binary {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        pub fn $name(x: &Tensor, y: &Tensor) -> Result<Tensor> { binary(BinaryOp::$op, x, y) }
    )*};
}
named_binary!(add => Add, sub => Sub, mul => Mul, div => Div, maximum => Maximum, minimum => Minimum,
    pow => Pow, equal => Equal, not_equal => NotEqual, less => Less, greater => Greater,
    greater_equal => GreaterEqual, less_equal => LessEqual, logical_and => And, logical_or => Or);

/// A scalar of `like`'s dtype holding `value` (TensorFlow converts Python scalars this way).
pub fn scalar_like(like: &Tensor, value: f64) -> Tensor {
    let dtype = like.dtype();
    // A quantized `like` gets its storage type's scalar under the quantized type.
    let storage = dtype.storage();
    // A string `like` gets a float scalar, which the op it feeds then rejects by dtype.
    let scalar = crate::with_dtype!(storage, T => Tensor::scalar(T::from_f64(value)), else Tensor::scalar(value as f32));
    match dtype.is_quantized() {
        true => quantized::retag(&scalar, dtype).unwrap_or(scalar),
        false => scalar,
    }
}

pub fn cast(x: &Tensor, dtype: DType) -> Result<Tensor> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    apply1(&Op::Cast(cast::Cast(dtype)), &[x])
}

/// `tf.where(cond, x, y)`.
pub fn select(cond: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    apply1(&Op::Select(select::Select), &[cond, x, y])
}

fn axes_or_all(x: &Tensor, axes: Option<&[i64]>, op: &str) -> Result<Vec<usize>> {
    match axes {
        None => Ok((0..x.rank()).collect()),
        Some(a) => normalize_axes(a, x.rank()).map_err(|e| {
            Error::InvalidArgument(format!(
                "Invalid reduction dimension: {e}, for input with {} dimension(s) [Op:{op}]",
                x.rank()
            ))
        }),
    }
}

/// `reduce_sum` and friends; `axes = None` reduces everything.
pub fn reduce(op: ReduceOp, x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> Result<Tensor> {
    if let Some(flat) = host_call::flat_for_full_reduction(x, axes, keepdims)? {
        return reduce(op, &flat, Some(&[0]), false);
    }
    let axes = axes_or_all(x, axes, op.info().0)?;
    apply1(&Op::Reduce(reduce::Reduce { op, axes, keepdims }), &[x])
}

pub fn reduce_sum(x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> Result<Tensor> {
    reduce(ReduceOp::Sum, x, axes, keepdims)
}

pub fn reduce_max(x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> Result<Tensor> {
    reduce(ReduceOp::Max, x, axes, keepdims)
}

pub fn arg_reduce(op: ArgOp, x: &Tensor, axis: i64, output: DType) -> Result<Tensor> {
    if !matches!(output, DType::I32 | DType::I64) {
        return Err(Error::InvalidArgument(format!(
            "output_type must be int32 or int64, got {output}"
        )));
    }
    if x.dtype() == DType::Bool {
        // TensorFlow's ArgMax and ArgMin take bool (false below true): as uint8 here.
        return arg_reduce(op, &cast(x, DType::U8)?, axis, output);
    }
    let axis = normalize_axis(axis, x.rank())?;
    apply1(&Op::ArgReduce(reduce::ArgReduce { op, axis, output }), &[x])
}

pub fn cumulative(
    op: CumOp,
    x: &Tensor,
    axis: i64,
    exclusive: bool,
    reverse: bool,
) -> Result<Tensor> {
    let axis = normalize_axis(axis, x.rank())?;
    apply1(&Op::Cumulative(reduce::Cumulative { op, axis, exclusive, reverse }), &[x])
}

pub fn matmul(a: &Tensor, b: &Tensor, attrs: MatMulAttrs) -> Result<Tensor> {
    apply1(&Op::MatMul(attrs), &[a, b])
}

pub fn reshape(x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    apply1(&Op::Reshape(shape_ops::Reshape(dims.to_vec())), &[x])
}

/// Transpose by `perm`; `None` reverses the axes.
pub fn transpose(x: &Tensor, perm: Option<&[i64]>) -> Result<Tensor> {
    let perm: Vec<usize> = match perm {
        None => (0..x.rank()).rev().collect(),
        Some(p) => {
            let rank = x.rank() as i64;
            p.iter()
                .map(|&a| {
                    usize::try_from(if a < 0 { a + rank } else { a }).map_err(|_| {
                        Error::InvalidArgument(format!("{a} is out of range [0, {rank})"))
                    })
                })
                .collect::<Result<_>>()?
        }
    };
    apply1(&Op::Transpose(shape_ops::Transpose(perm)), &[x])
}

pub fn broadcast_to(x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    apply1(&Op::BroadcastTo(shape_ops::BroadcastTo(Shape::checked(dims)?)), &[x])
}

pub fn concat(xs: &[&Tensor], axis: i64) -> Result<Tensor> {
    let first = xs.first().ok_or_else(|| {
        Error::Value(
            "List argument 'values' to 'ConcatV2' Op with length 0 shorter than minimum length 1."
                .into(),
        )
    })?;
    let axis = normalize_axis(axis, first.rank()).map_err(|_| {
        Error::InvalidArgument(format!(
            "ConcatOp : Expected concatenating dimensions in the range [{}, {}), but got {axis} [Op:ConcatV2]",
            -(first.rank() as i64),
            first.rank()
        ))
    })?;
    if xs.len() == 1 {
        return Ok((*first).clone());
    }
    apply1(&Op::Concat(shape_ops::Concat(axis)), xs)
}

pub fn expand_dims(x: &Tensor, axis: i64) -> Result<Tensor> {
    let axis = normalize_axis(axis, x.rank() + 1)?;
    let mut dims: Vec<Dim> = (0..x.rank()).map(Dim::Of).collect();
    dims.insert(axis, Dim::Size(1));
    static_shape::reshape_keeping(x, &dims)
}

/// Drops size-1 axes (all those known to be 1 when `axes` is None, as TensorFlow's graphs do).
pub fn squeeze(x: &Tensor, axes: Option<&[i64]>) -> Result<Tensor> {
    let known = static_dims(x);
    let drop: Vec<usize> = match axes {
        None => (0..x.rank()).filter(|&a| known[a] == Some(1)).collect(),
        Some(a) => {
            let axes = normalize_axes(a, x.rank())?;
            // An unknown size is checked when the graph runs, by the reshape.
            if let Some(&bad) = axes.iter().find(|&&a| known[a].is_some_and(|d| d != 1)) {
                return Err(Error::InvalidArgument(format!(
                    "Can not squeeze dim[{bad}], expected a dimension of 1, got {} [Op:Squeeze]",
                    x.shape().dims()[bad]
                )));
            }
            axes
        }
    };
    let dims: Vec<Dim> = (0..x.rank()).filter(|a| !drop.contains(a)).map(Dim::Of).collect();
    static_shape::reshape_keeping(x, &dims)
}

pub fn stack(xs: &[&Tensor], axis: i64) -> Result<Tensor> {
    let first = xs.first().ok_or_else(|| Error::Value("stack needs at least one tensor".into()))?;
    for (i, t) in xs.iter().enumerate() {
        if t.shape() != first.shape() {
            return Err(Error::InvalidArgument(format!(
                "Shapes of all inputs must match: values[0].shape = {} != values[{i}].shape = {} [Op:Pack]",
                first.shape(),
                t.shape()
            )));
        }
    }
    let axis = normalize_axis(axis, first.rank() + 1)?;
    let expanded: Vec<Tensor> =
        xs.iter().map(|t| expand_dims(t, axis as i64)).collect::<Result<_>>()?;
    let refs: Vec<&Tensor> = expanded.iter().collect();
    if refs.len() == 1 {
        return Ok(expanded[0].clone());
    }
    apply1(&Op::Concat(shape_ops::Concat(axis)), &refs)
}

/// Slices along `axis` into pieces of the given sizes (one may be -1), resolved when the
/// `SplitV` node runs.
pub fn split(x: &Tensor, sizes: &[i64], axis: i64) -> Result<Vec<Tensor>> {
    let axis = normalize_axis(axis, x.rank())?;
    apply(&Op::Split(split::Split { axis, pieces: split::Pieces::Sizes(sizes.to_vec()) }), &[x])
}

/// Splits into `num` equal pieces along `axis` (a `Split` node).
pub fn split_even(x: &Tensor, num: usize, axis: i64) -> Result<Vec<Tensor>> {
    let axis = normalize_axis(axis, x.rank())?;
    apply(&Op::Split(split::Split { axis, pieces: split::Pieces::Even(num) }), &[x])
}

/// The pieces of `x` along `axis`. Their number is fixed while tracing: the axis's static
/// size, else `num` (the node then checks the size when it runs, as TensorFlow's Unpack);
/// with neither, the example's size, which specialises the trace.
pub fn unstack(x: &Tensor, axis: i64, num: Option<usize>) -> Result<Vec<Tensor>> {
    let a = normalize_axis(axis, x.rank())?;
    let (source, count) = match (static_dims(x)[a], num) {
        (Some(d), Some(n)) if d != n => {
            return Err(Error::InvalidArgument(format!(
                "Input shape axis {a} must equal {n}, got shape {} [Op:Unpack]",
                x.shape()
            )))
        }
        (Some(d), _) => (x.clone(), d),
        (None, Some(n)) => {
            let mut expected = vec![None; x.rank()];
            expected[a] = Some(n);
            let check = ensure_shape::EnsureShape { shape: expected, traced_size: false };
            (apply1(&Op::EnsureShape(check), &[x])?, n)
        }
        (None, None) => (x.clone(), x.dims()[a]),
    };
    (0..count)
        .map(|i| {
            let mut items = vec![slicing::FULL; x.rank()];
            items[a] = SliceItem::Index(i as i64);
            strided_slice(&source, &items)
        })
        .collect()
}

pub fn strided_slice(x: &Tensor, items: &[SliceItem]) -> Result<Tensor> {
    let spec = slicing::resolve(&shape_decl::slice_resolution_shape(x), items)?;
    apply1(&Op::StridedSlice(spec), &[x])
}

pub fn slice(x: &Tensor, begin: &[i64], size: &[i64]) -> Result<Tensor> {
    let items = slicing::items_from_slice(x.shape(), begin, size)?;
    strided_slice(x, &items)
}

pub fn reverse(x: &Tensor, axes: &[i64]) -> Result<Tensor> {
    let axes = normalize_axes(axes, x.rank())?;
    let items: Vec<SliceItem> = (0..x.rank())
        .map(|a| {
            if axes.contains(&a) {
                SliceItem::Range { start: None, stop: None, step: -1 }
            } else {
                slicing::FULL
            }
        })
        .collect();
    strided_slice(x, &items)
}

pub fn tile(x: &Tensor, multiples: &[i64]) -> Result<Tensor> {
    let m: Vec<usize> = multiples
        .iter()
        .map(|&v| {
            usize::try_from(v).map_err(|_| {
                Error::InvalidArgument(format!("Expected multiples[i] >= 0, but got {v} [Op:Tile]"))
            })
        })
        .collect::<Result<_>>()?;
    apply1(&Op::Tile(shape_ops::Tile(m)), &[x])
}

pub fn pad(x: &Tensor, paddings: &[(i64, i64)], mode: PadMode, constant: f64) -> Result<Tensor> {
    pad_with(x, paddings, mode, &scalar_like(x, constant))
}

/// `pad` with the fill value as a scalar tensor of `x`'s dtype (how strings are padded).
pub fn pad_with(
    x: &Tensor,
    paddings: &[(i64, i64)],
    mode: PadMode,
    constant: &Tensor,
) -> Result<Tensor> {
    let p: Vec<(usize, usize)> = paddings
        .iter()
        .map(|&(b, a)| match (usize::try_from(b), usize::try_from(a)) {
            (Ok(b), Ok(a)) => Ok((b, a)),
            _ => Err(Error::InvalidArgument(format!(
                "Paddings must be non-negative: {b} {a} [Op:PadV2]"
            ))),
        })
        .collect::<Result<_>>()?;
    apply1(&Op::Pad(shape_ops::Pad { paddings: p, mode }), &[x, constant])
}

pub fn gather(params: &Tensor, indices: &Tensor, axis: i64, batch_dims: i64) -> Result<Tensor> {
    let axis = normalize_axis(axis, params.rank())?;
    let bd = if batch_dims < 0 { batch_dims + indices.rank() as i64 } else { batch_dims };
    let bd = usize::try_from(bd)
        .map_err(|_| Error::InvalidArgument(format!("batch_dims {batch_dims} is out of range")))?;
    apply1(&Op::Gather(index::Gather { axis, batch_dims: bd }), &[params, indices])
}

pub fn gather_nd(params: &Tensor, indices: &Tensor) -> Result<Tensor> {
    apply1(&Op::GatherNd(index::GatherNd), &[params, indices])
}

pub fn scatter_nd(indices: &Tensor, updates: &Tensor, shape: &[i64]) -> Result<Tensor> {
    apply1(&Op::ScatterNd(index::ScatterNd(Shape::checked(shape)?)), &[indices, updates])
}

/// `tf.where(cond)`: int64 coordinates of true elements.
pub fn where_indices(cond: &Tensor) -> Result<Tensor> {
    apply1(&Op::WhereIndices(index::WhereIndices), &[cond])
}

pub fn boolean_mask(x: &Tensor, mask: &Tensor, axis: i64) -> Result<Tensor> {
    if mask.dtype() != DType::Bool {
        return Err(Error::Type(format!("mask must be a bool tensor, got {}", mask.dtype())));
    }
    let axis = normalize_axis(axis, x.rank().max(1))?;
    let k = mask.rank();
    // Sizes the trace leaves unknown are compared when the gather runs.
    let (xs, ms) = (static_dims(x), static_dims(mask));
    let compatible = k > 0
        && axis + k <= x.rank()
        && xs[axis..axis + k].iter().zip(&ms).all(|(a, b)| a.is_none() || b.is_none() || a == b);
    if !compatible {
        let show = |dims: &[Option<usize>]| primitive::describe_dims(dims).replace('?', "None");
        return Err(Error::Value(format!(
            "Shapes {} and {} are incompatible",
            show(&xs[axis.min(x.rank())..(axis + k).min(x.rank())]),
            show(&ms)
        )));
    }
    // x with the masked axes flattened into one.
    let mut groups: Vec<Vec<(&Tensor, usize)>> = (0..axis).map(|a| vec![(x, a)]).collect();
    groups.push((axis..axis + k).map(|a| (x, a)).collect());
    groups.extend((axis + k..x.rank()).map(|a| vec![(x, a)]));
    let flat = static_shape::reshape_to_products(x, &groups)?;
    let idx = reshape(&where_indices(&reshape(mask, &[-1])?)?, &[-1])?;
    gather(&flat, &idx, axis as i64, 0)
}

pub fn one_hot(
    indices: &Tensor,
    depth: usize,
    on: &Tensor,
    off: &Tensor,
    axis: i64,
) -> Result<Tensor> {
    if !index::is_index_dtype(indices.dtype()) && indices.dtype() != DType::U8 {
        return Err(Error::InvalidArgument(format!(
            "indices must be an integer tensor, got {}",
            indices.dtype()
        )));
    }
    let axis = if axis == -1 { indices.rank() as i64 } else { axis };
    let axis = normalize_axis(axis, indices.rank() + 1)?;
    let idx = cast(indices, DType::I64)?;
    let positions = creation::range(
        &Tensor::scalar(0i64),
        &Tensor::scalar(depth as i64),
        &Tensor::scalar(1i64),
    )?;
    let mut pos_dims = vec![1i64; indices.rank() + 1];
    pos_dims[axis] = depth as i64;
    let hit = equal(&expand_dims(&idx, axis as i64)?, &reshape(&positions, &pos_dims)?)?;
    select(&hit, on, off)
}

fn move_axis_last(x: &Tensor, axis: usize) -> Result<(Tensor, Option<Vec<i64>>)> {
    if axis + 1 == x.rank() {
        return Ok((x.clone(), None));
    }
    let mut perm: Vec<i64> = (0..x.rank() as i64).filter(|&a| a != axis as i64).collect();
    perm.push(axis as i64);
    let inverse = inverse_permutation(&perm);
    Ok((transpose(x, Some(&perm))?, Some(inverse)))
}

/// Sorted values and their int32 indices along `axis` (stable).
pub fn sort_with_indices(x: &Tensor, axis: i64, descending: bool) -> Result<(Tensor, Tensor)> {
    let axis = normalize_axis(axis, x.rank())?;
    let (moved, inverse) = move_axis_last(x, axis)?;
    let out = apply(&Op::Sort(sort::Sort { descending, k: None }), &[&moved])?;
    let back = |t: &Tensor| match &inverse {
        Some(p) => transpose(t, Some(p)),
        None => Ok(t.clone()),
    };
    Ok((back(&out[0])?, back(&out[1])?))
}

pub fn top_k(x: &Tensor, k: i64) -> Result<(Tensor, Tensor)> {
    if x.rank() == 0 {
        return Err(Error::InvalidArgument("input must be at least rank 1 [Op:TopKV2]".into()));
    }
    // A row size known only when the graph runs is checked by the kernel then.
    let n = static_dims(x)[x.rank() - 1].map_or(i64::MAX, |n| n as i64);
    if k < 0 || k > n {
        return Err(Error::InvalidArgument(format!(
            "input must have at least k columns. Had {n}, needed {k} [Op:TopKV2]"
        )));
    }
    let out = apply(&Op::Sort(sort::Sort { descending: true, k: Some(k as usize) }), &[x])?;
    Ok((out[0].clone(), out[1].clone()))
}

pub fn unique(x: &Tensor, index_dtype: DType) -> Result<(Tensor, Tensor)> {
    let out = apply(&Op::Unique(sort::Unique { index_i64: index_dtype == DType::I64 }), &[x])?;
    Ok((out[0].clone(), out[1].clone()))
}

pub fn fill(dims: &[i64], value: &Tensor) -> Result<Tensor> {
    apply1(&Op::Fill(creation::Fill(Shape::checked(dims)?)), &[value])
}

/// The permutation that undoes `perm` (entries are valid axes).
pub fn inverse_permutation(perm: &[i64]) -> Vec<i64> {
    let mut inverse = vec![0i64; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p as usize] = i as i64;
    }
    inverse
}

/// Ones shaped like `x` when the op runs (TensorFlow's `OnesLike`: no size bakes into a graph).
pub fn ones_like(x: &Tensor) -> Result<Tensor> {
    unary(UnaryOp::OnesLike, x)
}

/// Zeros shaped like `x` when the op runs, like `ones_like`.
pub fn zeros_like(x: &Tensor) -> Result<Tensor> {
    unary(UnaryOp::ZerosLike, x)
}

pub fn zeros(dims: &[i64], dtype: DType) -> Result<Tensor> {
    if dtype.is_quantized() {
        return quantized::retag(&zeros(dims, dtype.storage())?, dtype);
    }
    let shape = Shape::checked(dims)?;
    crate::shape::check_alloc(shape.num_elements(), dtype)?;
    // Made on the host, it lives where a `tf.device` scope asks (as `tf.ones`' Fill does).
    let zeros =
        Tensor::from_buffer(crate::buffer::Buffer::zeros(dtype, shape.num_elements()), shape)?;
    crate::device::place_constant(zeros)
}

pub fn ones(dims: &[i64], dtype: DType) -> Result<Tensor> {
    if dtype.is_quantized() {
        return quantized::retag(&ones(dims, dtype.storage())?, dtype);
    }
    let one = crate::with_dtype!(dtype, T => Tensor::scalar(T::from_f64(1.0)), else {
        return Err(Error::Type("Cannot convert 1 to EagerTensor of dtype string".into()))
    });
    fill(dims, &one)
}

pub fn range(start: &Tensor, limit: &Tensor, delta: &Tensor) -> Result<Tensor> {
    apply1(&Op::Range(creation::Range), &[start, limit, delta])
}
