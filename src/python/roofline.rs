//! The machine's measured roofline (see `crate::roofline`) for the benchmarks.

use pyo3::prelude::*;
use pyo3::types::PyDict;

fn rate_dict<'py>(py: Python<'py>, rate: &crate::roofline::Rate) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("value", rate.value)?;
    d.set_item("method", rate.method)?;
    d.set_item("threads", rate.threads)?;
    Ok(d)
}

/// Float32 FMA peak in GFLOP/s on `threads` threads (0: all of ferroflow's pool).
#[pyfunction]
#[pyo3(signature = (threads=0, seconds=0.2, repeats=3))]
fn roofline_fma_peak<'py>(
    py: Python<'py>,
    threads: usize,
    seconds: f64,
    repeats: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let rate = py.detach(|| crate::roofline::fma_peak(threads, seconds.clamp(1e-3, 10.0), repeats));
    rate_dict(py, &rate)
}

/// Memory bandwidth in GB/s: `{"triad": ..., "read": ...}` over arrays of `bytes` bytes.
#[pyfunction]
#[pyo3(signature = (bytes=256 << 20, threads=0, repeats=5))]
fn roofline_bandwidth<'py>(
    py: Python<'py>,
    bytes: usize,
    threads: usize,
    repeats: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let bytes = bytes.min(4 << 30);
    let (triad, read) = py.detach(|| crate::roofline::memory_bandwidth(bytes, threads, repeats));
    let d = PyDict::new(py);
    d.set_item("triad", rate_dict(py, &triad)?)?;
    d.set_item("read", rate_dict(py, &read)?)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(roofline_fma_peak, m)?)?;
    m.add_function(wrap_pyfunction!(roofline_bandwidth, m)?)?;
    Ok(())
}
