//! Gather and cumulative sums/products on the GPU (`shaders/gather.wgsl`, `shaders/scan.wgsl`).

use super::{launch_elementwise, GpuInput};
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::{fill, raw_type, wgsl_type};
use crate::gpu::storage::GpuStorage;
use crate::ops::index::{gather_shape, index_values};
use crate::ops::reduce::CumOp;
use crate::shape::Shape;
use crate::tensor::Tensor;

const GATHER: &str = include_str!("../../../shaders/gather.wgsl");
const SCAN: &str = include_str!("../../../shaders/scan.wgsl");
const SCAN_CARRY: &str = include_str!("../../../shaders/scan_carry.wgsl");

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
    if batch_dims != 0 || !matches!(indices.dtype, DType::I32 | DType::I64) {
        return Ok(None);
    }
    let dims = x.shape.dims();
    let d = dims[axis];
    if host_indices.device().is_cpu() {
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
    let (raw, index) = (raw_type(x.dtype), wgsl_type(indices.dtype));
    let source = || fill(GATHER, &[("E", raw.to_string()), ("I", index.to_string())]);
    launch_elementwise(
        &format!("gather:{raw}:{index}"),
        source,
        &[x.clone(), indices.clone()],
        x.dtype,
        &out_shape,
        &params,
    )
    .map(Some)
}

/// Axes up to this long are scanned in one chunk per column.
const ONE_CHUNK: usize = 1024;
/// Chunk length of longer scans: chunks run in parallel, then their totals are scanned.
const CHUNK: usize = 256;

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
    let outer: usize = dims[..axis].iter().product();
    let inner: usize = dims[axis + 1..].iter().product::<usize>().max(1);
    let chunk = if r <= ONE_CHUNK { r.max(1) } else { CHUNK };
    let chunks = r.div_ceil(chunk).max(1);
    let t = wgsl_type(x.dtype);
    let (init, combine) = match (op, x.dtype) {
        (CumOp::Sum, DType::F32) => ("0.0", "acc + v"),
        (CumOp::Prod, DType::F32) => ("1.0", "acc * v"),
        (CumOp::Sum, DType::I32) => ("0", "acc + v"),
        (CumOp::Prod, DType::I32) => ("1", "acc * v"),
        (CumOp::Sum, DType::I64) => ("0li", "acc + v"),
        (CumOp::Prod, DType::I64) => ("1li", "acc * v"),
        (CumOp::Sum, DType::U64) => ("0lu", "acc + v"),
        (CumOp::Prod, DType::U64) => ("1lu", "acc * v"),
        (CumOp::Sum, _) => ("0u", "acc + v"),
        (CumOp::Prod, _) => ("1u", "acc * v"),
    };
    let generate = |template: &str| {
        fill(template, &[])
            .replace("array<T>", &format!("array<{t}>"))
            .replace(": T", &format!(": {t}"))
            .replace("INIT", init)
            .replace("COMBINE", combine)
            .replace("EXCLUSIVE", &exclusive.to_string())
            .replace("REVERSE", &reverse.to_string())
    };
    let device = x.device();
    let n = x.shape.num_elements();
    let partial = GpuStorage::alloc(device, x.dtype, n)?;
    if n == 0 {
        return Ok(Some(Tensor::from_gpu(partial, x.shape.clone())));
    }
    let totals = GpuStorage::alloc(device, x.dtype, outer * chunks * inner)?;
    let columns = outer * inner;
    let params = [(columns * chunks) as u32, r as u32, inner as u32, chunk as u32, chunks as u32];
    let key = format!("scan:{op:?}:{t}:{exclusive}:{reverse}");
    let ctx = partial.buffer.context();
    let kernel = ctx.pipelines.get(&ctx.device, &key, 1, 2, || generate(SCAN))?;
    let workgroups = (columns * chunks).div_ceil(256) as u64;
    ctx.launch(&kernel, &[x.raw(), partial.raw(), totals.raw()], &params, workgroups)?;
    let partial = GpuInput::from(Tensor::from_gpu(partial, x.shape.clone()));
    if chunks == 1 {
        return Ok(Some(partial.tensor));
    }
    // Chunks are numbered in scan order, so their carries are a forward exclusive scan.
    let totals = GpuInput::from(Tensor::from_gpu(totals, Shape(vec![outer, chunks, inner])));
    let Some(carry) = cumulative(op, &totals, 1, true, false)? else { return Ok(None) };
    let params = [n as u32, r as u32, inner as u32, chunk as u32, chunks as u32];
    let key = format!("scan_carry:{op:?}:{t}:{reverse}");
    let operands = [partial, GpuInput::from(carry)];
    launch_elementwise(&key, || generate(SCAN_CARRY), &operands, x.dtype, &x.shape, &params)
        .map(Some)
}
