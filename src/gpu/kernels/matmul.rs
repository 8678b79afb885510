//! Batched matmul on the GPU (`shaders/matmul.wgsl`), generated per dtype and transpose pair.

use super::{launch_grid, GpuInput};
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::{fill, wgsl_type};
use crate::gpu::storage::GpuStorage;
use crate::ops::matmul::MatMulAttrs;
use crate::shape::{broadcast_shapes, Shape};
use crate::tensor::Tensor;

const TEMPLATE: &str = include_str!("../../../shaders/matmul.wgsl");

pub fn supports(dtype: DType) -> bool {
    matches!(dtype, DType::F32 | DType::I32 | DType::U32)
}

pub fn matmul(a: &GpuInput, b: &GpuInput, attrs: MatMulAttrs) -> Result<Option<Tensor>> {
    if a.dtype != b.dtype || !supports(a.dtype) || a.shape.rank() < 2 || b.shape.rank() < 2 {
        return Ok(None);
    }
    let ta = attrs.transpose_a || attrs.adjoint_a;
    let tb = attrs.transpose_b || attrs.adjoint_b;
    let (ad, bd) = (a.shape.dims(), b.shape.dims());
    let (ra, rb) = (ad.len(), bd.len());
    let (m, ka) = if ta { (ad[ra - 1], ad[ra - 2]) } else { (ad[ra - 2], ad[ra - 1]) };
    let (kb, n) = if tb { (bd[rb - 1], bd[rb - 2]) } else { (bd[rb - 2], bd[rb - 1]) };
    if ka != kb {
        return Ok(None);
    }
    let batch_a = Shape(ad[..ra - 2].to_vec());
    let batch_b = Shape(bd[..rb - 2].to_vec());
    let Ok(batch) = broadcast_shapes(&batch_a, &batch_b) else { return Ok(None) };
    let nb = batch.num_elements();
    // Each input either has the full batch or a single matrix; other broadcasts go to the CPU.
    let stride = |own: &Shape, size: usize| match own.num_elements() {
        x if x == nb => Some(size),
        1 => Some(0),
        _ => None,
    };
    let (Some(sa), Some(sb)) = (stride(&batch_a, m * ka), stride(&batch_b, ka * n)) else {
        return Ok(None);
    };
    let mut out_dims = batch.0.clone();
    out_dims.extend([m, n]);
    let out_shape = Shape(out_dims);
    crate::shape::check_alloc(out_shape.num_elements(), a.dtype)?;
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
