//! GPU implementations of the dispatcher's primitives. `supported` answers placement's question
//! (is there a kernel for this op and these dtypes); `run` moves inputs to the device and runs
//! it. `run` returns `None` when the inputs are invalid: the CPU path then reports the error
//! with the same message as always, so validation lives in one place.

mod elementwise;
mod fft;
pub mod fused;
mod indexing;
mod layout;
mod matmul;
mod matmul_source;
pub mod matmul_tuning;
mod nd_index;
mod patches;
mod random;
mod reduce;
mod segment;
mod sort;
pub mod source;
mod unique;

use crate::device::Device;
use crate::dispatch::Op;
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::context::GpuContext;
use crate::gpu::pipelines::Kernel;
use crate::gpu::storage::{supports_dtype, GpuStorage};
use crate::ops::binary;
use crate::ops::cast::Cast;
use crate::ops::creation::Fill;
use crate::ops::index::{Gather, ScatterNd};
use crate::ops::nn::Softmax;
use crate::ops::patches::{MaxPoolGrad, PatchesGrad};
use crate::ops::reduce::{ArgReduce, Cumulative, Reduce};
use crate::ops::shape_ops::{self, BroadcastTo, Concat, Pad, PadMode, Reshape, Tile, Transpose};
use crate::ops::sort::{Sort, Unique};
use crate::shape::{broadcast_shapes, Shape};
use crate::tensor::Tensor;

/// A GPU-resident operand: its tensor (which keeps the buffer alive), dtype and shape.
#[derive(Clone)]
pub struct GpuInput {
    pub tensor: Tensor,
    pub dtype: DType,
    pub shape: Shape,
}

impl GpuInput {
    fn raw(&self) -> &wgpu::Buffer {
        self.tensor.gpu_storage().expect("moved to the GPU").raw()
    }

    fn device(&self) -> usize {
        self.tensor.gpu_storage().map_or(0, |g| g.device)
    }
}

impl From<Tensor> for GpuInput {
    fn from(tensor: Tensor) -> GpuInput {
        GpuInput { dtype: tensor.dtype(), shape: tensor.shape().clone(), tensor }
    }
}

/// Whether visible GPU `device` has kernels for `op` on these inputs' dtypes.
pub fn supported(op: &Op, inputs: &[&Tensor], device: usize) -> bool {
    let holds = |dtype| supports_dtype(device, dtype);
    if inputs.iter().any(|t| t.dtype().is_complex()) {
        // Complex elements are pairs of float32, which only these kernels read; every other
        // kernel takes its elements for 4- or 8-byte scalars, so the op runs on the CPU.
        return match op {
            Op::Fft(f) => holds(DType::C64) && fft::supports(f, inputs),
            Op::Reshape(_) => inputs.iter().all(|t| holds(t.dtype())),
            _ => false,
        };
    }
    let widen = |d: DType| if d == DType::F16 && widens_f16(op) { DType::F32 } else { d };
    if !inputs.iter().all(|t| holds(t.dtype())) {
        return false;
    }
    let dtype = |k: usize| inputs.get(k).map(|t| t.dtype());
    match op {
        Op::Unary(u) => dtype(0).is_some_and(|d| elementwise::unary_expr(*u, d).is_some()),
        Op::Binary(b) => {
            dtype(0) == dtype(1)
                && dtype(0).is_some_and(|d| elementwise::binary_expr(*b, d).is_some())
        }
        Op::Select(_) => dtype(0) == Some(DType::Bool) && dtype(1) == dtype(2),
        Op::Cast(Cast(to)) => {
            holds(*to)
                && dtype(0).is_some_and(|d| d == *to || elementwise::cast_expr(d, *to).is_some())
        }
        Op::Reshape(_) | Op::BroadcastTo(_) | Op::Fill(_) | Op::Transpose(_) => true,
        Op::StridedSlice(_) | Op::Concat(_) | Op::Tile(_) => true,
        Op::Pad(Pad { mode, .. }) => *mode == PadMode::Constant,
        Op::Reduce(Reduce { op, .. }) => dtype(0).is_some_and(|d| reduce::supports(*op, widen(d))),
        Op::ArgReduce(ArgReduce { output, .. }) => {
            matches!(output, DType::I32 | DType::I64)
                && holds(*output)
                && dtype(0) != Some(DType::Bool)
        }
        Op::MatMul(_) => dtype(0) == dtype(1) && dtype(0).is_some_and(matmul::supports),
        Op::Gather(Gather { batch_dims: 0, .. }) => {
            matches!(dtype(1), Some(DType::I32 | DType::I64))
        }
        Op::Softmax(_) => dtype(0).map(widen) == Some(DType::F32),
        // A k past the row is the CPU kernel's error to report.
        Op::Sort(Sort { k, .. }) => {
            inputs[0].rank() > 0
                && k.is_none_or(|k| inputs[0].shape().dims().last().is_some_and(|&n| k <= n))
                && sort::supports(widen(inputs[0].dtype()))
        }
        Op::Cumulative(Cumulative { axis, .. }) => {
            dtype(0) != Some(DType::Bool) && *axis < inputs[0].rank()
        }
        Op::Random(spec) => random::supports(spec),
        Op::WhereIndices(_) => holds(DType::I64),
        // No float16: the CPU rounds every step of a float16 range, the kernel would not.
        Op::Range(_) => dtype(0).is_some_and(|d| elementwise::range_expr(d).is_some()),
        Op::Unique(Unique { index_i64 }) => {
            dtype(0).is_some_and(unique::supports) && (!index_i64 || holds(DType::I64))
        }
        Op::GatherNd(_) => {
            dtype(0).zip(dtype(1)).is_some_and(|(x, i)| nd_index::supports(i, x, false))
        }
        Op::ScatterNd(_) => {
            dtype(0).zip(dtype(1)).is_some_and(|(i, u)| nd_index::supports(i, u, true))
        }
        Op::Patches(_) => dtype(0).is_some_and(|d| patches::supports(d, false)),
        Op::PatchesGrad(_) => dtype(0).is_some_and(|d| patches::supports(d, true)),
        Op::MaxPoolGrad(_) => {
            dtype(0) == dtype(1) && dtype(0).is_some_and(|d| patches::supports(d, true))
        }
        Op::Segment(s) => segment::supports(*s, inputs),
        Op::Fft(f) => fft::supports(f, inputs),
        _ => false,
    }
}

/// Integer division and powers raise on bad divisors and exponents, as TensorFlow does, so
/// their values are checked first: a device-resident operand is read back for it (a sync).
/// Bad ones run on the CPU, which raises.
fn operands_checked(op: &Op, inputs: &[&Tensor]) -> Result<bool> {
    Ok(match op {
        Op::Binary(b) if binary::checks_integer_operand(*b, inputs[1].dtype()) => {
            inputs[1].host()?;
            binary::check_integer_operand(*b, inputs[1]).is_ok()
        }
        _ => true,
    })
}

fn to_gpu(t: &Tensor, device: usize) -> Result<Option<GpuInput>> {
    Ok(t.to_device(Device::Gpu(device))?.map(|tensor| GpuInput {
        dtype: tensor.dtype(),
        shape: tensor.shape().clone(),
        tensor,
    }))
}

/// Runs `op` on visible GPU `device`; `None` when it must run on the CPU instead.
pub fn run(op: &Op, inputs: &[&Tensor], device: usize) -> Result<Option<Vec<Tensor>>> {
    if !supported(op, inputs, device) || !(operands_checked(op, inputs)?) {
        return Ok(None);
    }
    if let Op::Range(_) = op {
        return range(inputs, device);
    }
    // Ids are checked (or read back, sorted) before anything moves.
    if let Op::Segment(s) = op {
        return segment::run(*s, inputs, device);
    }
    if let Op::Fft(f) = op {
        // Only the signal moves: the kernels' plan reads fft_length and axes on the host.
        let Some(x) = to_gpu(inputs[0], device)? else { return Ok(None) };
        return Ok(fft::run(f, &x, inputs)?.map(|t| vec![t]));
    }
    let mut moved = Vec::with_capacity(inputs.len());
    for t in inputs {
        match to_gpu(t, device)? {
            Some(g) => moved.push(g),
            None => return Ok(None),
        }
    }
    if widens_f16(op) && moved.iter().any(|x| x.dtype == DType::F16) {
        return run_widened(op, &moved, device);
    }
    let one = |t: Option<Tensor>| t.map(|t| vec![t]);
    let name = op.tf_name();
    Ok(match op {
        Op::Unary(u) => {
            let (expr, out) = elementwise::unary_expr(*u, moved[0].dtype).expect("supported");
            let shape = moved[0].shape.clone();
            one(elementwise::run(name, expr, &moved, out, &shape)?)
        }
        Op::Binary(b) => {
            let (expr, out) = elementwise::binary_expr(*b, moved[0].dtype).expect("supported");
            let Some(shape) = elementwise::binary_shape(&moved[0].shape, &moved[1].shape) else {
                return Ok(None);
            };
            one(elementwise::run(name, expr, &moved, out, &shape)?)
        }
        Op::Select(_) => {
            let shape = broadcast_shapes(&moved[0].shape, &moved[1].shape)
                .and_then(|s| broadcast_shapes(&s, &moved[2].shape));
            let Ok(shape) = shape else { return Ok(None) };
            let dtype = moved[1].dtype;
            one(elementwise::run(name, "select(c, b, a != 0u)", &moved, dtype, &shape)?)
        }
        Op::Cast(Cast(to)) if *to == moved[0].dtype => Some(vec![moved[0].tensor.clone()]),
        Op::Cast(Cast(to)) => {
            let expr = elementwise::cast_expr(moved[0].dtype, *to).expect("supported");
            let shape = moved[0].shape.clone();
            one(elementwise::run(name, expr, &moved, *to, &shape)?)
        }
        Op::Reshape(Reshape(dims)) => Some(vec![shape_ops::reshape(&moved[0].tensor, dims)?]),
        Op::BroadcastTo(BroadcastTo(shape)) => {
            if broadcast_shapes(&moved[0].shape, shape).ok().as_ref() != Some(shape) {
                return Ok(None);
            }
            crate::shape::check_alloc(shape.num_elements(), moved[0].dtype)?;
            let dtype = moved[0].dtype;
            one(elementwise::run(name, "a", &moved, dtype, shape)?)
        }
        Op::Fill(Fill(shape)) => {
            if moved[0].shape.num_elements() != 1 {
                return Ok(None);
            }
            crate::shape::check_alloc(shape.num_elements(), moved[0].dtype)?;
            let dtype = moved[0].dtype;
            one(elementwise::run(name, "a", &moved, dtype, shape)?)
        }
        Op::Transpose(Transpose(perm)) => layout::transpose(&moved[0], perm)?.map(|t| vec![t]),
        Op::StridedSlice(spec) => layout::strided_slice(&moved[0], spec)?.map(|t| vec![t]),
        Op::Concat(Concat(axis)) => layout::concat(&moved, inputs, *axis)?.map(|t| vec![t]),
        Op::Tile(Tile(m)) => layout::tile(&moved[0], m)?.map(|t| vec![t]),
        Op::Pad(Pad { paddings, .. }) => {
            layout::pad(&moved[0], &moved[1], paddings)?.map(|t| vec![t])
        }
        Op::Reduce(Reduce { op, axes, keepdims }) => {
            reduce::reduce(*op, &moved[0], axes, *keepdims)?.map(|t| vec![t])
        }
        Op::ArgReduce(ArgReduce { op, axis, output }) => {
            reduce::arg_reduce(*op, &moved[0], *axis, *output)?.map(|t| vec![t])
        }
        Op::MatMul(attrs) => matmul::matmul(&moved[0], &moved[1], *attrs)?.map(|t| vec![t]),
        Op::Gather(Gather { axis, batch_dims }) => {
            indexing::gather(&moved[0], &moved[1], inputs[1], *axis, *batch_dims)?.map(|t| vec![t])
        }
        Op::Sort(Sort { descending, k }) => sort::sort(&moved[0], *descending, *k)?,
        Op::Softmax(Softmax { log }) => reduce::softmax(&moved[0], *log)?.map(|t| vec![t]),
        Op::Cumulative(Cumulative { op, axis, exclusive, reverse }) => {
            indexing::cumulative(*op, &moved[0], *axis, *exclusive, *reverse)?.map(|t| vec![t])
        }
        Op::Random(spec) => one(random::generate(spec, device)?),
        Op::WhereIndices(_) => one(nd_index::where_indices(&moved[0])?),
        Op::Unique(Unique { index_i64 }) => unique::unique(&moved[0], *index_i64)?,
        Op::GatherNd(_) => one(nd_index::gather_nd(&moved[0], &moved[1], inputs[1])?),
        Op::ScatterNd(ScatterNd(shape)) => {
            one(nd_index::scatter_nd(&moved[0], &moved[1], inputs[0], shape)?)
        }
        Op::Patches(spec) => one(patches::patches(&moved[0], spec)?),
        Op::PatchesGrad(PatchesGrad { spec, image }) => {
            one(patches::patches_grad(&moved[0], spec, *image)?)
        }
        Op::MaxPoolGrad(MaxPoolGrad(spec)) => {
            one(patches::max_pool_grad(&moved[0], &moved[1], spec)?)
        }
        _ => None,
    })
}

/// tf.range: its length needs the (host) values of its scalars, as in TensorFlow.
fn range(inputs: &[&Tensor], device: usize) -> Result<Option<Vec<Tensor>>> {
    for t in inputs {
        t.host()?;
    }
    let Ok(n) = crate::ops::creation::range_len(inputs[0], inputs[1], inputs[2]) else {
        return Ok(None); // the CPU kernel raises
    };
    let Some(expr) = elementwise::range_expr(inputs[0].dtype()) else { return Ok(None) };
    let (Some(start), Some(delta)) = (to_gpu(inputs[0], device)?, to_gpu(inputs[2], device)?)
    else {
        return Ok(None);
    };
    let dtype = start.dtype;
    let out = elementwise::run("Range", expr, &[start, delta], dtype, &Shape(vec![n]))?;
    Ok(out.map(|t| vec![t]))
}

/// Ops without float16 kernels of their own (reductions, scans, softmax, sorts).
fn widens_f16(op: &Op) -> bool {
    matches!(
        op,
        Op::Reduce(_) | Op::ArgReduce(_) | Op::Cumulative(_) | Op::Softmax(_) | Op::Sort(_)
    )
}

/// Runs `op` on float32 copies of its float16 inputs, accumulating in float32 as TensorFlow's
/// GPU kernels do, and rounds its float outputs back to float16.
fn run_widened(op: &Op, moved: &[GpuInput], device: usize) -> Result<Option<Vec<Tensor>>> {
    let convert = |x: &GpuInput, to: DType| {
        elementwise::run("Cast", "a", std::slice::from_ref(x), to, &x.shape)
    };
    let mut wide = Vec::with_capacity(moved.len());
    for x in moved {
        wide.push(match x.dtype {
            DType::F16 => match convert(x, DType::F32)? {
                Some(t) => t,
                None => return Ok(None),
            },
            _ => x.tensor.clone(),
        });
    }
    let refs: Vec<&Tensor> = wide.iter().collect();
    let Some(outputs) = run(op, &refs, device)? else { return Ok(None) };
    let mut narrowed = Vec::with_capacity(outputs.len());
    for t in outputs {
        narrowed.push(match t.dtype() {
            DType::F32 => match convert(&GpuInput::from(t), DType::F16)? {
                Some(t) => t,
                None => return Ok(None),
            },
            _ => t,
        });
    }
    Ok(Some(narrowed))
}

/// Allocates the output and launches a one-output kernel with one invocation per element.
pub(crate) fn launch_elementwise(
    key: &str,
    source: impl FnOnce() -> String,
    operands: &[GpuInput],
    out_dtype: DType,
    out_shape: &Shape,
    params: &[u32],
) -> Result<Tensor> {
    let device = operands.first().map_or(0, GpuInput::device);
    let n = out_shape.num_elements();
    let out = GpuStorage::alloc(device, out_dtype, n)?;
    let inputs: Vec<&GpuInput> = operands.iter().collect();
    launch(key, source, &inputs, &out, params, n.div_ceil(256) as u64)?;
    Ok(Tensor::from_gpu(out, out_shape.clone()))
}

/// Compiles (once) and records a kernel over `workgroups` 256-wide workgroups.
pub(crate) fn launch(
    key: &str,
    source: impl FnOnce() -> String,
    inputs: &[&GpuInput],
    out: &GpuStorage,
    params: &[u32],
    workgroups: u64,
) -> Result<()> {
    if workgroups == 0 {
        return Ok(());
    }
    record(key, source, inputs, out, |ctx, kernel, buffers| {
        ctx.launch(kernel, buffers, params, workgroups)
    })
}

fn record(
    key: &str,
    source: impl FnOnce() -> String,
    inputs: &[&GpuInput],
    out: &GpuStorage,
    dispatch: impl FnOnce(&GpuContext, &Kernel, &[&wgpu::Buffer]) -> Result<()>,
) -> Result<()> {
    let ctx = out.buffer.context();
    let kernel = ctx.pipelines.get(&ctx.device, key, inputs.len(), 1, source)?;
    let mut buffers: Vec<&wgpu::Buffer> = inputs.iter().map(|i| i.raw()).collect();
    buffers.push(out.raw());
    dispatch(ctx, &kernel, &buffers)
}
