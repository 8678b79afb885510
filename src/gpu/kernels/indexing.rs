//! Gather and cumulative sums/products on the GPU (`shaders/gather.wgsl`, `shaders/scan.wgsl`).

use super::{launch_elementwise, GpuInput};
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::{fill, wgsl_type};
use crate::ops::index::{gather_shape, index_values};
use crate::ops::reduce::CumOp;
use crate::tensor::Tensor;

const GATHER: &str = include_str!("../../../shaders/gather.wgsl");
const SCAN: &str = include_str!("../../../shaders/scan.wgsl");
/// Longer scans stay on the CPU until the GPU has a parallel (chunked) scan.
pub const MAX_SCAN: usize = 4096;

/// `host_indices`: the indices as the caller gave them; when they are on the host they are
/// checked here, so that a bad index raises as on the CPU instead of reading zeros.
pub fn gather(
    x: &GpuInput,
    indices: &GpuInput,
    host_indices: &Tensor,
    axis: usize,
    batch_dims: usize,
) -> Result<Option<Tensor>> {
    let out_shape = gather_shape(&x.tensor, host_indices, axis, batch_dims)?;
    if batch_dims != 0 || indices.dtype != DType::I32 {
        return Ok(None);
    }
    let dims = x.shape.dims();
    let d = dims[axis];
    if host_indices.device() == crate::device::Device::Cpu {
        let values = index_values(host_indices, "GatherV2")?;
        if values.iter().any(|&i| i < 0 || i as u64 >= d as u64) {
            return Ok(None); // the CPU kernel names the bad index
        }
    }
    let inner: usize = dims[axis + 1..].iter().product();
    let params = [
        out_shape.num_elements() as u32,
        inner.max(1) as u32,
        indices.shape.num_elements().max(1) as u32,
        d as u32,
    ];
    let source = || fill(GATHER, &[]);
    launch_elementwise(
        "gather",
        source,
        &[x.clone(), indices.clone()],
        x.dtype,
        &out_shape,
        &params,
    )
    .map(Some)
}

pub fn cumulative(
    op: CumOp,
    x: &GpuInput,
    axis: usize,
    exclusive: bool,
    reverse: bool,
) -> Result<Option<Tensor>> {
    if axis >= x.shape.rank() || x.dtype == DType::Bool {
        return Ok(None);
    }
    let dims = x.shape.dims();
    let r = dims[axis];
    if r > MAX_SCAN {
        return Ok(None);
    }
    let outer: usize = dims[..axis].iter().product();
    let inner: usize = dims[axis + 1..].iter().product();
    let t = wgsl_type(x.dtype);
    let (init, combine) = match (op, x.dtype) {
        (CumOp::Sum, DType::F32) => ("0.0", "acc + v"),
        (CumOp::Prod, DType::F32) => ("1.0", "acc * v"),
        (CumOp::Sum, DType::I32) => ("0", "acc + v"),
        (CumOp::Prod, DType::I32) => ("1", "acc * v"),
        (CumOp::Sum, _) => ("0u", "acc + v"),
        (CumOp::Prod, _) => ("1u", "acc * v"),
    };
    let key = format!("scan:{op:?}:{t}:{exclusive}:{reverse}");
    let source = || {
        fill(SCAN, &[])
            .replace("array<T>", &format!("array<{t}>"))
            .replace(": T", &format!(": {t}"))
            .replace("INIT", init)
            .replace("COMBINE", combine)
            .replace("EXCLUSIVE", &exclusive.to_string())
            .replace("REVERSE", &reverse.to_string())
    };
    let columns = outer * inner;
    let params = [columns as u32, r as u32, inner.max(1) as u32];
    // One invocation per column, but the output has every element: launch over columns.
    let out = crate::gpu::storage::GpuStorage::alloc(x.device(), x.dtype, x.shape.num_elements())?;
    super::launch(&key, source, &[x], &out, &params, columns.div_ceil(256) as u64)?;
    Ok(Some(Tensor::from_gpu(out, x.shape.clone())))
}
