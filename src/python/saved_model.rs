//! SavedModel directories for `python/ferroflow/saved_model/`: Python describes the objects and
//! function structures (JSON) and hands over the graphs and variables; Rust writes and reads
//! the files and rebuilds the graphs.

use super::errors::IntoPy;
use super::graph::PyGraph;
use super::variable::PyVariable;
use crate::error::Error;
use crate::graph::print::Sink;
use crate::saved_model::{default_sink, FerroflowSavedModel};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

fn json(text: &str, what: &str) -> PyResult<serde_json::Value> {
    serde_json::from_str(text)
        .map_err(|e| Error::InvalidArgument(format!("{what} is not JSON: {e}")))
        .py()
}

/// Writes the SavedModel directory `dir` (see `saved_model::write`).
#[pyfunction]
fn saved_model_write(
    py: Python<'_>,
    dir: PathBuf,
    meta: &str,
    graphs: Vec<PyRef<'_, PyGraph>>,
    variables: Vec<PyRef<'_, PyVariable>>,
    object_graph: &str,
) -> PyResult<Option<String>> {
    let meta = json(meta, "saved model metadata")?;
    let object_graph = json(object_graph, "object graph")?;
    let graphs: Vec<_> = graphs.iter().map(|g| g.traced()).collect();
    let graph_refs: Vec<_> = graphs.iter().map(|g| g.as_ref()).collect();
    let variables: Vec<_> = variables.iter().map(|v| v.inner.clone()).collect();
    py.detach(|| crate::saved_model::write(&dir, meta, &graph_refs, &variables, &object_graph)).py()
}

/// A loaded `tf.print` writes to Python's current `sys.stdout`/`sys.stderr` (looked up when it
/// prints, so redirections and pytest's capture apply), or appends to its file.
fn python_sink(stream: &str) -> Sink {
    if stream.starts_with("file://") {
        return default_sink(stream);
    }
    let name = if stream == "stdout" { "stdout" } else { "stderr" };
    Arc::new(move |text: &str| {
        Python::attach(|py| {
            py.import("sys")?.getattr(name)?.call_method1("write", (text,)).map(|_| ())
        })
        .map_err(super::errors::from_py)
    })
}

/// A SavedModel loaded by Rust, for `tf.saved_model.load` to wrap in Python objects.
#[pyclass(name = "SavedModel", module = "ferroflow._core", frozen)]
pub struct PySavedModel {
    inner: FerroflowSavedModel,
}

#[pymethods]
impl PySavedModel {
    #[new]
    fn new(py: Python<'_>, dir: PathBuf) -> PyResult<Self> {
        let inner = py.detach(|| FerroflowSavedModel::load_with_sinks(&dir, &python_sink)).py()?;
        Ok(PySavedModel { inner })
    }

    /// `saved_model.json` without the graphs, as JSON text.
    fn metadata(&self) -> PyResult<String> {
        let mut file = serde_json::to_value(self.inner.file())
            .map_err(|e| Error::Internal(e.to_string()))
            .py()?;
        if let Some(concretes) =
            file.get_mut("concrete_functions").and_then(serde_json::Value::as_array_mut)
        {
            for c in concretes.iter_mut().filter_map(serde_json::Value::as_object_mut) {
                c.remove("graph");
            }
        }
        Ok(file.to_string())
    }

    /// The loaded variables, in the order of the metadata's `variables`.
    fn variables(&self) -> Vec<PyVariable> {
        self.inner.variables().iter().map(|v| PyVariable { inner: v.clone() }).collect()
    }

    /// Concrete function `index` as a graph Python can call.
    fn graph(&self, index: usize) -> PyResult<PyGraph> {
        let c = self
            .inner
            .concrete(index)
            .ok_or_else(|| Error::NotFound(format!("no concrete function {index}")))
            .py()?;
        Ok(PyGraph::from_parts(c.traced.clone(), c.optimized.clone()))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(saved_model_write, m)?)?;
    m.add_class::<PySavedModel>()?;
    Ok(())
}
