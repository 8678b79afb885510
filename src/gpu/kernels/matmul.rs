//! Batched matmul on the GPU (`shaders/matmul.wgsl`), generated per dtype and transpose pair.

use super::{launch_grid, GpuInput};
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::{fill, wgsl_type};
use crate::gpu::storage::GpuStorage;
use crate::ops::matmul::{geometry, MatMulAttrs};
use crate::shape::Shape;
use crate::tensor::Tensor;

const TEMPLATE: &str = include_str!("../../../shaders/matmul.wgsl");

pub fn supports(dtype: DType) -> bool {
    matches!(dtype, DType::F32 | DType::I32 | DType::U32)
}

pub fn matmul(a: &GpuInput, b: &GpuInput, attrs: MatMulAttrs) -> Result<Option<Tensor>> {
    let g = geometry(&a.tensor, &b.tensor, attrs)?;
    if !supports(a.dtype) {
        return Ok(None);
    }
    let (m, n, ka, ta, tb) = (g.m, g.n, g.k, g.transpose_a, g.transpose_b);
    let nb = g.batch.num_elements();
    // Each input either has the full batch or a single matrix; other broadcasts go to the CPU.
    let stride = |own: &Shape, size: usize| match own.num_elements() {
        x if x == nb => Some(size),
        1 => Some(0),
        _ => None,
    };
    let (Some(sa), Some(sb)) = (stride(&g.batch_a, m * ka), stride(&g.batch_b, ka * n)) else {
        return Ok(None);
    };
    let out_shape = g.out_shape;
    if nb > 65535 {
        return Ok(None);
    }
    let out = GpuStorage::alloc(a.device(), a.dtype, out_shape.num_elements())?;
    if out_shape.num_elements() == 0 {
        return Ok(Some(Tensor::from_gpu(out, out_shape)));
    }
    let t = wgsl_type(a.dtype);
    // Memory-order index splits of the 16x64 tiles, and the addresses of A(m, k), B(k, n).
    let (a_m, a_k, load_a) =
        if ta { ("e % TM", "e / TM", "k * M + m") } else { ("e / TK", "e % TK", "m * K + k") };
    let (b_k, b_n, load_b) =
        if tb { ("e % TK", "e / TK", "n * K + kb") } else { ("e / TN", "e % TN", "kb * N + n") };
    let key = format!("matmul:{t}:{ta}:{tb}");
    let source = || {
        fill(TEMPLATE, &[])
            .replace("array<T", &format!("array<{t}"))
            .replace(": T", &format!(": {t}"))
            .replace("A_M", a_m)
            .replace("A_K", a_k)
            .replace("B_K", b_k)
            .replace("B_N", b_n)
            .replace("LOAD_A", load_a)
            .replace("LOAD_B", load_b)
    };
    let params = [m as u32, n as u32, ka as u32, sa as u32, sb as u32];
    let grid = [n.div_ceil(64) as u32, m.div_ceil(64) as u32, nb as u32];
    if grid[0] > 65535 || grid[1] > 65535 {
        return Ok(None);
    }
    launch_grid(&key, source, &[a, b], &out, &params, grid)?;
    Ok(Some(Tensor::from_gpu(out, out_shape)))
}
