//! `_core` functions of TensorFlow's stateless random ops and `tf.random.Generator`: Philox
//! states from seeds, state advances and the stateless kernels. The Python layer
//! (`ferroflow/random.py`, `ferroflow/_random_generator.py`) converts parameters and composes.

use super::args;
use super::convert::{to_tensor, Hint};
use super::errors::IntoPy;
use super::tensor::{wrap, PyTensor};
use crate::ops::random::{stateless, Sampler, StatelessSpec};
use crate::ops::registry::Op;
use crate::ops::shape_input::ShapeArg;
use crate::shape::Shape;
use crate::tensor::Tensor;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

type PyT = Py<PyTensor>;

fn t(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    to_tensor(obj, Hint::Infer)
}

/// The Philox state (int64 `[C0, C1, K]`) of a seed pair: `StatelessRandomGetKeyCounter`.
#[pyfunction]
fn rng_state(py: Python<'_>, seed: &Bound<'_, PyAny>) -> PyResult<PyT> {
    wrap(py, stateless::state_of_seed(&t(seed)?).py()?)
}

/// The state `delta` Philox calls after `state`.
#[pyfunction]
fn rng_skip(py: Python<'_>, state: &Bound<'_, PyAny>, delta: u64) -> PyResult<PyT> {
    wrap(py, stateless::advance(&t(state)?, delta).py()?)
}

/// A stateless kernel by name ("uniform", "normal", "truncated_normal", "uniform_int",
/// "uniform_full_int", "binomial", "poisson", "gamma") drawn from a Philox state.
#[pyfunction]
#[pyo3(signature = (sampler, state, shape, dtype, params=Vec::new()))]
fn stateless_random(
    py: Python<'_>,
    sampler: &str,
    state: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
    dtype: u32,
    params: Vec<Bound<'_, PyAny>>,
) -> PyResult<PyT> {
    let sampler = match sampler {
        "uniform" => Sampler::Uniform,
        "normal" => Sampler::Normal,
        "truncated_normal" => Sampler::TruncatedNormal,
        "uniform_int" => Sampler::UniformInt,
        "uniform_full_int" => Sampler::UniformFullInt,
        "binomial" => Sampler::Binomial,
        "poisson" => Sampler::Poisson,
        "gamma" => Sampler::Gamma,
        other => return Err(PyValueError::new_err(format!("unknown sampler {other:?}"))),
    };
    let dtype = args::dtype(dtype)?;
    let params = params.iter().map(t).collect::<PyResult<Vec<Tensor>>>()?;
    let refs: Vec<&Tensor> = params.iter().collect();
    // Inside a trace the shape may be a tensor known only when the graph runs.
    let drawn = match args::shape_arg(shape)? {
        ShapeArg::Dims(dims) => {
            let spec = StatelessSpec { sampler, shape: Shape::checked(&dims).py()?, dtype };
            stateless::sample(spec, &t(state)?, &refs)
        }
        traced => {
            let mut inputs = vec![t(state)?];
            inputs.extend(params.iter().cloned());
            let inputs: Vec<&Tensor> = inputs.iter().collect();
            traced.apply(&inputs, |dims| {
                Ok(Op::StatelessRandom(StatelessSpec {
                    sampler,
                    shape: Shape::checked(dims)?,
                    dtype,
                }))
            })
        }
    };
    wrap(py, drawn.py()?)
}

/// `StatelessMultinomial` from a Philox state: `num_samples` class indices per logits row.
#[pyfunction]
fn stateless_categorical(
    py: Python<'_>,
    state: &Bound<'_, PyAny>,
    logits: &Bound<'_, PyAny>,
    num_samples: usize,
    dtype: u32,
) -> PyResult<PyT> {
    let sampler = Sampler::Categorical { num_samples };
    let spec = StatelessSpec { sampler, shape: Shape::scalar(), dtype: args::dtype(dtype)? };
    wrap(py, stateless::sample(spec, &t(state)?, &[&t(logits)?]).py()?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rng_state, m)?)?;
    m.add_function(wrap_pyfunction!(rng_skip, m)?)?;
    m.add_function(wrap_pyfunction!(stateless_random, m)?)?;
    m.add_function(wrap_pyfunction!(stateless_categorical, m)?)?;
    Ok(())
}
