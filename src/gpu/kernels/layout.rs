//! Layout ops on the GPU, all through the strided-copy kernel (`shaders/strided_copy.wgsl`):
//! transpose, strided slice, concat, constant pad and tile.

use super::{elementwise, launch, GpuInput};
use crate::error::Result;
use crate::gpu::kernels::source::{fill, raw_type};
use crate::gpu::storage::GpuStorage;
use crate::ops::shape_ops::{concat_shape, pad_shape, tile_shape, transpose_shape};
use crate::ops::shape_ops::{PadMode, SliceSpec};
use crate::shape::Shape;
use crate::tensor::Tensor;

const TEMPLATE: &str = include_str!("../../../shaders/strided_copy.wgsl");
/// Iteration ranks above this go to the CPU (parameters must fit one 256-byte block).
const MAX_RANK: usize = 20;

/// Row-major strides, signed for the copy kernel's (possibly negative) source strides.
fn strides(dims: &[usize]) -> Vec<i64> {
    Shape(dims.to_vec()).strides().into_iter().map(|s| s as i64).collect()
}

/// One strided copy from `x` into `out` (already allocated): `iter` dims, bases and strides.
fn copy(
    x: &GpuInput,
    out: &GpuStorage,
    iter: &[usize],
    src: (i64, &[i64]),
    dst: (i64, &[i64]),
) -> Result<Option<()>> {
    let n: usize = iter.iter().product();
    if n == 0 {
        return Ok(Some(()));
    }
    let fits = |s: &i64| i32::try_from(*s).is_ok();
    if iter.len() > MAX_RANK
        || src.0 < 0
        || src.0 > i32::MAX as i64
        || dst.0 > u32::MAX as i64
        || !src.1.iter().all(fits)
    {
        return Ok(None);
    }
    let mut params = vec![n as u32, iter.len() as u32, src.0 as u32, dst.0 as u32];
    params.extend(iter.iter().map(|&d| d as u32));
    params.extend(src.1.iter().map(|&s| s as i32 as u32));
    params.extend(dst.1.iter().map(|&s| s as u32));
    // Copies move bits: one kernel per element width serves every dtype.
    let raw = raw_type(x.dtype);
    let source = || fill(TEMPLATE, &[]).replace("array<T>", &format!("array<{raw}>"));
    let key = format!("strided_copy:{raw}");
    launch(&key, source, &[x], out, &params, n.div_ceil(256) as u64).map(Some)
}

pub fn transpose(x: &GpuInput, perm: &[usize]) -> Result<Option<Tensor>> {
    let out_shape = transpose_shape(&x.shape, perm)?;
    let in_strides = strides(x.shape.dims());
    let src: Vec<i64> = perm.iter().map(|&p| in_strides[p]).collect();
    let dst = strides(out_shape.dims());
    let out = GpuStorage::alloc(x.device(), x.dtype, out_shape.num_elements())?;
    Ok(copy(x, &out, out_shape.dims(), (0, &src), (0, &dst))?
        .map(|()| Tensor::from_gpu(out, out_shape)))
}

pub fn strided_slice(x: &GpuInput, spec: &SliceSpec) -> Result<Option<Tensor>> {
    if spec.ranges.len() != x.shape.rank() {
        return Ok(None);
    }
    let in_strides = strides(x.shape.dims());
    let iter: Vec<usize> = spec.ranges.iter().map(|r| r.1).collect();
    let base: i64 = spec.ranges.iter().zip(&in_strides).map(|(r, s)| r.0 as i64 * s).sum();
    // A step only matters on axes that take more than one element (huge steps take one).
    let src: Vec<i64> = spec
        .ranges
        .iter()
        .zip(&in_strides)
        .map(|(r, s)| if r.1 > 1 { (r.2 as i64).saturating_mul(*s) } else { 0 })
        .collect();
    let dst = strides(&iter);
    let n: usize = iter.iter().product();
    if n != spec.out_shape.num_elements() {
        return Ok(None);
    }
    let out = GpuStorage::alloc(x.device(), x.dtype, n)?;
    Ok(copy(x, &out, &iter, (base, &src), (0, &dst))?
        .map(|()| Tensor::from_gpu(out, spec.out_shape.clone())))
}

pub fn concat(inputs: &[GpuInput], host: &[&Tensor], axis: usize) -> Result<Option<Tensor>> {
    let out_shape = concat_shape(host, axis)?;
    let first = &inputs[0];
    if out_shape.rank() == 0 {
        return Ok(None);
    }
    let out_strides = strides(out_shape.dims());
    let out = GpuStorage::alloc(first.device(), first.dtype, out_shape.num_elements())?;
    let mut offset = 0i64;
    for t in inputs {
        let src = strides(t.shape.dims());
        let dst = (offset * out_strides[axis], out_strides.as_slice());
        if copy(t, &out, t.shape.dims(), (0, &src), dst)?.is_none() {
            return Ok(None);
        }
        offset += t.shape.dims()[axis] as i64;
    }
    Ok(Some(Tensor::from_gpu(out, out_shape)))
}

/// Constant padding: the output is filled with the constant, then `x` is copied inside.
pub fn pad(
    x: &GpuInput,
    constant: &GpuInput,
    paddings: &[(usize, usize)],
) -> Result<Option<Tensor>> {
    let out_shape = pad_shape(&x.tensor, paddings, PadMode::Constant, &constant.tensor)?;
    let Some(filled) =
        elementwise::run("Fill", "a", std::slice::from_ref(constant), x.dtype, &out_shape)?
    else {
        return Ok(None);
    };
    let out_strides = strides(out_shape.dims());
    let base: i64 = paddings.iter().zip(&out_strides).map(|(p, s)| p.0 as i64 * s).sum();
    let src = strides(x.shape.dims());
    let storage = filled.gpu_storage().expect("a GPU kernel output");
    Ok(copy(x, storage, x.shape.dims(), (0, &src), (base, &out_strides))?.map(|()| filled.clone()))
}

/// Tiling is a broadcast of an interleaved view: [d] -> [1, d] broadcast to [m, d] -> [m*d].
pub fn tile(x: &GpuInput, multiples: &[usize]) -> Result<Option<Tensor>> {
    let out_shape = tile_shape(&x.tensor, multiples)?;
    let mut expanded = Vec::with_capacity(2 * x.shape.rank());
    let mut target = Vec::with_capacity(2 * x.shape.rank());
    for (&d, &m) in x.shape.dims().iter().zip(multiples) {
        expanded.extend([1, d]);
        target.extend([m, d]);
    }
    let view = GpuInput { tensor: x.tensor.clone(), dtype: x.dtype, shape: Shape(expanded) };
    let tiled = elementwise::run("Tile", "a", &[view], x.dtype, &Shape(target))?;
    Ok(tiled.map(|t| t.with_shape(out_shape)))
}
