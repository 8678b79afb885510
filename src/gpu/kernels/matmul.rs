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
    // Vector loads run along each input's contiguous axis: k for A and n for B, or m and k
    // when transposed. Every vec4 then lies inside one row, and batch strides stay aligned.
    let a_vec = if ta { m % 4 == 0 } else { ka % 4 == 0 };
    let b_vec = if tb { ka % 4 == 0 } else { n % 4 == 0 };
    let (load_a, load_b) = (stage_a(ta, a_vec), stage_b(tb, b_vec));
    let vec_t = format!("vec4<{t}>");
    let key = format!("matmul:{t}:{ta}:{tb}:{a_vec}:{b_vec}");
    let source = || {
        fill(
            TEMPLATE,
            &[
                ("LOAD_A", load_a.clone()),
                ("LOAD_B", load_b.clone()),
                ("A_T", if a_vec { vec_t.clone() } else { t.to_string() }),
                ("B_T", if b_vec { vec_t.clone() } else { t.to_string() }),
            ],
        )
        .replace("array<T", &format!("array<{t}"))
        .replace("vec4<T>", &vec_t)
        .replace(": T", &format!(": {t}"))
    };
    let params = [m as u32, n as u32, ka as u32, sa as u32, sb as u32];
    let grid = [n.div_ceil(64) as u32, m.div_ceil(64) as u32, nb as u32];
    if grid[0] > 65535 || grid[1] > 65535 {
        return Ok(None);
    }
    launch_grid(&key, source, &[a, b], &out, &params, grid)?;
    Ok(Some(Tensor::from_gpu(out, out_shape)))
}

/// WGSL staging the 64x16 slice of A (rows m, depth k) into `As[k * TM + m]`. `e` walks memory
/// order so that neighbouring invocations read neighbouring addresses.
fn stage_a(transposed: bool, vectorised: bool) -> String {
    let (split, address) = match (transposed, vectorised) {
        (false, false) => ("let am = e / TK;\n let ak = e % TK;", "m * K + k"),
        (true, false) => ("let am = e % TM;\n let ak = e / TM;", "k * M + m"),
        (false, true) => ("let am = e / 4u;\n let ak = (e % 4u) * 4u;", "m * K + k"),
        (true, true) => ("let am = (e % 16u) * 4u;\n let ak = e / 16u;", "k * M + m"),
    };
    let store = match (transposed, vectorised) {
        (_, false) => "As[ak * TM + am] = v;",
        (false, true) => "for (var c = 0u; c < 4u; c++) { As[(ak + c) * TM + am] = v[c]; }",
        (true, true) => "for (var c = 0u; c < 4u; c++) { As[ak * TM + am + c] = v[c]; }",
    };
    stage("a", "a0", split, "row0 + am", "k0 + ak", "M", address, store, vectorised)
}

/// WGSL staging the 16x64 slice of B (depth k, columns n) into `Bs[k * TN + n]`.
fn stage_b(transposed: bool, vectorised: bool) -> String {
    let (split, address) = match (transposed, vectorised) {
        (false, false) => ("let bk = e / TN;\n let bn = e % TN;", "k * N + m"),
        (true, false) => ("let bk = e % TK;\n let bn = e / TK;", "m * K + k"),
        (false, true) => ("let bk = e / 16u;\n let bn = (e % 16u) * 4u;", "k * N + m"),
        (true, true) => ("let bk = (e % 4u) * 4u;\n let bn = e / 4u;", "m * K + k"),
    };
    let store = match (transposed, vectorised) {
        (_, false) => "Bs[bk * TN + bn] = v;",
        (false, true) => "for (var c = 0u; c < 4u; c++) { Bs[bk * TN + bn + c] = v[c]; }",
        (true, true) => "for (var c = 0u; c < 4u; c++) { Bs[(bk + c) * TN + bn] = v[c]; }",
    };
    // For B, `m` names the column (n) so that one bounds check serves both inputs.
    stage("b", "b0", split, "col0 + bn", "k0 + bk", "N", address, store, vectorised)
}

/// One staging loop: 1024 elements as four scalar loads or one vec4 load per invocation;
/// elements outside the matrix stage as zero.
#[allow(clippy::too_many_arguments)]
fn stage(
    input: &str,
    base: &str,
    split: &str,
    outer: &str,
    depth: &str,
    outer_len: &str,
    address: &str,
    store: &str,
    vectorised: bool,
) -> String {
    let (rounds, ty, index) = match vectorised {
        true => (1, "vec4<T>", format!("({base} + {address}) / 4u")),
        false => (4, "T", format!("{base} + {address}")),
    };
    format!(
        "        for (var l = 0u; l < {rounds}u; l++) {{
            let e = tid + l * 256u;
            {split}
            let m = {outer};
            let k = {depth};
            var v: {ty};
            if (m < {outer_len} && k < K) {{
                v = {input}[{index}];
            }}
            {store}
        }}"
    )
}
