//! numpy arrays that read a tensor's host memory in place, as TensorFlow's `np.asarray(t)` and
//! `__array__` do (read-only views), and tensors made back from such views without a copy.
//!
//! A view keeps a clone of the tensor alive through its base object (`_HostMemory`). Storage
//! is immutable while more than one handle shares it (`Tensor::overwrite_in_place` and
//! `append_rows_in_place` act only on the sole handle), so the memory a view reads can neither
//! change nor move while the view exists. `.numpy()` still copies: TensorFlow's returns a
//! writeable array of its own, and code that writes into it must not change the tensor.

use super::convert;
use super::errors::IntoPy;
use crate::buffer::Buffer;
use crate::tensor::Tensor;
use ndarray::{ArrayViewD, IxDyn};
use numpy::{
    Element as NpElement, PyArray, PyArrayDescr, PyArrayDescrMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;

/// The base object of a view: owns a handle to the viewed tensor.
#[pyclass(frozen, module = "ferroflow._core", name = "_HostMemory")]
pub struct HostMemory {
    tensor: Tensor,
}

/// A read-only numpy array over `t`'s host elements. Strings (object arrays of `bytes`) are
/// copied, as they have no numpy layout to share; bfloat16 needs ml_dtypes, as `.numpy()` does.
pub fn view<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    convert::check_convertible(t)?;
    let owner = Bound::new(py, HostMemory { tensor: t.clone() })?;
    let dims = IxDyn(t.dims());
    let array = match owner.get().tensor.host().py()? {
        Buffer::Str(_) => return convert::to_numpy(py, t),
        Buffer::BF16(v) => {
            // SAFETY: bf16 and u16 have the same size and alignment; bits are reinterpreted.
            let bits = unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u16>(), v.len()) };
            let a = borrow(owner.clone(), dims, bits)?;
            // Read-only before the view is taken: numpy lets an array be made writeable again
            // when an array in its base chain is, and `base` reaches this one.
            a.getattr("flags")?.setattr("writeable", false)?;
            a.call_method1("view", (convert::bfloat16_type(py)?,))?
        }
        b => crate::match_buffer!(
            b,
            v,
            [F16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Bool, C64, C128],
            borrow(owner.clone(), dims, v)?,
            return convert::to_numpy(py, t)
        ),
    };
    array.getattr("flags")?.setattr("writeable", false)?;
    Ok(array)
}

fn borrow<'py, T: NpElement>(
    owner: Bound<'py, HostMemory>,
    dims: IxDyn,
    data: &[T],
) -> PyResult<Bound<'py, PyAny>> {
    let view = ArrayViewD::from_shape(dims, data)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    // SAFETY: `data` is the host buffer of the tensor `owner` holds. The array keeps `owner`
    // as its base, and the buffer neither moves nor changes while `owner` shares the storage
    // (see the module comment).
    Ok(unsafe { PyArray::borrow_from_array(&view, owner.into_any()) }.into_any())
}

/// The tensor a view of a host tensor reads, under the view's shape, when `arr` covers exactly
/// that tensor's elements in order and with its dtype; None for any other array.
pub fn tensor_of_view(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Option<Tensor>> {
    // A view of a view (a reshape) has the first view as its base: walk up to the owner.
    let mut base = arr.getattr("base")?;
    while let Ok(array) = base.cast::<PyUntypedArray>() {
        base = array.getattr("base")?;
    }
    let Ok(owner) = base.cast::<HostMemory>() else { return Ok(None) };
    let t = &owner.get().tensor;
    // A quantized tensor's view is its plain integer storage: its tensor would keep the
    // quantized dtype, where converting the array gives the plain one.
    if t.is_deferred()
        || t.gpu_storage().is_some()
        || t.dtype().is_quantized()
        || !arr.is_c_contiguous()
    {
        return Ok(None);
    }
    let host = t.host().py()?;
    let py = arr.py();
    let dtype = arr.dtype();
    let same_dtype = match host {
        Buffer::BF16(_) => dtype.getattr("name")?.extract::<String>()? == "bfloat16",
        b => crate::match_buffer!(
            b,
            v,
            [F16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Bool, C64, C128],
            dtype_is::<_>(py, &dtype, v),
            false
        ),
    };
    // SAFETY (reading only): the pointer is compared, never dereferenced.
    let data = unsafe { (*arr.as_array_ptr()).fields.data } as usize;
    if !same_dtype || arr.len() != host.len() || data != host.address() {
        return Ok(None);
    }
    Ok(Some(t.with_shape(crate::shape::Shape(arr.shape().to_vec()))))
}

/// Whether `dtype` is numpy's dtype for the elements of `_values`.
fn dtype_is<T: NpElement>(py: Python<'_>, dtype: &Bound<'_, PyArrayDescr>, _values: &[T]) -> bool {
    dtype.is_equiv_to(&numpy::dtype::<T>(py))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<HostMemory>()
}
