//! Random tensors on the GPU (`shaders/random.wgsl`): the CPU's Philox stream, float32 and int32.

use super::launch;
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::fill;
use crate::gpu::storage::GpuStorage;
use crate::ops::random::{Distribution, RandomSpec};
use crate::tensor::Tensor;

const TEMPLATE: &str = include_str!("../../../shaders/random.wgsl");

/// Float32 draws of every distribution, and int32 uniform ints whose range fits 32 bits.
pub fn supports(spec: &RandomSpec) -> bool {
    if spec.distribution == Distribution::Permutation {
        return false; // a sequential shuffle: the CPU's
    }
    match spec.int_range() {
        Some((_, width)) => spec.dtype == DType::I32 && width <= u32::MAX as u128,
        None => spec.dtype == DType::F32,
    }
}

pub fn generate(spec: &RandomSpec, device: usize) -> Result<Option<Tensor>> {
    if !supports(spec) {
        return Ok(None);
    }
    let n = spec.shape.num_elements();
    let out = GpuStorage::alloc(device, spec.dtype, n)?;
    let bits = |v: f64| (v as f32).to_bits();
    let (kind, a, b) = match (spec.int_range(), spec.distribution) {
        (Some((minval, width)), _) => (3, minval as i32 as u32, width as u32),
        (None, Distribution::Uniform { minval, maxval }) => (0, bits(minval), bits(maxval)),
        (None, Distribution::Normal { mean, stddev }) => (1, bits(mean), bits(stddev)),
        (None, Distribution::TruncatedNormal { mean, stddev }) => (2, bits(mean), bits(stddev)),
        (None, Distribution::Permutation) => return Ok(None),
    };
    let [key0, key1] = spec.stream.key;
    let params = [n as u32, key0, key1, spec.stream.call, kind, a, b];
    launch("random", || fill(TEMPLATE, &[]), &[], &out, &params, n.div_ceil(256) as u64)?;
    Ok(Some(Tensor::from_gpu(out, spec.shape.clone())))
}
