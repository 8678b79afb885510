//! The CPU kernels of the random ops: each element computed from its own Philox block, in
//! parallel, with float64 arithmetic before rounding to the output type.

use super::{Distribution, RandomSpec, Stream};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::parallel;
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::with_dtype;

/// The tensor `spec` describes (already validated).
pub fn generate(spec: &RandomSpec) -> Result<Tensor> {
    let (shape, dtype, stream) = (&spec.shape, spec.dtype, spec.stream);
    if let Some((minval, width)) = spec.int_range() {
        return uniform_int(shape, dtype, minval, width, stream);
    }
    match spec.distribution {
        Distribution::Permutation => {
            let order: Vec<i64> =
                permutation(shape.num_elements(), stream).into_iter().map(|i| i as i64).collect();
            Tensor::from_slice(&order, shape.dims())
        }
        Distribution::Uniform { minval, maxval } => float_tensor(shape, dtype, |i| {
            let v = minval + (maxval - minval) * uniform01(stream.words(i, 0), dtype);
            // Rounding to the output type can still reach maxval: step back below it.
            below(v, maxval, minval, dtype)
        }),
        Distribution::Normal { mean, stddev } => {
            float_tensor(shape, dtype, |i| mean + stddev * box_muller(stream.words(i, 0)))
        }
        Distribution::TruncatedNormal { mean, stddev } => float_tensor(shape, dtype, |i| {
            let mut attempt = 0;
            loop {
                let z = box_muller(stream.words(i, attempt));
                if z.abs() <= 2.0 || attempt > 1000 {
                    return mean + stddev * z.clamp(-2.0, 2.0);
                }
                attempt += 1;
            }
        }),
    }
}

/// A uniform float in [0, 1) with 53 significant bits.
#[inline]
fn unit_f64(hi: u32, lo: u32) -> f64 {
    ((((hi as u64) << 32) | lo as u64) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform value in [0, 1) with exactly the mantissa bits of `dtype`, so that it stays below
/// 1 once rounded to that type (as TensorFlow builds it from random mantissa bits).
#[inline]
fn uniform01(w: [u32; 4], dtype: DType) -> f64 {
    let bits = match dtype {
        DType::F64 => return unit_f64(w[0], w[1]),
        DType::F16 => 11,
        DType::BF16 => 8,
        _ => 24,
    };
    (w[0] >> (32 - bits)) as f64 / (1u64 << bits) as f64
}

/// Box–Muller on the two 64-bit uniforms of one word block.
#[inline]
fn box_muller(w: [u32; 4]) -> f64 {
    let u1 = unit_f64(w[0], w[1]).max(1e-300);
    let u2 = unit_f64(w[2], w[3]);
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

fn no_strings() -> crate::error::Error {
    crate::error::Error::InvalidArgument("random ops do not produce strings".into())
}

fn float_tensor(shape: &Shape, dtype: DType, f: impl Fn(u64) -> f64 + Sync) -> Result<Tensor> {
    let n = shape.num_elements();
    let out = with_dtype!(dtype, T => T::wrap(parallel::generate(n, |i| T::from_f64(f(i as u64)))), else return Err(no_strings()));
    Tensor::from_buffer(out, shape.clone())
}

/// `v` as it will be stored in `dtype`, or the largest value of that type below `maxval` (as
/// that type holds it, like TensorFlow, which converts the bounds first).
fn below(v: f64, maxval: f64, minval: f64, dtype: DType) -> f64 {
    // Random declarations admit only numeric dtypes, so the string arms keep the f64 values.
    let stored = with_dtype!(dtype, T => T::from_f64(v).to_f64(), else v);
    let maxval = with_dtype!(dtype, T => T::from_f64(maxval).to_f64(), else maxval);
    if stored < maxval || maxval <= minval {
        return stored;
    }
    let step_down = match dtype {
        DType::F64 => maxval.next_down(),
        DType::F32 => (maxval as f32).next_down() as f64,
        // Half types: grow a step from below their epsilon until rounding leaves maxval.
        _ => {
            let mut step = (maxval.abs() * 2f64.powi(-12)).max(f64::MIN_POSITIVE);
            loop {
                let lower = with_dtype!(dtype, T => T::from_f64(maxval - step).to_f64(), else maxval - step);
                if lower < maxval || !lower.is_finite() {
                    break lower;
                }
                step *= 2.0;
            }
        }
    };
    step_down.max(minval)
}

/// Integers `minval + (64 random bits mod width)`.
fn uniform_int(
    shape: &Shape,
    dtype: DType,
    minval: i64,
    width: u128,
    stream: Stream,
) -> Result<Tensor> {
    let n = shape.num_elements();
    let draw = |i: usize| {
        let w = stream.words(i as u64, 0);
        let bits = ((w[0] as u128) << 32) | w[1] as u128;
        (minval as i128 + (bits % width) as i128) as i64
    };
    let out = with_dtype!(dtype, T => T::wrap(parallel::generate(n, |i| T::from_i64(draw(i)))), else return Err(no_strings()));
    Tensor::from_buffer(out, shape.clone())
}

/// A permutation of `0..n` (Fisher–Yates driven by the stream).
pub fn permutation(n: usize, stream: Stream) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let w = stream.words(i as u64, 0);
        let j = ((((w[0] as u64) << 32) | w[1] as u64) % (i as u64 + 1)) as usize;
        p.swap(i, j);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::random::{next_stream, set_seed};

    fn draw(shape: &Shape) -> Vec<f32> {
        let distribution = Distribution::Normal { mean: 0.0, stddev: 1.0 };
        let spec = RandomSpec {
            distribution,
            shape: shape.clone(),
            dtype: DType::F32,
            stream: next_stream(None),
            replays: false,
            calls: Default::default(),
        };
        generate(&spec).unwrap().to_vec::<f32>().unwrap()
    }

    #[test]
    fn seeded_sequences_repeat() {
        let s = Shape(vec![1000]);
        set_seed(Some(7));
        let a = draw(&s);
        let b = draw(&s);
        set_seed(Some(7));
        let a2 = draw(&s);
        assert_eq!(a, a2);
        assert_ne!(a, b);
        let mean = a.iter().map(|&x| x as f64).sum::<f64>() / 1000.0;
        let var = a.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / 1000.0;
        assert!(mean.abs() < 0.1 && (var - 1.0).abs() < 0.15, "{mean} {var}");
    }
}
