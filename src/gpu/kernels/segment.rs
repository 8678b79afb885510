//! Segment reductions on the GPU for 4-byte elements (float32, int32, uint32):
//! `shaders/segment.wgsl` combines unsorted rows atomically, `shaders/segment_sorted.wgsl`
//! reduces each sorted segment's run of rows in order. Host-resident ids go through the CPU's
//! checks first (a bad id raises there); device-resident unsorted ids follow TensorFlow's GPU
//! kernel (out-of-range ids are skipped). Sorted ids are read back for the output's size and
//! the runs, as TensorFlow's GPU kernel reads the last id.

use super::{launch, GpuInput};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::{fill, wgsl_type};
use crate::gpu::storage::GpuStorage;
use crate::ops::primitive::{Primitive, TensorType};
use crate::ops::segment::cpu as segment;
use crate::ops::segment::{Segment, SegmentKind};
use crate::shape::Shape;
use crate::tensor::Tensor;

const UNSORTED: &str = include_str!("../../../shaders/segment.wgsl");
const SORTED: &str = include_str!("../../../shaders/segment_sorted.wgsl");

/// float32, int32 and uint32 data; unsorted ids on the device must be int32 (the kernel's).
pub fn supports(op: Segment, inputs: &[&Tensor]) -> bool {
    let (Some(data), Some(ids)) = (inputs.first(), inputs.get(1)) else { return false };
    matches!(data.dtype(), DType::F32 | DType::I32 | DType::U32)
        && (op.sorted() || ids.device().is_cpu() || ids.dtype() == DType::I32)
}

/// The WGSL `combine(acc, v)` and `finish(acc, count)` of `kind` on `dtype`'s bits. Max and min
/// follow the CPU: a NaN row value is taken, a NaN accumulator gives way to the next number.
fn functions(kind: SegmentKind, dtype: DType) -> String {
    let t = wgsl_type(dtype);
    let float = dtype == DType::F32;
    let ordered = |keep: &str| {
        let nan_guard = if float { "!is_nan(x) && !is_nan(a) && " } else { "" };
        format!("if ({nan_guard}{keep}) {{ return acc; }} return v;")
    };
    let body = match kind {
        SegmentKind::Sum | SegmentKind::Mean => "return bitcast<u32>(a + x);".to_string(),
        SegmentKind::Prod => "return bitcast<u32>(a * x);".to_string(),
        SegmentKind::Max => ordered("x < a"),
        SegmentKind::Min => ordered("a < x"),
    };
    let finish = match kind {
        SegmentKind::Mean => format!("return bitcast<u32>(bitcast<{t}>(acc) / {t}(count));"),
        _ => "return acc;".to_string(),
    };
    format!(
        "fn combine(acc: u32, v: u32) -> u32 {{\n    let a = bitcast<{t}>(acc);\n    \
         let x = bitcast<{t}>(v);\n    {body}\n}}\n\n\
         fn finish(acc: u32, count: u32) -> u32 {{\n    {finish}\n}}\n"
    )
}

/// The identity's bits: where an unsorted reduction starts (TensorFlow's finite extremes for
/// max and min).
fn identity(kind: SegmentKind, dtype: DType) -> u32 {
    match (kind, dtype) {
        (SegmentKind::Prod, DType::F32) => 1.0f32.to_bits(),
        (SegmentKind::Prod, _) => 1,
        (SegmentKind::Max, DType::F32) => f32::MIN.to_bits(),
        (SegmentKind::Max, DType::I32) => i32::MIN as u32,
        (SegmentKind::Min, DType::F32) => f32::MAX.to_bits(),
        (SegmentKind::Min, DType::I32) => i32::MAX as u32,
        (SegmentKind::Min, _) => u32::MAX,
        _ => 0,
    }
}

fn to_gpu(t: &Tensor, device: usize) -> Result<Option<GpuInput>> {
    Ok(t.to_device(Device::Gpu(device))?.map(GpuInput::from))
}

/// `op` on visible GPU `device`; `None` where the CPU must run it (and raise).
pub fn run(op: Segment, inputs: &[&Tensor], device: usize) -> Result<Option<Vec<Tensor>>> {
    let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
    if !supports(op, inputs) || op.infer(&types).is_err() {
        return Ok(None);
    }
    let out = match op.sorted() {
        true => sorted(op, inputs[0], inputs[1], device)?,
        false => unsorted(op, inputs[0], inputs[1], inputs[2], device)?,
    };
    Ok(out.map(|t| vec![t]))
}

fn unsorted(
    op: Segment,
    data: &Tensor,
    ids: &Tensor,
    num: &Tensor,
    device: usize,
) -> Result<Option<Tensor>> {
    num.host()?;
    let Ok(n) = segment::num_segments(num, op.tf_name()) else { return Ok(None) };
    let Ok((inner, shape)) = segment::layout(data, ids.rank(), n) else { return Ok(None) };
    let total = shape.num_elements().max(data.num_elements());
    if n > i32::MAX as usize || total > u32::MAX as usize {
        return Ok(None);
    }
    let ids = match ids.device() {
        Device::Cpu | Device::SplitCpu(_) => {
            let values = segment::ids_as_i64(ids)?;
            if data.num_elements() > 0
                && segment::unsorted_check(&values, ids.shape(), n, op.tf_name()).is_err()
            {
                return Ok(None);
            }
            let narrow: Vec<i32> = values.iter().map(|&i| i.max(-1) as i32).collect();
            Tensor::from_vec(narrow, ids.shape().clone())
        }
        _ => ids.clone(),
    };
    let (Some(ids), Some(x)) = (to_gpu(&ids, device)?, to_gpu(data, device)?) else {
        return Ok(None);
    };
    let kind = op.kind();
    let out = GpuStorage::alloc(device, data.dtype(), shape.num_elements())?;
    let source = || fill(UNSORTED, &[("COMBINE", functions(kind, x.dtype))]);
    let key = format!("segment:{kind:?}:{}", wgsl_type(x.dtype));
    let init = identity(kind, x.dtype);
    let m = shape.num_elements();
    let groups = |k: usize| k.div_ceil(256) as u64;
    let params = [m as u32, 0, inner as u32, n as u32, init];
    launch(&key, source, &[&ids, &x], &out, &params, groups(m))?;
    let k = data.num_elements();
    let params = [k as u32, 1, inner as u32, n as u32, init];
    launch(&key, source, &[&ids, &x], &out, &params, groups(if inner == 0 { 0 } else { k }))?;
    Ok(Some(Tensor::from_gpu(out, shape)))
}

fn sorted(op: Segment, data: &Tensor, ids: &Tensor, device: usize) -> Result<Option<Tensor>> {
    if data.dims()[0] != ids.num_elements() {
        return Ok(None);
    }
    ids.host()?;
    let Ok((rows, runs)) = segment::sorted_runs(&segment::ids_as_i64(ids)?, op.tf_name()) else {
        return Ok(None);
    };
    let Ok((inner, shape)) = segment::layout(data, 1, rows) else { return Ok(None) };
    if shape.num_elements().max(data.num_elements()) > u32::MAX as usize {
        return Ok(None);
    }
    let mut starts = vec![0u32; rows + 1];
    for &(s, _, end) in &runs {
        starts[s + 1] = end as u32;
    }
    // Segments without rows start (and end) where the previous one ended.
    for s in 1..=rows {
        starts[s] = starts[s].max(starts[s - 1]);
    }
    let starts = Tensor::from_vec(starts, Shape(vec![rows + 1]));
    let (Some(starts), Some(x)) = (to_gpu(&starts, device)?, to_gpu(data, device)?) else {
        return Ok(None);
    };
    let kind = op.kind();
    let out = GpuStorage::alloc(device, data.dtype(), shape.num_elements())?;
    let source = || fill(SORTED, &[("COMBINE", functions(kind, x.dtype))]);
    let key = format!("segment_sorted:{kind:?}:{}", wgsl_type(x.dtype));
    let empty = identity(if kind == SegmentKind::Prod { kind } else { SegmentKind::Sum }, x.dtype);
    let m = shape.num_elements();
    let params = [m as u32, inner.max(1) as u32, empty];
    launch(&key, source, &[&starts, &x], &out, &params, m.div_ceil(256) as u64)?;
    Ok(Some(Tensor::from_gpu(out, shape)))
}
