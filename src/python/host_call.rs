//! `tf.py_function` / `tf.numpy_function` while a `tf.function` traces: the Python callable
//! becomes a host function and the call a `HostCall` node (`ops::host_call`).

use super::args::dtype;
use super::convert::{to_tensor, Hint};
use super::errors::{from_py, IntoPy};
use super::tensor::{wrap, PyTensor};
use crate::autodiff::tape::GradFn;
use crate::error::Result;
use crate::ops::host_call::{self, HostFunction, HostKind, HostOutput};
use crate::tensor::Tensor;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

fn kind(name: &str) -> PyResult<HostKind> {
    Ok(match name {
        "EagerPyFunc" => HostKind::EagerPyFunc,
        "PyFunc" => HostKind::PyFunc,
        "PyFuncStateless" => HostKind::PyFuncStateless,
        other => return Err(PyValueError::new_err(format!("no host call kind {other}"))),
    })
}

fn tensors(list: &Bound<'_, PyAny>) -> PyResult<Vec<Tensor>> {
    list.try_iter()?.map(|o| to_tensor(&o?, Hint::Infer)).collect()
}

/// A call's backward function: `backward(upstream) -> input gradients` (Nones allowed).
fn backward_fn(backward: Py<PyAny>) -> GradFn {
    Arc::new(move |_, _, upstream: &[Option<Tensor>]| {
        Python::attach(|py| -> PyResult<Vec<Option<Tensor>>> {
            let upstream = upstream
                .iter()
                .map(|g| g.clone().map(|g| wrap(py, g)).transpose())
                .collect::<PyResult<Vec<_>>>()?;
            backward
                .bind(py)
                .call1((upstream,))?
                .try_iter()?
                .map(|g| {
                    let g = g?;
                    if g.is_none() {
                        Ok(None)
                    } else {
                        to_tensor(&g, Hint::Infer).map(Some)
                    }
                })
                .collect()
        })
        .map_err(from_py)
    })
}

/// The host function of `forward(args, record) -> (outputs, backward or None)`.
fn host_function(forward: Py<PyAny>, differentiable: bool) -> Arc<HostFunction> {
    let call = move |args: &[Tensor], record: bool| -> Result<(Vec<Tensor>, Option<GradFn>)> {
        Python::attach(|py| -> PyResult<(Vec<Tensor>, Option<GradFn>)> {
            let args = args.iter().map(|t| wrap(py, t.clone())).collect::<PyResult<Vec<_>>>()?;
            let result = forward.bind(py).call1((args, record))?;
            let (outputs, backward): (Bound<'_, PyAny>, Bound<'_, PyAny>) = result.extract()?;
            let backward = (!backward.is_none()).then(|| backward_fn(backward.unbind()));
            Ok((tensors(&outputs)?, backward))
        })
        .map_err(from_py)
    };
    HostFunction::custom(Box::new(call), differentiable)
}

/// Calls `forward` now, or records a node that calls it when the graph runs (while tracing).
/// The outputs have the dtypes `dtypes` and unknown shapes, as TensorFlow's py_func nodes.
#[pyfunction(name = "host_call")]
fn stage_host_call(
    py: Python<'_>,
    kind_name: &str,
    forward: Py<PyAny>,
    differentiable: bool,
    inputs: &Bound<'_, PyAny>,
    dtypes: Vec<u32>,
) -> PyResult<Vec<Py<PyTensor>>> {
    let kind = kind(kind_name)?;
    let inputs = tensors(inputs)?;
    let out = dtypes
        .into_iter()
        .map(|d| dtype(d).map(HostOutput::unknown))
        .collect::<PyResult<Vec<_>>>()?;
    let function = host_function(forward, differentiable);
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let outputs = host_call::host_call(&function, kind, &refs, out).py()?;
    outputs.into_iter().map(|t| wrap(py, t)).collect()
}

/// True for a traced value whose rank is known only when the graph runs (a host call's
/// result): its `shape` is `TensorShape(None)`.
#[pyfunction]
fn has_unknown_rank(value: &Bound<'_, PyAny>) -> bool {
    value.cast::<PyTensor>().is_ok_and(|t| crate::graph::trace::has_unknown_rank(&t.get().inner))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(stage_host_call, m)?)?;
    m.add_function(wrap_pyfunction!(has_unknown_rank, m)?)?;
    Ok(())
}
