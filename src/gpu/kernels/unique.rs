//! tf.unique on the GPU, from a stable sort: runs of equal sorted values are the unique values;
//! ordering the runs by first occurrence gives TensorFlow's output order
//! (`shaders/unique.wgsl` holds the steps between the sorts and scans). The number of unique
//! values sizes the output, so it is read back (a sync), as in TensorFlow.

use super::{indexing, reduce, sort, GpuInput};
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::{fill, wgsl_type};
use crate::gpu::storage::GpuStorage;
use crate::ops::reduce::{CumOp, ReduceOp};
use crate::shape::Shape;
use crate::tensor::Tensor;

const TEMPLATE: &str = include_str!("../../../shaders/unique.wgsl");

pub fn supports(dtype: DType) -> bool {
    sort::supports(dtype)
}

/// (values, int32 or int64 indices), or `None` for what the CPU handles (and reports).
pub fn unique(x: &GpuInput, index_i64: bool) -> Result<Option<Vec<Tensor>>> {
    let n = x.shape.num_elements();
    if x.shape.rank() != 1 || !supports(x.dtype) || n == 0 || n > i32::MAX as usize {
        return Ok(None);
    }
    let Some(sorted) = sort::sort(x, false, None)? else { return Ok(None) };
    let (values, positions) =
        (GpuInput::from(sorted[0].clone()), GpuInput::from(sorted[1].clone()));
    let t = wgsl_type(x.dtype);
    let is_nan = if x.dtype == DType::F32 { "is_nan" } else { "never_nan" };
    let key = format!("unique:{t}");
    let source = || {
        fill(TEMPLATE, &[])
            .replace(": T", &format!(": {t}"))
            .replace("array<T", &format!("array<{t}"))
            .replace("IS_NAN", is_nan)
    };
    let device = x.device();
    let ctx = crate::gpu::adapters::context(device)?;
    let kernel = ctx.pipelines.get(&ctx.device, &key, 4, 1, source)?;
    let step =
        |count: usize, step: u32, aux: &wgpu::Buffer, rank: &wgpu::Buffer, out: &GpuStorage| {
            let buffers = [values.raw(), positions.raw(), aux, rank, out.raw()];
            ctx.launch(&kernel, &buffers, &[count as u32, step], count.div_ceil(256) as u64)
        };
    // Run starts, and run ids (from 1) by inclusive scan.
    let starts = GpuStorage::alloc(device, DType::U32, n)?;
    step(n, 0, positions.raw(), positions.raw(), &starts)?;
    let starts = GpuInput::from(Tensor::from_gpu(starts, Shape(vec![n])));
    let Some(groups) = indexing::cumulative(CumOp::Sum, &starts, 0, false, false)? else {
        return Ok(None);
    };
    let Some(count) = reduce::reduce(ReduceOp::Sum, &starts, &[0], false)? else {
        return Ok(None);
    };
    let count = count.to_vec::<u32>()?.first().copied().unwrap_or(0) as usize;
    let groups = GpuInput::from(groups);
    // Each run's first position, then the runs in first-occurrence order.
    let first = GpuStorage::alloc(device, DType::I32, count)?;
    step(n, 1, groups.raw(), groups.raw(), &first)?;
    let first = GpuInput::from(Tensor::from_gpu(first, Shape(vec![count])));
    let Some(by_first) = sort::sort(&first, false, None)? else { return Ok(None) };
    let (first_sorted, run_order) = (&by_first[0], GpuInput::from(by_first[1].clone()));
    let ranks = GpuStorage::alloc(device, DType::U32, count)?;
    step(count, 2, run_order.raw(), run_order.raw(), &ranks)?;
    let idx = GpuStorage::alloc(device, DType::I32, n)?;
    step(n, 3, groups.raw(), ranks.raw(), &idx)?;
    // The unique values: x at each run's first position.
    let at = GpuInput::from(first_sorted.clone());
    let Some(unique) = indexing::gather(x, &at, first_sorted, 0, 0)? else { return Ok(None) };
    let mut idx = Tensor::from_gpu(idx, x.shape.clone());
    if index_i64 {
        let Some(wide) = super::elementwise::run(
            "Cast",
            "i64(a)",
            &[GpuInput::from(idx)],
            DType::I64,
            &x.shape,
        )?
        else {
            return Ok(None);
        };
        idx = wide;
    }
    Ok(Some(vec![unique, idx]))
}
