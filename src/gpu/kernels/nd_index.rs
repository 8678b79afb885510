//! gather_nd and scatter_nd on the GPU (`shaders/gather_nd.wgsl`, `shaders/scatter_nd.wgsl`),
//! with int32 indices. Host-resident indices go through the CPU's checks first, so a bad index
//! raises exactly as on the CPU; device-resident ones follow TensorFlow's GPU kernels.

use super::{elementwise, indexing, launch, reduce, GpuInput};
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::batch::MAX_PARAMS;
use crate::gpu::kernels::source::{fill, raw_type};
use crate::gpu::storage::GpuStorage;
use crate::ops::index;
use crate::ops::reduce::{CumOp, ReduceOp};
use crate::shape::Shape;
use crate::tensor::Tensor;

const GATHER_ND: &str = include_str!("../../../shaders/gather_nd.wgsl");
const SCATTER_ND: &str = include_str!("../../../shaders/scatter_nd.wgsl");
const WHERE: &str = include_str!("../../../shaders/where_indices.wgsl");
const ND_OFFSET: &str = include_str!("../../../shaders/nd_offset.wgsl");

/// gather_nd moves any element; scatter_nd adds with 32-bit atomics.
pub fn supports(indices: DType, values: DType, scatter: bool) -> bool {
    indices == DType::I32
        && (!scatter || matches!(values, DType::F32 | DType::I32 | DType::U32 | DType::Bool))
}

/// The kernel parameters after `n` and k: slice length, k, then the first k dimensions and
/// strides of `shape`; `None` when `indices` cannot address `shape` (the CPU kernel then raises).
fn coordinate_params(shape: &Shape, indices: &Shape) -> Option<(Vec<u32>, usize)> {
    let k = *indices.dims().last()?;
    // Offsets are i32 in the kernel (-1 marks a bad row).
    if k > shape.rank() || 3 + 2 * k > MAX_PARAMS || shape.num_elements() > i32::MAX as usize {
        return None;
    }
    let slice: usize = shape.dims()[k..].iter().product();
    let strides = shape.strides();
    let mut params = vec![slice as u32, k as u32];
    params.extend(shape.dims()[..k].iter().map(|&d| d as u32));
    params.extend(strides[..k].iter().map(|&s| s as u32));
    Some((params, k))
}

/// Whether host-resident `indices` pass the CPU's checks against `shape` (device-resident
/// ones are the kernels' to handle).
fn host_indices_valid(shape: &Shape, indices: &Tensor, op: &str) -> bool {
    indices.device().is_gpu() || index::nd_offsets(shape.dims(), indices, op).is_ok()
}

pub fn gather_nd(x: &GpuInput, indices: &GpuInput, host: &Tensor) -> Result<Option<Tensor>> {
    let Some((coords, k)) = coordinate_params(&x.shape, &indices.shape) else {
        return Ok(None);
    };
    if !host_indices_valid(&x.shape, host, "GatherNd") {
        return Ok(None);
    }
    let lead = &indices.shape.dims()[..indices.shape.rank() - 1];
    let out_shape = Shape(lead.iter().chain(&x.shape.dims()[k..]).copied().collect());
    let n = out_shape.num_elements();
    crate::shape::check_alloc(n, x.dtype)?;
    let out = GpuStorage::alloc(x.device(), x.dtype, n)?;
    let params: Vec<u32> = std::iter::once(n as u32).chain(coords).collect();
    let workgroups = n.div_ceil(256) as u64;
    let raw = raw_type(x.dtype);
    let source = || fill(&format!("{GATHER_ND}{ND_OFFSET}"), &[("E", raw.to_string())]);
    launch(&format!("gather_nd:{raw}"), source, &[x, indices], &out, &params, workgroups)?;
    Ok(Some(Tensor::from_gpu(out, out_shape)))
}

/// Adds `updates` into zeros of `shape` at `indices`' rows.
pub fn scatter_nd(
    indices: &GpuInput,
    updates: &GpuInput,
    host: &Tensor,
    shape: &Shape,
) -> Result<Option<Tensor>> {
    let Some((coords, _)) = coordinate_params(shape, &indices.shape) else {
        return Ok(None);
    };
    if index::check_scatter_updates(&indices.shape, &updates.shape, shape).is_err()
        || !host_indices_valid(shape, host, "ScatterNd")
    {
        return Ok(None);
    }
    crate::shape::check_alloc(shape.num_elements(), updates.dtype)?;
    let out = GpuStorage::alloc(updates.device(), updates.dtype, shape.num_elements())?;
    out.buffer.context().clear(out.raw())?;
    let combine = match updates.dtype {
        DType::F32 => "add_f32",
        DType::Bool => "or_bool",
        _ => "add_int",
    };
    let n = updates.shape.num_elements();
    let params: Vec<u32> = std::iter::once(n as u32).chain(coords).collect();
    let source = || fill(&format!("{SCATTER_ND}{ND_OFFSET}"), &[("COMBINE", combine.to_string())]);
    let key = format!("scatter_nd:{combine}");
    launch(&key, source, &[indices, updates], &out, &params, n.div_ceil(256) as u64)?;
    Ok(Some(Tensor::from_gpu(out, shape.clone())))
}

/// tf.where(condition): the int64 coordinates of its nonzero elements. The output's length
/// depends on the values, so the count is read back (a sync), as TensorFlow's GPU kernel does.
pub fn where_indices(x: &GpuInput) -> Result<Option<Tensor>> {
    let rank = x.shape.rank();
    let n = x.shape.num_elements();
    if 2 + rank > MAX_PARAMS {
        return Ok(None);
    }
    let flat = Shape(vec![n]);
    // Flags are 0/1 as u32: booleans already are; other dtypes cast to bool's representation.
    let flags = match x.dtype {
        DType::Bool => x.tensor.clone(),
        d => {
            let Some(expr) = elementwise::cast_expr(d, DType::Bool) else { return Ok(None) };
            let Some(t) =
                elementwise::run("Where", expr, std::slice::from_ref(x), DType::U32, &x.shape)?
            else {
                return Ok(None);
            };
            t
        }
    };
    let flags = GpuInput { tensor: flags, dtype: DType::U32, shape: flat };
    let Some(prefix) = indexing::cumulative(CumOp::Sum, &flags, 0, true, false)? else {
        return Ok(None);
    };
    let Some(count) = reduce::reduce(ReduceOp::Sum, &flags, &[0], false)? else {
        return Ok(None);
    };
    let count = count.to_vec::<u32>()?.first().copied().unwrap_or(0) as usize;
    let out = GpuStorage::alloc(x.device(), DType::I64, count * rank)?;
    if count * rank > 0 {
        let mut params = vec![n as u32, rank as u32];
        params.extend(x.shape.dims().iter().map(|&d| d as u32));
        let source = || fill(WHERE, &[]);
        let prefix = GpuInput::from(prefix);
        launch("where_indices", source, &[&flags, &prefix], &out, &params, n.div_ceil(256) as u64)?;
    }
    Ok(Some(Tensor::from_gpu(out, Shape(vec![count, rank]))))
}
