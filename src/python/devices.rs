//! Device configuration and `tf.device` scopes for `ferroflow.config` and `ferroflow.device`.

use super::errors::IntoPy;
use super::tensor::PyTensor;
use crate::device::{self, Device};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Every adapter that counts as a GPU: (name, vendor id, backend, driver, is software).
#[pyfunction]
fn gpu_adapters(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let mut out = Vec::new();
    for a in crate::gpu::physical_devices() {
        let d = PyDict::new(py);
        d.set_item("device_name", a.name)?;
        d.set_item("vendor_id", a.vendor)?;
        d.set_item("backend", a.backend)?;
        d.set_item("driver", a.driver)?;
        d.set_item("software", a.software)?;
        d.set_item("shader_f16", a.shader_f16)?;
        d.set_item("shader_int64", a.shader_int64)?;
        out.push(d);
    }
    Ok(out)
}

/// Indices of the visible GPUs among `gpu_adapters()`.
#[pyfunction]
fn visible_gpus() -> Vec<usize> {
    crate::gpu::visible_devices()
}

#[pyfunction]
fn set_visible_gpus(indices: Vec<usize>) -> PyResult<()> {
    crate::gpu::set_visible_devices(&indices).py()
}

/// Enters a `tf.device` scope; returns the merged specification now in force.
#[pyfunction]
fn push_device_scope(spec: &str) -> PyResult<String> {
    device::push_scope(spec).map(|s| s.to_canonical()).py()
}

#[pyfunction]
fn pop_device_scope() {
    device::pop_scope();
}

#[pyfunction]
fn set_soft_device_placement(enabled: bool) {
    device::set_soft_device_placement(enabled);
}

#[pyfunction]
fn get_soft_device_placement() -> bool {
    device::soft_device_placement()
}

#[pyfunction]
fn set_log_device_placement(enabled: bool) {
    device::set_log_device_placement(enabled);
}

#[pyfunction]
fn get_log_device_placement() -> bool {
    device::log_device_placement()
}

/// A copy of `t` on the named device (`"CPU:0"`, `"GPU:1"`, ...), or `t` when it is there.
#[pyfunction]
fn copy_to_device(py: Python<'_>, t: &PyTensor, spec: &str) -> PyResult<Py<PyTensor>> {
    let parsed = device::DeviceSpec::parse(spec).py()?;
    let target = match parsed.device_type.as_deref() {
        Some("GPU") => Device::Gpu(parsed.index.unwrap_or(0)),
        _ => Device::cpu(parsed.index.unwrap_or(0)),
    };
    let moved = t.inner.to_device(target).py()?.ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "a {} tensor cannot live on {spec}",
            t.inner.dtype().name()
        ))
    })?;
    Py::new(py, PyTensor { inner: moved })
}

/// Splits the host into `count` logical CPUs (`set_logical_device_configuration`).
#[pyfunction]
fn set_logical_cpu_count(count: usize) {
    device::set_logical_cpu_count(count);
}

/// Splits GPU adapter `physical` into logical GPUs with these memory limits in bytes (an empty
/// list undoes the split).
#[pyfunction]
fn set_gpu_logical_split(physical: usize, limits: Vec<Option<u64>>) -> PyResult<()> {
    crate::gpu::set_logical_split(physical, &limits).py()
}

/// (current, peak) bytes in use on logical GPU `index`.
#[pyfunction]
fn gpu_memory_info(index: usize) -> PyResult<(u64, u64)> {
    crate::gpu::memory_info(index).py()
}

#[pyfunction]
fn reset_gpu_memory_stats(index: usize) -> PyResult<()> {
    crate::gpu::reset_memory_stats(index).py()
}

/// Waits for every visible GPU's queued work (for timing; reading a value waits anyway).
#[pyfunction]
fn gpu_synchronize() -> PyResult<()> {
    for i in 0..crate::gpu::visible_count() {
        crate::gpu::synchronize(i).py()?;
    }
    Ok(())
}

/// Kernel dispatches recorded on every GPU since the process started (for benchmarks).
#[pyfunction]
fn gpu_dispatch_count() -> u64 {
    crate::gpu::dispatch_count()
}

/// The matmul tilings the GPU autotune chooses from (`set_gpu_matmul_tiling` takes these names).
#[pyfunction]
fn gpu_matmul_tilings() -> Vec<String> {
    crate::gpu::kernels::matmul_tuning::candidate_names()
}

/// Forces one matmul tiling for every later GPU product (tests check each tiling; benchmarks
/// compare them); None returns to the default and the autotune.
#[pyfunction]
#[pyo3(signature = (name=None))]
fn set_gpu_matmul_tiling(name: Option<&str>) -> PyResult<()> {
    crate::gpu::kernels::matmul_tuning::force(name).py()
}

/// The calling thread's index in the intra-op (rayon) pool, None outside it: the thread that
/// loads the extension as Python's main thread joins the pool at the first op.
#[pyfunction]
fn intra_op_thread_index() -> Option<usize> {
    rayon::current_thread_index()
}

/// Test hook: destroys GPU `index` as a driver reset would.
#[pyfunction]
fn simulate_gpu_loss(index: usize) -> PyResult<()> {
    crate::gpu::simulate_device_loss(index).py()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    macro_rules! add {
        ($($f:ident),* $(,)?) => { $( m.add_function(wrap_pyfunction!($f, m)?)?; )* };
    }
    add!(
        simulate_gpu_loss,
        gpu_adapters,
        visible_gpus,
        set_visible_gpus,
        push_device_scope,
        pop_device_scope,
        set_soft_device_placement,
        get_soft_device_placement,
        set_log_device_placement,
        get_log_device_placement,
        copy_to_device,
        gpu_synchronize,
        gpu_dispatch_count,
        gpu_matmul_tilings,
        set_gpu_matmul_tiling,
        intra_op_thread_index,
        set_logical_cpu_count,
        set_gpu_logical_split,
        gpu_memory_info,
        reset_gpu_memory_stats,
    );
    Ok(())
}
