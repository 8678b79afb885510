//! Sort and top_k along the last axis. Rows of up to 1024 elements sort in workgroup memory
//! (`shaders/sort_rows.wgsl`, one dispatch); longer ones run the same bitonic network in
//! storage memory, one dispatch per stage (`shaders/sort_long.wgsl`). Both share the total
//! order of `shaders/sort_order.wgsl`.

use super::GpuInput;
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::{fill, wgsl_type};
use crate::gpu::storage::GpuStorage;
use crate::shape::Shape;
use crate::tensor::Tensor;

const ROWS: &str = include_str!("../../../shaders/sort_rows.wgsl");
const LONG: &str = include_str!("../../../shaders/sort_long.wgsl");
const ORDER: &str = include_str!("../../../shaders/sort_order.wgsl");
/// The longest row one workgroup sorts in its memory.
const WORKGROUP_ROW: usize = 1024;

pub fn supports(dtype: DType) -> bool {
    matches!(dtype, DType::F32 | DType::I32 | DType::U32 | DType::I64 | DType::U64)
}

/// `template` + the shared order, for element type `dtype` and direction.
fn source(template: &str, dtype: DType, descending: bool) -> String {
    let t = wgsl_type(dtype);
    let is_nan = if dtype == DType::F32 { "is_nan" } else { "never_nan" };
    let mut s = fill(&format!("{template}{ORDER}"), &[])
        .replace("array<T", &format!("array<{t}"))
        .replace(": T", &format!(": {t}"))
        .replace("IS_NAN", is_nan)
        .replace("DESCENDING", &descending.to_string());
    s.push_str(&format!("\nfn never_nan(v: {t}) -> bool {{\n    return false;\n}}\n"));
    s
}

pub fn sort(x: &GpuInput, descending: bool, k: Option<usize>) -> Result<Option<Vec<Tensor>>> {
    let rank = x.shape.rank();
    if rank == 0 || !supports(x.dtype) {
        return Ok(None);
    }
    let row = x.shape.dims()[rank - 1];
    let k = k.unwrap_or(row);
    if k > row {
        return Ok(None);
    }
    let rows = x.shape.num_elements().checked_div(row).unwrap_or(0);
    let mut dims = x.shape.dims().to_vec();
    dims[rank - 1] = k;
    let device = x.device();
    let values = GpuStorage::alloc(device, x.dtype, rows * k)?;
    let positions = GpuStorage::alloc(device, DType::I32, rows * k)?;
    if rows > 0 && k > 0 {
        let padded = row.next_power_of_two().max(2);
        let t = wgsl_type(x.dtype);
        let ctx = values.buffer.context();
        if row <= WORKGROUP_ROW {
            let key = format!("sort:{t}:{descending}");
            let source = || source(ROWS, x.dtype, descending);
            let kernel = ctx.pipelines.get(&ctx.device, &key, 1, 2, source)?;
            let params = [rows as u32, row as u32, k as u32, padded as u32];
            let buffers = [x.raw(), values.raw(), positions.raw()];
            ctx.launch(&kernel, &buffers, &params, rows as u64)?;
        } else {
            let key = format!("sort_long:{t}:{descending}");
            let source = || source(LONG, x.dtype, descending);
            let kernel = ctx.pipelines.get(&ctx.device, &key, 1, 4, source)?;
            crate::shape::check_alloc(rows * padded, x.dtype)?;
            let keys = GpuStorage::alloc(device, x.dtype, rows * padded)?;
            let slots = GpuStorage::alloc(device, DType::U32, rows * padded)?;
            let buffers = [x.raw(), keys.raw(), slots.raw(), values.raw(), positions.raw()];
            let step = |invocations: usize, mode: u32, size: usize, stride: usize| {
                let params = [
                    invocations as u32,
                    row as u32,
                    k as u32,
                    padded as u32,
                    mode,
                    size as u32,
                    stride as u32,
                ];
                ctx.launch(&kernel, &buffers, &params, invocations.div_ceil(256) as u64)
            };
            step(rows * padded, 0, 0, 0)?;
            let mut size = 2;
            while size <= padded {
                let mut stride = size / 2;
                while stride > 0 {
                    step(rows * padded / 2, 1, size, stride)?;
                    stride /= 2;
                }
                size *= 2;
            }
            step(rows * k, 2, 0, 0)?;
        }
    }
    Ok(Some(vec![
        Tensor::from_gpu(values, Shape(dims.clone())),
        Tensor::from_gpu(positions, Shape(dims)),
    ]))
}
