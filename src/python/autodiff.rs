//! Tapes and custom gradients for `python/ferroflow/backprop.py`. Sources and targets may be
//! tensors or variables; a variable stands for its identity, which its reads are recorded from.

use super::convert::{to_tensor, Hint};
use super::errors::{from_py, IntoPy};
use super::tensor::{wrap, PyTensor};
use super::variable::PyVariable;
use crate::autodiff::tape::{self, GradFn, Tape};
use crate::autodiff::Gradient;
use crate::tensor::Tensor;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

#[pyclass(name = "Tape", module = "ferroflow._core", frozen)]
struct PyTape {
    inner: Tape,
}

/// A tensor, or the variable's value under the variable's identity.
fn keyed(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    if let Ok(v) = obj.cast::<PyVariable>() {
        let v = &v.get().inner;
        return Ok(v.peek().with_id(v.id()));
    }
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(t.get().inner.clone());
    }
    Err(PyValueError::new_err(format!(
        "Passed in object {} of type {:?}, not tf.Tensor or tf.Variable or ExtensionType.",
        obj.repr()?,
        obj.get_type().name()?.to_string()
    )))
}

fn keyed_all(list: &Bound<'_, PyAny>) -> PyResult<Vec<Tensor>> {
    list.try_iter()?.map(|o| keyed(&o?)).collect()
}

/// Tensors or Nones (seeds; a custom gradient's results).
fn optional_tensors(list: &Bound<'_, PyAny>) -> PyResult<Vec<Option<Tensor>>> {
    list.try_iter()?
        .map(|o| {
            let o = o?;
            if o.is_none() {
                Ok(None)
            } else {
                to_tensor(&o, Hint::Infer).map(Some)
            }
        })
        .collect()
}

fn wrap_all(py: Python<'_>, grads: Vec<Option<Tensor>>) -> PyResult<Vec<Option<Py<PyTensor>>>> {
    grads.into_iter().map(|g| g.map(|g| wrap(py, g)).transpose()).collect()
}

/// A gradient for Python: None, a tensor, or with `rows` a rows gradient's
/// `(values, indices, dense_shape)`.
fn gradient_object(py: Python<'_>, g: Option<Gradient>, rows: bool) -> PyResult<Py<PyAny>> {
    Ok(match g {
        None => py.None(),
        Some(Gradient::Rows(r)) if rows => {
            let shape = r.dense_shape().py()?;
            (wrap(py, r.values)?, wrap(py, r.indices)?, wrap(py, shape)?)
                .into_pyobject(py)?
                .into_any()
                .unbind()
        }
        Some(g) => wrap(py, g.dense().py()?)?.into_any(),
    })
}

#[pymethods]
impl PyTape {
    #[new]
    fn new(persistent: bool, watch_accessed_variables: bool) -> Self {
        PyTape { inner: Tape::new(persistent, watch_accessed_variables) }
    }

    /// A persistent tape that records every op and variable read (a traced function's, for
    /// `tf.gradients`).
    #[staticmethod]
    fn watching_everything() -> Self {
        PyTape { inner: Tape::watching_everything() }
    }

    fn push(&self) {
        self.inner.push();
    }

    fn pop(&self) {
        self.inner.pop();
    }

    fn pause(&self) {
        self.inner.pause();
    }

    fn resume(&self) {
        self.inner.resume();
    }

    fn reset(&self) {
        self.inner.reset();
    }

    fn watch(&self, obj: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(v) = obj.cast::<PyVariable>() {
            self.inner.watch_variable(&v.get().inner);
        } else {
            self.inner.watch(&keyed(obj)?);
        }
        Ok(())
    }

    fn watched_variable_ids(&self) -> Vec<u64> {
        self.inner.watched_variables().iter().map(|v| v.id()).collect()
    }

    /// One backward pass per seed list (jacobians need several); a non-persistent tape is used
    /// up afterwards.
    ///
    /// With `rows`, a gradient that is rows of a gathered tensor (TensorFlow's IndexedSlices)
    /// comes back as the tuple `(values, indices, dense_shape)`; otherwise every gradient is
    /// dense.
    #[pyo3(signature = (targets, sources, seed_lists, rows=false, stops=None))]
    fn gradients(
        &self,
        py: Python<'_>,
        targets: &Bound<'_, PyAny>,
        sources: &Bound<'_, PyAny>,
        seed_lists: &Bound<'_, PyAny>,
        rows: bool,
        stops: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Vec<Py<PyAny>>>> {
        let targets = keyed_all(targets)?;
        let sources: Vec<u64> = keyed_all(sources)?.iter().map(Tensor::id).collect();
        let seed_lists: Vec<Vec<Option<Tensor>>> =
            seed_lists.try_iter()?.map(|s| optional_tensors(&s?)).collect::<PyResult<_>>()?;
        let stops: Vec<u64> = match stops {
            Some(s) => keyed_all(s)?.iter().map(Tensor::id).collect(),
            None => Vec::new(),
        };
        let all = self.inner.gradients_with_rows(&targets, &sources, &seed_lists, &stops).py()?;
        all.into_iter()
            .map(|grads| grads.into_iter().map(|g| gradient_object(py, g, rows)).collect())
            .collect()
    }
}

/// Runs `forward` with the active tapes paused, under a fresh tape that notes the variables it
/// reads (what `tf.custom_gradient` needs to know). Returns (result, variable ids).
#[pyfunction]
fn custom_forward(forward: &Bound<'_, PyAny>) -> PyResult<(Py<PyAny>, Vec<u64>)> {
    let paused = tape::active_tapes();
    paused.iter().for_each(Tape::pause);
    let watcher = Tape::new(false, true);
    watcher.push();
    let result = forward.call0();
    watcher.pop();
    paused.iter().for_each(Tape::resume);
    let ids = watcher.watched_variables().iter().map(|v| v.id()).collect();
    Ok((result?.unbind(), ids))
}

/// Records `outputs` as computed from `inputs` (tensors or variables) with the gradient
/// `grad_fn(upstream) -> input gradients`; returns the outputs under fresh identities.
#[pyfunction]
fn record_custom(
    py: Python<'_>,
    inputs: &Bound<'_, PyAny>,
    outputs: &Bound<'_, PyAny>,
    grad_fn: Py<PyAny>,
) -> PyResult<Vec<Py<PyTensor>>> {
    // Variables the function read count as accessed by the enclosing tapes.
    for obj in inputs.try_iter()? {
        if let Ok(v) = obj?.cast::<PyVariable>() {
            tape::note_access(&v.get().inner);
        }
    }
    let inputs = keyed_all(inputs)?;
    let mut outs: Vec<Tensor> = outputs
        .try_iter()?
        .map(|o| to_tensor(&o?, Hint::Infer).map(|t| t.with_new_id()))
        .collect::<PyResult<_>>()?;
    let grad: GradFn = Arc::new(move |_inputs, _outputs, upstream| {
        Python::attach(|py| {
            let upstream: Vec<Option<Py<PyTensor>>> = wrap_all(py, upstream.to_vec())?;
            optional_tensors(&grad_fn.bind(py).call1((upstream,))?)
        })
        .map_err(from_py)
    });
    let refs: Vec<&Tensor> = inputs.iter().collect();
    tape::record_custom(&refs, &mut outs, grad);
    outs.into_iter().map(|t| wrap(py, t)).collect()
}

/// `tf.stop_gradient`: the `StopGradient` node (tapes never record it, so no gradient
/// flows through, eager or traced).
#[pyfunction]
fn stop_gradient(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
    let x = to_tensor(x, Hint::Infer)?;
    wrap(py, crate::ops::unary(crate::ops::UnaryOp::StopGradient, &x).py()?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTape>()?;
    m.add_class::<PyVariable>()?;
    m.add_function(wrap_pyfunction!(custom_forward, m)?)?;
    m.add_function(wrap_pyfunction!(record_custom, m)?)?;
    m.add_function(wrap_pyfunction!(stop_gradient, m)?)?;
    Ok(())
}
