//! Reductions (sum, prod, max, min, all, any over any axes) and argmax/argmin on the GPU,
//! generated per op and dtype from `shaders/reduce_rows.wgsl` and `shaders/reduce_strided.wgsl`.

use super::{launch, layout, GpuInput};
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::{fill, wgsl_type};
use crate::gpu::storage::GpuStorage;
use crate::ops::reduce::{output_shape, plan, ArgOp, ReduceOp};
use crate::shape::Shape;
use crate::tensor::Tensor;

const ROWS: &str = include_str!("../../../shaders/reduce_rows.wgsl");
const STRIDED: &str = include_str!("../../../shaders/reduce_strided.wgsl");
const SOFTMAX: &str = include_str!("../../../shaders/softmax.wgsl");
/// Longest run one invocation reduces sequentially.
const CHUNK: usize = 4096;

/// (identity, combine expression over `a`, `b`) with the CPU kernels' NaN and overflow rules.
fn reducer(op: ReduceOp, dtype: DType) -> Option<(&'static str, &'static str)> {
    use ReduceOp::*;
    Some(match (op, dtype) {
        (Sum, DType::F32) => ("0.0", "a + b"),
        (Sum, DType::I32) => ("0", "a + b"),
        (Sum, DType::U32) => ("0u", "a + b"),
        (Prod, DType::F32) => ("1.0", "a * b"),
        (Prod, DType::I32) => ("1", "a * b"),
        (Prod, DType::U32) => ("1u", "a * b"),
        (Max, DType::F32) => ("bitcast<f32>(0xff800000u)", "select(b, a, is_nan(a) || a > b)"),
        (Min, DType::F32) => ("bitcast<f32>(0x7f800000u)", "select(b, a, is_nan(a) || a < b)"),
        (Max, DType::I32) => ("i32(-2147483647 - 1)", "max(a, b)"),
        (Min, DType::I32) => ("2147483647", "min(a, b)"),
        (Max, DType::U32) => ("0u", "max(a, b)"),
        (Min, DType::U32) => ("4294967295u", "min(a, b)"),
        (Sum, DType::I64) => ("0li", "a + b"),
        (Prod, DType::I64) => ("1li", "a * b"),
        (Max, DType::I64) => ("(-9223372036854775807li - 1li)", "max(a, b)"),
        (Min, DType::I64) => ("9223372036854775807li", "min(a, b)"),
        (Sum, DType::U64) => ("0lu", "a + b"),
        (Prod, DType::U64) => ("1lu", "a * b"),
        (Max, DType::U64) => ("0lu", "max(a, b)"),
        (Min, DType::U64) => ("18446744073709551615lu", "min(a, b)"),
        (All, DType::Bool) => ("1u", "a & b"),
        (Any, DType::Bool) => ("0u", "a | b"),
        _ => return None,
    })
}

pub fn supports(op: ReduceOp, dtype: DType) -> bool {
    reducer(op, dtype).is_some()
}

/// `x` as [outer, r, inner] (see `ops::reduce::plan`), transposed on the GPU when needed.
fn three_d(x: &GpuInput, axes: &[usize]) -> Result<Option<(GpuInput, usize, usize, usize)>> {
    let p = plan(x.shape.dims(), axes);
    let src = match &p.perm {
        None => x.clone(),
        Some(perm) => match layout::transpose(x, perm)? {
            Some(t) => GpuInput::from(t),
            None => return Ok(None),
        },
    };
    Ok(Some((src, p.outer, p.r, p.inner)))
}

pub fn reduce(
    op: ReduceOp,
    x: &GpuInput,
    axes: &[usize],
    keepdims: bool,
) -> Result<Option<Tensor>> {
    let Some((init, combine)) = reducer(op, x.dtype) else { return Ok(None) };
    if axes.iter().any(|&a| a >= x.shape.rank()) {
        return Ok(None);
    }
    let out_shape = output_shape(&x.shape, axes, keepdims);
    if axes.is_empty() {
        return Ok(Some(x.tensor.with_shape(out_shape)));
    }
    let Some((src, outer, r, inner)) = three_d(x, axes)? else { return Ok(None) };
    let t = wgsl_type(x.dtype);
    let outputs = outer * inner;
    let replace = |s: String| {
        s.replace("array<T", &format!("array<{t}"))
            .replace(": T", &format!(": {t}"))
            .replace("-> T", &format!("-> {t}"))
            .replace("OUT_T", t)
            .replace("INIT", init)
            .replace("COMBINE", combine)
    };
    if inner == 1 && r >= 256 {
        let chunks = r.div_ceil(CHUNK);
        let partials = outer * chunks;
        let stage = GpuStorage::alloc(x.device(), x.dtype, partials)?;
        let key = format!("reduce_rows:{op:?}:{t}");
        let source = || replace(fill(ROWS, &[]));
        let params = [partials as u32, r as u32, chunks as u32, CHUNK.min(r) as u32];
        launch(&key, source, &[&src], &stage, &params, partials as u64)?;
        if chunks == 1 {
            return Ok(Some(Tensor::from_gpu(stage, out_shape)));
        }
        let partial = GpuInput::from(Tensor::from_gpu(stage, Shape(vec![outer, chunks])));
        return Ok(reduce(op, &partial, &[1], false)?.map(|t| t.with_shape(out_shape)));
    }
    let body = format!(
        "    var acc: {t} = {init};\n    for (var j = 0u; j < len; j++) {{\n        acc = combine(acc, x[base + j * inner]);\n    }}\n    out[flat] = acc;"
    );
    let key = format!("reduce_strided:{op:?}:{t}");
    let source = || replace(fill(STRIDED, &[("BODY", body.clone())]));
    let chunks = r.div_ceil(CHUNK).max(1);
    let partials = outputs * chunks;
    let target = GpuStorage::alloc(x.device(), x.dtype, partials)?;
    let params = [partials as u32, r as u32, inner as u32, chunks as u32, CHUNK.min(r) as u32];
    launch(&key, source, &[&src], &target, &params, partials.div_ceil(256) as u64)?;
    if chunks == 1 {
        return Ok(Some(Tensor::from_gpu(target, out_shape)));
    }
    let partial = GpuInput::from(Tensor::from_gpu(target, Shape(vec![outer, chunks, inner])));
    Ok(reduce(op, &partial, &[1], false)?.map(|t| t.with_shape(out_shape)))
}

/// argmax/argmin with int32 or (where the GPU holds it) int64 output.
pub fn arg_reduce(op: ArgOp, x: &GpuInput, axis: usize, output: DType) -> Result<Option<Tensor>> {
    if !matches!(output, DType::I32 | DType::I64) || x.dtype == DType::Bool {
        return Ok(None);
    }
    if axis >= x.shape.rank() || x.shape.dims()[axis] == 0 {
        return Ok(None);
    }
    let Some((src, outer, r, inner)) = three_d(x, &[axis])? else { return Ok(None) };
    let t = wgsl_type(x.dtype);
    let out_t = wgsl_type(output);
    let cmp = if op == ArgOp::ArgMax { ">" } else { "<" };
    // As on the CPU: the first best element; a NaN is replaced by the first non-NaN after it.
    let nan_check = if x.dtype == DType::F32 { "(is_nan(best_v) && !is_nan(e))" } else { "false" };
    let body = format!(
        "    var best = 0u;\n    var best_v = x[base];\n    for (var j = 1u; j < len; j++) {{\n        let e = x[base + j * inner];\n        if (e {cmp} best_v || {nan_check}) {{\n            best = j;\n            best_v = e;\n        }}\n    }}\n    out[flat] = {out_t}(best);"
    );
    let outputs = outer * inner;
    let out = GpuStorage::alloc(x.device(), output, outputs)?;
    let key = format!("arg:{op:?}:{t}:{out_t}");
    let params = [outputs as u32, r as u32, inner as u32, 1, r as u32];
    let source = || {
        fill(STRIDED, &[("BODY", body.clone())])
            .replace("array<T", &format!("array<{t}"))
            .replace("OUT_T", out_t)
            .replace("fn combine(a: T, b: T) -> T {\n    return COMBINE;\n}", "")
    };
    launch(&key, source, &[&src], &out, &params, outputs.div_ceil(256) as u64)?;
    Ok(Some(Tensor::from_gpu(out, output_shape(&x.shape, &[axis], false))))
}

/// Fused softmax / log-softmax over the last axis of a float32 tensor.
pub fn softmax(x: &GpuInput, log: bool) -> Result<Option<Tensor>> {
    let rank = x.shape.rank();
    if x.dtype != DType::F32 || rank == 0 {
        return Ok(None);
    }
    let n = x.shape.dims()[rank - 1];
    let rows = x.shape.num_elements().checked_div(n).unwrap_or(0);
    let out = GpuStorage::alloc(x.device(), x.dtype, x.shape.num_elements())?;
    let key = format!("softmax:{log}");
    let source = || fill(SOFTMAX, &[]).replace("LOG", &log.to_string());
    launch(&key, source, &[x], &out, &[rows as u32, n as u32], rows as u64)?;
    Ok(Some(Tensor::from_gpu(out, x.shape.clone())))
}
