//! `SobolSample` (`tf.math.sobol_sample`): points of the Sobol sequence with Joe and Kuo's
//! direction numbers (new-joe-kuo-6.21201, so up to 21201 dimensions), as TensorFlow's CPU
//! kernel computes them: point `skip + r + 1` of the sequence in Gray-code order for output row
//! `r` (the all-zero point 0 is never returned), each coordinate an integer scaled by
//! `2^-digits`. `sobol_directions.bin` holds, per dimension, its primitive polynomial and
//! initial direction numbers (3-byte little-endian integers, from SciPy's copy of the table);
//! the rest follow Joe and Kuo's recurrence. TensorFlow computes rows in blocks whose digit
//! count is that of the block's last index: where that reaches 31 its `1 << 31` overflows and
//! the block's values come out negated, which is reproduced (blocks as TensorFlow sizes them).

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    expect_name, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use rayon::prelude::*;
use std::sync::OnceLock;

const NAME: &str = "SobolSample";
/// The dimensions TensorFlow accepts (the file's 21201 less its last).
pub const MAX_DIM: usize = 21200;
/// Direction numbers per dimension: enough for every index below 2^31.
const DIGITS: usize = 31;
/// Each thread of TensorFlow's kernel computes at least this many points.
const MIN_BLOCK: usize = 512;

static DATA: &[u8] = include_bytes!("sobol_directions.bin");

/// `m[j][k]`: dimension `j`'s direction number `k` (odd, below `2^(k+1)`).
fn directions() -> &'static [[u32; DIGITS]] {
    static TABLE: OnceLock<Vec<[u32; DIGITS]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut at = 0;
        let mut read = || {
            let v = u32::from_le_bytes([DATA[at], DATA[at + 1], DATA[at + 2], 0]);
            at += 3;
            v
        };
        (0..MAX_DIM)
            .map(|j| {
                let poly = read();
                let degree = (31 - poly.leading_zeros()) as usize;
                let mut m = [1u32; DIGITS];
                for v in m.iter_mut().take(degree) {
                    *v = read();
                }
                // The first dimension (polynomial 1) has every direction number 1.
                if j > 0 {
                    for k in degree..DIGITS {
                        let mut next = m[k - degree] ^ (m[k - degree] << degree);
                        for i in 1..degree {
                            if (poly >> (degree - i)) & 1 == 1 {
                                next ^= m[k - i] << i;
                            }
                        }
                        m[k] = next;
                    }
                }
                m
            })
            .collect()
    })
}

/// TensorFlow's `NumBinaryDigits`: `int(log2(n) + 1)`.
fn binary_digits(n: i64) -> usize {
    ((n as f64).log2() + 1.0) as usize
}

/// Output element type: the integer coordinate times the block's scale, TensorFlow's
/// `int * T` (an int32 rounds to float32 first).
trait Sample: Copy + Send + Sync + crate::element::Element {
    fn scaled(v: u32, scale: f64) -> Self;
}

impl Sample for f32 {
    fn scaled(v: u32, scale: f64) -> f32 {
        (v as i32) as f32 * scale as f32
    }
}

impl Sample for f64 {
    fn scaled(v: u32, scale: f64) -> f64 {
        f64::from(v as i32) * scale
    }
}

/// Rows `start..end` (one of TensorFlow's blocks) into `out` (`(end - start) * dim` values).
fn block<T: Sample>(dim: usize, skip: usize, start: usize, out: &mut [T]) {
    let rows = out.len() / dim;
    let end = start + rows;
    let digits = binary_digits((skip + end + 1) as i64);
    // `1. / (1 << digits)` in int arithmetic: 1 << 31 wraps to INT_MIN.
    let scale = 1.0 / f64::from(1i32.wrapping_shl(digits as u32));
    // The block's direction numbers digit-major, so a row update runs along contiguous memory.
    let table = &directions()[..dim];
    let v: Vec<Vec<u32>> =
        (0..digits).map(|k| table.iter().map(|m| m[k] << (digits - k - 1)).collect()).collect();
    let first = skip + start + 1;
    let mut point: Vec<u32> = if skip + start > 0 {
        let gray = first ^ (first >> 1);
        let mut p = vec![0u32; dim];
        for k in (0..binary_digits(first as i64)).filter(|k| (gray >> k) & 1 == 1) {
            p.iter_mut().zip(&v[k]).for_each(|(p, d)| *p ^= d);
        }
        p
    } else {
        v[0].clone()
    };
    for (r, row) in out.chunks_mut(dim).enumerate() {
        if r > 0 {
            // Index skip + i becomes skip + i + 1: the Gray code flips its rightmost zero bit.
            let k = (start + r + skip).trailing_ones() as usize;
            point.iter_mut().zip(&v[k]).for_each(|(p, d)| *p ^= d);
        }
        row.iter_mut().zip(&point).for_each(|(o, &p)| *o = T::scaled(p, scale));
    }
}

fn sample<T: Sample>(dim: usize, num_results: usize, skip: usize) -> Vec<T> {
    let threads = crate::ops::random::stateless::tf_intra_op_threads();
    let size = MIN_BLOCK.max((num_results as f32 / threads as f32).ceil() as usize);
    let mut out = crate::kernels::alloc::with_capacity(num_results * dim);
    out.resize(num_results * dim, T::default());
    out.par_chunks_mut(size * dim)
        .enumerate()
        .for_each(|(b, chunk)| block(dim, skip, b * size, chunk));
    out
}

/// `SobolSample(dim, num_results, skip)` with the output dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SobolSample {
    pub dtype: DType,
}

fn invalid(message: impl std::fmt::Display) -> Error {
    Error::InvalidArgument(format!("{message} [Op:{NAME}]"))
}

fn scalar(t: &Tensor) -> i32 {
    match t.buffer() {
        Buffer::I32(v) if v.len() == 1 => v[0],
        _ => 0,
    }
}

impl Primitive for SobolSample {
    fn tf_name(&self) -> &'static str {
        NAME
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(3)
    }

    fn attrs(&self) -> Attrs {
        crate::ops::primitive::attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        self.infer_with_values(inputs, &[])
    }

    fn infer_with_values(
        &self,
        inputs: &[TensorType],
        values: &[Option<Vec<Option<i64>>>],
    ) -> Result<Vec<TensorType>> {
        if !matches!(self.dtype, DType::F32 | DType::F64) {
            return Err(invalid(format!(
                "Value for attr 'dtype' of {} is not in the list of allowed values: float, double",
                self.dtype.name()
            )));
        }
        for (k, what) in ["dim", "num_results", "skip"].iter().enumerate() {
            let t = input(inputs, k)?;
            if t.dtype != DType::I32 {
                return Err(invalid(format!(
                    "cannot compute {NAME} as input #{k}(zero-based) was expected to be a int32 \
                     tensor but is a {} tensor",
                    t.dtype.name()
                )));
            }
            if t.rank() != 0 {
                return Err(invalid(format!("{what} must be a scalar")));
            }
        }
        let known = |k: usize| match values.get(k) {
            Some(Some(v)) if v.len() == 1 => v[0].and_then(|x| usize::try_from(x).ok()),
            _ => None,
        };
        Ok(vec![TensorType { dtype: self.dtype, dims: vec![known(1), known(0)] }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
        self.infer(&types).map_err(crate::ops::segment::eager_error)?;
        let (dim, num_results, skip) = (scalar(inputs[0]), scalar(inputs[1]), scalar(inputs[2]));
        if dim < 1 {
            return Err(invalid("dim must be at least one"));
        }
        if dim as usize > MAX_DIM {
            return Err(invalid(format!("dim must be at most {MAX_DIM}")));
        }
        if num_results < 1 {
            return Err(invalid("num_results must be at least one"));
        }
        if skip < 0 {
            return Err(invalid("skip must be non-negative"));
        }
        if num_results >= i32::MAX - skip {
            return Err(invalid(format!("num_results+skip must be less than {}", i32::MAX)));
        }
        let (dim, n, skip) = (dim as usize, num_results as usize, skip as usize);
        crate::shape::check_alloc(n.saturating_mul(dim), self.dtype)?;
        let shape = Shape::new(vec![n, dim]);
        Ok(vec![match self.dtype {
            DType::F64 => Tensor::from_vec(sample::<f64>(dim, n, skip), shape),
            _ => Tensor::from_vec(sample::<f32>(dim, n, skip), shape),
        }])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly("TensorFlow has a CPU kernel only (a Gray-code recurrence)"),
            // TensorFlow registers no gradient for SobolSample; its inputs are integers.
            differentiable: false,
            fusable: false,
        }
    }
}

impl Decode for SobolSample {
    fn names() -> Vec<&'static str> {
        vec![NAME]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        expect_name(name, NAME)?;
        crate::ops::primitive::from_attrs(name, attrs)
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let i = |v: i32| Tensor::scalar(v);
    vec![
        (Op::SobolSample(SobolSample { dtype: DType::F32 }), vec![i(3), i(5), i(0)]),
        (Op::SobolSample(SobolSample { dtype: DType::F64 }), vec![i(2), i(4), i(7)]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_points_match_tensorflow() {
        let out = sample::<f64>(3, 5, 0);
        let want = [
            0.5, 0.5, 0.5, 0.75, 0.25, 0.25, 0.25, 0.75, 0.75, 0.375, 0.375, 0.625, 0.875, 0.875,
            0.125,
        ];
        assert_eq!(out, want);
        // Skipping starts further along the same sequence.
        assert_eq!(sample::<f64>(3, 3, 2), want[6..].to_vec());
    }
}
