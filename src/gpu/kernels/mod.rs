//! GPU implementations of the dispatcher's primitives. `supported` answers placement's question
//! (is there a kernel for this op and these dtypes); `run` moves inputs to the device and runs
//! it. `run` returns `None` when the inputs are invalid: the CPU path then reports the error
//! with the same message as always, so validation lives in one place.

mod elementwise;
pub mod source;

use crate::device::Device;
use crate::dispatch::Op;
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::adapters;
use crate::gpu::storage::{supports_dtype, GpuStorage};
use crate::ops::shape_ops;
use crate::shape::{broadcast_shapes, Shape};
use crate::tensor::Tensor;

/// A GPU-resident operand: its tensor (which keeps the buffer alive), dtype and shape.
pub struct GpuInput {
    pub tensor: Tensor,
    pub dtype: DType,
    pub shape: Shape,
}

impl GpuInput {
    fn raw(&self) -> &wgpu::Buffer {
        self.tensor.gpu_storage().expect("moved to the GPU").raw()
    }
}

/// Whether GPU kernels exist for `op` on these inputs' dtypes.
pub fn supported(op: &Op, inputs: &[&Tensor]) -> bool {
    if !inputs.iter().all(|t| supports_dtype(t.dtype())) {
        return false;
    }
    let dtype = |k: usize| inputs.get(k).map(|t| t.dtype());
    match op {
        Op::Unary(u) => dtype(0).is_some_and(|d| elementwise::unary_expr(*u, d).is_some()),
        Op::Binary(b) => {
            dtype(0) == dtype(1)
                && dtype(0).is_some_and(|d| elementwise::binary_expr(*b, d).is_some())
        }
        Op::Select => dtype(0) == Some(DType::Bool) && dtype(1) == dtype(2),
        Op::Cast(to) => {
            supports_dtype(*to)
                && dtype(0).is_some_and(|d| d == *to || elementwise::cast_expr(d, *to).is_some())
        }
        Op::Reshape(_) | Op::BroadcastTo(_) | Op::Fill(_) => true,
        _ => false,
    }
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
    if !supported(op, inputs) {
        return Ok(None);
    }
    let mut moved = Vec::with_capacity(inputs.len());
    for t in inputs {
        match to_gpu(t, device)? {
            Some(g) => moved.push(g),
            None => return Ok(None),
        }
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
        Op::Select => {
            let shape = broadcast_shapes(&moved[0].shape, &moved[1].shape)
                .and_then(|s| broadcast_shapes(&s, &moved[2].shape));
            let Ok(shape) = shape else { return Ok(None) };
            let dtype = moved[1].dtype;
            one(elementwise::run(name, "select(c, b, a != 0u)", &moved, dtype, &shape)?)
        }
        Op::Cast(to) if *to == moved[0].dtype => Some(vec![moved[0].tensor.clone()]),
        Op::Cast(to) => {
            let expr = elementwise::cast_expr(moved[0].dtype, *to).expect("supported");
            let shape = moved[0].shape.clone();
            one(elementwise::run(name, expr, &moved, *to, &shape)?)
        }
        Op::Reshape(dims) => Some(vec![shape_ops::reshape(&moved[0].tensor, dims)?]),
        Op::BroadcastTo(shape) => {
            if broadcast_shapes(&moved[0].shape, shape).ok().as_ref() != Some(shape) {
                return Ok(None);
            }
            crate::shape::check_alloc(shape.num_elements(), moved[0].dtype)?;
            let dtype = moved[0].dtype;
            one(elementwise::run(name, "a", &moved, dtype, shape)?)
        }
        Op::Fill(shape) => {
            if moved[0].shape.num_elements() != 1 {
                return Ok(None);
            }
            crate::shape::check_alloc(shape.num_elements(), moved[0].dtype)?;
            let dtype = moved[0].dtype;
            one(elementwise::run(name, "a", &moved, dtype, shape)?)
        }
        _ => None,
    })
}

/// Allocates the output, compiles (once) and launches a one-output kernel with one invocation
/// per output element.
pub(crate) fn launch_elementwise(
    key: &str,
    source: impl FnOnce() -> String,
    operands: &[GpuInput],
    out_dtype: DType,
    out_shape: &Shape,
    params: &[u32],
) -> Result<Tensor> {
    let device = match operands.first().map(|o| o.tensor.device()) {
        Some(Device::Gpu(i)) => i,
        _ => 0,
    };
    let n = out_shape.num_elements();
    let out = GpuStorage::alloc(device, out_dtype, n)?;
    if n > 0 {
        let ctx = adapters::context(device)?;
        let kernel = ctx.pipelines.get(&ctx.device, key, operands.len(), 1, source)?;
        let mut buffers: Vec<&wgpu::Buffer> = operands.iter().map(GpuInput::raw).collect();
        buffers.push(out.raw());
        ctx.launch(&kernel, &buffers, params, n.div_ceil(256) as u64)?;
    }
    Ok(Tensor::from_gpu(out, out_shape.clone()))
}
