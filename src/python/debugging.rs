//! `tf.debugging.enable_check_numerics` / `disable_check_numerics` (see `check_numerics`),
//! and the per-node timing of graphs (`graph::op_times`).

use pyo3::prelude::*;

/// Turns the NaN/Inf check of every op's floating-point outputs on or off for this thread.
#[pyfunction]
fn set_check_numerics(enabled: bool) {
    crate::check_numerics::set_enabled(enabled);
}

#[pyfunction]
fn check_numerics_enabled() -> bool {
    crate::check_numerics::enabled()
}

/// Names the tf.function graph about to run on this thread (None after it); returns the
/// previous name. Errors of its ops then say "graph op".
#[pyfunction]
#[pyo3(signature = (name=None))]
fn set_check_numerics_graph(name: Option<String>) -> Option<String> {
    crate::check_numerics::set_graph(name)
}

/// Starts counting host time per graph node type (see `graph::op_times`), clearing counts.
#[pyfunction]
fn op_times_start() {
    crate::graph::op_times::start();
}

/// Stops counting; (node type and dims, nodes run, seconds), longest total first.
#[pyfunction]
fn op_times_take() -> Vec<(String, u64, f64)> {
    crate::graph::op_times::take()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_check_numerics, m)?)?;
    m.add_function(wrap_pyfunction!(check_numerics_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(set_check_numerics_graph, m)?)?;
    m.add_function(wrap_pyfunction!(op_times_start, m)?)?;
    m.add_function(wrap_pyfunction!(op_times_take, m)?)?;
    Ok(())
}
