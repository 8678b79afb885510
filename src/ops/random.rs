//! Counter-based random numbers (Philox4x32-10, as in TensorFlow and JAX): element `i` of a call
//! is a pure function of (key, call counter, i), so any device can reproduce it.
//!
//! Seeds follow TensorFlow: with a global seed and no op seed, each call takes the next value of a
//! counter that `set_seed` resets; with both, repeated calls still differ (per-(seed, op seed)
//! call count) and `set_seed` restarts the sequence. Without any seed, calls are nondeterministic.

use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels::parallel;
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::with_dtype;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

pub fn philox(mut c: [u32; 4], mut k: [u32; 2]) -> [u32; 4] {
    for _ in 0..10 {
        let p0 = (M0 as u64) * (c[0] as u64);
        let p1 = (M1 as u64) * (c[2] as u64);
        let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
        let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    c
}

/// A stream: the key and the call counter that make one random op call unique.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stream {
    pub key: [u32; 2],
    pub call: u32,
}

impl Stream {
    /// Four random words for element `i`, attempt `attempt` (used by rejection sampling).
    #[inline]
    pub fn words(&self, i: u64, attempt: u32) -> [u32; 4] {
        philox([i as u32, (i >> 32) as u32, self.call, attempt], self.key)
    }
}

struct SeedState {
    global: Option<i64>,
    op_counter: i64,
    calls: HashMap<(i64, i64), u32>,
    entropy: u64,
}

static STATE: LazyLock<Mutex<SeedState>> = LazyLock::new(|| {
    Mutex::new(SeedState { global: None, op_counter: 0, calls: HashMap::new(), entropy: 0 })
});
const DEFAULT_GRAPH_SEED: i64 = 87654321;

/// `tf.random.set_seed`.
pub fn set_seed(seed: Option<i64>) {
    let mut s = STATE.lock().unwrap_or_else(|e| e.into_inner());
    s.global = seed;
    s.op_counter = 0;
    s.calls.clear();
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream for one call of a random op with optional op seed.
pub fn next_stream(op_seed: Option<i64>) -> Stream {
    let mut s = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let (g, o) = match (s.global, op_seed) {
        (None, None) => {
            s.entropy = s.entropy.wrapping_add(1);
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            let k = splitmix(t ^ splitmix(s.entropy) ^ (std::process::id() as u64) << 32);
            return Stream { key: [k as u32, (k >> 32) as u32], call: 0 };
        }
        (Some(g), None) => {
            s.op_counter += 1;
            (g, s.op_counter)
        }
        (None, Some(o)) => (DEFAULT_GRAPH_SEED, o),
        (Some(g), Some(o)) => (g, o),
    };
    let call = s.calls.entry((g, o)).or_insert(0);
    let this = *call;
    *call = call.wrapping_add(1);
    let k = splitmix(splitmix(g as u64) ^ (o as u64));
    Stream { key: [k as u32, (k >> 32) as u32], call: this }
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

/// Box–Muller on two uniforms of one word block.
#[inline]
fn normal_pair(w: [u32; 4], lane: usize) -> f64 {
    let u1 = unit_f64(w[lane], w[lane + 1]).max(1e-300);
    let u2 = unit_f64(w[(lane + 2) % 4], w[(lane + 3) % 4]);
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

fn float_tensor(shape: &Shape, dtype: DType, f: impl Fn(u64) -> f64 + Sync) -> Result<Tensor> {
    if !dtype.is_floating() {
        return Err(Error::Type(format!(
            "Invalid dtype {dtype} for a random float tensor: expected a floating point type"
        )));
    }
    let n = shape.num_elements();
    crate::shape::check_alloc(n, dtype)?;
    let out = with_dtype!(dtype, T => T::wrap(parallel::generate(n, |i| T::from_f64(f(i as u64)))));
    Tensor::from_buffer(out, shape.clone())
}

pub fn uniform(
    shape: &Shape,
    dtype: DType,
    minval: f64,
    maxval: f64,
    stream: Stream,
) -> Result<Tensor> {
    if dtype.is_integer() {
        return uniform_int(shape, dtype, minval as i64, maxval as i64, stream);
    }
    float_tensor(shape, dtype, |i| {
        let v = minval + (maxval - minval) * uniform01(stream.words(i, 0), dtype);
        // Rounding to the output type can still reach maxval for other ranges: step back below.
        below(v, maxval, minval, dtype)
    })
}

/// `v` as it will be stored in `dtype`, or the largest value of that type below `maxval`.
fn below(v: f64, maxval: f64, minval: f64, dtype: DType) -> f64 {
    let stored = with_dtype!(dtype, T => T::from_f64(v).to_f64());
    if stored < maxval || maxval <= minval {
        return stored;
    }
    let mut candidate = stored;
    for _ in 0..64 {
        candidate = with_dtype!(dtype, T => T::from_f64(candidate - (candidate.abs() * 1e-3).max(f64::MIN_POSITIVE)).to_f64());
        if candidate < maxval {
            return candidate.max(minval);
        }
    }
    minval
}

fn uniform_int(
    shape: &Shape,
    dtype: DType,
    minval: i64,
    maxval: i64,
    stream: Stream,
) -> Result<Tensor> {
    if !(dtype == DType::I32 || dtype == DType::I64) {
        return Err(Error::InvalidArgument(format!(
            "uniform ints must be int32 or int64, got {dtype}"
        )));
    }
    if minval >= maxval {
        return Err(Error::InvalidArgument(format!(
            "Need minval < maxval, got {minval} >= {maxval} [Op:RandomUniformInt]"
        )));
    }
    let range = (maxval as i128 - minval as i128) as u128;
    let n = shape.num_elements();
    let draw = |i: usize| {
        let w = stream.words(i as u64, 0);
        let bits = ((w[0] as u128) << 32) | w[1] as u128;
        (minval as i128 + (bits % range) as i128) as i64
    };
    let out = with_dtype!(dtype, T => T::wrap(parallel::generate(n, |i| T::from_i64(draw(i)))));
    Tensor::from_buffer(out, shape.clone())
}

pub fn normal(
    shape: &Shape,
    dtype: DType,
    mean: f64,
    stddev: f64,
    stream: Stream,
) -> Result<Tensor> {
    float_tensor(shape, dtype, |i| mean + stddev * normal_pair(stream.words(i, 0), 0))
}

/// Normal values redrawn until within two standard deviations.
pub fn truncated_normal(
    shape: &Shape,
    dtype: DType,
    mean: f64,
    stddev: f64,
    stream: Stream,
) -> Result<Tensor> {
    float_tensor(shape, dtype, |i| {
        let mut attempt = 0;
        loop {
            let z = normal_pair(stream.words(i, attempt), 0);
            if z.abs() <= 2.0 || attempt > 1000 {
                return mean + stddev * z.clamp(-2.0, 2.0);
            }
            attempt += 1;
        }
    })
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

    #[test]
    fn philox_known_answer() {
        // Random123's published known-answer test for philox4x32-10 with zero counter and key.
        assert_eq!(
            philox([0, 0, 0, 0], [0, 0]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
    }

    #[test]
    fn seeded_sequences_repeat() {
        let s = Shape(vec![1000]);
        set_seed(Some(7));
        let a =
            normal(&s, DType::F32, 0.0, 1.0, next_stream(None)).unwrap().to_vec::<f32>().unwrap();
        let b =
            normal(&s, DType::F32, 0.0, 1.0, next_stream(None)).unwrap().to_vec::<f32>().unwrap();
        set_seed(Some(7));
        let a2 =
            normal(&s, DType::F32, 0.0, 1.0, next_stream(None)).unwrap().to_vec::<f32>().unwrap();
        assert_eq!(a, a2);
        assert_ne!(a, b);
        let mean = a.iter().map(|&x| x as f64).sum::<f64>() / 1000.0;
        let var = a.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / 1000.0;
        assert!(mean.abs() < 0.1 && (var - 1.0).abs() < 0.15, "{mean} {var}");
    }
}
