//! Batched matmul on the GPU (`shaders/matmul.wgsl`), generated per dtype, transpose pair and
//! tiling; `matmul_tuning` chooses the tiling.

use super::matmul_source::{source, Layout, Tiling, DEFAULT};
use super::{matmul_tuning, GpuInput};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::gpu::kernels::source::wgsl_type;
use crate::gpu::storage::GpuStorage;
use crate::ops::matmul::{geometry, MatMulAttrs};
use crate::shape::Shape;
use crate::tensor::Tensor;

pub fn supports(dtype: DType) -> bool {
    matches!(dtype, DType::F32 | DType::F16 | DType::I32 | DType::U32)
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
    // The kernel indexes in u32 and steps k0 by up to BK (16) without loop bounding: every
    // index and the last k0 must fit, or the product stays on the CPU. (Vulkan and DX12 bind at
    // most 2^31 bytes, so only large Metal bindings reach this.)
    let fits_u32 = |x: usize| u32::try_from(x).is_ok();
    let largest = [nb * m * n, nb * m * ka, nb * ka * n, ka + 16];
    if nb > 65535 || !largest.iter().all(|&x| fits_u32(x)) {
        return Ok(None);
    }
    let out = GpuStorage::alloc(a.device(), a.dtype, out_shape.num_elements())?;
    if out_shape.num_elements() == 0 {
        return Ok(Some(Tensor::from_gpu(out, out_shape)));
    }
    let t = wgsl_type(a.dtype);
    // Vector loads run along each input's contiguous axis: k for A and n for B, or m and k
    // when transposed. Every vec4 then lies inside one row, and batch strides stay aligned.
    let layout = Layout {
        transpose_a: ta,
        transpose_b: tb,
        vector_a: if ta { m % 4 == 0 } else { ka % 4 == 0 },
        vector_b: if tb { ka % 4 == 0 } else { n % 4 == 0 },
    };
    let ctx = out.buffer.context();
    let kernel = |tiling: Tiling| {
        let key = format!(
            "matmul:{t}:{ta}:{tb}:{}:{}:{}",
            layout.vector_a,
            layout.vector_b,
            tiling.name()
        );
        // SAFETY: the generated kernel reads A and B only at indices its bounds checks keep
        // inside the M x K and K x N matrices of its batch item (whose strides `params` gives
        // from the operands' own shapes), writes C only inside M x N, and indexes workgroup
        // memory and vectors with constants or values reduced modulo their lengths.
        unsafe {
            ctx.pipelines.get_in_bounds(&ctx.device, &key, 2, 1, || source(tiling, layout, t))
        }
    };
    let grid = |tiling: Tiling, batch: usize| {
        [n.div_ceil(tiling.bn as usize) as u32, m.div_ceil(tiling.bm as usize) as u32, batch as u32]
    };
    let buffers = [a.raw(), b.raw(), out.raw()];
    // Timing a candidate runs it on the real operands with the depth cut to at most 2048 and
    // one batch item: the kernel then reads rows at the cut depth's stride, a prefix of each
    // operand, so every read stays inside them. The real product overwrites the output.
    // `None`: the candidate cannot run here (too many workgroups, or it did not compile).
    let time = |tiling: Tiling| -> Result<Option<f64>> {
        if grid(tiling, 1)[..2].iter().any(|&g| g > 65535) {
            return Ok(None);
        }
        let kernel = match kernel(tiling) {
            Ok(kernel) => kernel,
            Err(Error::Internal(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        let depth = ka.min(2048);
        let params = [m as u32, n as u32, depth as u32, 0, 0];
        let flops = 2.0 * (m * n * depth) as f64;
        let reps = (4e9 / flops).clamp(1.0, 64.0) as usize;
        ctx.dispatch(&kernel, &buffers, &params, grid(tiling, 1))?;
        ctx.wait()?;
        let start = std::time::Instant::now();
        for _ in 0..reps {
            ctx.dispatch(&kernel, &buffers, &params, grid(tiling, 1))?;
        }
        ctx.wait()?;
        Ok(Some(start.elapsed().as_secs_f64() / reps as f64))
    };
    let bucket = |x: usize| usize::BITS - x.max(1).saturating_sub(1).leading_zeros();
    let class = format!(
        "matmul:{t}:{ta}:{tb}:{}:{}:b{}:m{}:n{}:k{}",
        layout.vector_a,
        layout.vector_b,
        bucket(nb),
        bucket(m),
        bucket(n),
        bucket(ka.min(4096))
    );
    let work = (nb * m * n * ka) as u64;
    let tiling = matmul_tuning::choose(ctx, &class, work, 4, time)?;
    let params = [m as u32, n as u32, ka as u32, sa as u32, sb as u32];
    // A tiling chosen for this size class may need too many workgroups at the class's largest
    // sizes; the default's 64-wide tiles then may not.
    let too_many = |grid: [u32; 3]| grid[0] > 65535 || grid[1] > 65535;
    let tiling = if too_many(grid(tiling, nb)) { DEFAULT } else { tiling };
    let grid = grid(tiling, nb);
    if too_many(grid) {
        return Ok(None);
    }
    let kernel = kernel(tiling)?;
    ctx.dispatch(&kernel, &buffers, &params, grid)?;
    Ok(Some(Tensor::from_gpu(out, out_shape)))
}
