//! Module-level functions of `ferroflow._core`: each converts its arguments, calls the Rust op
//! and maps errors. Names and defaults are TensorFlow's, applied by the Python wrappers.

use super::args::{self, int_arg, int_list, opt_dtype, opt_int_list};
use super::convert::{is_tensor_like, to_tensor, Hint};
use super::errors::IntoPy;
use super::tensor::{wrap, PyTensor};
use crate::dispatch::Op;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::creation::Fill;
use crate::ops::shape_input::ShapeArg;
use crate::ops::shape_ops::{BroadcastTo, Reshape};
use crate::ops::{
    self, batch_norm, math, nn, random, ArgOp, BinaryOp, CumOp, MatMulAttrs, PadMode, ReduceOp,
    UnaryOp,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

type PyT = Py<PyTensor>;

fn t(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    to_tensor(obj, Hint::Infer)
}

fn like(obj: &Bound<'_, PyAny>, other: &Tensor) -> PyResult<Tensor> {
    to_tensor(obj, Hint::Prefer(other.dtype()))
}

fn out(py: Python<'_>, r: Result<Tensor>) -> PyResult<PyT> {
    wrap(py, r.py()?)
}

fn outs(py: Python<'_>, r: Result<Vec<Tensor>>) -> PyResult<Vec<PyT>> {
    r.py()?.into_iter().map(|t| wrap(py, t)).collect()
}

fn tensors(list: &Bound<'_, PyAny>) -> PyResult<Vec<Tensor>> {
    let mut v: Vec<Tensor> = Vec::new();
    for item in list.try_iter()? {
        let item = item?;
        let t = match v.first() {
            Some(first) => like(&item, first)?,
            None => t(&item)?,
        };
        v.push(t);
    }
    Ok(v)
}

/// Converts two operands, each taking the other's dtype as a hint when it is a plain value.
fn pair(x: &Bound<'_, PyAny>, y: &Bound<'_, PyAny>) -> PyResult<(Tensor, Tensor)> {
    pair_with(x, y, Hint::Prefer)
}

/// Like `pair`, but a plain value must convert to the tensor operand's dtype.
fn strict_pair(x: &Bound<'_, PyAny>, y: &Bound<'_, PyAny>) -> PyResult<(Tensor, Tensor)> {
    pair_with(x, y, Hint::Require)
}

/// Converts the tensor operand first (or `x` when neither is one), then the other with `hint`
/// of the first one's dtype.
fn pair_with(
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    hint: fn(DType) -> Hint,
) -> PyResult<(Tensor, Tensor)> {
    // Two tensors are taken as they are: a dtype mismatch is then the op's InvalidArgumentError,
    // as TensorFlow's generated ops raise it.
    if x.cast::<PyTensor>().is_ok() && y.cast::<PyTensor>().is_ok() {
        return Ok((t(x)?, t(y)?));
    }
    if is_tensor_like(x) || !is_tensor_like(y) {
        let a = t(x)?;
        let b = to_tensor(y, hint(a.dtype()))?;
        Ok((a, b))
    } else {
        let b = t(y)?;
        Ok((to_tensor(x, hint(b.dtype()))?, b))
    }
}

#[pyfunction]
#[pyo3(signature = (value, dtype=None, dtype_hint=None))]
fn convert_to_tensor(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    dtype: Option<u32>,
    dtype_hint: Option<u32>,
) -> PyResult<PyT> {
    let hint = match (opt_dtype(dtype)?, opt_dtype(dtype_hint)?) {
        (Some(d), _) => Hint::Require(d),
        (None, Some(h)) => Hint::Prefer(h),
        _ => Hint::Infer,
    };
    if let Ok(existing) = value.cast::<PyTensor>() {
        if hint == Hint::Infer
            || Some(existing.get().inner.dtype()) == opt_dtype(dtype)?
            || dtype.is_none()
        {
            return Ok(existing.clone().unbind());
        }
    }
    wrap(py, crate::device::place_constant(to_tensor(value, hint)?).py()?)
}

#[pyfunction]
#[pyo3(signature = (value, dtype=None, shape=None))]
fn constant(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    dtype: Option<u32>,
    shape: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyT> {
    let dtype = opt_dtype(dtype)?;
    if let (Ok(existing), Some(d)) = (value.cast::<PyTensor>(), dtype) {
        let e = &existing.get().inner;
        if e.dtype() != d {
            return Err(PyTypeError::new_err(format!(
                "Expected tensor {} with dtype tf.{}, but got dtype tf.{}.",
                existing.str()?,
                d.name(),
                e.dtype().name()
            )));
        }
    }
    let tensor = to_tensor(value, dtype.map_or(Hint::Infer, Hint::Require))?;
    let tensor = crate::device::place_constant(tensor).py()?;
    let Some(dims) = opt_int_list(shape)? else { return wrap(py, tensor) };
    let target = Shape::checked(&dims).map_err(|e| match e {
        Error::InvalidArgument(m) => PyValueError::new_err(m),
        other => super::errors::to_py(other),
    })?;
    if tensor.num_elements() == target.num_elements() {
        return out(py, ops::reshape(&tensor, &dims));
    }
    if tensor.num_elements() == 1 {
        return out(py, ops::fill(&dims, &ops::reshape(&tensor, &[]).py()?));
    }
    Err(PyTypeError::new_err(format!(
        "Eager execution of tf.constant with unsupported shape. Tensor {} (converted from {}) has {} elements, but got `shape` {} with {} elements).",
        super::convert::to_numpy(py, &tensor)?.str()?,
        value.repr()?,
        tensor.num_elements(),
        target.tf_string(),
        target.num_elements()
    )))
}

#[pyfunction]
fn is_tensor(value: &Bound<'_, PyAny>) -> bool {
    is_tensor_like(value)
}

/// The unary primitives' declarations as (Python name, TensorFlow name, differentiable,
/// float32 GPU kernel or the reason there is none): the registry the tests walk.
#[pyfunction]
fn unary_declarations() -> Vec<(&'static str, &'static str, bool, String)> {
    use crate::ops::unary::GpuClass;
    UnaryOp::ALL
        .iter()
        .map(|&op| {
            let d = op.decl();
            let gpu = match (op.wgsl(GpuClass::F32), d.cpu_only) {
                (Some(wgsl), _) => format!("wgsl: {wgsl}"),
                (None, Some(why)) => format!("cpu only: {why}"),
                (None, None) => "no float32 kernel".to_string(),
            };
            (d.python_name, d.tf_name, op.differentiable(), gpu)
        })
        .collect()
}

/// Every registry row with the TensorFlow op names its primitives go by.
#[pyfunction]
fn op_registry() -> Vec<(&'static str, Vec<&'static str>)> {
    crate::dispatch::Op::registry()
}

#[pyfunction]
fn unary(py: Python<'_>, name: &str, x: &Bound<'_, PyAny>) -> PyResult<PyT> {
    let x = t(x)?;
    let r = match name {
        "relu" => nn::relu(&x),
        "relu6" => nn::relu6(&x),
        "elu" => nn::elu(&x),
        "selu" => nn::selu(&x),
        "softplus" => nn::softplus(&x),
        "l2_loss" => nn::l2_loss(&x),
        "logical_not" if !x.dtype().is_bool() => Err(Error::InvalidArgument(format!(
            "logical_not expects a bool tensor, got {}",
            x.dtype()
        ))),
        _ => {
            let op = UnaryOp::from_name(name)
                .ok_or_else(|| PyValueError::new_err(format!("unknown unary op {name}")))?;
            ops::unary(op, &x)
        }
    };
    out(py, r)
}

#[pyfunction]
fn binary(py: Python<'_>, name: &str, x: &Bound<'_, PyAny>, y: &Bound<'_, PyAny>) -> PyResult<PyT> {
    // As in TensorFlow, `add` infers its operands' dtypes (a mismatch fails in the op), the
    // others convert Python values to the tensor operand's dtype (a misfit is a TypeError).
    let (a, b) = if name == "add" { pair(x, y)? } else { strict_pair(x, y)? };
    let r = match name {
        "truediv" => math::truediv(&a, &b),
        "squared_difference" => math::squared_difference(&a, &b),
        "logical_and" | "logical_or" | "logical_xor"
            if !(a.dtype().is_bool() && b.dtype().is_bool()) =>
        {
            Err(Error::InvalidArgument(format!(
                "{name} expects bool tensors, got {} and {}",
                a.dtype(),
                b.dtype()
            )))
        }
        "logical_and" => ops::binary(BinaryOp::And, &a, &b),
        "logical_or" => ops::binary(BinaryOp::Or, &a, &b),
        "logical_xor" => ops::binary(BinaryOp::Xor, &a, &b),
        _ => {
            let op = BinaryOp::from_name(name)
                .ok_or_else(|| PyValueError::new_err(format!("unknown binary op {name}")))?;
            ops::binary(op, &a, &b)
        }
    };
    out(py, r)
}

#[pyfunction]
fn cast(py: Python<'_>, x: &Bound<'_, PyAny>, dtype: u32) -> PyResult<PyT> {
    out(py, ops::cast(&t(x)?, args::dtype(dtype)?))
}

#[pyfunction]
#[pyo3(signature = (name, x, axis=None, keepdims=false))]
fn reduce(
    py: Python<'_>,
    name: &str,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<PyT> {
    let x = t(x)?;
    let axes = opt_int_list(axis)?;
    let a = axes.as_deref();
    let r = match name {
        "sum" => ops::reduce(ReduceOp::Sum, &x, a, keepdims),
        "prod" => ops::reduce(ReduceOp::Prod, &x, a, keepdims),
        "max" => ops::reduce(ReduceOp::Max, &x, a, keepdims),
        "min" => ops::reduce(ReduceOp::Min, &x, a, keepdims),
        "all" => ops::reduce(ReduceOp::All, &x, a, keepdims),
        "any" => ops::reduce(ReduceOp::Any, &x, a, keepdims),
        "mean" => math::reduce_mean(&x, a, keepdims),
        "variance" => math::reduce_variance(&x, a, keepdims),
        "std" => math::reduce_std(&x, a, keepdims),
        "logsumexp" => math::reduce_logsumexp(&x, a, keepdims),
        _ => return Err(PyValueError::new_err(format!("unknown reduction {name}"))),
    };
    out(py, r)
}

#[pyfunction]
#[pyo3(signature = (x, axis=None, keepdims=false, dtype=9))]
fn count_nonzero(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    dtype: u32,
) -> PyResult<PyT> {
    let axes = opt_int_list(axis)?;
    out(py, math::count_nonzero(&t(x)?, axes.as_deref(), keepdims, args::dtype(dtype)?))
}

#[pyfunction]
fn arg_reduce(
    py: Python<'_>,
    name: &str,
    x: &Bound<'_, PyAny>,
    axis: &Bound<'_, PyAny>,
    output_type: u32,
) -> PyResult<PyT> {
    let op = if name == "argmax" { ArgOp::ArgMax } else { ArgOp::ArgMin };
    out(py, ops::arg_reduce(op, &t(x)?, int_arg(axis)?, args::dtype(output_type)?))
}

#[pyfunction]
fn cumulative(
    py: Python<'_>,
    name: &str,
    x: &Bound<'_, PyAny>,
    axis: &Bound<'_, PyAny>,
    exclusive: bool,
    reverse: bool,
) -> PyResult<PyT> {
    let op = if name == "cumsum" { CumOp::Sum } else { CumOp::Prod };
    out(py, ops::cumulative(op, &t(x)?, int_arg(axis)?, exclusive, reverse))
}

#[pyfunction]
#[pyo3(signature = (a, b, transpose_a=false, transpose_b=false, adjoint_a=false, adjoint_b=false))]
fn matmul(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    transpose_a: bool,
    transpose_b: bool,
    adjoint_a: bool,
    adjoint_b: bool,
) -> PyResult<PyT> {
    if (transpose_a && adjoint_a) || (transpose_b && adjoint_b) {
        return Err(PyValueError::new_err(
            "Only one of transpose and adjoint may be True for each argument",
        ));
    }
    let (x, y) = pair(a, b)?;
    out(py, ops::matmul(&x, &y, MatMulAttrs { transpose_a, transpose_b, adjoint_a, adjoint_b }))
}

#[pyfunction]
fn reshape(py: Python<'_>, x: &Bound<'_, PyAny>, shape: &Bound<'_, PyAny>) -> PyResult<PyT> {
    let x = t(x)?;
    let reshape = |dims: &[i64]| Ok(Op::Reshape(Reshape(dims.to_vec())));
    out(py, args::shape_arg(shape)?.apply(&[&x], reshape))
}

#[pyfunction]
#[pyo3(signature = (x, perm=None, conjugate=false))]
fn transpose(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    perm: Option<&Bound<'_, PyAny>>,
    conjugate: bool,
) -> PyResult<PyT> {
    let x = t(x)?;
    let p = opt_int_list(perm)?;
    let r = ops::transpose(&x, p.as_deref());
    let r = if conjugate { r.and_then(|t| ops::unary(UnaryOp::Conj, &t)) } else { r };
    out(py, r)
}

#[pyfunction]
fn broadcast_to(py: Python<'_>, x: &Bound<'_, PyAny>, shape: &Bound<'_, PyAny>) -> PyResult<PyT> {
    let x = t(x)?;
    let broadcast = |dims: &[i64]| Ok(Op::BroadcastTo(BroadcastTo(Shape::checked(dims)?)));
    out(py, args::shape_arg(shape)?.apply(&[&x], broadcast))
}

/// An `Assert` node: `parts` are text (`str`) or tensors, shown when `condition` is false.
#[pyfunction]
#[pyo3(signature = (condition, parts, summarize=None))]
fn assert_(
    condition: &Bound<'_, PyAny>,
    parts: Vec<Bound<'_, PyAny>>,
    summarize: Option<i64>,
) -> PyResult<()> {
    use crate::ops::assert::{Assert, AssertPart};
    let mut inputs = vec![t(condition)?];
    let mut items = Vec::with_capacity(parts.len());
    for part in &parts {
        match part.extract::<String>() {
            Ok(text) => items.push(AssertPart::Text(text)),
            Err(_) => {
                inputs.push(t(part)?);
                items.push(AssertPart::Tensor);
            }
        }
    }
    let summarize = summarize.and_then(|n| usize::try_from(n).ok());
    let op = Op::Assert(Assert { parts: items, summarize });
    let refs: Vec<&Tensor> = inputs.iter().collect();
    crate::dispatch::apply(&op, &refs).py().map(|_| ())
}

/// `tf.ensure_shape` with a known rank (`dims` holds None where any size is accepted).
#[pyfunction]
fn ensure_shape(py: Python<'_>, x: &Bound<'_, PyAny>, dims: Vec<Option<i64>>) -> PyResult<PyT> {
    let x = t(x)?;
    let shape = dims
        .into_iter()
        .map(|d| match d {
            None | Some(-1) => Ok(None),
            Some(n) => usize::try_from(n).map(Some).map_err(|_| {
                PyValueError::new_err(format!("a dimension must be None or at least 0, got {n}"))
            }),
        })
        .collect::<PyResult<Vec<_>>>()?;
    let check = crate::ops::ensure_shape::EnsureShape { shape, traced_size: false };
    out(py, crate::dispatch::apply1(&Op::EnsureShape(check), &[&x]))
}

#[pyfunction]
fn concat(py: Python<'_>, values: &Bound<'_, PyAny>, axis: &Bound<'_, PyAny>) -> PyResult<PyT> {
    let v = tensors(values)?;
    let refs: Vec<&Tensor> = v.iter().collect();
    out(py, ops::concat(&refs, int_arg(axis)?))
}

#[pyfunction]
fn stack(py: Python<'_>, values: &Bound<'_, PyAny>, axis: &Bound<'_, PyAny>) -> PyResult<PyT> {
    let v = tensors(values)?;
    let refs: Vec<&Tensor> = v.iter().collect();
    out(py, ops::stack(&refs, int_arg(axis)?))
}

#[pyfunction]
#[pyo3(signature = (x, num=None, axis=0))]
fn unstack(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    num: Option<i64>,
    axis: i64,
) -> PyResult<Vec<PyT>> {
    let x = t(x)?;
    let num = num
        .map(|n| {
            usize::try_from(n).map_err(|_| {
                super::errors::to_py(Error::InvalidArgument(format!(
                    "Value for attr 'num' of {n} must be at least minimum 0 [Op:Unpack]"
                )))
            })
        })
        .transpose()?;
    outs(py, ops::unstack(&x, axis, num))
}

#[pyfunction]
fn split(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    num_or_size_splits: &Bound<'_, PyAny>,
    axis: &Bound<'_, PyAny>,
) -> PyResult<Vec<PyT>> {
    let x = t(x)?;
    let axis = int_arg(axis)?;
    if let Ok(n) = num_or_size_splits.extract::<i64>() {
        let n = usize::try_from(n)
            .map_err(|_| PyValueError::new_err(format!("num_split must be positive, got {n}")))?;
        return outs(py, ops::split_even(&x, n, axis));
    }
    outs(py, ops::split(&x, &int_list(num_or_size_splits)?, axis))
}

#[pyfunction]
fn tile(py: Python<'_>, x: &Bound<'_, PyAny>, multiples: &Bound<'_, PyAny>) -> PyResult<PyT> {
    out(py, ops::tile(&t(x)?, &int_list(multiples)?))
}

#[pyfunction]
#[pyo3(signature = (x, paddings, mode="CONSTANT", constant_values=None))]
fn pad(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    paddings: &Bound<'_, PyAny>,
    mode: &str,
    constant_values: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyT> {
    let x = t(x)?;
    // Strings pad with b'' for TensorFlow's default 0, else with the given string.
    let zero = || ops::zeros(&[], x.dtype());
    let constant = match constant_values {
        None => zero().py()?,
        Some(c) if x.dtype().is_string() => match c.extract::<f64>() {
            Ok(0.0) => zero().py()?,
            _ => to_tensor(c, Hint::Require(DType::String))?,
        },
        // A tensor is padded with as it is (PadV2 checks its dtype and rank), so no value
        // passes through a float.
        Some(c) if c.cast::<PyTensor>().is_ok() => t(c)?,
        Some(c) => ops::scalar_like(&x, c.extract::<f64>()?),
    };
    let flat = match paddings.cast::<PyTensor>() {
        Ok(p) => int_list(p.as_any())?,
        Err(_) => {
            let mut v = Vec::new();
            for row in paddings.try_iter()? {
                v.extend(int_list(&row?)?);
            }
            v
        }
    };
    if flat.len() % 2 != 0 {
        return Err(PyValueError::new_err("paddings must be a [rank, 2] list of pairs"));
    }
    let pairs: Vec<(i64, i64)> = flat.chunks(2).map(|c| (c[0], c[1])).collect();
    let mode = match mode.to_ascii_uppercase().as_str() {
        "CONSTANT" => PadMode::Constant,
        "REFLECT" => PadMode::Reflect,
        "SYMMETRIC" => PadMode::Symmetric,
        other => return Err(PyValueError::new_err(format!("Value of argument `mode` expected to be one of \"CONSTANT\", \"REFLECT\", or \"SYMMETRIC\". Received `mode` = {other}"))),
    };
    out(py, ops::pad_with(&x, &pairs, mode, &constant))
}

#[pyfunction]
#[pyo3(signature = (x, axis=None))]
fn squeeze(py: Python<'_>, x: &Bound<'_, PyAny>, axis: Option<&Bound<'_, PyAny>>) -> PyResult<PyT> {
    let a = opt_int_list(axis)?;
    out(py, ops::squeeze(&t(x)?, a.as_deref()))
}

#[pyfunction]
fn expand_dims(py: Python<'_>, x: &Bound<'_, PyAny>, axis: &Bound<'_, PyAny>) -> PyResult<PyT> {
    out(py, ops::expand_dims(&t(x)?, int_arg(axis)?))
}

#[pyfunction]
fn slice(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    begin: &Bound<'_, PyAny>,
    size: &Bound<'_, PyAny>,
) -> PyResult<PyT> {
    out(py, ops::slice(&t(x)?, &int_list(begin)?, &int_list(size)?))
}

#[pyfunction]
#[pyo3(signature = (x, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0))]
#[allow(clippy::too_many_arguments)]
fn strided_slice(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    begin: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    strides: Option<&Bound<'_, PyAny>>,
    begin_mask: i64,
    end_mask: i64,
    ellipsis_mask: i64,
    new_axis_mask: i64,
    shrink_axis_mask: i64,
) -> PyResult<PyT> {
    let (b, e) = (int_list(begin)?, int_list(end)?);
    let s = opt_int_list(strides)?.unwrap_or_else(|| vec![1; b.len()]);
    let items = ops::slicing::items_from_masks(
        &b,
        &e,
        &s,
        begin_mask,
        end_mask,
        ellipsis_mask,
        new_axis_mask,
        shrink_axis_mask,
    )
    .py()?;
    out(py, ops::strided_slice(&t(x)?, &items))
}

#[pyfunction]
fn reverse(py: Python<'_>, x: &Bound<'_, PyAny>, axis: &Bound<'_, PyAny>) -> PyResult<PyT> {
    out(py, ops::reverse(&t(x)?, &int_list(axis)?))
}

#[pyfunction]
#[pyo3(signature = (params, indices, axis=None, batch_dims=0))]
fn gather(
    py: Python<'_>,
    params: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    batch_dims: i64,
) -> PyResult<PyT> {
    let axis = match axis {
        Some(a) if !a.is_none() => int_arg(a)?,
        _ => batch_dims,
    };
    out(py, ops::gather(&t(params)?, &t(indices)?, axis, batch_dims))
}

#[pyfunction]
fn gather_nd(
    py: Python<'_>,
    params: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
) -> PyResult<PyT> {
    out(py, ops::gather_nd(&t(params)?, &t(indices)?))
}

#[pyfunction]
fn scatter_nd(
    py: Python<'_>,
    indices: &Bound<'_, PyAny>,
    updates: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
) -> PyResult<PyT> {
    out(py, ops::scatter_nd(&t(indices)?, &t(updates)?, &int_list(shape)?))
}

#[pyfunction]
#[pyo3(signature = (condition, x=None, y=None))]
fn where_(
    py: Python<'_>,
    condition: &Bound<'_, PyAny>,
    x: Option<&Bound<'_, PyAny>>,
    y: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyT> {
    let c = to_tensor(condition, Hint::Infer)?;
    match (x.filter(|v| !v.is_none()), y.filter(|v| !v.is_none())) {
        (None, None) => out(py, ops::where_indices(&c)),
        (Some(x), Some(y)) => {
            let (a, b) = pair(x, y)?;
            out(py, ops::select(&c, &a, &b))
        }
        _ => Err(PyValueError::new_err("x and y must both be non-None or both be None.")),
    }
}

#[pyfunction]
#[pyo3(signature = (x, mask, axis=0))]
fn boolean_mask(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    mask: &Bound<'_, PyAny>,
    axis: i64,
) -> PyResult<PyT> {
    out(py, ops::boolean_mask(&t(x)?, &t(mask)?, axis))
}

#[pyfunction]
#[pyo3(signature = (indices, depth, on_value, off_value, axis=-1))]
fn one_hot(
    py: Python<'_>,
    indices: &Bound<'_, PyAny>,
    depth: &Bound<'_, PyAny>,
    on_value: &Bound<'_, PyAny>,
    off_value: &Bound<'_, PyAny>,
    axis: i64,
) -> PyResult<PyT> {
    let depth = usize::try_from(int_arg(depth)?)
        .map_err(|_| PyValueError::new_err("depth must be non-negative"))?;
    let (on, off) = pair(on_value, off_value)?;
    out(py, ops::one_hot(&t(indices)?, depth, &on, &off, axis))
}

#[pyfunction]
#[pyo3(signature = (x, axis=-1, descending=false, indices=false))]
fn sort(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: i64,
    descending: bool,
    indices: bool,
) -> PyResult<PyT> {
    let (v, i) = ops::sort_with_indices(&t(x)?, axis, descending).py()?;
    wrap(py, if indices { i } else { v })
}

#[pyfunction]
fn top_k(py: Python<'_>, x: &Bound<'_, PyAny>, k: &Bound<'_, PyAny>) -> PyResult<(PyT, PyT)> {
    let (v, i) = ops::top_k(&t(x)?, int_arg(k)?).py()?;
    Ok((wrap(py, v)?, wrap(py, i)?))
}

#[pyfunction]
fn unique(py: Python<'_>, x: &Bound<'_, PyAny>, out_idx: u32) -> PyResult<(PyT, PyT)> {
    let (v, i) = ops::unique(&t(x)?, args::dtype(out_idx)?).py()?;
    Ok((wrap(py, v)?, wrap(py, i)?))
}

#[pyfunction]
fn fill(py: Python<'_>, dims: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<PyT> {
    out(py, filled(&args::shape_arg(dims)?, &t(value)?))
}

/// `Fill` of a scalar; a shape known only when the graph runs becomes the node's input.
fn filled(shape: &ShapeArg, value: &Tensor) -> Result<Tensor> {
    match shape {
        ShapeArg::Dims(dims) => {
            let _asked = crate::graph::trace::requested_shape();
            ops::fill(dims, value)
        }
        ShapeArg::Traced(_) => {
            shape.apply(&[value], |dims| Ok(Op::Fill(Fill(Shape::checked(dims)?))))
        }
    }
}

fn filled_with(shape: &Bound<'_, PyAny>, dtype: u32, one: bool) -> PyResult<Result<Tensor>> {
    let dtype = args::dtype(dtype)?;
    let _asked = crate::graph::trace::requested_shape();
    Ok(match args::shape_arg(shape)? {
        ShapeArg::Dims(dims) if one => ops::ones(&dims, dtype),
        ShapeArg::Dims(dims) => ops::zeros(&dims, dtype),
        traced => {
            let scalar = if one { ops::ones(&[], dtype) } else { ops::zeros(&[], dtype) };
            scalar.and_then(|value| filled(&traced, &value))
        }
    })
}

#[pyfunction]
fn zeros(py: Python<'_>, shape: &Bound<'_, PyAny>, dtype: u32) -> PyResult<PyT> {
    out(py, filled_with(shape, dtype, false)?)
}

#[pyfunction]
fn ones(py: Python<'_>, shape: &Bound<'_, PyAny>, dtype: u32) -> PyResult<PyT> {
    out(py, filled_with(shape, dtype, true)?)
}

#[pyfunction]
fn range(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    limit: &Bound<'_, PyAny>,
    delta: &Bound<'_, PyAny>,
    dtype: u32,
) -> PyResult<PyT> {
    let d = args::dtype(dtype)?;
    let conv = |o: &Bound<'_, PyAny>| -> PyResult<Tensor> { ops::cast(&t(o)?, d).py() };
    out(py, ops::range(&conv(start)?, &conv(limit)?, &conv(delta)?))
}

#[pyfunction]
fn linspace(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    stop: &Bound<'_, PyAny>,
    num: &Bound<'_, PyAny>,
) -> PyResult<PyT> {
    let (a, b) = pair(start, stop)?;
    out(py, math::linspace(&a, &b, int_arg(num)?))
}

#[pyfunction]
#[pyo3(signature = (num_rows, num_columns=None, batch_shape=None, dtype=1))]
fn eye(
    py: Python<'_>,
    num_rows: i64,
    num_columns: Option<i64>,
    batch_shape: Option<&Bound<'_, PyAny>>,
    dtype: u32,
) -> PyResult<PyT> {
    let cols = num_columns.unwrap_or(num_rows);
    if num_rows < 0 || cols < 0 {
        return Err(super::errors::to_py(Error::InvalidArgument(format!(
            "num_rows and num_columns must be non-negative, got {num_rows} and {cols} [Op:Eye]"
        ))));
    }
    let batch = opt_int_list(batch_shape)?.unwrap_or_default();
    out(py, math::eye(num_rows as usize, cols as usize, &batch, args::dtype(dtype)?))
}

#[pyfunction]
fn add_n(py: Python<'_>, inputs: &Bound<'_, PyAny>) -> PyResult<PyT> {
    let v = tensors(inputs)?;
    let refs: Vec<&Tensor> = v.iter().collect();
    out(py, math::add_n(&refs))
}

#[pyfunction]
fn clip_by_value(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    lo: &Bound<'_, PyAny>,
    hi: &Bound<'_, PyAny>,
) -> PyResult<PyT> {
    let x = t(x)?;
    out(py, math::clip_by_value(&x, &like(lo, &x)?, &like(hi, &x)?))
}

#[pyfunction]
#[pyo3(signature = (x, ord=None, axis=None, keepdims=false))]
fn norm(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    ord: Option<f64>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<PyT> {
    let a = opt_int_list(axis)?;
    let ord = ord.map_or(math::NormOrd::Euclidean, math::NormOrd::P);
    out(py, math::norm(&t(x)?, ord, a.as_deref(), keepdims))
}

#[pyfunction]
fn tensordot(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    axes: &Bound<'_, PyAny>,
) -> PyResult<PyT> {
    let (x, y) = pair(a, b)?;
    let (ax, bx) = if let Ok(n) = axes.extract::<i64>() {
        if n < 0 || n as usize > x.rank().min(y.rank()) {
            return Err(PyValueError::new_err(format!(
                "'axes' must be at most {}, got {n}",
                x.rank().min(y.rank())
            )));
        }
        let ra = x.rank() as i64;
        ((ra - n..ra).collect::<Vec<_>>(), (0..n).collect::<Vec<_>>())
    } else {
        let parts: Vec<Bound<'_, PyAny>> = axes.try_iter()?.collect::<PyResult<_>>()?;
        if parts.len() != 2 {
            return Err(PyValueError::new_err("'axes' must be an integer or have length 2"));
        }
        (int_list(&parts[0])?, int_list(&parts[1])?)
    };
    out(py, math::tensordot(&x, &y, &ax, &bx))
}

#[pyfunction]
#[pyo3(signature = (equation, *inputs))]
fn einsum(py: Python<'_>, equation: &str, inputs: &Bound<'_, PyTuple>) -> PyResult<PyT> {
    let v = tensors(inputs.as_any())?;
    let refs: Vec<&Tensor> = v.iter().collect();
    out(py, ops::einsum::einsum(equation, &refs))
}

#[pyfunction]
#[pyo3(signature = (seed=None))]
fn set_seed(seed: Option<i64>) {
    random::set_seed(seed);
}

/// A random op drawn for `shape`, which may be known only when the graph runs.
fn draw(
    distribution: random::Distribution,
    shape: &Bound<'_, PyAny>,
    dtype: DType,
    seed: Option<i64>,
) -> PyResult<Result<Tensor>> {
    Ok(match args::shape_arg(shape)? {
        ShapeArg::Dims(dims) => {
            let shape = Shape::checked(&dims).py()?;
            let _asked = crate::graph::trace::requested_shape();
            random::draw(distribution, &shape, dtype, random::next_stream(seed))
        }
        traced => {
            let stream = random::next_stream(seed);
            traced.apply(&[], |dims| {
                random::spec(distribution, &Shape::checked(dims)?, dtype, stream)
            })
        }
    })
}

fn float_arg(obj: &Bound<'_, PyAny>) -> PyResult<f64> {
    if let Ok(tt) = obj.cast::<PyTensor>() {
        let v = ops::cast(&tt.get().inner, DType::F64).py()?;
        return v
            .to_vec::<f64>()
            .py()?
            .first()
            .copied()
            .ok_or_else(|| PyValueError::new_err("expected a scalar"));
    }
    obj.extract::<f64>()
}

#[pyfunction]
#[pyo3(signature = (shape, minval, maxval, dtype, seed=None))]
fn random_uniform(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    minval: &Bound<'_, PyAny>,
    maxval: &Bound<'_, PyAny>,
    dtype: u32,
    seed: Option<i64>,
) -> PyResult<PyT> {
    let (minval, maxval) = (float_arg(minval)?, float_arg(maxval)?);
    let uniform = random::Distribution::Uniform { minval, maxval };
    out(py, draw(uniform, shape, args::dtype(dtype)?, seed)?)
}

#[pyfunction]
#[pyo3(signature = (kind, shape, mean, stddev, dtype, seed=None))]
fn random_normal(
    py: Python<'_>,
    kind: &str,
    shape: &Bound<'_, PyAny>,
    mean: &Bound<'_, PyAny>,
    stddev: &Bound<'_, PyAny>,
    dtype: u32,
    seed: Option<i64>,
) -> PyResult<PyT> {
    let (mean, stddev) = (float_arg(mean)?, float_arg(stddev)?);
    let distribution = if kind == "truncated" {
        random::Distribution::TruncatedNormal { mean, stddev }
    } else {
        random::Distribution::Normal { mean, stddev }
    };
    out(py, draw(distribution, shape, args::dtype(dtype)?, seed)?)
}

#[pyfunction]
#[pyo3(signature = (x, seed=None))]
fn shuffle(py: Python<'_>, x: &Bound<'_, PyAny>, seed: Option<i64>) -> PyResult<PyT> {
    let x = t(x)?;
    out(py, random::shuffle(&x, random::next_stream(seed)))
}

#[pyfunction]
#[pyo3(signature = (name, x, alpha=0.2, approximate=false))]
fn activation(
    py: Python<'_>,
    name: &str,
    x: &Bound<'_, PyAny>,
    alpha: f64,
    approximate: bool,
) -> PyResult<PyT> {
    let x = t(x)?;
    out(
        py,
        match name {
            "leaky_relu" => nn::leaky_relu(&x, alpha),
            "gelu" => nn::gelu(&x, approximate),
            _ => return Err(PyValueError::new_err(format!("unknown activation {name}"))),
        },
    )
}

#[pyfunction]
fn softmax(py: Python<'_>, x: &Bound<'_, PyAny>, axis: i64, log: bool) -> PyResult<PyT> {
    let x = t(x)?;
    out(py, if log { nn::log_softmax(&x, axis) } else { nn::softmax(&x, axis) })
}

#[pyfunction]
#[pyo3(signature = (kind, labels, logits, axis=-1))]
fn cross_entropy(
    py: Python<'_>,
    kind: &str,
    labels: &Bound<'_, PyAny>,
    logits: &Bound<'_, PyAny>,
    axis: i64,
) -> PyResult<PyT> {
    let z = t(logits)?;
    out(
        py,
        match kind {
            "softmax" => nn::softmax_cross_entropy_with_logits(&like(labels, &z)?, &z, axis),
            "sparse" => nn::sparse_softmax_cross_entropy_with_logits(&t(labels)?, &z),
            "sigmoid" => nn::sigmoid_cross_entropy_with_logits(&like(labels, &z)?, &z),
            _ => return Err(PyValueError::new_err(format!("unknown cross entropy {kind}"))),
        },
    )
}

#[pyfunction]
#[pyo3(signature = (x, bias, channels_first=false))]
fn bias_add(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    bias: &Bound<'_, PyAny>,
    channels_first: bool,
) -> PyResult<PyT> {
    let x = t(x)?;
    out(py, nn::bias_add(&x, &like(bias, &x)?, channels_first))
}

#[pyfunction]
#[pyo3(signature = (x, rate, noise_shape=None, seed=None))]
fn dropout(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    rate: f64,
    noise_shape: Option<&Bound<'_, PyAny>>,
    seed: Option<i64>,
) -> PyResult<PyT> {
    // A noise shape may be a traced tensor (`tf.shape(x)` of an unknown size).
    let ns = match noise_shape {
        Some(o) if !o.is_none() => Some(args::shape_arg(o)?),
        _ => None,
    };
    out(py, nn::dropout(&t(x)?, rate, ns, seed))
}

#[pyfunction]
#[pyo3(signature = (x, axes, keepdims=false))]
fn moments(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axes: &Bound<'_, PyAny>,
    keepdims: bool,
) -> PyResult<(PyT, PyT)> {
    let (m, v) = nn::moments(&t(x)?, &int_list(axes)?, keepdims).py()?;
    Ok((wrap(py, m)?, wrap(py, v)?))
}

/// FusedBatchNormV3's six outputs; absent running statistics are empty float32 vectors.
#[pyfunction]
#[pyo3(signature = (x, scale, offset, mean=None, variance=None, epsilon=0.001,
    exponential_avg_factor=1.0, data_format="NHWC", is_training=true))]
#[allow(clippy::too_many_arguments)]
fn fused_batch_norm(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    scale: &Bound<'_, PyAny>,
    offset: &Bound<'_, PyAny>,
    mean: Option<&Bound<'_, PyAny>>,
    variance: Option<&Bound<'_, PyAny>>,
    epsilon: f64,
    exponential_avg_factor: f64,
    data_format: &str,
    is_training: bool,
) -> PyResult<Vec<PyT>> {
    let statistic = |v: Option<&Bound<'_, PyAny>>| match v {
        Some(v) => t(v),
        None => ops::zeros(&[0], DType::F32).py(),
    };
    let attrs = batch_norm::BatchNorm {
        epsilon,
        exponential_avg_factor,
        data_format: batch_norm::BatchNormFormat::parse(data_format).py()?,
        is_training,
    };
    let (x, scale, offset) = (t(x)?, t(scale)?, t(offset)?);
    let (mean, variance) = (statistic(mean)?, statistic(variance)?);
    outs(py, batch_norm::fused_batch_norm([&x, &scale, &offset, &mean, &variance], attrs))
}

/// A `tf.strings` primitive by TensorFlow name, its attributes as a JSON object (the Python
/// wrappers in `ferroflow.strings` build them with TensorFlow's defaults).
#[pyfunction]
fn string_op(
    py: Python<'_>,
    name: &str,
    inputs: Vec<Bound<'_, PyAny>>,
    attrs: &str,
) -> PyResult<Vec<PyT>> {
    if !<crate::ops::strings::StringOp as crate::ops::primitive::Decode>::names().contains(&name) {
        return Err(PyValueError::new_err(format!("{name} is not a string op")));
    }
    let attrs: crate::ops::primitive::Attrs =
        serde_json::from_str(attrs).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let op = Op::decode(name, &attrs).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let inputs: Vec<Tensor> = inputs.iter().map(t).collect::<PyResult<_>>()?;
    let refs: Vec<&Tensor> = inputs.iter().collect();
    outs(py, crate::dispatch::apply(&op, &refs))
}

/// A primitive by TensorFlow name for the ops Python calls by name (segment reductions,
/// Bitcast, RandomIndexShuffle, EditDistance, TensorScatterAdd, non-max suppression,
/// SobolSample, ParseExampleV2),
/// its attributes as a JSON object, as saved graphs hold them.
#[pyfunction]
fn raw_op(
    py: Python<'_>,
    name: &str,
    inputs: Vec<Bound<'_, PyAny>>,
    attrs: &str,
) -> PyResult<Vec<PyT>> {
    use crate::ops::primitive::Decode;
    let known = crate::ops::segment::Segment::names().contains(&name)
        || ["Bitcast", "RandomIndexShuffle", "EditDistance", "Betainc", "TensorScatterAdd"]
            .contains(&name)
        || name == "ParseExampleV2"
        || crate::ops::fft::Fft::names().contains(&name)
        || crate::ops::codecs::CodecOp::names().contains(&name)
        || crate::ops::linalg::LinalgOp::names().contains(&name)
        || crate::ops::nms::Nms::names().contains(&name)
        || crate::ops::resize::Resize::names().contains(&name)
        || ["SobolSample", "ReadFile"].contains(&name);
    if !known {
        return Err(PyValueError::new_err(format!("{name} is not a raw op")));
    }
    let attrs: crate::ops::primitive::Attrs =
        serde_json::from_str(attrs).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let op = Op::decode(name, &attrs).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let inputs: Vec<Tensor> = inputs.iter().map(t).collect::<PyResult<_>>()?;
    let refs: Vec<&Tensor> = inputs.iter().collect();
    outs(py, crate::dispatch::apply(&op, &refs))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    macro_rules! add {
        ($($f:ident),* $(,)?) => { $( m.add_function(wrap_pyfunction!($f, m)?)?; )* };
    }
    add!(
        convert_to_tensor,
        constant,
        is_tensor,
        unary_declarations,
        op_registry,
        unary,
        binary,
        cast,
        reduce,
        count_nonzero,
        arg_reduce,
        cumulative,
        matmul,
        reshape,
        transpose,
        broadcast_to,
        ensure_shape,
        assert_,
        concat,
        stack,
        unstack,
        split,
        tile,
        pad,
        squeeze,
        expand_dims,
        slice,
        strided_slice,
        reverse,
        gather,
        gather_nd,
        scatter_nd,
        where_,
        boolean_mask,
        one_hot,
        sort,
        top_k,
        unique,
        string_op,
        raw_op,
        fill,
        zeros,
        ones,
        range,
        linspace,
        eye,
        add_n,
        clip_by_value,
        norm,
        tensordot,
        einsum,
        set_seed,
        random_uniform,
        random_normal,
        shuffle,
        activation,
        softmax,
        cross_entropy,
        bias_add,
        dropout,
        moments,
        fused_batch_norm,
    );
    Ok(())
}
