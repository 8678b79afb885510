//! PyO3 bindings: argument conversion and error mapping only. The TensorFlow-shaped API
//! (names, defaults, aliases) is plain Python in `python/ferroflow/`.

mod args;
mod autodiff;
mod checkpoint;
mod convert;
mod debugging;
mod devices;
mod dlpack;
mod errors;
mod graph;
mod host_call;
mod io;
mod ops;
mod random;
mod saved_model;
mod tensor;
mod tf_saved_model;
mod variable;
mod windows;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<tensor::PyTensor>()?;
    ops::register(m)?;
    autodiff::register(m)?;
    devices::register(m)?;
    graph::register(m)?;
    host_call::register(m)?;
    checkpoint::register(m)?;
    saved_model::register(m)?;
    tf_saved_model::register(m)?;
    random::register(m)?;
    windows::register(m)?;
    debugging::register(m)?;
    m.add_function(wrap_pyfunction!(convert::_set_autocast, m)?)?;
    dlpack::register(m)?;
    io::register(m)?;
    Ok(())
}
