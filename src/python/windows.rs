//! `_core` functions over image windows: convolution, pooling and patch extraction. Python
//! normalises TensorFlow's many argument spellings to `[rows, cols]` pairs and a padding
//! string or four explicit pads (top, bottom, left, right).

use super::args::int_list;
use super::convert::{to_tensor, Hint};
use super::errors::IntoPy;
use super::tensor::{wrap, PyTensor};
use crate::ops::conv::{self, Padding, Window};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn pair(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<[usize; 2]> {
    match int_list(obj)?.as_slice() {
        &[a, b] if a >= 1 && b >= 1 => Ok([a as usize, b as usize]),
        other => Err(PyValueError::new_err(format!(
            "{what} must be two positive integers, got {other:?}"
        ))),
    }
}

fn padding(name: &str, explicit: Option<&Bound<'_, PyAny>>) -> PyResult<Padding> {
    match (name, explicit) {
        ("SAME", _) => Ok(Padding::Same),
        ("VALID", _) => Ok(Padding::Valid),
        ("EXPLICIT", Some(pads)) => match int_list(pads)?.as_slice() {
            &[t, b, l, r] if [t, b, l, r].iter().all(|&p| p >= 0) => {
                Ok(Padding::Explicit([(t as usize, b as usize), (l as usize, r as usize)]))
            }
            other => Err(PyValueError::new_err(format!(
                "explicit paddings must be four non-negative integers, got {other:?}"
            ))),
        },
        _ => Err(PyValueError::new_err(format!(
            "padding must be 'SAME', 'VALID' or a list of explicit pads, got {name:?}"
        ))),
    }
}

fn window(
    kernel: [usize; 2],
    strides: &Bound<'_, PyAny>,
    dilations: &Bound<'_, PyAny>,
) -> PyResult<Window> {
    Ok(Window {
        kernel,
        strides: pair(strides, "strides")?,
        dilations: pair(dilations, "dilations")?,
    })
}

#[pyfunction]
#[pyo3(signature = (x, filters, strides, dilations, padding_name, explicit=None))]
fn conv2d(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    filters: &Bound<'_, PyAny>,
    strides: &Bound<'_, PyAny>,
    dilations: &Bound<'_, PyAny>,
    padding_name: &str,
    explicit: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    let x = to_tensor(x, Hint::Infer)?;
    let filters = to_tensor(filters, Hint::Prefer(x.dtype()))?;
    let w = window([1, 1], strides, dilations)?;
    wrap(py, conv::conv2d(&x, &filters, &w, &padding(padding_name, explicit)?).py()?)
}

/// `tf.nn.conv2d_transpose` (NHWC): the input gradient of a convolution, without running it.
#[pyfunction]
#[pyo3(signature = (input_sizes, filters, out_backprop, strides, dilations, padding_name, explicit=None))]
#[allow(clippy::too_many_arguments)]
fn conv2d_backprop_input(
    py: Python<'_>,
    input_sizes: &Bound<'_, PyAny>,
    filters: &Bound<'_, PyAny>,
    out_backprop: &Bound<'_, PyAny>,
    strides: &Bound<'_, PyAny>,
    dilations: &Bound<'_, PyAny>,
    padding_name: &str,
    explicit: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    let g = to_tensor(out_backprop, Hint::Infer)?;
    let filters = to_tensor(filters, Hint::Prefer(g.dtype()))?;
    let sizes = int_list(input_sizes)?;
    let w = window([1, 1], strides, dilations)?;
    let p = padding(padding_name, explicit)?;
    wrap(py, conv::conv2d_input_gradient(&sizes, &filters, &g, &w, &p).py()?)
}

#[pyfunction]
#[pyo3(signature = (x, filter, strides, dilations, padding_name, explicit=None))]
fn depthwise_conv2d(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    filter: &Bound<'_, PyAny>,
    strides: &Bound<'_, PyAny>,
    dilations: &Bound<'_, PyAny>,
    padding_name: &str,
    explicit: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    let x = to_tensor(x, Hint::Infer)?;
    let filter = to_tensor(filter, Hint::Prefer(x.dtype()))?;
    let w = window([1, 1], strides, dilations)?;
    wrap(py, conv::depthwise_conv2d(&x, &filter, &w, &padding(padding_name, explicit)?).py()?)
}

/// `kind` is "MAX" or "AVG".
#[pyfunction]
fn pool2d(
    py: Python<'_>,
    kind: &str,
    x: &Bound<'_, PyAny>,
    ksize: &Bound<'_, PyAny>,
    strides: &Bound<'_, PyAny>,
    padding_name: &str,
) -> PyResult<Py<PyTensor>> {
    let x = to_tensor(x, Hint::Infer)?;
    let one = [1i64, 1].into_pyobject(py)?;
    let w = window(pair(ksize, "ksize")?, strides, one.as_any())?;
    let padding = padding(padding_name, None)?;
    let result = match kind {
        "MAX" => conv::max_pool2d(&x, &w, &padding),
        "AVG" => conv::avg_pool2d(&x, &w, &padding),
        _ => return Err(PyValueError::new_err(format!("unknown pooling {kind:?}"))),
    };
    wrap(py, result.py()?)
}

#[pyfunction]
fn extract_patches(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    sizes: &Bound<'_, PyAny>,
    strides: &Bound<'_, PyAny>,
    rates: &Bound<'_, PyAny>,
    padding_name: &str,
) -> PyResult<Py<PyTensor>> {
    let x = to_tensor(x, Hint::Infer)?;
    let w = window(pair(sizes, "sizes")?, strides, rates)?;
    wrap(py, conv::extract_patches(&x, &w, &padding(padding_name, None)?).py()?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(conv2d, m)?)?;
    m.add_function(wrap_pyfunction!(conv2d_backprop_input, m)?)?;
    m.add_function(wrap_pyfunction!(depthwise_conv2d, m)?)?;
    m.add_function(wrap_pyfunction!(pool2d, m)?)?;
    m.add_function(wrap_pyfunction!(extract_patches, m)?)?;
    Ok(())
}
