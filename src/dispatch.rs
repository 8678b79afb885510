//! The one path every op call takes: `apply(op, inputs)` places the op, runs its GPU or CPU
//! kernel, records it on active gradient tapes and, while a `tf.function` traces, in the graph:
//! no op ever asks which mode it runs in.

use crate::autodiff::tape;
use crate::device::{self, Device};
use crate::error::{Error, Result};
use crate::graph::trace;
use crate::ops::primitive::GpuKernel;
use crate::tensor::Tensor;

pub use crate::ops::registry::Op;

fn check_arity(op: &Op, inputs: &[&Tensor]) -> Result<()> {
    let arity = op.primitive().arity();
    if !arity.admits(inputs.len()) {
        return Err(Error::Internal(format!(
            "{} takes {arity:?} inputs, got {}",
            op.tf_name(),
            inputs.len()
        )));
    }
    Ok(())
}

/// Runs one primitive and records it on the gradient tapes watching its inputs. Multi-output
/// ops return several tensors; the rest return one.
pub fn apply(op: &Op, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
    // Quantized inputs run as their integer storage, where TensorFlow has a kernel at all.
    if let Some(outputs) = crate::ops::quantized::intercept(op, inputs)? {
        return Ok(outputs);
    }
    let mut outputs = match crate::graph::deferred::defer(op, inputs)? {
        // Traced values: the kernel runs only if the values are read (abstract evaluation).
        Some(deferred) => deferred,
        None => {
            let tracing = trace::recording();
            // Kernels that run compositions (the CPU softmax) must not record their parts.
            let _paused = (tape::pause_all(), trace::suspend());
            // `enable_check_numerics`: one relaxed load when off.
            let checked = crate::check_numerics::outermost(op);
            let outputs = execute(op, inputs).map_err(|e| match tracing {
                true => crate::graph::deferred::graph_dtype_error(e),
                false => e,
            })?;
            if let Some(check) = checked {
                check.check(op, inputs, &outputs)?;
            }
            outputs
        }
    };
    tape::record(op, inputs, &mut outputs);
    if trace::recording() {
        trace::record_op(op, inputs, &mut outputs)?;
    }
    Ok(outputs)
}

/// `Concat` along axis 0 of `[buffer, rows]` when the caller holds the only handle to
/// `buffer` (a graph value at its last reader, see `graph::executor`): the rows are appended
/// to `buffer`'s own memory, which is how a TensorArray filled one row per loop iteration stays
/// linear instead of copying everything written so far at each step. Only where nothing can
/// tell the difference: host memory the op is placed on, no tape recording, no trace, no
/// numerics check. Otherwise `buffer` comes back for the usual `apply`.
pub(crate) fn append_in_place(
    op: &Op,
    buffer: Tensor,
    rows: &Tensor,
) -> std::result::Result<Result<Tensor>, Tensor> {
    let applies = matches!(op, Op::Concat(crate::ops::shape_ops::Concat(0)))
        && !tape::any_active()
        && !trace::open()
        && !crate::check_numerics::enabled()
        && !buffer.dtype().is_quantized()
        && buffer.device().is_cpu()
        && rows.device() == buffer.device();
    if !applies {
        return Err(buffer);
    }
    let placement = match device::place(op.tf_name(), |i| gpu_can_run(op, &[&buffer, rows], i)) {
        Ok(p) if p.device == buffer.device() => p,
        Ok(_) => return Err(buffer),
        Err(e) => return Ok(Err(e)),
    };
    let appended = buffer.append_rows_in_place(rows)?;
    device::log(op.tf_name(), placement.device);
    Ok(Ok(appended))
}

/// `TensorScatterAdd` of `updates` at `indices` into `total`'s own memory when it is a graph
/// value at its last reader that nothing else holds, under `append_in_place`'s conditions
/// (nothing can tell the difference). Otherwise `total` comes back for the usual `apply`.
pub(crate) fn scatter_add_in_place(
    op: &Op,
    scatter_add: &crate::ops::scatter_add::TensorScatterAdd,
    total: Tensor,
    indices: &Tensor,
    updates: &Tensor,
) -> std::result::Result<Result<Tensor>, Tensor> {
    let applies = !tape::any_active()
        && !trace::open()
        && !crate::check_numerics::enabled()
        && total.dtype().is_numeric()
        && !total.dtype().is_quantized()
        && total.device().is_cpu()
        && [indices, updates].iter().all(|t| t.device() == total.device() && t.values_ready());
    if !applies {
        return Err(total);
    }
    let placement = match device::place(op.tf_name(), |i| i < crate::gpu::visible_count()) {
        Ok(p) if p.device == total.device() => p,
        Ok(_) => return Err(total),
        Err(e) => return Ok(Err(e)),
    };
    let sum =
        crate::ops::scatter_add::tensor_scatter_add_in_place(scatter_add, total, indices, updates)?;
    device::log(op.tf_name(), placement.device);
    Ok(sum)
}

/// A deferred op's values, computed as an eager call would (placement included).
pub(crate) fn execute_now(op: &Op, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
    execute(op, inputs)
}

/// The CPU kernel alone (fused chains run their steps with it on chunks of data).
pub(crate) fn cpu_kernel(op: &Op, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
    cpu(op, inputs)
}

fn execute(op: &Op, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
    crate::kernels::pool::start();
    // A traced slice meeting an input of another shape resolves its items again.
    let respecified;
    let op = match (op, inputs.first()) {
        (Op::StridedSlice(spec), Some(x)) if x.shape() != &spec.input => {
            respecified = Op::StridedSlice(crate::ops::slicing::resolve(x.shape(), &spec.items)?);
            &respecified
        }
        _ => op,
    };
    check_arity(op, inputs)?;
    let primitive = op.primitive();
    match primitive.gpu() {
        // Its parts are placed (and logged) one by one.
        GpuKernel::Decomposed => return primitive.cpu(inputs),
        // Only the dims are read: no device work, no readback.
        GpuKernel::CpuOnly(_) if primitive.reads_only_shapes() => return primitive.cpu(inputs),
        _ => {}
    }
    let placement = device::place(op.tf_name(), |i| gpu_can_run(op, inputs, i))?;
    device::log(op.tf_name(), placement.device);
    if let Device::Gpu(i) = placement.device {
        if let Some(outputs) = crate::gpu::kernels::run(op, inputs, i)? {
            return Ok(outputs);
        }
    }
    // CPU kernels read `buffer()`; reading GPU inputs back here reports failures as errors.
    for t in inputs.iter().filter(|t| !t.is_row_stack()) {
        t.host()?;
    }
    // The outputs are on the logical CPU the op was placed on (CPU:0 when a GPU placement fell
    // back). Ops that share storage (reshape, identity casts) would hand back the GPU buffer.
    let host = if placement.device.is_cpu() { placement.device } else { Device::Cpu };
    cpu(op, inputs)?
        .into_iter()
        .map(|t| match t.device() == host {
            true => Ok(t),
            false => t.to_device(host).map(|c| c.unwrap_or(t)),
        })
        .collect()
}

/// Whether `op` on `inputs` would be placed on CPU:0, as an eager call would place it: a
/// fused node running the op in a host kernel must not move it off the GPU it would use.
pub(crate) fn placed_on_host(op: &Op, inputs: &[&Tensor]) -> Result<bool> {
    let placement = match op.primitive().gpu() {
        // As `conv::direct_cpu` places composites: a GPU that can run the parts keeps them.
        GpuKernel::Decomposed => device::place(op.tf_name(), |i| i < crate::gpu::visible_count())?,
        _ => device::place(op.tf_name(), |i| gpu_can_run(op, inputs, i))?,
    };
    Ok(placement.device == Device::Cpu)
}

fn gpu_can_run(op: &Op, inputs: &[&Tensor], index: usize) -> bool {
    op.primitive().gpu() == GpuKernel::Wgsl
        && index < crate::gpu::visible_count()
        && crate::gpu::kernels::supported(op, inputs, index)
}

fn cpu(op: &Op, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
    op.primitive().cpu(inputs)
}

/// `apply` for single-output ops.
pub fn apply1(op: &Op, inputs: &[&Tensor]) -> Result<Tensor> {
    apply(op, inputs)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::Internal(format!("{} produced no output", op.tf_name())))
}
