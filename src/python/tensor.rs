//! `ferroflow.Tensor`: the Python face of `Tensor`. Operators are implemented here, in Rust, so
//! that `a + b` costs one call; presentation (repr, TensorShape, DType objects) is delegated to
//! small Python helpers.

use super::args;
use super::convert::{self, Hint};
use super::errors::IntoPy;
use crate::dtype::DType;
use crate::error::Error;
use crate::ops::{self, BinaryOp, SliceItem, UnaryOp};
use crate::tensor::Tensor;
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyEllipsis, PyList, PySlice, PyTuple};

// `dict`: TensorFlow's eager tensors take attributes (Keras attaches `_keras_mask` to outputs).
#[pyclass(name = "Tensor", module = "ferroflow", frozen, weakref, dict)]
pub struct PyTensor {
    pub inner: Tensor,
}

/// Python helpers, looked up once: `ferroflow._presentation` functions.
static PRESENTATION: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn presentation(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    Ok(PRESENTATION
        .get_or_try_init(py, || py.import("ferroflow._presentation").map(|m| m.unbind()))?
        .bind(py))
}

pub fn wrap(py: Python<'_>, t: Tensor) -> PyResult<Py<PyTensor>> {
    Py::new(py, PyTensor { inner: t })
}

/// The other operand of a binary operator. TensorFlow's forward `+` and `@` convert it by
/// inference (a mismatch then fails in the op, InvalidArgumentError); every other operator,
/// reflected ones included, converts it to this tensor's dtype (a misfit is a TypeError). `None` means "not
/// ours": Python then tries the reflected operator.
fn operand_with(other: &Bound<'_, PyAny>, hint: Hint) -> PyResult<Option<Tensor>> {
    if let Ok(t) = other.cast::<PyTensor>() {
        return Ok(Some(t.get().inner.clone()));
    }
    if other.is_none() {
        return Err(PyValueError::new_err(
            "Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a Tensor.",
        ));
    }
    if let Some(t) = convert::scalar(other, hint)? {
        return Ok(Some(t));
    }
    if other.is_instance_of::<pyo3::types::PyString>() {
        return Ok(None);
    }
    convert::to_tensor(other, hint).map(Some)
}

fn operand(other: &Bound<'_, PyAny>, like: &Tensor) -> PyResult<Option<Tensor>> {
    operand_with(other, Hint::Require(like.dtype()))
}

fn inferred_operand(other: &Bound<'_, PyAny>, like: &Tensor) -> PyResult<Option<Tensor>> {
    operand_with(other, Hint::Prefer(like.dtype()))
}

fn binary_result(py: Python<'_>, r: crate::error::Result<Tensor>) -> PyResult<Py<PyAny>> {
    Ok(wrap(py, r.py()?)?.into_any())
}

/// `x op y` failed with TypeError or ValueError (`y` cannot become a tensor, a RaggedTensor
/// say): TensorFlow's operator wrapper lets the op's dispatch, then `y`'s reflected method,
/// serve it; `ferroflow._dispatch.operator_fallback` does that, or raises `error`.
fn reflected_call(
    slf: &Bound<'_, PyTensor>,
    other: &Bound<'_, PyAny>,
    method: &str,
    error: PyErr,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    let recoverable =
        error.is_instance_of::<PyTypeError>(py) || error.is_instance_of::<PyValueError>(py);
    if !recoverable {
        return Err(error);
    }
    let dispatch = py.import("ferroflow._dispatch")?;
    let value = error.value(py).clone();
    Ok(dispatch.call_method1("operator_fallback", (method, slf, other, value))?.unbind())
}

macro_rules! operators {
    ($($fwd:ident, $rev:ident, $convert:ident, $rconvert:ident => $f:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $fwd(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    let py = slf.py();
                    let this = &slf.get().inner;
                    let attempt = $convert(other, this).and_then(|o| match o {
                        Some(o) => binary_result(py, ($f)(this, &o)).map(Some),
                        None => Ok(None),
                    });
                    match attempt {
                        Ok(Some(out)) => Ok(out),
                        Ok(None) => Ok(py.NotImplemented()),
                        Err(e) => reflected_call(slf, other, stringify!($rev), e),
                    }
                }
                fn $rev(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    match $rconvert(other, &self.inner)? {
                        Some(o) => binary_result(py, ($f)(&o, &self.inner)),
                        None => Ok(py.NotImplemented()),
                    }
                }
            )*
        }
    };
}

/// The other operand of `*`: TensorFlow's operator multiplies bool tensors as int32 (each
/// operand cast, then the product cast back to bool), so with a bool tensor the other operand
/// keeps the dtype it converts to (0.5 stays a float, cast to int32 0).
fn mul_operand(other: &Bound<'_, PyAny>, like: &Tensor) -> PyResult<Option<Tensor>> {
    match like.dtype() {
        DType::Bool => operand_with(other, Hint::Prefer(DType::Bool)),
        dtype => operand_with(other, Hint::Require(dtype)),
    }
}

/// `a * b` as TensorFlow's operator: where either is bool, both are cast to int32 and the
/// product back to bool (`tf.math.multiply` itself refuses bool).
fn mul_operator(a: &Tensor, b: &Tensor) -> crate::error::Result<Tensor> {
    if a.dtype() != DType::Bool && b.dtype() != DType::Bool {
        return ops::mul(a, b);
    }
    let product = ops::mul(&ops::cast(a, DType::I32)?, &ops::cast(b, DType::I32)?)?;
    ops::cast(&product, DType::Bool)
}

fn logical_or_bitwise(op: BinaryOp) -> impl Fn(&Tensor, &Tensor) -> crate::error::Result<Tensor> {
    move |a, b| ops::binary(op, a, b)
}

operators! {
    __add__, __radd__, inferred_operand, operand => ops::add;
    __sub__, __rsub__, operand, operand => ops::sub;
    __mul__, __rmul__, mul_operand, mul_operand => mul_operator;
    __truediv__, __rtruediv__, operand, operand => ops::math::truediv;
    __floordiv__, __rfloordiv__, operand, operand => |a, b| ops::binary(BinaryOp::FloorDiv, a, b);
    __mod__, __rmod__, operand, operand => |a, b| ops::binary(BinaryOp::FloorMod, a, b);
    __matmul__, __rmatmul__, inferred_operand, operand => |a, b| ops::matmul(a, b, Default::default());
    __and__, __rand__, operand, operand => logical_or_bitwise(BinaryOp::And);
    __or__, __ror__, operand, operand => logical_or_bitwise(BinaryOp::Or);
    __xor__, __rxor__, operand, operand => logical_or_bitwise(BinaryOp::Xor);
}

fn scalar_value<'py>(py: Python<'py>, t: &Tensor, what: &str) -> PyResult<Bound<'py, PyAny>> {
    crate::graph::trace::check_concrete(t, &format!("Converting to a Python {what}")).py()?;
    if t.num_elements() != 1 {
        return Err(PyTypeError::new_err(format!(
            "only size-1 tensors can be converted to Python {what}s, got shape {}",
            t.shape().tf_string()
        )));
    }
    convert::to_numpy(py, t)?.call_method0("item")
}

fn reject_complex(t: &Tensor, to: &str) -> PyResult<()> {
    if t.dtype().is_complex() {
        return Err(PyTypeError::new_err(format!("can't convert a complex tensor to {to}")));
    }
    Ok(())
}

/// Some item of a subscript (or a bound of one of its slices) is a symbolic tensor.
fn has_symbolic_index(key: &Bound<'_, PyAny>) -> PyResult<bool> {
    let symbolic = |v: &Bound<'_, PyAny>| {
        v.cast::<PyTensor>().is_ok_and(|t| crate::graph::trace::is_symbolic(&t.get().inner))
    };
    let item_symbolic = |item: &Bound<'_, PyAny>| -> PyResult<bool> {
        if let Ok(s) = item.cast::<PySlice>() {
            for part in ["start", "stop", "step"] {
                if symbolic(&s.getattr(part)?) {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        Ok(symbolic(item))
    };
    if !crate::graph::trace::open() {
        return Ok(false);
    }
    match key.cast::<PyTuple>() {
        Ok(tuple) => {
            for item in tuple.iter() {
                if item_symbolic(&item)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Err(_) => item_symbolic(key),
    }
}

fn index_item(item: &Bound<'_, PyAny>) -> PyResult<SliceItem> {
    if item.is_none() {
        return Ok(SliceItem::NewAxis);
    }
    if item.is_instance_of::<PyEllipsis>() {
        return Ok(SliceItem::Ellipsis);
    }
    if let Ok(s) = item.cast::<PySlice>() {
        let part = |name: &str| -> PyResult<Option<i64>> {
            let v = s.getattr(name)?;
            if v.is_none() {
                Ok(None)
            } else {
                args::int_arg(&v).map(Some)
            }
        };
        return Ok(SliceItem::Range {
            start: part("start")?,
            stop: part("stop")?,
            step: part("step")?.unwrap_or(1),
        });
    }
    args::int_arg(item).map(SliceItem::Index).map_err(|_| {
        PyTypeError::new_err(format!(
            "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 tensors are valid indices, got {}",
            item.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}

#[pymethods]
impl PyTensor {
    #[classattr]
    #[allow(non_upper_case_globals)]
    const __array_priority__: i32 = 100;

    fn __pow__(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        let py = slf.py();
        let this = &slf.get().inner;
        let attempt = operand(other, this).and_then(|o| match o {
            Some(o) => binary_result(py, ops::pow(this, &o)).map(Some),
            None => Ok(None),
        });
        match attempt {
            Ok(Some(out)) => Ok(out),
            Ok(None) => Ok(py.NotImplemented()),
            Err(e) => reflected_call(slf, other, "__rpow__", e),
        }
    }

    fn __rpow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        match operand(other, &self.inner)? {
            Some(o) => binary_result(py, ops::pow(&o, &self.inner)),
            None => Ok(py.NotImplemented()),
        }
    }

    fn __neg__(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap(py, ops::neg(&self.inner).py()?)
    }

    fn __pos__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __abs__(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap(py, ops::abs(&self.inner).py()?)
    }

    fn __invert__(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        let op = if self.inner.dtype().is_bool() { UnaryOp::LogicalNot } else { UnaryOp::Invert };
        wrap(py, ops::unary(op, &self.inner).py()?)
    }

    fn __richcmp__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let bop = match op {
            CompareOp::Lt => BinaryOp::Less,
            CompareOp::Le => BinaryOp::LessEqual,
            CompareOp::Gt => BinaryOp::Greater,
            CompareOp::Ge => BinaryOp::GreaterEqual,
            CompareOp::Eq => BinaryOp::Equal,
            CompareOp::Ne => BinaryOp::NotEqual,
        };
        let equality = matches!(op, CompareOp::Eq | CompareOp::Ne);
        if other.is_none() && equality {
            return Ok(matches!(op, CompareOp::Ne)
                .into_pyobject(py)?
                .to_owned()
                .into_any()
                .unbind());
        }
        let converted = match operand(other, &self.inner) {
            Ok(c) => c,
            Err(e) => {
                // TensorFlow dispatches the comparison op on `other` (a RaggedTensor, say).
                let reflected = match op {
                    CompareOp::Lt => "__rlt__",
                    CompareOp::Le => "__rle__",
                    CompareOp::Gt => "__rgt__",
                    CompareOp::Ge => "__rge__",
                    CompareOp::Eq => "__req__",
                    CompareOp::Ne => "__rne__",
                };
                let slf = pyo3::Py::new(py, PyTensor { inner: self.inner.clone() })?;
                return reflected_call(slf.bind(py), other, reflected, e);
            }
        };
        let Some(o) = converted else {
            return Err(PyTypeError::new_err(format!(
                "Cannot convert {} to EagerTensor of dtype {}",
                other.repr()?,
                self.inner.dtype().name()
            )));
        };
        match ops::binary(bop, &self.inner, &o) {
            // TensorFlow's == on incompatible shapes is simply False.
            Err(Error::InvalidArgument(m)) if equality && m.contains("Incompatible shapes") => {
                wrap(py, Tensor::scalar(matches!(op, CompareOp::Ne))).map(|t| t.into_any())
            }
            r => binary_result(py, r),
        }
    }

    fn __hash__(&self) -> PyResult<isize> {
        Err(PyTypeError::new_err("Tensor is unhashable. Instead, use tensor.ref() as the key."))
    }

    /// A hashable reference to this tensor (tensors themselves are unhashable, as in TF).
    #[pyo3(name = "ref")]
    fn reference<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        presentation(slf.py())?.getattr("Reference")?.call1((slf,))
    }

    fn __bool__(&self, py: Python<'_>) -> PyResult<bool> {
        if crate::graph::trace::is_symbolic(&self.inner) {
            return Err(super::errors::graph_bool_error(py));
        }
        if self.inner.num_elements() != 1 {
            return Err(PyValueError::new_err(
                "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
            ));
        }
        Ok(
            // TensorFlow's truth value of a string scalar is numpy's: non-empty is true.
            crate::with_all!(self.inner.host().py()?, v => crate::element::Element::is_nonzero(v[0]), else match self.inner.host().py()? {
                crate::buffer::Buffer::Str(v) => !v[0].is_empty(),
                _ => false,
            }),
        )
    }

    fn __float__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        reject_complex(&self.inner, "float")?;
        scalar_value(py, &self.inner, "scalar")?.call_method0("__float__")
    }

    fn __int__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        reject_complex(&self.inner, "int")?;
        scalar_value(py, &self.inner, "scalar")?.call_method0("__int__")
    }

    fn __index__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if !self.inner.dtype().is_integer() || self.inner.rank() != 0 {
            return Err(PyTypeError::new_err(
                "Only integer scalar tensors can be used as an index",
            ));
        }
        scalar_value(py, &self.inner, "index")
    }

    fn __complex__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = scalar_value(py, &self.inner, "scalar")?;
        py.import("builtins")?.getattr("complex")?.call1((v,))
    }

    fn __len__(&self) -> PyResult<usize> {
        self.inner
            .dims()
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("Scalar tensor has no `len()`"))
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if self.inner.rank() == 0 {
            return Err(PyTypeError::new_err("Cannot iterate over a scalar tensor."));
        }
        let rows = ops::unstack(&self.inner, 0, None).py()?;
        let list = PyList::new(py, rows.into_iter().map(|t| PyTensor { inner: t }))?;
        Ok(list.try_iter()?.into_any().unbind())
    }

    fn __getitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let this = &slf.get().inner;
        if let Ok(t) = key.cast::<PyTensor>() {
            if t.get().inner.dtype() == DType::Bool {
                return Ok(wrap(py, ops::boolean_mask(this, &t.get().inner, 0).py()?)?.into_any());
            }
        }
        // An index known only when the graph runs: the slice is composed of graph ops.
        if has_symbolic_index(key)? {
            let getitem = py.import("ferroflow._dynamic_slice")?.getattr("getitem")?;
            return Ok(getitem.call1((slf, key))?.unbind());
        }
        let items: Vec<SliceItem> = if let Ok(tuple) = key.cast::<PyTuple>() {
            tuple.iter().map(|i| index_item(&i)).collect::<PyResult<_>>()?
        } else {
            vec![index_item(key)?]
        };
        Ok(wrap(py, ops::strided_slice(this, &items).py()?)?.into_any())
    }

    /// The elements as a new numpy array.
    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if crate::graph::trace::is_symbolic(&self.inner) {
            return Err(pyo3::exceptions::PyAttributeError::new_err(
                "'SymbolicTensor' object has no attribute 'numpy'",
            ));
        }
        let a = convert::to_numpy(py, &self.inner)?;
        if self.inner.rank() == 0 {
            return a.call_method1("__getitem__", (PyTuple::empty(py),));
        }
        Ok(a)
    }

    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // As TensorFlow's: a read-only view of the tensor's memory unless a copy is asked for.
        let a = if copy == Some(true) {
            convert::to_numpy(py, &self.inner)?
        } else {
            super::numpy_view::view(py, &self.inner)?
        };
        match dtype {
            // `asarray`, not `astype`: the tensor's own dtype keeps the view, as TensorFlow's
            // `np.asarray(self._numpy(), dtype)` does.
            Some(d) if !d.is_none() => py.import("numpy")?.getattr("asarray")?.call1((a, d)),
            _ => Ok(a),
        }
    }

    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if crate::graph::trace::has_unknown_rank(&self.inner) {
            // A host call's result: TensorShape(None) until the graph runs.
            return presentation(py)?.getattr("TensorShape")?.call1((py.None(),));
        }
        if let Some((_, dims)) = crate::graph::trace::describe(&self.inner) {
            let dims = PyTuple::new(py, dims)?;
            return presentation(py)?.getattr("TensorShape")?.call1((dims,));
        }
        let dims = PyTuple::new(py, self.inner.dims())?;
        presentation(py)?.getattr("TensorShape")?.call1((dims,))
    }

    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        presentation(py)?.getattr("as_dtype")?.call1((self.inner.dtype() as u32,))
    }

    /// TensorFlow's enum number of the dtype (cheap; used by the Python layer).
    #[getter]
    fn _dtype_enum(&self) -> u32 {
        self.inner.dtype() as u32
    }

    #[getter]
    fn _dims(&self) -> Vec<usize> {
        self.inner.dims().to_vec()
    }

    /// TensorFlow's `set_shape`: eagerly a check that `shape` is compatible (ValueError if
    /// not); inside a trace the value's static shape becomes the merge of both (a
    /// py_function's result gets a rank), as TensorFlow's graph tensors.
    fn set_shape(&self, py: Python<'_>, shape: &Bound<'_, PyAny>) -> PyResult<()> {
        let shape = presentation(py)?.getattr("TensorShape")?.call1((shape,))?;
        if shape.getattr("rank")?.is_none() {
            return Ok(());
        }
        let incompatible = |own: Bound<'_, PyAny>| -> PyResult<PyErr> {
            Ok(PyValueError::new_err(format!(
                "Tensor's shape {} is not compatible with supplied shape {}.",
                own.str()?,
                shape.str()?
            )))
        };
        // A size past usize matches no tensor.
        let Ok(dims) = shape.call_method0("as_list")?.extract::<Vec<Option<usize>>>() else {
            return Err(incompatible(self.shape(py)?)?);
        };
        if crate::graph::trace::set_static_dims(&self.inner, &dims).py()? {
            return Ok(());
        }
        let own = self.inner.dims();
        let fits = own.len() == dims.len()
            && own.iter().zip(&dims).all(|(a, b)| b.is_none_or(|b| b == *a));
        if !fits {
            return Err(incompatible(self.shape(py)?)?);
        }
        Ok(())
    }

    /// The rank; None for a host call's result while tracing (unknown until the graph runs).
    #[getter]
    fn ndim(&self) -> Option<usize> {
        (!crate::graph::trace::has_unknown_rank(&self.inner)).then(|| self.inner.rank())
    }

    #[getter]
    fn device(&self) -> String {
        self.inner.device().name()
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        presentation(slf.py())?.getattr("tensor_repr")?.call1((slf,))?.extract()
    }

    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        presentation(slf.py())?.getattr("tensor_str")?.call1((slf,))?.extract()
    }

    fn __format__(&self, py: Python<'_>, spec: &str) -> PyResult<String> {
        if self.inner.rank() == 0 {
            let v = scalar_value(py, &self.inner, "scalar")?;
            return v.call_method1("__format__", (spec,))?.extract();
        }
        let v = convert::to_numpy(py, &self.inner)?;
        v.call_method1("__format__", (spec,))?.extract()
    }

    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, (Py<PyAny>,))> {
        let ctor = py.import("ferroflow")?.getattr("constant")?.unbind();
        Ok((ctor, (convert::to_numpy(py, &self.inner)?.unbind(),)))
    }
}

impl PyTensor {
    pub fn from_any(obj: &Bound<'_, PyAny>, hint: Hint) -> PyResult<Tensor> {
        convert::to_tensor(obj, hint)
    }
}
