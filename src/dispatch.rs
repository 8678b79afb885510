//! The one path every op call takes: `apply(op, inputs)` places the op, runs its GPU or CPU
//! kernel, records it on active gradient tapes and, while a `tf.function` traces, in the graph:
//! no op ever asks which mode it runs in.

use crate::autodiff::tape;
use crate::device::{self, Device};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::trace;
use crate::ops::binary::BinaryOp;
use crate::ops::composite::Composite;
use crate::ops::matmul::MatMulAttrs;
use crate::ops::patches::{self, PatchSpec};
use crate::ops::random::{self, stateless, RandomSpec, StatelessSpec};
use crate::ops::reduce::{ArgOp, CumOp, ReduceOp};
use crate::ops::shape_ops::{PadMode, SliceSpec};
use crate::ops::unary::UnaryOp;
use crate::ops::{binary, cast, creation, index, matmul, reduce, select, shape_ops, sort, unary};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// A primitive with its attributes. Everything else (softmax, losses, means, ...) is composed of
/// these, so it inherits their kernels and, later, their gradients.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Op {
    Unary(UnaryOp),
    Binary(BinaryOp),
    Select,
    Cast(DType),
    Reduce {
        op: ReduceOp,
        axes: Vec<usize>,
        keepdims: bool,
    },
    ArgReduce {
        op: ArgOp,
        axis: usize,
        output: DType,
    },
    Cumulative {
        op: CumOp,
        axis: usize,
        exclusive: bool,
        reverse: bool,
    },
    MatMul(MatMulAttrs),
    Reshape(Vec<i64>),
    Transpose(Vec<usize>),
    BroadcastTo(Shape),
    Concat(usize),
    StridedSlice(SliceSpec),
    /// Inputs: x and a scalar constant.
    Pad {
        paddings: Vec<(usize, usize)>,
        mode: PadMode,
    },
    Tile(Vec<usize>),
    Gather {
        axis: usize,
        batch_dims: usize,
    },
    GatherNd,
    ScatterNd(Shape),
    WhereIndices,
    /// Outputs: values, int32 indices.
    /// Along the last axis, keeping the first `k` of each row (all when `None`).
    Sort {
        descending: bool,
        k: Option<usize>,
    },
    /// Outputs: values, indices.
    Unique {
        index_i64: bool,
    },
    /// Inputs: start, limit, delta.
    Range,
    /// Input: a scalar value.
    Fill(Shape),
    /// Softmax (or log-softmax) over the last axis of a float tensor.
    Softmax {
        log: bool,
    },
    /// No inputs: a random tensor.
    Random(RandomSpec),
    /// Input: a seed pair (int32/int64 [2]); output: the Philox state int64 `[C0, C1, K]`
    /// TensorFlow's stateless ops derive from it (`GenerateKey`).
    RngState,
    /// Input: a Philox state; output: the state that many Philox calls further on.
    RngSkip(u64),
    /// Inputs: a Philox state, then the sampler's parameters: TensorFlow's stateless kernels
    /// (CPU only: they need glibc's float functions to give TensorFlow's numbers).
    StatelessRandom(StatelessSpec),
    /// The input's dims as an int32 or int64 vector (`tf.shape` where a traced size is unknown).
    Shape(DType),
    /// NHWC image windows as rows: `[N, OH, OW, KH*KW*C]`.
    Patches(PatchSpec),
    /// The adjoint of `Patches`, back to an image of `[rows, cols]` pixels.
    PatchesGrad {
        spec: PatchSpec,
        image: [usize; 2],
    },
    /// Inputs: the pooled image and the pooled gradient; each window's gradient goes to its
    /// first maximum.
    MaxPoolGrad(PatchSpec),
    /// A named composite (`Relu`, `MaxPool`, ...): a decomposition and a gradient rule of its
    /// own (`ops/composite.rs`).
    Composite(Composite),
}

impl Op {
    /// TensorFlow's name for the op, as placement logs and graphs print it.
    pub fn tf_name(&self) -> &'static str {
        match self {
            Op::Unary(u) => u.tf_name(),
            Op::Binary(b) => b.info().0,
            Op::Select => "SelectV2",
            Op::Cast(_) => "Cast",
            Op::Reduce { op, .. } => op.info().0,
            Op::ArgReduce { op: ArgOp::ArgMax, .. } => "ArgMax",
            Op::ArgReduce { op: ArgOp::ArgMin, .. } => "ArgMin",
            Op::Cumulative { op: CumOp::Sum, .. } => "Cumsum",
            Op::Cumulative { op: CumOp::Prod, .. } => "Cumprod",
            Op::MatMul(_) => "BatchMatMulV2",
            Op::Reshape(_) => "Reshape",
            Op::Transpose(_) => "Transpose",
            Op::BroadcastTo(_) => "BroadcastTo",
            Op::Concat(_) => "ConcatV2",
            Op::StridedSlice(_) => "StridedSlice",
            Op::Pad { .. } => "PadV2",
            Op::Tile(_) => "Tile",
            Op::Gather { .. } => "GatherV2",
            Op::GatherNd => "GatherNd",
            Op::ScatterNd(_) => "ScatterNd",
            Op::WhereIndices => "Where",
            Op::Sort { .. } => "TopKV2",
            Op::Unique { .. } => "Unique",
            Op::Range => "Range",
            Op::Fill(_) => "Fill",
            Op::Softmax { log: false } => "Softmax",
            Op::Softmax { log: true } => "LogSoftmax",
            Op::Random(spec) => spec.tf_name(),
            Op::RngState => "StatelessRandomGetKeyCounter",
            Op::RngSkip(_) => "RngSkip",
            Op::StatelessRandom(spec) => spec.tf_name(),
            Op::Shape(_) => "Shape",
            Op::Patches(_) => "ExtractImagePatches",
            Op::PatchesGrad { .. } => "ExtractImagePatchesGrad",
            Op::MaxPoolGrad(_) => "MaxPoolGrad",
            Op::Composite(c) => c.tf_name(),
        }
    }
}

fn arity(op: &Op, inputs: &[&Tensor], n: usize) -> Result<()> {
    if inputs.len() != n && !matches!(op, Op::Concat(_)) {
        return Err(Error::Internal(format!(
            "{} takes {n} inputs, got {}",
            op.tf_name(),
            inputs.len()
        )));
    }
    Ok(())
}

/// Runs one primitive and records it on the gradient tapes watching its inputs. Multi-output
/// ops return several tensors; the rest return one.
pub fn apply(op: &Op, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
    let mut outputs = {
        // Kernels that run compositions (the CPU softmax) must not record their parts.
        let _paused = (tape::pause_all(), trace::suspend());
        execute(op, inputs)?
    };
    tape::record(op, inputs, &mut outputs);
    if trace::recording() {
        trace::record_op(op, inputs, &mut outputs);
    }
    Ok(outputs)
}

/// The CPU kernel alone (fused chains run their steps with it on chunks of data).
pub(crate) fn cpu_kernel(op: &Op, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
    cpu(op, inputs)
}

fn execute(op: &Op, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
    // A traced slice meeting an input of another shape resolves its items again.
    let respecified;
    let op = match (op, inputs.first()) {
        (Op::StridedSlice(spec), Some(x)) if x.shape() != &spec.input => {
            respecified = Op::StridedSlice(crate::ops::slicing::resolve(x.shape(), &spec.items)?);
            &respecified
        }
        _ => op,
    };
    let n_inputs = match op {
        Op::Binary(_)
        | Op::MatMul(_)
        | Op::Pad { .. }
        | Op::Gather { .. }
        | Op::GatherNd
        | Op::ScatterNd(_)
        | Op::MaxPoolGrad(_) => 2,
        Op::Select | Op::Range => 3,
        Op::Concat(_) => inputs.len(),
        Op::Random(_) => 0,
        Op::StatelessRandom(spec) => spec.arity(),
        Op::Composite(c) => c.arity(),
        _ => 1,
    };
    arity(op, inputs, n_inputs)?;
    if let Op::Composite(c) = op {
        // Its parts are placed (and logged) one by one.
        return c.forward(inputs);
    }
    if let Op::Shape(dtype) = op {
        // Only the dims are read: no device work, no readback.
        let dims = inputs[0].shape().dims_i64();
        return Ok(vec![cast::cpu(&Tensor::from_slice(&dims, &[dims.len()])?, *dtype)?]);
    }
    let placement = device::place(op.tf_name(), |i| gpu_can_run(op, inputs, i))?;
    device::log(op.tf_name(), placement.device);
    if let Device::Gpu(i) = placement.device {
        if let Some(outputs) = crate::gpu::kernels::run(op, inputs, i)? {
            return Ok(outputs);
        }
    }
    // CPU kernels read `buffer()`; reading GPU inputs back here reports failures as errors.
    for t in inputs {
        t.host()?;
    }
    // Ops that share storage (reshape, identity casts) would hand back the GPU buffer.
    cpu(op, inputs)?
        .into_iter()
        .map(|t| match t.device() {
            Device::Cpu => Ok(t),
            _ => t.to_device(Device::Cpu).map(|c| c.unwrap_or(t)),
        })
        .collect()
}

fn gpu_can_run(op: &Op, inputs: &[&Tensor], index: usize) -> bool {
    index < crate::gpu::visible_count() && crate::gpu::kernels::supported(op, inputs, index)
}

fn cpu(op: &Op, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
    let one = |t: Result<Tensor>| t.map(|t| vec![t]);
    let x = match (op, inputs.first()) {
        (Op::Random(spec), _) => return one(random::cpu::generate(spec)),
        (_, Some(x)) => *x,
        (_, None) => return Err(Error::InvalidArgument(format!("{} needs inputs", op.tf_name()))),
    };
    match op {
        Op::Unary(u) => one(unary::cpu(*u, x)),
        Op::Binary(b) => one(binary::cpu(*b, x, inputs[1])),
        Op::Select => one(select::cpu(x, inputs[1], inputs[2])),
        Op::Cast(d) => one(cast::cpu(x, *d)),
        Op::Reduce { op, axes, keepdims } => one(reduce::cpu(*op, x, axes, *keepdims)),
        Op::ArgReduce { op, axis, output } => one(reduce::arg_cpu(*op, x, *axis, *output)),
        Op::Cumulative { op, axis, exclusive, reverse } => {
            one(reduce::cumulative_cpu(*op, x, *axis, *exclusive, *reverse))
        }
        Op::MatMul(a) => one(matmul::cpu(x, inputs[1], *a)),
        Op::Reshape(dims) => one(shape_ops::reshape(x, dims)),
        Op::Transpose(perm) => one(shape_ops::transpose(x, perm)),
        Op::BroadcastTo(s) => one(shape_ops::broadcast_to(x, s)),
        Op::Concat(axis) => one(shape_ops::concat(inputs, *axis)),
        Op::StridedSlice(spec) => one(shape_ops::strided_slice(x, spec)),
        Op::Pad { paddings, mode } => one(shape_ops::pad(x, paddings, *mode, inputs[1])),
        Op::Tile(m) => one(shape_ops::tile(x, m)),
        Op::Gather { axis, batch_dims } => one(index::gather(x, inputs[1], *axis, *batch_dims)),
        Op::GatherNd => one(index::gather_nd(x, inputs[1])),
        Op::ScatterNd(s) => one(index::scatter_nd(x, inputs[1], s)),
        Op::WhereIndices => one(index::where_indices(x)),
        Op::Sort { descending, k } => sort::sort(x, *descending, *k).map(|(v, i)| vec![v, i]),
        Op::Unique { index_i64 } => sort::unique(x, *index_i64).map(|(v, i)| vec![v, i]),
        Op::Range => one(creation::range(x, inputs[1], inputs[2])),
        Op::Fill(s) => one(creation::fill(s, x)),
        // The CPU runs the composition (its primitives are each one parallel pass).
        Op::Softmax { log: false } => one(crate::ops::nn::softmax_composed(x, -1)),
        Op::Softmax { log: true } => one(crate::ops::nn::log_softmax_composed(x, -1)),
        Op::Random(spec) => one(random::cpu::generate(spec)),
        Op::RngState => one(stateless::seed_state(x)),
        Op::RngSkip(delta) => one(stateless::skip(x, *delta)),
        Op::StatelessRandom(spec) => one(stateless::cpu(spec, inputs)),
        Op::Shape(_) => Err(Error::Internal("Shape runs before placement".into())),
        Op::Patches(spec) => one(patches::patches(x, spec)),
        Op::PatchesGrad { spec, image } => one(patches::patches_grad(x, spec, *image)),
        Op::MaxPoolGrad(spec) => one(patches::max_pool_grad(x, inputs[1], spec)),
        Op::Composite(c) => c.forward(inputs),
    }
}

/// `apply` for single-output ops.
pub fn apply1(op: &Op, inputs: &[&Tensor]) -> Result<Tensor> {
    apply(op, inputs)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::Internal(format!("{} produced no output", op.tf_name())))
}
