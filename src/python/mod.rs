//! PyO3 bindings: argument conversion and error mapping only. The TensorFlow-shaped API
//! (names, defaults, aliases) is plain Python in `python/ferroflow/`.

mod args;
mod convert;
mod devices;
mod errors;
mod ops;
mod tensor;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<tensor::PyTensor>()?;
    ops::register(m)?;
    devices::register(m)?;
    Ok(())
}
