//! SavedModels that TensorFlow wrote, for `python/ferroflow/saved_model/load_tensorflow.py`:
//! Rust reads the directory and runs the signatures (`saved_model::tensorflow`); Python wraps
//! them as TensorFlow's loaded signature functions.

use super::errors::IntoPy;
use super::tensor::{wrap, PyTensor};
use super::variable::PyVariable;
use crate::saved_model::tensorflow::{SignatureSpec, TfSavedModel};
use crate::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

type SpecTuple = (String, u32, Option<Vec<Option<usize>>>);
type ObjectTuple = (String, String, Vec<(String, usize)>, Vec<String>, bool);

fn spec_tuples(specs: &[SignatureSpec]) -> Vec<SpecTuple> {
    specs.iter().map(|s| (s.key.clone(), s.dtype as u32, s.dims.clone())).collect()
}

#[pyclass(name = "TfSavedModel", module = "ferroflow._core", frozen)]
pub struct PyTfSavedModel {
    inner: TfSavedModel,
}

#[pymethods]
impl PyTfSavedModel {
    #[new]
    fn new(py: Python<'_>, dir: PathBuf) -> PyResult<Self> {
        let inner = py.detach(|| TfSavedModel::load(&dir)).py()?;
        Ok(PyTfSavedModel { inner })
    }

    fn signature_names(&self) -> Vec<String> {
        self.inner.signature_names().into_iter().map(str::to_owned).collect()
    }

    /// (inputs, outputs) of a signature, each [(key, dtype enum, dims or None)].
    fn signature_specs(&self, name: &str) -> PyResult<(Vec<SpecTuple>, Vec<SpecTuple>)> {
        let (inputs, outputs) = self.inner.signature_specs(name).py()?;
        Ok((spec_tuples(inputs), spec_tuples(outputs)))
    }

    /// Runs a signature on tensors named by `keys`; returns [(output key, tensor)].
    fn call_signature(
        &self,
        py: Python<'_>,
        name: &str,
        keys: Vec<String>,
        values: Vec<PyRef<'_, PyTensor>>,
    ) -> PyResult<Vec<(String, Py<PyTensor>)>> {
        let tensors: Vec<Tensor> = values.iter().map(|t| t.inner.clone()).collect();
        let named: Vec<(&str, Tensor)> = keys.iter().map(String::as_str).zip(tensors).collect();
        let outputs = py.detach(|| self.inner.call_signature(name, &named)).py()?;
        outputs.into_iter().map(|(key, t)| Ok((key, wrap(py, t)?))).collect()
    }

    fn variables(&self) -> Vec<PyVariable> {
        self.inner.variables().into_iter().map(|v| PyVariable { inner: v.clone() }).collect()
    }

    /// Every object of the object graph: (kind, identifier, [(child name, node)], concrete
    /// function names, whether a function has an input signature).
    fn objects(&self) -> Vec<ObjectTuple> {
        self.inner
            .objects()
            .into_iter()
            .map(|o| {
                (
                    o.kind.to_string(),
                    o.identifier,
                    o.children,
                    o.concrete_functions,
                    o.has_input_signature,
                )
            })
            .collect()
    }

    /// The variable of object node `node`, or None.
    fn variable_of_node(&self, node: usize) -> Option<PyVariable> {
        self.inner.variable_of_node(node).map(|v| PyVariable { inner: v.clone() })
    }

    /// (canonicalized input signature, output signature) as serialized `StructuredValue`s.
    fn concrete_function_structure<'py>(
        &self,
        py: Python<'py>,
        name: &str,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let (inputs, outputs) = self.inner.concrete_function_structure(name).py()?;
        Ok((PyBytes::new(py, &inputs), PyBytes::new(py, &outputs)))
    }

    /// Calls a concrete function with flat tensors; returns its flat outputs.
    fn call_concrete(
        &self,
        py: Python<'_>,
        name: &str,
        values: Vec<PyRef<'_, PyTensor>>,
    ) -> PyResult<Vec<Py<PyTensor>>> {
        let tensors: Vec<Tensor> = values.iter().map(|t| t.inner.clone()).collect();
        let outputs = py.detach(|| self.inner.call_concrete(name, &tensors)).py()?;
        outputs.into_iter().map(|t| wrap(py, t)).collect()
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTfSavedModel>()
}
