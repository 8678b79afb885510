//! Sort and top_k along the last axis for rows of up to 1024 elements
//! (`shaders/sort_rows.wgsl`); longer rows use the CPU kernel.

use super::GpuInput;
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::{fill, wgsl_type};
use crate::gpu::storage::GpuStorage;
use crate::shape::Shape;
use crate::tensor::Tensor;

const TEMPLATE: &str = include_str!("../../../shaders/sort_rows.wgsl");
pub const MAX_ROW: usize = 1024;

pub fn supports(dtype: DType, row: usize) -> bool {
    matches!(dtype, DType::F32 | DType::I32 | DType::U32) && row <= MAX_ROW
}

pub fn sort(x: &GpuInput, descending: bool, k: Option<usize>) -> Result<Option<Vec<Tensor>>> {
    let rank = x.shape.rank();
    if rank == 0 {
        return Ok(None);
    }
    let row = x.shape.dims()[rank - 1];
    let k = k.unwrap_or(row);
    if k > row || !supports(x.dtype, row) {
        return Ok(None);
    }
    let rows = x.shape.num_elements().checked_div(row).unwrap_or(0);
    let mut dims = x.shape.dims().to_vec();
    dims[rank - 1] = k;
    let device = x.device();
    let values = GpuStorage::alloc(device, x.dtype, rows * k)?;
    let positions = GpuStorage::alloc(device, DType::I32, rows * k)?;
    if rows > 0 && k > 0 {
        let t = wgsl_type(x.dtype);
        let is_nan = if x.dtype == DType::F32 { "is_nan" } else { "never_nan" };
        let key = format!("sort:{t}:{descending}");
        let source = || {
            let mut s = fill(TEMPLATE, &[])
                .replace("array<T", &format!("array<{t}"))
                .replace(": T", &format!(": {t}"))
                .replace("IS_NAN", is_nan)
                .replace("DESCENDING", &descending.to_string());
            s.push_str(&format!("\nfn never_nan(v: {t}) -> bool {{\n    return false;\n}}\n"));
            s
        };
        let ctx = values.buffer.context();
        let kernel = ctx.pipelines.get(&ctx.device, &key, 1, 2, source)?;
        let padded = row.next_power_of_two().max(2);
        let params = [rows as u32, row as u32, k as u32, padded as u32];
        ctx.launch(&kernel, &[x.raw(), values.raw(), positions.raw()], &params, rows as u64)?;
    }
    Ok(Some(vec![
        Tensor::from_gpu(values, Shape(dims.clone())),
        Tensor::from_gpu(positions, Shape(dims)),
    ]))
}
