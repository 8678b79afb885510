//! Random tensors from a counter-based generator: element `i` of a call is a pure function of
//! (key, call counter, i), so the CPU and GPU kernels draw the same numbers for the same seed.
//! A call is one dispatcher primitive (`Op::Random`) and follows TensorFlow's placement.
//!
//! Random ops are stateful, as TensorFlow's: eagerly each call takes the next stream from the
//! seed rules (`seeds.rs`); a traced node keeps its key and advances its own call counter every
//! time the graph runs (`RandomSpec::next_run`), so a `tf.function` draws new numbers per call.
//!
//! TensorFlow's stateless ops and `tf.random.Generator` are separate: `stateless.rs` has their
//! kernels, which reproduce TensorFlow's numbers, on `tf_philox.rs`'s stream.

pub mod cpu;
mod decl;
pub mod index_shuffle;
pub mod philox;
mod seeds;
pub mod stateless;
pub mod tf_philox;

use crate::dispatch::{self, Op};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

pub use cpu::permutation;
#[cfg(test)]
pub(crate) use decl::registry_examples;
pub use decl::{RngSkip, RngState};
pub use philox::{philox, Stream};
pub use seeds::{next_stream, set_seed};
pub use stateless::{Sampler, StatelessSpec};

/// What a random op draws from.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Distribution {
    /// Floats in `[minval, maxval)`; integers in `[minval, maxval)` for integer dtypes.
    Uniform {
        minval: f64,
        maxval: f64,
    },
    Normal {
        mean: f64,
        stddev: f64,
    },
    /// Normal values redrawn until within two standard deviations of the mean.
    TruncatedNormal {
        mean: f64,
        stddev: f64,
    },
    /// A uniformly random permutation of `0..n` as int64 (`tf.random.shuffle` gathers by it).
    Permutation,
}

/// How many times a traced random node has run: the state TensorFlow's stateful random
/// kernels keep per kernel. Clones share it (the traced and the optimised graph are one node);
/// a graph read from a file starts again at zero, as a freshly loaded TensorFlow graph does.
/// Its replays (a gradient recomputing the node) count apart, so that the n-th replay draws
/// what the n-th run drew.
#[derive(Clone, Debug, Default)]
pub struct NodeCalls(Arc<[AtomicU32; 2]>);

impl PartialEq for NodeCalls {
    /// The counter is run-time state, not an attribute: it never makes two specs differ.
    fn eq(&self, _: &NodeCalls) -> bool {
        true
    }
}

/// One call of a random op: everything its output depends on.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RandomSpec {
    pub distribution: Distribution,
    pub shape: Shape,
    pub dtype: DType,
    pub stream: Stream,
    /// A gradient's recomputation of a traced node (a `tf.cond` branch replayed under a tape):
    /// it draws, run after run, what the node drew, so the gradient sees the forward numbers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replays: bool,
    #[serde(skip)]
    pub calls: NodeCalls,
}

impl RandomSpec {
    /// TensorFlow's op name.
    pub fn tf_name(&self) -> &'static str {
        match self.distribution {
            Distribution::Uniform { .. } if self.dtype.is_integer() => "RandomUniformInt",
            Distribution::Uniform { .. } => "RandomUniform",
            Distribution::Normal { .. } => "RandomStandardNormal",
            Distribution::TruncatedNormal { .. } => "TruncatedNormal",
            Distribution::Permutation => "RandomPermutation",
        }
    }

    /// The spec of this node's next run in a graph: same key, the node's next call number.
    pub fn next_run(&self) -> RandomSpec {
        let call = self.calls.0[usize::from(self.replays)].fetch_add(1, Ordering::Relaxed);
        RandomSpec { stream: Stream { call, ..self.stream }, ..self.clone() }
    }

    /// This node in a new instance of its graph (`Graph::fresh_instance`): its runs count from
    /// the start again, so a seeded node draws its sequence again and an unseeded one draws
    /// from a new key.
    pub fn fresh_instance(&self) -> RandomSpec {
        let mut stream = self.stream;
        if stream.unseeded {
            stream.key = seeds::fresh_entropy_key();
        }
        RandomSpec { stream, calls: NodeCalls::default(), ..self.clone() }
    }

    /// The node that recomputes this one for a gradient (see `replays`).
    pub fn replaying(&self) -> RandomSpec {
        RandomSpec { replays: true, ..self.clone() }
    }

    /// Integer draws as (minval, width of the range); `None` for floats.
    pub fn int_range(&self) -> Option<(i64, u128)> {
        match self.distribution {
            Distribution::Uniform { minval, maxval } if self.dtype.is_integer() => {
                Some((minval as i64, (maxval as i64 as i128 - minval as i64 as i128) as u128))
            }
            _ => None,
        }
    }

    /// The errors TensorFlow raises for this call, checked before any device runs it.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.distribution == Distribution::Permutation {
            if self.dtype != DType::I64 || self.shape.rank() != 1 {
                return Err(Error::Internal("a permutation is a vector of int64".into()));
            }
        } else if let Some((minval, width)) = self.int_range() {
            if !matches!(self.dtype, DType::I32 | DType::I64) {
                return Err(Error::InvalidArgument(format!(
                    "uniform ints must be int32 or int64, got {}",
                    self.dtype
                )));
            }
            if width == 0 || width > u64::MAX as u128 {
                return Err(Error::InvalidArgument(format!(
                    "Need minval < maxval, got {minval} >= {} [Op:RandomUniformInt]",
                    minval as i128 + width as i128
                )));
            }
        } else if !self.dtype.is_floating() {
            return Err(Error::Type(format!(
                "Invalid dtype {} for a random float tensor: expected a floating point type",
                self.dtype
            )));
        }
        crate::shape::check_alloc(self.shape.num_elements(), self.dtype)
    }
}

/// One call of a random op (`tf.random.uniform`, `normal`, `truncated_normal`): integer dtypes
/// draw uniform integers in `[minval, maxval)`.
pub fn draw(
    distribution: Distribution,
    shape: &Shape,
    dtype: DType,
    stream: Stream,
) -> Result<Tensor> {
    dispatch::apply1(&spec(distribution, shape, dtype, stream)?, &[])
}

/// The op of one random call, checked as TensorFlow checks it.
pub fn spec(distribution: Distribution, shape: &Shape, dtype: DType, stream: Stream) -> Result<Op> {
    let spec = RandomSpec {
        distribution,
        shape: shape.clone(),
        dtype,
        stream,
        replays: false,
        calls: NodeCalls::default(),
    };
    spec.validate()?;
    Ok(Op::Random(spec))
}

/// `tf.random.shuffle`: `x` reordered along its first axis by a random permutation, drawn
/// when the op runs (a traced function shuffles anew on every call). A scalar comes back as
/// it is, as from TensorFlow's kernel.
pub fn shuffle(x: &Tensor, stream: Stream) -> Result<Tensor> {
    if x.rank() == 0 {
        return Ok(x.clone());
    }
    let n = Shape(vec![x.dims()[0]]);
    let order = draw(Distribution::Permutation, &n, DType::I64, stream)?;
    crate::ops::gather(x, &order, 0, 0)
}
