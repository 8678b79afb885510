//! Python values to tensors (TensorFlow's inference rules) and tensors to numpy arrays.

use super::errors::IntoPy;
use super::tensor::PyTensor;
use super::variable::PyVariable;
use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Error;
use crate::ops;
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use crate::with_dtype;
use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use num_complex::{Complex32, Complex64};
use numpy::{
    Element as NpElement, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyComplex, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::cell::Cell;

/// How a requested dtype applies. `Require` is `dtype=`: convert or fail. `Prefer` is TensorFlow's
/// `dtype_hint` (how operators convert their Python operands): use it when the value fits,
/// otherwise infer as usual and let the op report the mismatch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Hint {
    Infer,
    Prefer(DType),
    Require(DType),
}

impl Hint {
    fn dtype(self) -> Option<DType> {
        match self {
            Hint::Infer => None,
            Hint::Prefer(d) | Hint::Require(d) => Some(d),
        }
    }
}

/// A Python scalar read from a (nested) sequence: a number, or a `str`/`bytes` (a `tf.string`
/// element; `str` is stored as its UTF-8 bytes, as TensorFlow does).
#[derive(Clone, Debug)]
enum Leaf {
    Bool(bool),
    Int(i128),
    Float(f64),
    Complex(f64, f64),
    Str(TfString),
}

impl Leaf {
    fn fits(&self, d: DType) -> bool {
        match self {
            // TensorFlow's conversion takes a Python bool only for these dtypes (its fast
            // path's table); `tf.constant(True, tf.int8)` is a TypeError there.
            Leaf::Bool(_) => matches!(
                d,
                DType::Bool
                    | DType::I32
                    | DType::I64
                    | DType::U64
                    | DType::F16
                    | DType::F32
                    | DType::F64
                    | DType::C128
            ),
            Leaf::Int(_) => !d.is_bool() && !d.is_string(),
            Leaf::Float(_) => d.is_floating() || d.is_complex(),
            Leaf::Complex(..) => d.is_complex(),
            Leaf::Str(_) => d.is_string(),
        }
    }

    /// The number as an element of a numeric dtype (`fits` has ruled strings out).
    fn to<T: Element>(&self) -> T {
        match *self {
            Leaf::Bool(b) => T::from_bool(b),
            Leaf::Int(i) if i < 0 => T::from_i64(i as i64),
            Leaf::Int(i) => T::from_u64(i as u64),
            Leaf::Float(f) => T::from_f64(f),
            Leaf::Complex(re, im) => T::from_c128(Complex64::new(re, im)),
            Leaf::Str(_) => T::default(),
        }
    }

    fn repr(&self) -> String {
        match self {
            Leaf::Str(s) => match std::str::from_utf8(s.as_bytes()) {
                Ok(text) if !text.contains('\'') => format!("'{text}'"),
                _ => crate::tstring::bytes_repr(s.as_bytes()),
            },
            Leaf::Bool(b) => {
                if *b {
                    "True".into()
                } else {
                    "False".into()
                }
            }
            Leaf::Int(i) => i.to_string(),
            Leaf::Float(f) => format!("{f:?}"),
            Leaf::Complex(re, im) => format!("({re}+{im}j)"),
        }
    }
}

fn leaf(obj: &Bound<'_, PyAny>) -> PyResult<Option<Leaf>> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Some(Leaf::Bool(obj.extract()?)));
    }
    if obj.is_instance_of::<PyInt>() {
        return match obj.extract::<i128>() {
            Ok(i) if i >= i64::MIN as i128 && i <= u64::MAX as i128 => Ok(Some(Leaf::Int(i))),
            _ => Err(PyValueError::new_err(
                "Can't convert Python sequence with out-of-range integer to Tensor.",
            )),
        };
    }
    // numpy's float64 and complex128 subclass Python's types but keep their numpy dtype.
    if obj.is_exact_instance_of::<PyFloat>() {
        return Ok(Some(Leaf::Float(obj.extract()?)));
    }
    if let Ok(c) = obj.cast_exact::<PyComplex>() {
        return Ok(Some(Leaf::Complex(c.real(), c.imag())));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(Leaf::Str(TfString::new(b.as_bytes()))));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Some(Leaf::Str(utf8(s)?)));
    }
    Ok(None)
}

/// A Python `str` as TensorFlow stores it: its UTF-8 bytes (lone surrogates are an error).
fn utf8(s: &Bound<'_, PyString>) -> PyResult<TfString> {
    Ok(TfString::new(s.to_cow()?.as_bytes()))
}

/// TensorFlow's limit on rank; it also bounds the recursion of nested-list conversion.
const MAX_RANK: usize = 254;

/// Walks a rectangular nested list; `None` when an element is not a Python scalar (a tensor or
/// array inside a list), which the caller handles by stacking.
fn walk(
    obj: &Bound<'_, PyAny>,
    depth: usize,
    shape: &mut Vec<usize>,
    leaves: &mut Vec<Leaf>,
) -> PyResult<bool> {
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        if depth >= MAX_RANK {
            return Err(PyValueError::new_err(format!(
                "Can't convert a Python sequence nested more than {MAX_RANK} deep to a Tensor."
            )));
        }
        let n = obj.len()?;
        if shape.len() == depth {
            if !leaves.is_empty() {
                return Err(PyValueError::new_err(
                    "Can't convert non-rectangular Python sequence to Tensor.",
                ));
            }
            shape.push(n);
        } else if shape.len() < depth || shape[depth] != n {
            return Err(PyValueError::new_err(
                "Can't convert non-rectangular Python sequence to Tensor.",
            ));
        }
        for item in obj.try_iter()? {
            if !walk(&item?, depth + 1, shape, leaves)? {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    match leaf(obj)? {
        Some(l) => {
            if shape.len() != depth {
                return Err(PyValueError::new_err(
                    "Can't convert non-rectangular Python sequence to Tensor.",
                ));
            }
            leaves.push(l);
            Ok(true)
        }
        None => Ok(false),
    }
}

fn infer(leaves: &[Leaf]) -> PyResult<DType> {
    let (mut b, mut i, mut f, mut c, mut s) = (false, false, false, false, false);
    let (mut lo, mut hi) = (0i128, 0i128);
    for l in leaves {
        match *l {
            Leaf::Str(_) => s = true,
            Leaf::Bool(_) => b = true,
            Leaf::Int(v) => {
                i = true;
                lo = lo.min(v);
                hi = hi.max(v);
            }
            Leaf::Float(_) => f = true,
            Leaf::Complex(..) => c = true,
        }
    }
    if (b && (i || f || c)) || (c && (i || f)) || (s && (b || i || f || c)) {
        return Err(PyValueError::new_err(
            "Can't convert Python sequence with mixed types to Tensor.",
        ));
    }
    Ok(if s {
        DType::String
    } else if c {
        DType::C128
    } else if f || leaves.is_empty() {
        DType::F32
    } else if b {
        DType::Bool
    } else if lo >= i32::MIN as i128 && hi <= i32::MAX as i128 {
        DType::I32
    } else if lo >= i64::MIN as i128 && hi <= i64::MAX as i128 {
        DType::I64
    } else {
        return Err(PyValueError::new_err(
            "Can't convert Python sequence with out-of-range integer to Tensor.",
        ));
    })
}

fn from_leaves(
    leaves: &[Leaf],
    dims: Vec<usize>,
    hint: Hint,
    value: &Bound<'_, PyAny>,
) -> PyResult<Tensor> {
    let mut inferred = false;
    let dtype = match hint.dtype() {
        Some(d) if leaves.iter().all(|l| l.fits(d)) => d,
        Some(d) if matches!(hint, Hint::Require(_)) => {
            let shown = if leaves.len() == 1 && dims.is_empty() {
                leaves[0].repr()
            } else {
                value.repr()?.to_string()
            };
            return Err(PyTypeError::new_err(format!(
                "Cannot convert {shown} to EagerTensor of dtype {}",
                d.cpp_name()
            )));
        }
        _ => {
            inferred = true;
            infer(leaves)?
        }
    };
    // A float that overflows the dtype TensorFlow inferred (float32 for Python floats) is an
    // error there; one converted to a dtype that was asked for becomes +-inf.
    if inferred
        && dtype == DType::F32
        && leaves
            .iter()
            .any(|l| matches!(l, Leaf::Float(v) if v.is_finite() && v.abs() > f32::MAX as f64))
    {
        return Err(PyValueError::new_err(
            "Can't convert Python sequence with a value out of range for a double-precision float.",
        ));
    }
    if dtype.is_quantized() {
        // Numbers become the storage type's values under the quantized type (TensorFlow's
        // `tf.constant(1, tf.qint8)`), so an op that refuses the type is what raises.
        let storage = from_leaves(leaves, dims, Hint::Require(dtype.storage()), value)?;
        return crate::ops::quantized::retag(&storage, dtype).py();
    }
    let buffer = with_dtype!(dtype, T => T::wrap(leaves.iter().map(|l| l.to::<T>()).collect()), else {
        let strings: Option<Vec<TfString>> =
            leaves.iter().map(|l| if let Leaf::Str(s) = l { Some(s.clone()) } else { None }).collect();
        Buffer::Str(strings.ok_or_else(|| PyTypeError::new_err("Cannot convert a number to EagerTensor of dtype string"))?)
    });
    Tensor::from_buffer(buffer, Shape(dims)).py()
}

/// A Python scalar straight to a tensor: the operator fast path (`x + 1.0`).
pub fn scalar(obj: &Bound<'_, PyAny>, hint: Hint) -> PyResult<Option<Tensor>> {
    match leaf(obj)? {
        Some(l) => from_leaves(&[l], Vec::new(), hint, obj).map(Some),
        None => Ok(None),
    }
}

static NUMPY_ASARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn asarray<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let f = NUMPY_ASARRAY
        .get_or_try_init(py, || py.import("numpy")?.getattr("asarray").map(|f| f.unbind()))?;
    f.bind(py).call1((obj,))
}

thread_local! {
    /// Keras's autocast scope: inside a mixed-precision layer's call, floating variables that
    /// opted in (`_keras_autocast`) are read in this dtype (`ferroflow.keras._autocast`).
    static AUTOCAST: Cell<Option<DType>> = const { Cell::new(None) };
}

/// Sets the autocast dtype of this thread (`None` ends it); returns the previous one.
#[pyfunction]
#[pyo3(signature = (dtype=None))]
pub fn _set_autocast(dtype: Option<u32>) -> PyResult<Option<u32>> {
    let new = super::args::opt_dtype(dtype)?;
    Ok(AUTOCAST.with(|c| c.replace(new)).map(|d| d as u32))
}

/// A variable's value as an op sees it: cast to the autocast dtype when one is in force and
/// the variable is a floating Keras variable that asked for it.
pub fn variable_read(obj: &Bound<'_, PyAny>, variable: &PyVariable) -> Tensor {
    let value = variable.inner.read();
    let Some(target) = AUTOCAST.with(|c| c.get()) else {
        return value;
    };
    if !value.dtype().is_floating() || value.dtype() == target {
        return value;
    }
    let wants = obj
        .getattr(pyo3::intern!(obj.py(), "_keras_autocast"))
        .and_then(|flag| flag.is_truthy())
        .unwrap_or(false);
    if !wants {
        return value;
    }
    crate::ops::cast(&value, target).unwrap_or(value)
}

/// The tensor a `Tensor` holds, or a variable's current value (a read that tapes see).
pub fn as_tensor(obj: &Bound<'_, PyAny>) -> Option<Tensor> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Some(t.get().inner.clone());
    }
    obj.cast::<PyVariable>().ok().map(|v| variable_read(obj, v.get()))
}

pub fn is_tensor_like(obj: &Bound<'_, PyAny>) -> bool {
    obj.cast::<PyTensor>().is_ok() || obj.cast::<PyVariable>().is_ok()
}

pub fn to_tensor(obj: &Bound<'_, PyAny>, hint: Hint) -> PyResult<Tensor> {
    convert_nested(obj, hint, 0)
}

/// Bounds conversions that recurse through user objects (`__tf_tensor__`, lists of arrays).
const MAX_CONVERSION_DEPTH: usize = 64;

fn convert_nested(obj: &Bound<'_, PyAny>, hint: Hint, depth: usize) -> PyResult<Tensor> {
    if depth > MAX_CONVERSION_DEPTH {
        return Err(PyValueError::new_err(format!(
            "Converting {} to a Tensor recursed more than {MAX_CONVERSION_DEPTH} times",
            obj.get_type().name()?
        )));
    }
    if let Some(q) = hint.dtype().filter(|d| d.is_quantized() && as_tensor(obj).is_none()) {
        // Quantized values convert as their integer storage, then take the quantized tag.
        let storage = match hint {
            Hint::Prefer(_) => Hint::Prefer(q.storage()),
            _ => Hint::Require(q.storage()),
        };
        let t = convert_nested(obj, storage, depth + 1)?;
        return crate::ops::quantized::retag(&t, q).py();
    }
    if let Some(t) = as_tensor(obj) {
        let t = &t;
        if let Hint::Require(d) = hint {
            if d != t.dtype() {
                return Err(PyValueError::new_err(format!(
                    "Tensor conversion requested dtype {} for Tensor with dtype {}: {}",
                    d.name(),
                    t.dtype().name(),
                    obj.repr()?
                )));
            }
        }
        return Ok(t.clone());
    }
    if let Some(t) = scalar(obj, hint)? {
        return Ok(t);
    }
    if let Ok(arr) = obj.cast::<PyUntypedArray>() {
        let t = from_numpy(arr)?;
        return match hint.dtype() {
            Some(d) if d != t.dtype() => ops::cast(&t, d).py(),
            _ => Ok(t),
        };
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut shape = Vec::new();
        let mut leaves = Vec::new();
        if walk(obj, 0, &mut shape, &mut leaves)? {
            return from_leaves(&leaves, shape, hint, obj);
        }
        return stack_elements(obj, hint, depth);
    }
    if obj.hasattr("__tf_tensor__")? {
        let t =
            obj.call_method1("__tf_tensor__", (hint.dtype().map(|d| d as u32), obj.py().None()))?;
        return convert_nested(&t, hint, depth + 1);
    }
    if obj.hasattr("__array__")? || obj.hasattr("dtype")? {
        return convert_nested(&asarray(obj)?, hint, depth + 1);
    }
    Err(PyValueError::new_err(format!(
        "Attempt to convert a value ({}) with an unsupported type ({}) to a Tensor.",
        obj.repr()?,
        obj.get_type().name()?
    )))
}

/// A list holding tensors or arrays: convert each element, then stack (as `tf.constant` packs).
fn stack_elements(obj: &Bound<'_, PyAny>, hint: Hint, depth: usize) -> PyResult<Tensor> {
    let mut parts: Vec<Tensor> = Vec::new();
    for item in obj.try_iter()? {
        let item = item?;
        let h = match (hint, parts.first()) {
            (Hint::Infer, Some(p)) => Hint::Prefer(p.dtype()),
            (h, _) => h,
        };
        parts.push(convert_nested(&item, h, depth + 1)?);
    }
    let refs: Vec<&Tensor> = parts.iter().collect();
    if refs.is_empty() {
        return from_leaves(&[], vec![0], hint, obj);
    }
    let stacked = ops::stack(&refs, 0).py()?;
    // Inside a list TensorFlow reads numpy int64 values as Python ints: int32 when they fit.
    if hint == Hint::Infer && stacked.dtype() == DType::I64 && !any_tensor(obj)? {
        let fits = stacked.to_vec::<i64>().py()?.iter().all(|&v| i32::try_from(v).is_ok());
        if fits {
            return ops::cast(&stacked, DType::I32).py();
        }
    }
    Ok(stacked)
}

fn any_tensor(list: &Bound<'_, PyAny>) -> PyResult<bool> {
    for item in list.try_iter()? {
        if is_tensor_like(&item?) {
            return Ok(true);
        }
    }
    Ok(false)
}

fn read_numpy<T: NpElement + Element>(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Buffer> {
    let typed = arr.cast::<PyArrayDyn<T>>()?;
    let ro = typed.readonly();
    // `as_slice` also accepts Fortran order, whose memory order is not the logical order.
    let data: Vec<T> = match ro.as_slice() {
        Ok(s) if typed.is_c_contiguous() => s.to_vec(),
        _ => ro.as_array().iter().copied().collect(),
    };
    Ok(T::wrap(data))
}

pub fn from_numpy(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Tensor> {
    let py = arr.py();
    // Shapes from numpy are checked like any user shape: a broadcast view can claim terabytes.
    let requested: Vec<i64> = arr.shape().iter().map(|&d| d as i64).collect();
    Shape::checked(&requested).py()?;
    if !arr.getattr("flags")?.getattr("aligned")?.extract::<bool>()? {
        // Reading elements through a misaligned pointer is undefined behaviour: copy first.
        let copy = py.import("numpy")?.getattr("array")?.call1((arr,))?;
        return from_numpy(copy.cast::<PyUntypedArray>()?);
    }
    if let Some(shared) = super::numpy_view::tensor_of_view(arr)? {
        return Ok(shared);
    }
    let dt = arr.dtype();
    let dims: Vec<usize> = arr.shape().to_vec();
    macro_rules! try_types {
        ($($t:ty),*) => {
            $( if dt.is_equiv_to(&numpy::dtype::<$t>(py)) { return Tensor::from_buffer(read_numpy::<$t>(arr)?, Shape(dims)).py(); } )*
        };
    }
    try_types!(f32, f64, i32, i64, bool, u8, i8, i16, u16, u32, u64, f16, Complex32, Complex64);
    let kind: String = dt.getattr("kind")?.extract()?;
    if matches!(kind.as_str(), "O" | "S" | "U") {
        return from_numpy_strings(arr, dims);
    }
    let name: String = dt.getattr("name")?.extract()?;
    if name == "bfloat16" {
        let bits = arr.call_method1("view", ("uint16",))?;
        let bits = bits.cast::<PyUntypedArray>()?;
        let Buffer::U16(v) = read_numpy::<u16>(bits)? else { return Err(unreachable_buffer()) };
        return Tensor::from_buffer(
            Buffer::BF16(v.into_iter().map(bf16::from_bits).collect()),
            Shape(dims),
        )
        .py();
    }
    Err(PyValueError::new_err(format!(
        "Failed to convert a NumPy array to a Tensor (unsupported dtype {name})."
    )))
}

/// A numpy array of `bytes`/`str` (object, `S` or `U` dtype) as a string tensor; any other
/// object is TensorFlow's ValueError.
fn from_numpy_strings(arr: &Bound<'_, PyUntypedArray>, dims: Vec<usize>) -> PyResult<Tensor> {
    let flat = arr.call_method0("ravel")?.call_method0("tolist")?;
    let mut strings = Vec::with_capacity(arr.len());
    for item in flat.try_iter()? {
        let item = item?;
        if let Ok(b) = item.cast::<PyBytes>() {
            strings.push(TfString::new(b.as_bytes()));
        } else if let Ok(s) = item.cast::<PyString>() {
            strings.push(utf8(s)?);
        } else {
            return Err(PyValueError::new_err(format!(
                "Failed to convert a NumPy array to a Tensor (Unsupported object type {}).",
                item.get_type().name()?
            )));
        }
    }
    Tensor::from_buffer(Buffer::Str(strings), Shape(dims)).py()
}

fn unreachable_buffer() -> PyErr {
    super::errors::to_py(Error::Internal("numpy view changed type".into()))
}

static BFLOAT16: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// ml_dtypes' `bfloat16`, numpy's type for bfloat16 elements.
pub fn bfloat16_type(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    let ty = BFLOAT16
        .get_or_try_init(py, || py.import("ml_dtypes")?.getattr("bfloat16").map(|f| f.unbind()))?;
    Ok(ty.bind(py))
}

/// numpy's NPY_MAXDIMS as rust-numpy assumes it (numpy 2 allows 64, numpy 1 allows 32).
const NUMPY_MAX_RANK: usize = 32;

/// Refuses symbolic tensors and ranks numpy cannot hold.
pub fn check_convertible(t: &Tensor) -> PyResult<()> {
    crate::graph::trace::check_concrete(t, "Converting to numpy").map_err(super::errors::to_py)?;
    if t.rank() > NUMPY_MAX_RANK {
        return Err(PyValueError::new_err(format!(
            "Cannot convert a tensor of rank {} to numpy, which supports at most {NUMPY_MAX_RANK} dimensions",
            t.rank()
        )));
    }
    Ok(())
}

/// A new numpy array holding a copy of the tensor's elements.
pub fn to_numpy<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    check_convertible(t)?;
    let dims = IxDyn(t.dims());
    fn make<'py, T: NpElement + Clone>(
        py: Python<'py>,
        dims: IxDyn,
        v: Vec<T>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let a =
            ArrayD::from_shape_vec(dims, v).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(numpy::PyArray::from_owned_array(py, a).into_any())
    }
    match t.host().py()? {
        Buffer::Str(v) => {
            // An object array of `bytes`, as TensorFlow's `.numpy()` gives.
            let items: Vec<Bound<'py, PyBytes>> =
                v.iter().map(|s| PyBytes::new(py, s.as_bytes())).collect();
            let np = py.import("numpy")?;
            let out = np.getattr("empty")?.call1((v.len(), np.getattr("object_")?))?;
            out.set_item(pyo3::types::PySlice::full(py), PyList::new(py, items)?)?;
            out.call_method1("reshape", (PyTuple::new(py, t.dims())?,))
        }
        Buffer::BF16(v) => {
            let bits = make(py, dims, v.iter().map(|x| x.to_bits()).collect::<Vec<u16>>())?;
            bits.call_method1("view", (bfloat16_type(py)?,))
        }
        b => crate::match_buffer!(
            b,
            v,
            [F16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Bool, C64, C128],
            make(py, dims, v.clone()),
            Err(unreachable_buffer())
        ),
    }
}
