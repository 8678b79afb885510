//! Image windows and their adjoint on the GPU (`shaders/patches.wgsl`,
//! `shaders/patches_grad.wgsl`), the kernels under convolution and pooling.

use super::{launch_elementwise, GpuInput};
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::fill;
use crate::ops::patches::{patches_grad_shape, patches_shape, PatchFill, PatchSpec};
use crate::tensor::Tensor;

const PATCHES: &str = include_str!("../../../shaders/patches.wgsl");
const PATCHES_GRAD: &str = include_str!("../../../shaders/patches_grad.wgsl");
const MAX_POOL_GRAD: &str = include_str!("../../../shaders/max_pool_grad.wgsl");
const WINDOW_TAPS: &str = include_str!("../../../shaders/window_taps.wgsl");

/// Windows move 4-byte elements; their adjoint and the max-pool gradient sum float32.
pub fn supports(dtype: DType, adjoint: bool) -> bool {
    match adjoint {
        false => matches!(dtype, DType::F32 | DType::I32 | DType::U32),
        true => dtype == DType::F32,
    }
}

/// The geometry parameters both kernels share, after `p[0]` and the image's `[H, W, C]`.
fn params(first: usize, image: [usize; 3], spec: &PatchSpec, fill_bits: u32) -> Option<Vec<u32>> {
    let values = [
        first,
        image[0],
        image[1],
        image[2],
        spec.out[0],
        spec.out[1],
        spec.kernel[0],
        spec.kernel[1],
        spec.strides[0],
        spec.strides[1],
        spec.dilations[0],
        spec.dilations[1],
        spec.pad[0],
        spec.pad[1],
    ];
    // Index arithmetic is u32 in the kernels: larger geometries run on the CPU.
    let reach = (spec.out[0] * spec.strides[0] + spec.kernel[0] * spec.dilations[0])
        .max(spec.out[1] * spec.strides[1] + spec.kernel[1] * spec.dilations[1]);
    if values.iter().chain([&reach]).any(|&v| v > i32::MAX as usize) {
        return None;
    }
    let mut p: Vec<u32> = values.iter().map(|&v| v as u32).collect();
    p.push(fill_bits);
    Some(p)
}

fn lowest_bits(dtype: DType) -> u32 {
    match dtype {
        DType::F32 => f32::NEG_INFINITY.to_bits(),
        DType::I32 => i32::MIN as u32,
        _ => 0,
    }
}

pub fn patches(x: &GpuInput, spec: &PatchSpec) -> Result<Option<Tensor>> {
    let out_shape = patches_shape(&x.tensor, spec)?;
    let d = x.shape.dims();
    let fill_bits = match spec.fill {
        PatchFill::Zero => 0,
        PatchFill::Lowest => lowest_bits(x.dtype),
    };
    let Some(p) = params(out_shape.num_elements(), [d[1], d[2], d[3]], spec, fill_bits) else {
        return Ok(None);
    };
    let source = || fill(PATCHES, &[]);
    launch_elementwise("patches", source, std::slice::from_ref(x), x.dtype, &out_shape, &p)
        .map(Some)
}

pub fn patches_grad(
    cols: &GpuInput,
    spec: &PatchSpec,
    image: [usize; 2],
) -> Result<Option<Tensor>> {
    let out_shape = patches_grad_shape(&cols.tensor, spec, image)?;
    let c = out_shape.dims()[3];
    let Some(p) = params(out_shape.num_elements(), [image[0], image[1], c], spec, 0) else {
        return Ok(None);
    };
    let source = || fill(&format!("{WINDOW_TAPS}\n{PATCHES_GRAD}"), &[]);
    launch_elementwise(
        "patches_grad",
        source,
        std::slice::from_ref(cols),
        DType::F32,
        &out_shape,
        &p,
    )
    .map(Some)
}

pub fn max_pool_grad(x: &GpuInput, g: &GpuInput, spec: &PatchSpec) -> Result<Option<Tensor>> {
    let d = x.shape.dims();
    if d.len() != 4 || g.shape.dims() != [d[0], spec.out[0], spec.out[1], d[3]] {
        return Ok(None); // the CPU kernel names the mismatch
    }
    let Some(p) = params(x.shape.num_elements(), [d[1], d[2], d[3]], spec, 0) else {
        return Ok(None);
    };
    let source = || fill(&format!("{WINDOW_TAPS}\n{MAX_POOL_GRAD}"), &[]);
    let operands = [x.clone(), g.clone()];
    launch_elementwise("max_pool_grad", source, &operands, DType::F32, &x.shape, &p).map(Some)
}
