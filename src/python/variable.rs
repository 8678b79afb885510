//! `ferroflow._core.BaseVariable`: the Rust half of `tf.Variable` (storage, reads that tapes
//! see, in-place writes). `python/ferroflow/variables.py` subclasses it with TensorFlow's
//! constructor arguments, names and presentation.

use super::convert::{to_tensor, Hint};
use super::errors::IntoPy;
use super::tensor::{wrap, PyTensor};
use crate::autodiff::pause_all;
use crate::error::Error;
use crate::ops;
use crate::variable::{DeclaredShape, Variable};
use pyo3::prelude::*;

#[pyclass(name = "BaseVariable", module = "ferroflow._core", subclass, weakref, dict, frozen)]
pub struct PyVariable {
    pub inner: Variable,
}

#[pymethods]
impl PyVariable {
    /// `share`: another variable object whose variable this one refers to (what `assign`
    /// returns); otherwise a new variable holding a copy of `initial`, placed by the device
    /// scope in force (else on the GPU when one can hold its dtype).
    #[new]
    #[pyo3(signature = (initial, name, trainable, declared, share=None))]
    fn new(
        initial: &Bound<'_, PyAny>,
        name: &str,
        trainable: bool,
        declared: DeclaredShape,
        share: Option<PyRef<'_, PyVariable>>,
    ) -> PyResult<Self> {
        if let Some(other) = share {
            return Ok(PyVariable { inner: other.inner.clone() });
        }
        let value = to_tensor(initial, Hint::Infer)?;
        let device = crate::device::place_variable(value.dtype()).py()?;
        Ok(PyVariable {
            inner: Variable::new(&value, name, trainable, declared, Some(device)).py()?,
        })
    }

    /// The value as an op input (tapes watching the variable record the read).
    fn value(slf: &Bound<'_, Self>) -> PyResult<Py<PyTensor>> {
        wrap(slf.py(), super::convert::variable_read(slf.as_any(), slf.get()))
    }

    /// The value without telling any tape.
    fn _peek(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap(py, self.inner.peek())
    }

    /// `kind`: "assign", "add" or "sub"; `value` already has the variable's dtype. Not recorded
    /// on tapes: assignments are not differentiable.
    fn _update(&self, kind: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = to_tensor(value, Hint::Infer)?;
        let _paused = pause_all();
        // A trace must read the variable as a graph node, not capture today's value.
        let current = || match crate::graph::trace::recording() {
            true => self.inner.read(),
            false => self.inner.peek(),
        };
        let new = match kind {
            "assign" => value,
            "add" => ops::add(&current(), &value).py()?,
            "sub" => ops::sub(&current(), &value).py()?,
            other => return Err(Error::Internal(format!("unknown update {other}"))).py(),
        };
        self.inner.assign(&new).py()
    }

    #[getter]
    fn _unique_id(&self) -> u64 {
        self.inner.id()
    }

    #[getter]
    fn _base_name(&self) -> String {
        self.inner.name().to_string()
    }

    #[getter]
    fn trainable(&self) -> bool {
        self.inner.trainable()
    }

    #[getter]
    fn _declared(&self) -> DeclaredShape {
        self.inner.declared_shape().clone()
    }

    #[getter]
    fn device(&self) -> String {
        self.inner.device().name()
    }

    /// The address of the backing storage (tests check that assignments reuse it).
    fn _storage_address(&self) -> usize {
        self.inner.peek().storage_address()
    }
}
