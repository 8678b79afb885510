//! Conversions of plain Python arguments: dtypes, integer lists, axes.

use super::errors::IntoPy;
use super::tensor::PyTensor;
use crate::dtype::DType;
use crate::error::Error;
use crate::ops::shape_input::ShapeArg;
use crate::tensor::Tensor;
use crate::with_all;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// A dtype given as TensorFlow's enum number (the Python layer resolves names and numpy types).
pub fn dtype(enum_value: u32) -> PyResult<DType> {
    DType::from_enum(enum_value).map_err(super::errors::to_py)
}

pub fn opt_dtype(enum_value: Option<u32>) -> PyResult<Option<DType>> {
    enum_value.map(dtype).transpose()
}

/// A shape argument: integers, or inside a trace an integer vector (or a list holding integer
/// scalars) known only when the graph runs, which the op then takes as an input.
pub fn shape_arg(obj: &Bound<'_, PyAny>) -> PyResult<ShapeArg> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = &t.get().inner;
        if crate::graph::trace::is_symbolic(t) {
            return Ok(ShapeArg::Traced(t.clone()));
        }
        return int_list(obj).map(ShapeArg::Dims);
    }
    let symbolic_item = |item: &Bound<'_, PyAny>| {
        item.cast::<PyTensor>().is_ok_and(|t| crate::graph::trace::is_symbolic(&t.get().inner))
    };
    let is_list = obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>();
    if !is_list || !obj.try_iter()?.flatten().any(|i| symbolic_item(&i)) {
        return int_list(obj).map(ShapeArg::Dims);
    }
    // TensorFlow packs the items: scalars of one integer dtype (int64 if any item is).
    let mut wide = false;
    let items: Vec<Tensor> = obj
        .try_iter()?
        .map(|item| {
            let item = item?;
            match item.cast::<PyTensor>() {
                Ok(t) => {
                    wide |= t.get().inner.dtype() == DType::I64;
                    Ok(t.get().inner.clone())
                }
                Err(_) => Ok(Tensor::scalar(int_arg(&item)?)),
            }
        })
        .collect::<PyResult<_>>()?;
    let dtype = if wide { DType::I64 } else { DType::I32 };
    let items = items
        .iter()
        .map(|t| {
            if !t.dtype().is_integer() || t.rank() != 0 {
                return Err(Error::InvalidArgument(format!(
                    "a shape list holds integer scalars, got a {} tensor of shape {}",
                    t.dtype(),
                    t.shape()
                )));
            }
            crate::ops::cast(t, dtype)
        })
        .collect::<Result<Vec<Tensor>, Error>>()
        .py()?;
    let refs: Vec<&Tensor> = items.iter().collect();
    crate::ops::stack(&refs, 0).py().map(ShapeArg::Traced)
}

/// Integers from an int, a sequence of ints, a numpy array or an integer tensor.
pub fn int_list(obj: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = &t.get().inner;
        crate::graph::trace::check_concrete(t, "An integer list argument").py()?;
        if !t.dtype().is_integer() {
            return Err(PyTypeError::new_err(format!(
                "Expected an integer tensor, got {}",
                t.dtype()
            )));
        }
        return Ok(
            with_all!(t.host().py()?, v => v.iter().map(|e| crate::element::Element::to_i64(*e)).collect(), else {
                return Err(PyTypeError::new_err("Expected an integer tensor, got string"))
            }),
        );
    }
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(vec![i]);
    }
    if obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
        || obj.hasattr("__len__")?
    {
        let mut out = Vec::new();
        for item in obj.try_iter()? {
            let item = item?;
            let v = if let Ok(t) = item.cast::<PyTensor>() {
                scalar_i64(&t.get().inner)?
            } else {
                item.call_method0("__index__").and_then(|i| i.extract::<i64>()).map_err(|_| {
                    PyTypeError::new_err(format!(
                        "Expected a list of integers, got an element {}",
                        item.repr().map(|r| r.to_string()).unwrap_or_default()
                    ))
                })?
            };
            out.push(v);
        }
        return Ok(out);
    }
    Err(PyTypeError::new_err(format!(
        "Expected an integer or a list of integers, got {}",
        obj.get_type().name()?
    )))
}

pub fn opt_int_list(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<i64>>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => int_list(o).map(Some),
    }
}

pub fn scalar_i64(t: &crate::tensor::Tensor) -> PyResult<i64> {
    if t.num_elements() != 1 || !(t.dtype().is_integer()) {
        return Err(super::errors::to_py(Error::InvalidArgument(format!(
            "Expected a scalar integer, got a {} tensor of shape {}",
            t.dtype(),
            t.shape()
        ))));
    }
    crate::graph::trace::check_concrete(t, "An integer argument").py()?;
    Ok(with_all!(t.host().py()?, v => crate::element::Element::to_i64(v[0]), else {
        return Err(PyTypeError::new_err("Expected a scalar integer, got a string tensor"))
    }))
}

/// An integer argument given as a Python int or a scalar integer tensor.
pub fn int_arg(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return scalar_i64(&t.get().inner);
    }
    obj.call_method0("__index__").and_then(|i| i.extract::<i64>()).map_err(|_| {
        PyTypeError::new_err(format!(
            "Expected an integer, got {}",
            obj.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}
