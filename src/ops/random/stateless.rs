//! TensorFlow's stateless random kernels on the CPU, number for number: the
//! `StatelessRandom*V2` fills, `StatelessMultinomial`, `StatelessRandomBinomial`,
//! `StatelessRandomPoisson` and `StatelessRandomGammaV3`. Every kernel takes a Philox state
//! `[C0, C1, K]` (int64[3]): a seed becomes one through `seed_state` (`GenerateKey`), a
//! `tf.random.Generator` holds one in its variable.
//!
//! How outputs map to Philox calls is TensorFlow's (`random_op_cpu.h`): the fills give each
//! group of 4 (16/32-bit types) or 2 (64-bit types) outputs one call, `base + group`, so the
//! result never depends on how the work is split; truncated normals and the rejection samplers
//! give each group or output a private window of 256 calls. Only categorical depends on
//! TensorFlow's sharding, which `eigen_blocks` reproduces for TensorFlow's default thread count.
//!
//! The float functions are glibc's (`f32::ln`, `sin`, `cos` call `logf`, `sinf`, `cosf` on
//! Linux, as TensorFlow's kernels do): computing in double and rounding differs by an ulp on
//! tens of thousands of inputs. These kernels have no GPU version for the same reason.

use super::tf_philox::{PhiloxRandom, SingleSample};
use super::{RngSkip, RngState};
use crate::buffer::Buffer;
use crate::dispatch::{self, Op};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels::parallel;
use crate::shape::{broadcast_shapes, check_alloc, Shape};
use crate::tensor::Tensor;
use crate::{with_int, with_real};
use half::{bf16, f16};
use rayon::prelude::*;
use std::f64::consts::TAU;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a stateless kernel draws. Inputs after the state are listed per sampler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Sampler {
    /// Floats in [0, 1).
    Uniform,
    /// Standard normal floats.
    Normal,
    /// Standard normal floats redrawn until within two standard deviations.
    TruncatedNormal,
    /// Integers in [minval, maxval). Inputs: minval, maxval (scalars of the output dtype).
    UniformInt,
    /// Integers over their type's whole range.
    UniformFullInt,
    /// Class indices, `[batch, num_samples]`. Input: logits `[batch, classes]`.
    Categorical { num_samples: usize },
    /// Binomial counts. Inputs: counts, probs (one float dtype, broadcast together).
    Binomial,
    /// Poisson counts. Input: rates.
    Poisson,
    /// Gamma(alpha, 1) floats. Input: alphas (the output dtype).
    Gamma,
}

/// One stateless kernel: what it samples, the output shape (categorical: unused, its shape
/// comes from the logits) and the output dtype.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StatelessSpec {
    pub sampler: Sampler,
    pub shape: Shape,
    pub dtype: DType,
}

impl StatelessSpec {
    /// TensorFlow's op name, as its graphs show it.
    pub fn tf_name(&self) -> &'static str {
        match self.sampler {
            Sampler::Uniform => "StatelessRandomUniformV2",
            Sampler::Normal => "StatelessRandomNormalV2",
            Sampler::TruncatedNormal => "StatelessTruncatedNormalV2",
            Sampler::UniformInt => "StatelessRandomUniformIntV2",
            Sampler::UniformFullInt => "StatelessRandomUniformFullIntV2",
            Sampler::Categorical { .. } => "StatelessMultinomial",
            Sampler::Binomial => "StatelessRandomBinomial",
            Sampler::Poisson => "StatelessRandomPoisson",
            Sampler::Gamma => "StatelessRandomGammaV3",
        }
    }

    /// Inputs: the state, then the sampler's parameters.
    pub fn arity(&self) -> usize {
        match self.sampler {
            Sampler::UniformInt | Sampler::Binomial => 3,
            Sampler::Categorical { .. } | Sampler::Poisson | Sampler::Gamma => 2,
            _ => 1,
        }
    }

    /// Whether the output shape is an attribute (a traced graph bakes it in).
    pub fn has_shape(&self) -> bool {
        !matches!(self.sampler, Sampler::Categorical { .. })
    }

    /// The dtypes TensorFlow registers CPU kernels for.
    pub(super) fn check_dtype(&self) -> Result<()> {
        use DType::*;
        let allowed: &[DType] = match self.sampler {
            Sampler::Uniform | Sampler::Normal | Sampler::TruncatedNormal => &[F16, BF16, F32, F64],
            Sampler::UniformInt | Sampler::UniformFullInt => &[I32, I64, U32, U64],
            Sampler::Categorical { .. } => &[I32, I64],
            Sampler::Binomial | Sampler::Poisson => &[F16, F32, F64, I32, I64],
            Sampler::Gamma => &[F16, F32, F64],
        };
        if !allowed.contains(&self.dtype) {
            let names: Vec<&str> = allowed.iter().map(|&d| tf_type_name(d)).collect();
            return Err(Error::InvalidArgument(format!(
                "Value for attr 'dtype' of {} is not in the list of allowed values: {} [Op:{}]",
                tf_type_name(self.dtype),
                names.join(", "),
                self.tf_name()
            )));
        }
        if self.sampler == Sampler::UniformInt && matches!(self.dtype, U32 | U64) {
            return Err(Error::NotFound(format!(
                "Could not find device for node: {} with dtype {}: TensorFlow registers no CPU \
                 kernel for unsigned bounded integers",
                self.tf_name(),
                tf_type_name(self.dtype)
            )));
        }
        Ok(())
    }
}

/// TensorFlow's C++ type names, as its attribute errors spell them.
pub(super) fn tf_type_name(d: DType) -> &'static str {
    match d {
        DType::F16 => "half",
        DType::F32 => "float",
        DType::F64 => "double",
        other => other.name(),
    }
}

// --- states ----------------------------------------------------------------------------------

/// `GenerateKey` on a seed tensor (int32 or int64, shape [2]): the state `[C0, C1, K]`.
pub fn seed_state(seed: &Tensor) -> Result<Tensor> {
    if !matches!(seed.dtype(), DType::I32 | DType::I64) {
        return Err(Error::InvalidArgument(format!(
            "Value for attr 'Tseed' of {} is not in the list of allowed values: int32, int64 \
             [Op:StatelessRandomGetKeyCounter]",
            tf_type_name(seed.dtype())
        )));
    }
    if seed.dims() != [2] {
        return Err(Error::InvalidArgument(format!(
            "seed must have shape [2], not {} [Op:StatelessRandomGetKeyCounter]",
            seed.shape()
        )));
    }
    let s: Vec<i64> = with_int!(seed.buffer(), v => v.iter().map(|x| x.to_i64()).collect(),
        else return Err(Error::Internal("seed is not an integer tensor".into())));
    let state = super::tf_philox::seed_state([s[0], s[1]]);
    Tensor::from_slice(&state, &[3])
}

/// A state tensor's generator.
fn read_state(state: &Tensor, op: &str) -> Result<PhiloxRandom> {
    match (state.dtype(), state.buffer()) {
        (DType::I64, Buffer::I64(v)) if state.dims() == [3] => {
            Ok(PhiloxRandom::from_state([v[0], v[1], v[2]]))
        }
        _ => Err(Error::InvalidArgument(format!(
            "{op} needs a Philox state: an int64 tensor of shape [3] (counter, counter, key), \
             got a {} tensor of shape {}",
            state.dtype(),
            state.shape()
        ))),
    }
}

/// `RngReadAndSkip`'s arithmetic: the state `delta` Philox calls further on.
pub fn skip(state: &Tensor, delta: u64) -> Result<Tensor> {
    let mut gen = read_state(state, "RngSkip")?;
    gen.skip(delta);
    Tensor::from_slice(&gen.state(), &[3])
}

// --- words to values ---------------------------------------------------------------------------

/// `Uint32ToFloat`: 23 random mantissa bits under exponent 0, minus one.
#[inline]
fn u32_to_f32(w: u32) -> f32 {
    f32::from_bits(0x3F80_0000 | (w & 0x7F_FFFF)) - 1.0
}

/// `Uint64ToDouble`: 20 mantissa bits from `hi`, 32 from `lo`.
#[inline]
fn u64_to_f64(hi: u32, lo: u32) -> f64 {
    f64::from_bits((1023u64 << 52) | ((hi as u64 & 0xF_FFFF) << 32) | lo as u64) - 1.0
}

#[inline]
fn u16_to_f16(w: u32) -> f16 {
    f16::from_f32(f16::from_bits((15 << 10) | (w & 0x3FF) as u16).to_f32() - 1.0)
}

#[inline]
fn u16_to_bf16(w: u32) -> bf16 {
    bf16::from_f32(bf16::from_bits((127 << 7) | (w & 0x7F) as u16).to_f32() - 1.0)
}

#[inline]
fn pair64(lo: u32, hi: u32) -> u64 {
    lo as u64 | (hi as u64) << 32
}

/// `BoxMullerFloat`: two normals from two words, in float with glibc's float functions.
#[inline]
fn box_muller_f32(x0: u32, x1: u32) -> (f32, f32) {
    let u1 = u32_to_f32(x0).max(1.0e-7);
    // 2*pi in double times the uniform, rounded once to float.
    let v1 = (TAU * u32_to_f32(x1) as f64) as f32;
    let r = (-2.0f32 * u1.ln()).sqrt();
    (v1.sin() * r, v1.cos() * r)
}

/// `BoxMullerDouble`: two normals from four words.
#[inline]
fn box_muller_f64(w: [u32; 4]) -> (f64, f64) {
    let u1 = u64_to_f64(w[0], w[1]).max(1.0e-7);
    let v1 = TAU * u64_to_f64(w[2], w[3]);
    let r = (-2.0 * u1.ln()).sqrt();
    (v1.sin() * r, v1.cos() * r)
}

/// Half types take the float Box-Muller result rounded to nearest even.
trait FromF32: Element {
    fn from_f32(v: f32) -> Self;
}
impl FromF32 for f32 {
    fn from_f32(v: f32) -> f32 {
        v
    }
}
impl FromF32 for f16 {
    fn from_f32(v: f32) -> f16 {
        f16::from_f32(v)
    }
}
impl FromF32 for bf16 {
    fn from_f32(v: f32) -> bf16 {
        bf16::from_f32(v)
    }
}

// --- fills -----------------------------------------------------------------------------------

/// `n` outputs in groups of `K`, group `g` computed by `f(g)`; a trailing partial group keeps
/// its first values. Chunks start on group boundaries, so threads never share a group.
fn fill_groups<T: Send, const K: usize>(n: usize, f: impl Fn(u64) -> [T; K] + Sync) -> Vec<T> {
    debug_assert_eq!(parallel::GRAIN % K, 0);
    parallel::build(n, |offset, dst| {
        for (g, chunk) in dst.chunks_mut(K).enumerate() {
            for (o, v) in chunk.iter_mut().zip(f((offset / K + g) as u64)) {
                o.write(v);
            }
        }
    })
}

fn tensor<T: Element>(values: Vec<T>, shape: &Shape) -> Result<Tensor> {
    Tensor::from_buffer(T::wrap(values), shape.clone())
}

fn uniform(gen: PhiloxRandom, shape: &Shape, dtype: DType) -> Result<Tensor> {
    let n = shape.num_elements();
    let at = |g: u64| gen.skipped(g).call();
    match dtype {
        DType::F32 => tensor(fill_groups(n, |g| at(g).map(u32_to_f32)), shape),
        DType::F16 => tensor(fill_groups(n, |g| at(g).map(u16_to_f16)), shape),
        DType::BF16 => tensor(fill_groups(n, |g| at(g).map(u16_to_bf16)), shape),
        _ => {
            let v = fill_groups(n, |g| {
                let w = at(g);
                [u64_to_f64(w[0], w[1]), u64_to_f64(w[2], w[3])]
            });
            tensor(v, shape)
        }
    }
}

fn normal(gen: PhiloxRandom, shape: &Shape, dtype: DType) -> Result<Tensor> {
    fn four<T: FromF32>(w: [u32; 4]) -> [T; 4] {
        let ((a, b), (c, d)) = (box_muller_f32(w[0], w[1]), box_muller_f32(w[2], w[3]));
        [a, b, c, d].map(T::from_f32)
    }
    let n = shape.num_elements();
    let at = |g: u64| gen.skipped(g).call();
    match dtype {
        DType::F32 => tensor(fill_groups(n, |g| four::<f32>(at(g))), shape),
        DType::F16 => tensor(fill_groups(n, |g| four::<f16>(at(g))), shape),
        DType::BF16 => tensor(fill_groups(n, |g| four::<bf16>(at(g))), shape),
        _ => {
            let v = fill_groups(n, |g| {
                let (a, b) = box_muller_f64(at(g));
                [a, b]
            });
            tensor(v, shape)
        }
    }
}

/// Each group starts a fresh stream 256 words (float64: 128 calls of 4 words, as TensorFlow
/// reserves them) after the previous group's and reads its words one at a time; pairs of
/// normals within two standard deviations are kept in order.
fn truncated_normal(gen: PhiloxRandom, shape: &Shape, dtype: DType) -> Result<Tensor> {
    fn four<T: FromF32>(gen: PhiloxRandom, g: u64) -> [T; 4] {
        let mut words = SingleSample::new(gen.skipped(g * 256));
        let mut out = [T::from_f32(0.0); 4];
        let mut k = 0;
        loop {
            let (a, b) = box_muller_f32(words.word(), words.word());
            for v in [a, b] {
                if v.abs() < 2.0 {
                    out[k] = T::from_f32(v);
                    k += 1;
                    if k == 4 {
                        return out;
                    }
                }
            }
        }
    }
    let n = shape.num_elements();
    match dtype {
        DType::F32 => tensor(fill_groups(n, |g| four::<f32>(gen, g)), shape),
        DType::F16 => tensor(fill_groups(n, |g| four::<f16>(gen, g)), shape),
        DType::BF16 => tensor(fill_groups(n, |g| four::<bf16>(gen, g)), shape),
        _ => {
            let v = fill_groups(n, |g| {
                let mut words = SingleSample::new(gen.skipped(g * 128));
                let mut out = [0.0; 2];
                let mut k = 0;
                loop {
                    let w = [words.word(), words.word(), words.word(), words.word()];
                    let (a, b) = box_muller_f64(w);
                    for v in [a, b] {
                        if v.abs() < 2.0 && k < 2 {
                            out[k] = v;
                            k += 1;
                        }
                    }
                    if k == 2 {
                        return out;
                    }
                }
            });
            tensor(v, shape)
        }
    }
}

fn scalar_i64(t: &Tensor, what: &str, spec: &StatelessSpec) -> Result<i64> {
    if t.rank() != 0 {
        return Err(Error::InvalidArgument(format!(
            "{what} must be 0-D, got shape {} [Op:{}]",
            t.shape(),
            spec.tf_name()
        )));
    }
    if t.dtype() != spec.dtype {
        return Err(Error::InvalidArgument(format!(
            "{what} must be {}, got {} [Op:{}]",
            spec.dtype,
            t.dtype(),
            spec.tf_name()
        )));
    }
    Ok(with_int!(t.buffer(), v => v[0].to_i64(), else 0))
}

/// `lo + bits % (hi - lo)` with the range as an unsigned number, wrapping.
fn uniform_int(
    gen: PhiloxRandom,
    spec: &StatelessSpec,
    lo: &Tensor,
    hi: &Tensor,
) -> Result<Tensor> {
    let (shape, n) = (&spec.shape, spec.shape.num_elements());
    let (lo, hi) = (scalar_i64(lo, "minval", spec)?, scalar_i64(hi, "maxval", spec)?);
    if n > 0 && lo >= hi {
        return Err(Error::InvalidArgument(format!(
            "Need minval < maxval, got {lo} >= {hi} [Op:{}]",
            spec.tf_name()
        )));
    }
    let at = |g: u64| gen.skipped(g).call();
    if spec.dtype == DType::I32 {
        let range = (hi as u32).wrapping_sub(lo as u32);
        let v = fill_groups(n, |g| at(g).map(|w| (lo as u32).wrapping_add(w % range) as i32));
        return tensor(v, shape);
    }
    let range = (hi as u64).wrapping_sub(lo as u64);
    let v = fill_groups(n, |g| {
        let w = at(g);
        [pair64(w[0], w[1]), pair64(w[2], w[3])].map(|b| (lo as u64).wrapping_add(b % range) as i64)
    });
    tensor(v, shape)
}

fn uniform_full_int(gen: PhiloxRandom, shape: &Shape, dtype: DType) -> Result<Tensor> {
    let n = shape.num_elements();
    let at = |g: u64| gen.skipped(g).call();
    let pairs = |g: u64| {
        let w = at(g);
        [pair64(w[0], w[1]), pair64(w[2], w[3])]
    };
    match dtype {
        DType::U32 => tensor(fill_groups(n, at), shape),
        DType::I32 => tensor(fill_groups(n, |g| at(g).map(|w| w as i32)), shape),
        DType::U64 => tensor(fill_groups(n, pairs), shape),
        _ => tensor(fill_groups(n, |g| pairs(g).map(|b| b as i64)), shape),
    }
}

// --- categorical -------------------------------------------------------------------------------

/// TensorFlow's intra-op thread count: `TF_NUM_INTRAOP_THREADS`, else the CPUs this process
/// may run on (`port::MaxParallelism`). Categorical's shards, and so its numbers, follow it.
pub fn tf_intra_op_threads() -> usize {
    if let Some(n) = std::env::var("TF_NUM_INTRAOP_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return n;
    }
    schedulable_cpus()
}

#[cfg(target_os = "linux")]
fn schedulable_cpus() -> usize {
    // SAFETY: `set` is a plain bit set that sched_getaffinity fills; CPU_COUNT only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
            return (libc::CPU_COUNT(&set) as usize).max(1);
        }
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(not(target_os = "linux"))]
fn schedulable_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The blocks `[start, end)` Eigen's `ThreadPoolDevice::parallelFor` cuts `n` units of
/// `cost` cycles into for `threads` threads (its cost model: 100000 cycles to start a thread
/// and per thread, tasks of 40000 cycles, at most 4 blocks per thread, block counts that keep
/// the threads evenly busy).
pub fn eigen_blocks(n: usize, cost: f64, threads: usize) -> Vec<(usize, usize)> {
    if n == 0 {
        return vec![];
    }
    let wanted = ((n as f64 * cost - 100_000.0) / 100_000.0 + 0.9).min(i32::MAX as f64);
    if threads <= 1 || n == 1 || threads.min((wanted as i64).max(1) as usize) == 1 {
        return vec![(0, n)];
    }
    let divup = |a: usize, b: usize| a.div_ceil(b);
    let block_size_f = 1.0 / (cost / 40_000.0);
    let mut block_size = n.min(divup(n, 4 * threads).max(block_size_f as usize));
    let max_block_size = n.min(2 * block_size);
    let efficiency = |count: usize| count as f64 / (divup(count, threads) * threads) as f64;
    let mut prev = divup(n, block_size);
    let mut max_efficiency = efficiency(prev);
    while max_efficiency < 1.0 && prev > 1 {
        let coarser = divup(n, prev - 1);
        if coarser > max_block_size {
            break;
        }
        let count = divup(n, coarser);
        prev = count;
        let e = efficiency(count);
        if e + 0.01 >= max_efficiency {
            block_size = coarser;
            max_efficiency = max_efficiency.max(e);
        }
    }
    (0..n).step_by(block_size).map(|s| (s, (s + block_size).min(n))).collect()
}

/// `StatelessMultinomial`: per row, the cumulative sums of `exp(logit - max)` over finite
/// logits in double; each sample draws a double from two words and takes the first class
/// whose sum exceeds it times the total. A block of rows starting at row `s` starts its
/// stream `s * (num_samples + 3) / 4` calls in (TensorFlow's own, overlapping, layout).
fn categorical(
    gen: PhiloxRandom,
    logits: &Tensor,
    num_samples: usize,
    dtype: DType,
) -> Result<Tensor> {
    let op = "[Op:StatelessMultinomial]";
    if logits.rank() != 2 {
        return Err(Error::InvalidArgument(format!(
            "logits should be a matrix, got shape {} {op}",
            logits.shape()
        )));
    }
    if !logits.dtype().is_floating() {
        return Err(Error::NotFound(format!(
            "Could not find device for node: StatelessMultinomial with T={}: kernels exist \
             for half, bfloat16, float and double logits",
            tf_type_name(logits.dtype())
        )));
    }
    let (batch, classes) = (logits.dims()[0], logits.dims()[1]);
    if classes == 0 {
        return Err(Error::InvalidArgument(format!(
            "num_classes should be positive, got {classes} {op}"
        )));
    }
    if classes > i32::MAX as usize || num_samples > i32::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "num_classes and num_samples must fit in int32, got {classes} and {num_samples} {op}"
        )));
    }
    let shape = Shape(vec![batch, num_samples]);
    check_alloc(shape.num_elements(), dtype)?;
    let rows: Vec<f64> = with_real!(logits.buffer(), v => v.iter().map(|x| x.to_f64()).collect(),
        else return Err(Error::Internal("float logits expected".into())));
    let mut out = vec![0i64; batch * num_samples];
    if !out.is_empty() {
        let cost = (50.0
            * (num_samples as f64 * (classes as f64).ln() / 2f64.ln() + classes as f64))
            as i64 as f64;
        let blocks = eigen_blocks(batch, cost, tf_intra_op_threads());
        let mut pieces: Vec<&mut [i64]> = Vec::with_capacity(blocks.len());
        let mut rest = out.as_mut_slice();
        for &(s, e) in &blocks {
            let (piece, tail) = rest.split_at_mut((e - s) * num_samples);
            pieces.push(piece);
            rest = tail;
        }
        blocks.par_iter().zip(pieces).for_each(|(&(start, end), piece)| {
            let skip = (start as u64).wrapping_mul(num_samples as u64 + 3) / 4;
            let mut words = SingleSample::new(gen.skipped(skip));
            let mut cdf = vec![0.0f64; classes];
            for (b, samples) in (start..end).zip(piece.chunks_mut(num_samples)) {
                let row = &rows[b * classes..(b + 1) * classes];
                let max = row.iter().filter(|x| x.is_finite()).fold(f64::MIN, |m, &x| m.max(x));
                let mut total = 0.0;
                for (c, &x) in cdf.iter_mut().zip(row) {
                    if x.is_finite() {
                        total += (x - max).exp();
                    }
                    *c = total;
                }
                for s in samples.iter_mut() {
                    let (x0, x1) = (words.word(), words.word());
                    let r = u64_to_f64(x0, x1) * total;
                    *s = cdf.partition_point(|&c| c <= r) as i64;
                }
            }
        });
    }
    match dtype {
        DType::I32 => tensor(out.into_iter().map(|i| i as i32).collect(), &shape),
        _ => tensor(out, &shape),
    }
}

// --- rejection samplers ------------------------------------------------------------------------

/// Rejection loops give up after this many rejections of one output: TensorFlow's loop forever
/// on some parameters (a Poisson rate above what the output type holds, NaN counts), which is
/// only ever reached there.
const MAX_REJECTIONS: u32 = 1 << 16;

/// Doubles from `UniformDistribution<Philox, double>`, two per call, the second one first.
struct Uniforms {
    gen: PhiloxRandom,
    buf: [f64; 2],
    left: usize,
}

impl Uniforms {
    fn new(gen: PhiloxRandom) -> Uniforms {
        Uniforms { gen, buf: [0.0; 2], left: 0 }
    }

    #[inline]
    fn next(&mut self) -> f64 {
        if self.left == 0 {
            let w = self.gen.call();
            self.buf = [u64_to_f64(w[0], w[1]), u64_to_f64(w[2], w[3])];
            self.left = 2;
        }
        self.left -= 1;
        self.buf[self.left]
    }
}

/// `params` values per output, where the output shape ends with the parameters' shape: output
/// `m` (memory order) is sample `m / P` of parameter `m % P`; its private stream starts
/// `stride * (param * samples + sample)` calls in. `draw` returns None when it gives up.
fn per_output(
    shape: &Shape,
    params: &Shape,
    op: &str,
    draw: impl Fn(usize, u64) -> Option<f64> + Sync,
) -> Result<Vec<f64>> {
    let (r, pr) = (shape.rank(), params.rank());
    if r < pr || shape.dims()[r - pr..] != *params.dims() {
        return Err(Error::InvalidArgument(format!(
            "Shape passed in must end with broadcasted shape. [Op:{op}]"
        )));
    }
    let n = shape.num_elements();
    let p = params.num_elements();
    if n == 0 || p == 0 {
        return Ok(vec![0.0; n]);
    }
    let samples = n / p;
    let stuck = AtomicBool::new(false);
    let out = parallel::generate(n, |m| {
        if stuck.load(Ordering::Relaxed) {
            return 0.0;
        }
        let (s, param) = (m / p, m % p);
        let index = (param * samples + s) as u64;
        draw(param, index).unwrap_or_else(|| {
            stuck.store(true, Ordering::Relaxed);
            0.0
        })
    });
    if stuck.load(Ordering::Relaxed) {
        return Err(Error::InvalidArgument(format!(
            "{op}: the sampler rejected {MAX_REJECTIONS} draws in a row; TensorFlow's kernel \
             never finishes for these parameters (NaN, or beyond what the output type holds)"
        )));
    }
    Ok(out)
}

fn float_params(t: &Tensor) -> Vec<f64> {
    with_real!(t.buffer(), v => v.iter().map(|x| x.to_f64()).collect(), else vec![])
}

/// Values computed in double, stored as `dtype` (float16 through float, as Eigen converts).
fn from_f64(values: Vec<f64>, shape: &Shape, dtype: DType) -> Result<Tensor> {
    match dtype {
        DType::F64 => tensor(values, shape),
        DType::F32 => tensor(parallel::map(&values, |v| v as f32), shape),
        DType::F16 => tensor(parallel::map(&values, |v| f16::from_f32(v as f32)), shape),
        DType::I32 => tensor(parallel::map(&values, i32::from_f64), shape),
        _ => tensor(parallel::map(&values, i64::from_f64), shape),
    }
}

/// The largest value of an output type, in double (`NumTraits<T>::highest()`).
fn highest(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => 65504.0,
        DType::F32 => f32::MAX as f64,
        DType::F64 => f64::MAX,
        DType::I32 => i32::MAX as f64,
        _ => i64::MAX as f64,
    }
}

/// `StatelessRandomPoisson`: Knuth's product of uniforms below rate 10, Hörmann's PTRS above;
/// every output's own stream starts 256 calls after the previous one's.
fn poisson(gen: PhiloxRandom, spec: &StatelessSpec, rates: &Tensor) -> Result<Tensor> {
    let op = spec.tf_name();
    if !matches!(rates.dtype(), DType::F16 | DType::F32 | DType::F64 | DType::I32 | DType::I64) {
        return Err(Error::InvalidArgument(format!(
            "Value for attr 'Rtype' of {} is not in the list of allowed values: half, float, \
             double, int32, int64 [Op:{op}]",
            tf_type_name(rates.dtype())
        )));
    }
    let lam = float_params(rates);
    if lam.iter().any(|x| x.is_nan()) {
        return Err(Error::InvalidArgument(format!(
            "{op}: a rate is NaN (TensorFlow's kernel never finishes on it)"
        )));
    }
    let hi = highest(spec.dtype);
    let values = per_output(&spec.shape, rates.shape(), op, |param, index| {
        let rate = lam[param];
        let mut u = Uniforms::new(gen.skipped(index.wrapping_mul(256)));
        if rate < 10.0 {
            let limit = (-rate).exp();
            let (mut prod, mut x) = (1.0, 0.0);
            for _ in 0..MAX_REJECTIONS {
                prod *= u.next();
                if prod <= limit && x <= hi {
                    return Some(x);
                }
                x += 1.0;
            }
            return None;
        }
        if rate.is_infinite() {
            return Some(if spec.dtype.is_integer() { 0.0 } else { f64::INFINITY });
        }
        let log_rate = rate.ln();
        let b = 0.931 + 2.53 * rate.sqrt();
        let a = -0.059 + 0.02483 * b;
        let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
        for _ in 0..MAX_REJECTIONS {
            let uu = u.next() - 0.5;
            let v = u.next();
            let us = 0.5 - uu.abs();
            let k = ((2.0 * a / us + b) * uu + rate + 0.43).floor();
            if k > hi {
                continue;
            }
            if us >= 0.07 && v <= 0.9277 - 3.6224 / (b - 2.0) {
                return Some(k);
            }
            if k < 0.0 || (us < 0.013 && v > us) {
                continue;
            }
            let s = (v * inv_alpha / (a / (us * us) + b)).ln();
            let t = -rate + k * log_rate - lgamma(k + 1.0);
            if s <= t {
                return Some(k);
            }
        }
        None
    })?;
    from_f64(values, &spec.shape, spec.dtype)
}

/// glibc's `lgamma`, which TensorFlow's Poisson sampler calls.
fn lgamma(x: f64) -> f64 {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn lgamma_r(x: f64, sign: *mut i32) -> f64;
        }
        let mut sign = 0;
        // SAFETY: a pure libm function; `sign` is a valid out pointer.
        unsafe { lgamma_r(x, &mut sign) }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        libm::lgamma(x)
    }
}

/// Stirling's error term `log(k!) - log(Stirling(k))`: a table to 9, the series above.
fn stirling_tail(k: f64) -> f64 {
    const TABLE: [f64; 10] = [
        0.0810614667953272,
        0.0413406959554092,
        0.0276779256849983,
        0.02079067210376509,
        0.0166446911898211,
        0.0138761288230707,
        0.0118967099458917,
        0.0104112652619720,
        0.00925546218271273,
        0.00833056343336287,
    ];
    if k <= 9.0 {
        return TABLE[k as usize];
    }
    let kp1sq = (k + 1.0) * (k + 1.0);
    (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / 1260.0 / kp1sq) / kp1sq) / (k + 1.0)
}

/// Binomial by inversion: the number of geometric gaps that fit in `count`.
fn binomial_inversion(count: f64, p: f64, u: &mut Uniforms) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0.0);
    let lq = (-p).ln_1p();
    for _ in 0..MAX_REJECTIONS {
        sum += (u.next().ln() / lq).ceil();
        if sum > count {
            return Some(n);
        }
        n += 1.0;
    }
    None
}

/// Hörmann's BTRS with TensorFlow's constants.
fn btrs(count: f64, p: f64, u: &mut Uniforms) -> Option<f64> {
    let stddev = (count * p * (1.0 - p)).sqrt();
    let b = 1.15 + 2.53 * stddev;
    let a = -0.0873 + 0.0248 * b + 0.01 * p;
    let c = count * p + 0.5;
    let v_r = 0.92 - 4.2 / b;
    let r = p / (1.0 - p);
    let alpha = (2.83 + 5.1 / b) * stddev;
    let m = ((count + 1.0) * p).floor();
    for _ in 0..MAX_REJECTIONS {
        let uu = u.next() - 0.5;
        let v = u.next();
        let us = 0.5 - uu.abs();
        let k = ((2.0 * a / us + b) * uu + c).floor();
        if us >= 0.07 && v <= v_r {
            return Some(k);
        }
        if k < 0.0 || k > count {
            continue;
        }
        let v = (v * alpha / (a / (us * us) + b)).ln();
        let bound = (m + 0.5) * ((m + 1.0) / (r * (count - m + 1.0))).ln()
            + (count + 1.0) * ((count - m + 1.0) / (count - k + 1.0)).ln()
            + (k + 0.5) * (r * (count - k + 1.0) / (k + 1.0)).ln()
            + stirling_tail(m)
            + stirling_tail(count - m)
            - stirling_tail(k)
            - stirling_tail(count - k);
        if v <= bound {
            return Some(k);
        }
    }
    None
}

/// `v` rounded to the parameter type (binomial decides in it, as TensorFlow's kernel).
fn round_to(dtype: DType, v: f64) -> f64 {
    match dtype {
        DType::F16 => f16::from_f64(v).to_f64(),
        DType::F32 => v as f32 as f64,
        _ => v,
    }
}

/// `RandomBinomialFunctor`: inversion (stream at `42 * index`) when `count * p < 10`, BTRS
/// (stream at `256 * index`) otherwise, on `min(p, 1 - p)`.
fn binomial(
    gen: PhiloxRandom,
    spec: &StatelessSpec,
    counts: &Tensor,
    probs: &Tensor,
) -> Result<Tensor> {
    let op = spec.tf_name();
    let t = probs.dtype();
    if !matches!(t, DType::F16 | DType::F32 | DType::F64) {
        return Err(Error::InvalidArgument(format!(
            "Value for attr 'T' of {} is not in the list of allowed values: half, float, \
             double, int32, int64 [Op:{op}]",
            tf_type_name(t)
        )));
    }
    if counts.dtype() != t {
        return Err(Error::InvalidArgument(format!(
            "cannot compute {op} as input #2(zero-based) was expected to be a {} tensor but is \
             a {} tensor [Op:{op}]",
            tf_type_name(t),
            tf_type_name(counts.dtype())
        )));
    }
    let batch = broadcast_shapes(counts.shape(), probs.shape()).map_err(|_| {
        Error::InvalidArgument(format!(
            "counts and probs must have compatible batch dimensions: {} vs. {} [Op:{op}]",
            counts.shape(),
            probs.shape()
        ))
    })?;
    let expand = |x: &Tensor| -> Result<Vec<f64>> {
        let b = crate::ops::shape_ops::broadcast_to(x, &batch)?;
        Ok(float_params(&b))
    };
    let (count_v, prob_v) = (expand(counts)?, expand(probs)?);
    let values = per_output(&spec.shape, &batch, op, |param, index| {
        let (count, prob) = (count_v[param], prob_v[param]);
        let draw = |p: f64| {
            if count.is_nan() {
                return None; // TensorFlow's loops never end
            }
            if round_to(t, count * p) >= 10.0 {
                btrs(count, p, &mut Uniforms::new(gen.skipped(index.wrapping_mul(256))))
            } else {
                binomial_inversion(count, p, &mut Uniforms::new(gen.skipped(index * 42)))
            }
        };
        if count <= 0.0 || prob <= 0.0 {
            Some(0.0)
        } else if prob >= 1.0 {
            Some(count)
        } else if prob <= 0.5 {
            draw(prob)
        } else if prob > 0.5 {
            draw(round_to(t, 1.0 - prob)).map(|k| count - k)
        } else {
            Some(f64::NAN)
        }
    })?;
    from_f64(values, &spec.shape, spec.dtype)
}

/// Doubles from `NormalDistribution<Philox, double>`: one Box-Muller pair per call, the second
/// value first.
struct Normals {
    buf: [f64; 2],
    left: usize,
}

impl Normals {
    fn next(&mut self, gen: &mut PhiloxRandom) -> f64 {
        if self.left == 0 {
            let (a, b) = box_muller_f64(gen.call());
            self.buf = [a, b];
            self.left = 2;
        }
        self.left -= 1;
        self.buf[self.left]
    }
}

/// `StatelessRandomGammaV3`: Marsaglia and Tsang's method in double (alpha < 1 boosted by a
/// power of a uniform), or `-log1p(-u)` for alpha = 1; each output's stream starts 256 calls
/// after the previous one's, normals and uniforms drawn from the same stream.
fn gamma(gen: PhiloxRandom, spec: &StatelessSpec, alphas: &Tensor) -> Result<Tensor> {
    let op = spec.tf_name();
    if alphas.dtype() != spec.dtype {
        return Err(Error::InvalidArgument(format!(
            "cannot compute {op} as input #4(zero-based) was expected to be a {} tensor but is \
             a {} tensor [Op:{op}]",
            tf_type_name(spec.dtype),
            tf_type_name(alphas.dtype())
        )));
    }
    let alpha_v = float_params(alphas);
    let values = per_output(&spec.shape, alphas.shape(), op, |param, index| {
        let alpha = alpha_v[param];
        let mut g = gen.skipped(index.wrapping_mul(256));
        if alpha == 1.0 {
            let w = g.call();
            return Some(-(-u64_to_f64(w[2], w[3])).ln_1p());
        }
        let boost = alpha < 1.0;
        let d = alpha + if boost { 2.0 / 3.0 } else { -1.0 / 3.0 };
        let c = 1.0 / 3.0 / d.sqrt();
        let mut normals = Normals { buf: [0.0; 2], left: 0 };
        // The uniform buffer shares the stream with the normals: refilled from `g` as needed.
        let (mut ubuf, mut uleft) = ([0.0f64; 2], 0usize);
        let mut uniform = |g: &mut PhiloxRandom| {
            if uleft == 0 {
                let w = g.call();
                ubuf = [u64_to_f64(w[0], w[1]), u64_to_f64(w[2], w[3])];
                uleft = 2;
            }
            uleft -= 1;
            ubuf[uleft]
        };
        for _ in 0..MAX_REJECTIONS {
            let x = normals.next(&mut g);
            let v = 1.0 + c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = uniform(&mut g);
            if u < 1.0 - 0.0331 * (x * x) * (x * x) || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln())
            {
                let mut res = d * v;
                if boost {
                    res *= uniform(&mut g).powf(1.0 / alpha);
                }
                return Some(res);
            }
        }
        None
    })?;
    from_f64(values, &spec.shape, spec.dtype)
}

// --- ops -------------------------------------------------------------------------------------

/// `StatelessRandomGetKeyCounter`: the Philox state a seed pair (int32/int64 `[2]`) stands for.
///
/// ```
/// use ferroflow::ops::random::stateless;
/// use ferroflow::tensor::Tensor;
/// let seed = Tensor::from_slice(&[1i32, 2], &[2]).unwrap();
/// let state = stateless::state_of_seed(&seed).unwrap();
/// assert_eq!(state.to_vec::<i64>().unwrap()[0], 0); // the counter's low half starts at 0
/// ```
pub fn state_of_seed(seed: &Tensor) -> Result<Tensor> {
    dispatch::apply1(&Op::RngState(RngState), &[seed])
}

/// The Philox state `delta` calls after `state` (how `tf.random.Generator` moves on).
pub fn advance(state: &Tensor, delta: u64) -> Result<Tensor> {
    dispatch::apply1(&Op::RngSkip(RngSkip(delta)), &[state])
}

/// Draws `spec` from the Philox `state` with the sampler's parameters: TensorFlow's numbers.
///
/// ```
/// use ferroflow::ops::random::{stateless, Sampler, StatelessSpec};
/// use ferroflow::{dtype::DType, shape::Shape, tensor::Tensor};
/// let state = stateless::state_of_seed(&Tensor::from_slice(&[1i32, 2], &[2]).unwrap()).unwrap();
/// let shape = Shape::new(vec![2]);
/// let spec = StatelessSpec { sampler: Sampler::Uniform, shape, dtype: DType::F32 };
/// let u = stateless::sample(spec, &state, &[]).unwrap();
/// // tf.random.stateless_uniform([2], seed=[1, 2]) in TensorFlow 2.21
/// assert_eq!(u.to_vec::<f32>().unwrap(), [0.84406042, 0.19204533]);
/// ```
pub fn sample(spec: StatelessSpec, state: &Tensor, params: &[&Tensor]) -> Result<Tensor> {
    let mut inputs = vec![state];
    inputs.extend_from_slice(params);
    dispatch::apply1(&Op::StatelessRandom(spec), &inputs)
}

// --- entry -----------------------------------------------------------------------------------

/// Runs `spec` on `inputs` (the state first): the CPU kernel of `Op::StatelessRandom`.
pub fn cpu(spec: &StatelessSpec, inputs: &[&Tensor]) -> Result<Tensor> {
    spec.check_dtype()?;
    if inputs.len() != spec.arity() {
        return Err(Error::Internal(format!(
            "{} takes {} inputs, got {}",
            spec.tf_name(),
            spec.arity(),
            inputs.len()
        )));
    }
    let gen = read_state(inputs[0], spec.tf_name())?;
    if spec.has_shape() {
        check_alloc(spec.shape.num_elements(), spec.dtype)?;
    }
    let (shape, dtype) = (&spec.shape, spec.dtype);
    match spec.sampler {
        Sampler::Uniform => uniform(gen, shape, dtype),
        Sampler::Normal => normal(gen, shape, dtype),
        Sampler::TruncatedNormal => truncated_normal(gen, shape, dtype),
        Sampler::UniformInt => uniform_int(gen, spec, inputs[1], inputs[2]),
        Sampler::UniformFullInt => uniform_full_int(gen, shape, dtype),
        Sampler::Categorical { num_samples } => categorical(gen, inputs[1], num_samples, dtype),
        Sampler::Binomial => binomial(gen, spec, inputs[1], inputs[2]),
        Sampler::Poisson => poisson(gen, spec, inputs[1]),
        Sampler::Gamma => gamma(gen, spec, inputs[1]),
    }
}

#[cfg(test)]
mod tests {
    //! Known values from TensorFlow 2.21 on the CPU (seed [1, 2] unless said otherwise).
    use super::*;

    fn state(seed: [i32; 2]) -> Tensor {
        seed_state(&Tensor::from_slice(&seed, &[2]).unwrap()).unwrap()
    }

    fn draw(sampler: Sampler, dims: &[usize], dtype: DType, params: &[&Tensor]) -> Tensor {
        let spec = StatelessSpec { sampler, shape: Shape::new(dims.to_vec()), dtype };
        let s = state([1, 2]);
        let mut inputs = vec![&s];
        inputs.extend_from_slice(params);
        cpu(&spec, &inputs).unwrap()
    }

    fn floats(t: &Tensor) -> Vec<f64> {
        float_params(t)
    }

    #[test]
    fn fills_match_tensorflow() {
        let u = draw(Sampler::Uniform, &[5], DType::F32, &[]);
        let want = [0.8440604209899902, 0.19204533100128174, 0.9962232112884521];
        assert_eq!(&floats(&u)[..3], want);
        let n = draw(Sampler::Normal, &[5], DType::F32, &[]);
        let want = [0.544110119342804, 0.20738030970096588, 0.0735643208026886];
        assert_eq!(&floats(&n)[..3], want);
        assert_eq!(floats(&n)[4], -1.301589846611023);
        let t = draw(Sampler::TruncatedNormal, &[5], DType::F32, &[]);
        assert_eq!(floats(&t)[4], 0.16820591688156128); // -1.3 was kept, 0.168 is group 2's
        let n64 = draw(Sampler::Normal, &[5], DType::F64, &[]);
        assert_eq!(floats(&n64)[..2], [-0.1423118100189212, 0.7406072461585091]);
        assert_eq!(floats(&n64)[4], -0.7218813856153005);
        let t64 = draw(Sampler::TruncatedNormal, &[5], DType::F64, &[]);
        assert_eq!(
            floats(&t64)[2..],
            [-0.552387756244845, -0.734450092480207, -0.39842023956588357]
        );
        let h = draw(Sampler::Normal, &[5], DType::F16, &[]);
        assert_eq!(floats(&h)[..2], [0.5439453125, 0.2073974609375]);
        let b = draw(Sampler::Uniform, &[5], DType::BF16, &[]);
        assert_eq!(floats(&b), [0.34375, 0.8828125, 0.484375, 0.1484375, 0.1484375]);
    }

    #[test]
    fn integers_match_tensorflow() {
        let (lo, hi) = (Tensor::scalar(-3i32), Tensor::scalar(1000i32));
        let i = draw(Sampler::UniformInt, &[5], DType::I32, &[&lo, &hi]);
        assert_eq!(i.to_vec::<i32>().unwrap(), [97, 284, 647, 168, 310]);
        let (lo, hi) = (Tensor::scalar(-3i64), Tensor::scalar(1_000_000_000_000i64));
        let i = draw(Sampler::UniformInt, &[5], DType::I64, &[&lo, &hi]);
        let want = [146258219801, 637753188140, 318111882239, 515999429111, 327625373258];
        assert_eq!(i.to_vec::<i64>().unwrap(), want);
        let f = draw(Sampler::UniformFullInt, &[3], DType::I64, &[]);
        let want = [7464880146280614444, 1591045637757961278, -1057468755545501549];
        assert_eq!(f.to_vec::<i64>().unwrap(), want);
        let empty = draw(Sampler::UniformInt, &[0], DType::I32, &[&hi_lo(5), &hi_lo(5)]);
        assert_eq!(empty.num_elements(), 0); // TensorFlow checks minval < maxval only with work
    }

    fn hi_lo(v: i32) -> Tensor {
        Tensor::scalar(v)
    }

    #[test]
    fn samplers_match_tensorflow() {
        let logits = Tensor::from_slice(&[0.0f32, 1.0, 2.0, 3.0, -1.0, 0.5], &[2, 3]).unwrap();
        let spec = StatelessSpec {
            sampler: Sampler::Categorical { num_samples: 5 },
            shape: Shape::scalar(),
            dtype: DType::I64,
        };
        let c = cpu(&spec, &[&state([1, 2]), &logits]).unwrap();
        assert_eq!(c.to_vec::<i64>().unwrap(), [2, 2, 1, 2, 2, 0, 0, 0, 0, 0]);

        let counts = Tensor::from_slice(&[5.0f32, 100.0], &[2]).unwrap();
        let probs = Tensor::from_slice(&[0.3f32, 0.8], &[2]).unwrap();
        let b = draw(Sampler::Binomial, &[3, 2], DType::I32, &[&counts, &probs]);
        assert_eq!(b.to_vec::<i32>().unwrap(), [3, 70, 2, 84, 2, 77]);

        let lam = Tensor::from_slice(&[2.0f32, 30.0], &[2]).unwrap();
        let p = draw(Sampler::Poisson, &[3, 2], DType::I32, &[&lam]);
        assert_eq!(p.to_vec::<i32>().unwrap(), [3, 45, 4, 25, 3, 35]);

        let alpha = Tensor::from_slice(&[0.5f64, 1.0, 3.0], &[3]).unwrap();
        let g = draw(Sampler::Gamma, &[2, 3], DType::F64, &[&alpha]);
        let want = [0.06695361383821083, 2.2487352006448047, 3.40351477562984];
        assert_eq!(floats(&g)[..3], want);
        assert_eq!(floats(&g)[3..], [0.62823544551181, 1.89350913788573, 2.447971215673901]);
    }

    #[test]
    fn generator_state_draws_match_tensorflow() {
        // tf.random.Generator.from_seed(7).normal([3]): state [7, 0, 0], no scrambling.
        let s = Tensor::from_slice(&[7i64, 0, 0], &[3]).unwrap();
        let spec = StatelessSpec {
            sampler: Sampler::Normal,
            shape: Shape::new(vec![3]),
            dtype: DType::F32,
        };
        let n = cpu(&spec, &[&s]).unwrap();
        assert_eq!(floats(&n), [-1.3240395784378052, 0.28785666823387146, -0.8757901191711426]);
        assert_eq!(skip(&s, 768).unwrap().to_vec::<i64>().unwrap(), [775, 0, 0]);
    }

    #[test]
    fn results_do_not_depend_on_threads() {
        let spec = |sampler| StatelessSpec {
            sampler,
            shape: Shape::new(vec![100_003]),
            dtype: DType::F32,
        };
        let s = state([7, -9]);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        for sampler in [Sampler::Uniform, Sampler::Normal, Sampler::TruncatedNormal] {
            let many = cpu(&spec(sampler), &[&s]).unwrap().to_vec::<f32>().unwrap();
            let single =
                one.install(|| cpu(&spec(sampler), &[&s]).unwrap().to_vec::<f32>().unwrap());
            assert_eq!(many, single);
        }
    }

    #[test]
    fn eigen_blocks_follow_the_cost_model() {
        // tf_random_reference.eigen_parallel_for_blocks, checked against TensorFlow's shards.
        let starts = |n, cost, threads| -> Vec<usize> {
            eigen_blocks(n, cost, threads).into_iter().map(|(s, _)| s).collect()
        };
        assert_eq!(starts(1000, 5000.0, 2), (0..1000).step_by(125).collect::<Vec<_>>());
        assert_eq!(eigen_blocks(100, 2000.0, 16), [(0, 100)]);
        assert_eq!(starts(100, 20000.0, 16), (0..100).step_by(4).collect::<Vec<_>>());
        assert_eq!(starts(1000, 300.0, 2), (0..1000).step_by(133).collect::<Vec<_>>());
        assert_eq!(eigen_blocks(37, 100000.0, 3).last(), Some(&(35, 37)));
        assert_eq!(eigen_blocks(3, 20.0, 2), [(0, 3)]);
    }

    #[test]
    fn bad_arguments_are_errors() {
        let seed3 = Tensor::from_slice(&[1i32, 2, 3], &[3]).unwrap();
        assert!(matches!(seed_state(&seed3), Err(Error::InvalidArgument(_))));
        let fseed = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        assert!(matches!(seed_state(&fseed), Err(Error::InvalidArgument(_))));
        let spec = StatelessSpec {
            sampler: Sampler::Normal,
            shape: Shape::new(vec![2]),
            dtype: DType::I32,
        };
        assert!(cpu(&spec, &[&state([1, 2])]).is_err());
        let nan = Tensor::from_slice(&[f32::NAN], &[1]).unwrap();
        let spec = StatelessSpec {
            sampler: Sampler::Poisson,
            shape: Shape::new(vec![2, 1]),
            dtype: DType::I32,
        };
        assert!(cpu(&spec, &[&state([1, 2]), &nan]).is_err());
        // TensorFlow never finishes here (no float16 above 65504); this gives up with an error.
        let big = Tensor::from_slice(&[1.0e6f32], &[1]).unwrap();
        let spec = StatelessSpec {
            sampler: Sampler::Poisson,
            shape: Shape::new(vec![1]),
            dtype: DType::F16,
        };
        assert!(cpu(&spec, &[&state([1, 2]), &big]).is_err());
        let mismatch = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        let spec = StatelessSpec {
            sampler: Sampler::Poisson,
            shape: Shape::new(vec![3]),
            dtype: DType::I32,
        };
        assert!(cpu(&spec, &[&state([1, 2]), &mismatch]).is_err());
    }
}
