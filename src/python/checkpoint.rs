//! Checkpoint files for `python/ferroflow/train/`: the Python side builds the object graph
//! (JSON text) and picks the tensors; Rust writes and reads the files.

use super::convert::{to_tensor, Hint};
use super::errors::IntoPy;
use super::tensor::{wrap, PyTensor};
use crate::checkpoint::{self, CheckpointReader};
use crate::error::Error;
use crate::tensor::Tensor;
use pyo3::prelude::*;
use std::path::PathBuf;

/// Writes `<prefix>.data-00000-of-00001` and `<prefix>.index` atomically, in TensorFlow's format.
#[pyfunction]
fn checkpoint_write(
    prefix: PathBuf,
    keys: Vec<String>,
    values: &Bound<'_, PyAny>,
    object_graph: &str,
) -> PyResult<()> {
    let values: Vec<Tensor> =
        values.try_iter()?.map(|o| to_tensor(&o?, Hint::Infer)).collect::<PyResult<_>>()?;
    if values.len() != keys.len() {
        return Err(Error::InvalidArgument("one key per checkpoint value".into())).py();
    }
    let graph: serde_json::Value = serde_json::from_str(object_graph)
        .map_err(|e| Error::InvalidArgument(format!("object graph is not JSON: {e}")))
        .py()?;
    let tensors: Vec<(String, Tensor)> = keys.into_iter().zip(values).collect();
    checkpoint::write(&prefix, &tensors, &graph).py()
}

/// Replaces `path` with `data` completely or not at all (the `checkpoint` state file).
#[pyfunction]
fn write_file_atomic(path: PathBuf, data: &[u8]) -> PyResult<()> {
    checkpoint::write_atomic(&path, data).py()
}

/// `tf.train.load_checkpoint`'s reader over one checkpoint.
#[pyclass(name = "CheckpointReader", module = "ferroflow._core", frozen)]
pub struct PyCheckpointReader {
    inner: CheckpointReader,
}

#[pymethods]
impl PyCheckpointReader {
    #[new]
    fn new(py: Python<'_>, prefix: PathBuf) -> PyResult<Self> {
        let inner = py.detach(|| CheckpointReader::open(&prefix)).py()?;
        Ok(PyCheckpointReader { inner })
    }

    /// The object graph as JSON text.
    #[getter]
    fn object_graph(&self) -> String {
        self.inner.object_graph().to_string()
    }

    /// The object graph as stored: a serialized `TrackableObjectGraph` in TensorFlow's format.
    #[getter]
    fn object_graph_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyBytes> {
        pyo3::types::PyBytes::new(py, &self.inner.object_graph_bytes())
    }

    /// Whether the file is in TensorFlow's format (not ferroflow's first one).
    #[getter]
    fn is_tensorflow_format(&self) -> bool {
        self.inner.is_tensorflow_format()
    }

    /// (key, dtype enum, dims) for every entry, sorted by key.
    fn entries(&self) -> Vec<(String, u32, Vec<usize>)> {
        self.inner
            .entries()
            .iter()
            .map(|e| (e.key.clone(), e.dtype as u32, e.shape.0.clone()))
            .collect()
    }

    fn tensor(&self, py: Python<'_>, key: &str) -> PyResult<Py<PyTensor>> {
        wrap(py, self.inner.tensor(key).py()?)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(checkpoint_write, m)?)?;
    m.add_function(wrap_pyfunction!(write_file_atomic, m)?)?;
    m.add_class::<PyCheckpointReader>()?;
    Ok(())
}
