//! Random tensors from a counter-based generator: element `i` of a call is a pure function of
//! (key, call counter, i), so the CPU and GPU kernels draw the same numbers for the same seed.
//! A call is one dispatcher primitive (`Op::Random`) and follows TensorFlow's placement.

pub mod cpu;
pub mod philox;
mod seeds;

use crate::dispatch::{self, Op};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

pub use cpu::permutation;
pub use philox::{philox, Stream};
pub use seeds::{next_stream, set_seed};

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
}

/// One call of a random op: everything its output depends on.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RandomSpec {
    pub distribution: Distribution,
    pub shape: Shape,
    pub dtype: DType,
    pub stream: Stream,
}

impl RandomSpec {
    /// TensorFlow's op name.
    pub fn tf_name(&self) -> &'static str {
        match self.distribution {
            Distribution::Uniform { .. } if self.dtype.is_integer() => "RandomUniformInt",
            Distribution::Uniform { .. } => "RandomUniform",
            Distribution::Normal { .. } => "RandomStandardNormal",
            Distribution::TruncatedNormal { .. } => "TruncatedNormal",
        }
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
    fn validate(&self) -> Result<()> {
        if let Some((minval, width)) = self.int_range() {
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
    let spec = RandomSpec { distribution, shape: shape.clone(), dtype, stream };
    spec.validate()?;
    dispatch::apply1(&Op::Random(spec), &[])
}
