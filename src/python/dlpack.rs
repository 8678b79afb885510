//! DLPack: `tf.experimental.dlpack.to_dlpack` / `from_dlpack` and `Tensor.__dlpack__`.
//!
//! Export shares memory: the capsule's `DLManagedTensor` points at the tensor's host storage and
//! its deleter drops a handle that keeps that storage alive. wgpu buffers cannot be handed to
//! another library, so a GPU tensor is exported as a host copy (kDLCPU): what a TensorFlow user
//! moving values to numpy expects to work (TensorFlow's kDLCUDA export serves CUDA consumers,
//! which ferroflow's GPUs are not).
//!
//! Import shares memory, as TensorFlow's: the tensor's storage is a `Borrowed` buffer reading
//! the producer's elements in place, and the producer's deleter runs once, when the last tensor
//! sharing that storage is dropped (a later write to a numpy source shows in the tensor). Strides
//! must be compact and row-major, as TensorFlow requires ("Invalid strides array from DLPack").
//! Where Rust cannot read the memory as typed elements (a pointer not aligned for the element
//! type, which TensorFlow shares anyway; bools, whose bytes a producer could later set to
//! values a Rust bool must never hold) the elements are copied once and the deleter runs at
//! once: a later write to such a source does not show in the tensor, unlike TensorFlow's.
//!
//! The structs are DLPack's stable v0.8 ABI, declared here: the one crate (`dlpark`) pins its
//! own pyo3 for its Python side and moves its API between 0.x releases; these four structs are
//! all ferroflow needs.

use super::errors::IntoPy;
use super::tensor::{wrap, PyTensor};
use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::Error;
use crate::shape::Shape;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::{c_void, CStr};

const KDL_CPU: i32 = 1;
const NAME: &CStr = c"dltensor";
const USED_NAME: &CStr = c"used_dltensor";

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// What an exported capsule owns: the tensor (its storage stays alive) and the dims the
/// `DLTensor` points at.
struct Export {
    _tensor: Tensor,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

/// (type code, bits) of a dtype in DLPack: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4,
/// kDLComplex 5, kDLBool 6.
fn dl_dtype(dtype: DType) -> Option<DLDataType> {
    let (code, bits) = match dtype {
        DType::I8 => (0, 8),
        DType::I16 => (0, 16),
        DType::I32 => (0, 32),
        DType::I64 => (0, 64),
        DType::U8 => (1, 8),
        DType::U16 => (1, 16),
        DType::U32 => (1, 32),
        DType::U64 => (1, 64),
        DType::F16 => (2, 16),
        DType::F32 => (2, 32),
        DType::F64 => (2, 64),
        DType::BF16 => (4, 16),
        DType::C64 => (5, 64),
        DType::C128 => (5, 128),
        DType::Bool => (6, 8),
        _ => return None,
    };
    Some(DLDataType { code, bits, lanes: 1 })
}

fn from_dl_dtype(t: DLDataType) -> Option<DType> {
    if t.lanes != 1 {
        return None;
    }
    Some(match (t.code, t.bits) {
        (0, 8) => DType::I8,
        (0, 16) => DType::I16,
        (0, 32) => DType::I32,
        (0, 64) => DType::I64,
        (1, 8) => DType::U8,
        (1, 16) => DType::U16,
        (1, 32) => DType::U32,
        (1, 64) => DType::U64,
        (2, 16) => DType::F16,
        (2, 32) => DType::F32,
        (2, 64) => DType::F64,
        (4, 16) => DType::BF16,
        (5, 64) => DType::C64,
        (5, 128) => DType::C128,
        (6, 8) => DType::Bool,
        _ => return None,
    })
}

unsafe extern "C" fn delete_export(managed: *mut DLManagedTensor) {
    // SAFETY: `managed` and its context were made by `Box::into_raw` in `export` and the
    // DLPack contract calls the deleter once.
    unsafe {
        let managed = Box::from_raw(managed);
        drop(Box::from_raw(managed.manager_ctx as *mut Export));
    }
}

/// A capsule nobody consumed deletes its tensor; a consumer renames it "used_dltensor" and
/// calls the deleter itself.
unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    // SAFETY: called by Python with a live capsule; IsValid sets no error.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, NAME.as_ptr()) != 1 {
            return;
        }
        let managed = ffi::PyCapsule_GetPointer(capsule, NAME.as_ptr()) as *mut DLManagedTensor;
        if let Some(deleter) = managed.as_ref().and_then(|m| m.deleter) {
            deleter(managed);
        }
    }
}

/// A "dltensor" capsule of `t`'s values: host storage shared, a GPU tensor's copied to the host
/// first (and always a copy when `copy`).
pub(crate) fn export(py: Python<'_>, t: &Tensor, copy: bool) -> PyResult<Py<PyAny>> {
    let Some(dtype) = dl_dtype(t.dtype()) else {
        return Err(Error::InvalidArgument(format!(
            "{} is not supported by dlpack",
            t.dtype().name()
        )))
        .py();
    };
    let host = if copy || t.device().is_gpu() {
        Tensor::from_buffer(t.host().py()?.clone(), t.shape().clone()).py()?
    } else {
        t.clone()
    };
    let data = crate::with_movable!(host.host().py()?, v => v.as_ptr() as *mut c_void);
    let dims = host.shape().dims();
    let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let mut strides = vec![1i64; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * dims[k + 1].max(1) as i64;
    }
    let ctx = Box::new(Export { _tensor: host, shape, strides });
    let managed = Box::into_raw(Box::new(DLManagedTensor {
        dl_tensor: DLTensor {
            data,
            device: DLDevice { device_type: KDL_CPU, device_id: 0 },
            ndim: ctx.shape.len() as i32,
            dtype,
            // The Vecs' heap blocks stay put while the box holding them moves.
            shape: ctx.shape.as_ptr() as *mut i64,
            strides: ctx.strides.as_ptr() as *mut i64,
            byte_offset: 0,
        },
        manager_ctx: Box::into_raw(ctx) as *mut c_void,
        deleter: Some(delete_export),
    }));
    // SAFETY: a static name, a pointer the destructor owns; on failure nothing holds it.
    unsafe {
        let capsule =
            ffi::PyCapsule_New(managed as *mut c_void, NAME.as_ptr(), Some(capsule_destructor));
        if capsule.is_null() {
            delete_export(managed);
            return Err(PyErr::fetch(py));
        }
        Ok(Bound::from_owned_ptr(py, capsule).unbind())
    }
}

/// Calls the producer's deleter when the import is done with its memory: at once after a copy,
/// or as the owner of a `Borrowed` storage when its last tensor drops.
struct Consumed(*mut DLManagedTensor);

// SAFETY: the DLManagedTensor is only read (its data through shared borrows) and its deleter
// called once, from whichever thread drops the last handle; DLPack producers' deleters may run
// on any thread (numpy's takes the GIL itself).
unsafe impl Send for Consumed {}
unsafe impl Sync for Consumed {}

impl Drop for Consumed {
    fn drop(&mut self) {
        // SAFETY: the capsule was renamed "used_dltensor", so this is the only call.
        unsafe {
            if let Some(deleter) = (*self.0).deleter {
                deleter(self.0);
            }
        }
    }
}

fn invalid(msg: &str) -> PyErr {
    super::errors::to_py(Error::InvalidArgument(msg.to_string()))
}

/// A tensor of a "dltensor" capsule's values (consumed: renamed "used_dltensor").
fn import(capsule: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let ptr = capsule.as_ptr();
    // SAFETY: CheckExact/IsValid/GetName only read the object.
    unsafe {
        if ffi::PyCapsule_CheckExact(ptr) != 1 {
            return Err(PyTypeError::new_err(format!(
                "from_dlpack expects a DLPack capsule, got {}",
                capsule.get_type().name()?
            )));
        }
        if ffi::PyCapsule_IsValid(ptr, NAME.as_ptr()) != 1 {
            let name = ffi::PyCapsule_GetName(ptr);
            let name = if name.is_null() {
                String::new()
            } else {
                CStr::from_ptr(name).to_string_lossy().into_owned()
            };
            ffi::PyErr_Clear();
            return Err(invalid(&format!(
                "DLPack tensor must be a capsule with name \"dltensor\", got \"{name}\". Note \
                 that a DLPack tensor may be consumed at most once."
            )));
        }
    }
    // SAFETY: a valid "dltensor" capsule holds a DLManagedTensor its producer keeps alive until
    // its deleter runs (the capsule's destructor calls it while the capsule is not consumed).
    let managed = unsafe { ffi::PyCapsule_GetPointer(ptr, NAME.as_ptr()) as *mut DLManagedTensor };
    if managed.is_null() {
        return Err(PyErr::fetch(capsule.py()));
    }
    // SAFETY: see above; the pointers inside describe `ndim` dims.
    let t = unsafe { &(*managed).dl_tensor };
    if t.device.device_type != KDL_CPU {
        return Err(invalid(&format!(
            "Unsupported Device Type {}: ferroflow imports host (kDLCPU) DLPack tensors",
            t.device.device_type
        )));
    }
    let Some(dtype) = from_dl_dtype(t.dtype) else {
        return Err(invalid(&format!(
            "Unsupported DLPack data type (code {}, bits {}, lanes {})",
            t.dtype.code, t.dtype.bits, t.dtype.lanes
        )));
    };
    let ndim = usize::try_from(t.ndim).map_err(|_| invalid("Invalid ndim from DLPack"))?;
    // SAFETY: DLPack's shape (and strides, when not null) hold `ndim` entries.
    let shape: &[i64] =
        if ndim == 0 { &[] } else { unsafe { std::slice::from_raw_parts(t.shape, ndim) } };
    if shape.iter().any(|&d| d < 0) {
        return Err(invalid("Invalid shape from DLPack"));
    }
    let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    // A producer's sizes are not trusted: their product must not overflow or exceed memory.
    let n = dims
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| invalid("Invalid shape from DLPack"))?;
    crate::shape::check_alloc(n, dtype).py()?;
    if !t.strides.is_null() && ndim > 0 && n > 0 {
        // SAFETY: as above.
        let strides = unsafe { std::slice::from_raw_parts(t.strides, ndim) };
        let mut expect = 1i64;
        for k in (0..ndim).rev() {
            // Strides of size-1 dims do not matter.
            if shape[k] != 1 && strides[k] != expect {
                return Err(invalid("Invalid strides array from DLPack"));
            }
            expect = expect.saturating_mul(shape[k]);
        }
    }
    if n > 0 && t.data.is_null() {
        return Err(invalid("Invalid data pointer from DLPack"));
    }
    // Consumed only once accepted, as TensorFlow: a refused capsule stays its producer's (its
    // destructor deletes it). Renamed, this import is its only consumer.
    // SAFETY: a live capsule.
    if unsafe { ffi::PyCapsule_SetName(ptr, USED_NAME.as_ptr()) } != 0 {
        return Err(PyErr::fetch(capsule.py()));
    }
    let consumed = Consumed(managed);
    if n == 0 {
        return Tensor::from_buffer(Buffer::zeros(dtype, 0), Shape(dims)).py();
    }
    let width = dtype.size();
    // SAFETY: `data + byte_offset` holds `n` compact elements of `dtype` (checked above), which
    // the producer keeps until its deleter runs.
    let start = unsafe { (t.data as *const u8).add(t.byte_offset as usize) };
    let bytes: &[u8] = unsafe { std::slice::from_raw_parts(start, n * width) };
    let align = crate::with_dtype!(dtype, T => std::mem::align_of::<T>(), else width);
    // Read in place when Rust may view the bytes as elements: aligned, and not bool. A Rust
    // bool must be 0 or 1 for as long as it is read, and the producer may write any byte to
    // memory it shares later, so bools are always copied (any non-zero byte is true).
    if start.addr().is_multiple_of(align) && dtype != DType::Bool {
        let owner: Box<dyn Send + Sync> = Box::new(consumed);
        // SAFETY: aligned valid elements that stay in place until `owner`, which the storage
        // holds, runs the producer's deleter.
        let borrowed = crate::with_dtype!(dtype, T => unsafe {
            crate::buffer::Borrowed::new(start.cast::<T>(), n, owner)
        }, else return Err(invalid("Unsupported DLPack data type")));
        return Tensor::from_borrowed(borrowed, Shape(dims)).py();
    }
    let buffer = match dtype {
        // Any non-zero byte is true (a bool read straight from foreign bytes could be invalid).
        DType::Bool => Buffer::Bool(bytes.iter().map(|&b| b != 0).collect()),
        _ => crate::with_dtype!(dtype, T => {
            let mut v: Vec<T> = Vec::with_capacity(n);
            // SAFETY: plain-old-data element types; `bytes` holds exactly n of them (not
            // aligned: copied bytewise).
            unsafe {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr().cast::<u8>(), n * width);
                v.set_len(n);
            }
            <T as crate::element::Movable>::wrap_vec(v)
        }, else return Err(invalid("Unsupported DLPack data type"))),
    };
    drop(consumed);
    Tensor::from_buffer(buffer, Shape(dims)).py()
}

/// `tf.experimental.dlpack.to_dlpack`: a capsule sharing the tensor's host memory.
#[pyfunction]
fn to_dlpack(py: Python<'_>, tensor: &Bound<'_, PyTensor>) -> PyResult<Py<PyAny>> {
    export(py, &tensor.get().inner, false)
}

/// `tf.experimental.dlpack.from_dlpack` of a capsule.
#[pyfunction]
fn from_dlpack(py: Python<'_>, capsule: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
    wrap(py, import(capsule)?)
}

#[pymethods]
impl PyTensor {
    /// The DLPack protocol: a capsule sharing this tensor's host memory (a GPU tensor's values
    /// are copied to the host; `copy=True` always copies).
    #[pyo3(signature = (stream=None, *, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__(
        &self,
        py: Python<'_>,
        stream: Option<Bound<'_, PyAny>>,
        max_version: Option<Bound<'_, PyAny>>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let _ = max_version; // Unversioned capsules are what every consumer accepts.
        if stream.is_some_and(|s| !s.is_none()) {
            return Err(PyBufferError::new_err("stream must be None for a host (kDLCPU) tensor"));
        }
        if dl_device.is_some_and(|d| d != (KDL_CPU, 0)) {
            return Err(PyBufferError::new_err(
                "ferroflow exports DLPack tensors on the host (kDLCPU, 0) only",
            ));
        }
        if copy == Some(false) && self.inner.device().is_gpu() {
            return Err(PyBufferError::new_err(
                "a GPU tensor's memory cannot be shared through DLPack (copy=False)",
            ));
        }
        export(py, &self.inner, copy == Some(true))
    }

    fn __dlpack_device__(&self) -> (i32, i32) {
        (KDL_CPU, 0)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(to_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(from_dlpack, m)?)?;
    Ok(())
}
