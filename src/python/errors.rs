//! Maps `Error` to the matching `ferroflow.errors` class (or Python's TypeError/ValueError).

use crate::error::Error;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

static ERRORS_MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn op_error(py: Python<'_>, class: &str, message: &str) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let module = ERRORS_MODULE
            .get_or_try_init(py, || py.import("ferroflow.errors").map(|m| m.unbind()))?;
        let cls = module.bind(py).getattr(class)?.cast_into::<PyType>()?;
        let instance = cls.call1((py.None(), py.None(), message))?;
        Ok(PyErr::from_value(instance))
    };
    build().unwrap_or_else(|e| e)
}

pub fn to_py(e: Error) -> PyErr {
    Python::attach(|py| {
        let (class, msg) = match &e {
            Error::Type(m) => return PyTypeError::new_err(m.clone()),
            Error::Value(m) => return PyValueError::new_err(m.clone()),
            Error::Runtime(m) => return PyRuntimeError::new_err(m.clone()),
            Error::External(x) => {
                return match x.0.downcast_ref::<PyErr>() {
                    Some(original) => original.clone_ref(py),
                    None => PyRuntimeError::new_err(x.to_string()),
                }
            }
            Error::InvalidArgument(m) => ("InvalidArgumentError", m),
            Error::NotFound(m) => ("NotFoundError", m),
            Error::OutOfRange(m) => ("OutOfRangeError", m),
            Error::ResourceExhausted(m) => ("ResourceExhaustedError", m),
            Error::FailedPrecondition(m) => ("FailedPreconditionError", m),
            Error::Unimplemented(m) => ("UnimplementedError", m),
            Error::Internal(m) => ("InternalError", m),
            Error::DataLoss(m) => ("DataLossError", m),
            Error::PermissionDenied(m) => ("PermissionDeniedError", m),
            Error::Unavailable(m) => ("UnavailableError", m),
        };
        op_error(py, class, msg)
    })
}

/// Carries a Python exception through Rust code (see `Error::External`).
pub fn from_py(e: PyErr) -> Error {
    Error::External(crate::error::ExternalError(std::sync::Arc::new(e)))
}

/// `?`-friendly conversion of crate results.
pub trait IntoPy<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for crate::error::Result<T> {
    #[inline]
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// `bool()` of a symbolic tensor: TensorFlow's OperatorNotAllowedInGraphError (a TypeError).
pub fn graph_bool_error(py: Python<'_>) -> PyErr {
    let message = "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. Python control \
                   flow over a tensor inside a tf.function needs AutoGraph (on by default) or \
                   tf.cond / tf.while_loop.";
    let build = || -> PyResult<PyErr> {
        let cls = py.import("ferroflow.errors")?.getattr("OperatorNotAllowedInGraphError")?;
        Ok(PyErr::from_value(cls.call1((message,))?))
    };
    build().unwrap_or_else(|e| e)
}
