//! A chain of elementwise ops fused by the fusion pass, and how it runs: one generated WGSL
//! kernel on a GPU; on the CPU one parallel pass over the data — float32/float64 chains of
//! arithmetic and math ops through typed block loops (`fused_cpu`), other chains of
//! primitives over full inputs and scalars in cache-sized chunks through the eager CPU
//! kernels; the rest (rows, Relu) step by step. Under a gradient tape the steps run one by
//! one, so each is recorded.
//!
//! A chain may also hold the op that makes its input 0 (a `Producer`, taken in by epilogue
//! fusion): on the CPU that op's kernel runs the chain on each tile of its output while the
//! tile is in cache; elsewhere the op runs first and the chain after it.

use crate::buffer::Buffer;
use crate::device::Device;
use crate::dispatch::{self, Op};
use crate::dtype::DType;
use crate::element::{Element, Movable};
use crate::error::{Error, Result};
use crate::graph::fused_cpu;
use crate::ops::composite::Composite;
use crate::shape::Shape;
use crate::tensor::Tensor;
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Elements per CPU chunk: a few chunk-sized temporaries stay in L2.
const CHUNK: usize = 16 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Arg {
    /// The n-th input of the fused node.
    Input(usize),
    /// The result of an earlier step.
    Step(usize),
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Step {
    pub op: Op,
    pub args: Vec<Arg>,
}

/// Steps in order; the last one's result is the node's output.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FusedChain {
    pub steps: Vec<Step>,
    pub num_inputs: usize,
    pub dtype: DType,
    /// The op that makes the chain's input 0, when the chain is its epilogue (the fusion pass
    /// absorbs a producer with an epilogue kernel, `has_epilogue_kernel`). The node's inputs
    /// are then the producer's `arity` inputs followed by the chain's inputs 1.. .
    #[serde(default)]
    pub producer: Option<Producer>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Producer {
    pub op: Op,
    pub arity: usize,
}

/// Ops whose CPU kernel can run a chain on each tile of its output while the tile is in
/// cache (`run_with_producer`): Conv2D, whose usual consumer is a bias add and activation,
/// and MaxPoolGrad, whose usual consumer is the gradient through the Relu before the pool.
pub fn has_epilogue_kernel(op: &Op) -> bool {
    matches!(op, Op::MaxPoolGrad(_) | Op::Composite(Composite::Conv2D { .. }))
}

/// Ops the fusion pass may put in a chain.
pub fn fusible(op: &Op) -> bool {
    op.primitive().fusable()
}

/// How a chain reads one of its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// One value per element of the chain.
    Full,
    /// One value for every element.
    Scalar,
    /// One value per index of the last axis (a bias), repeated along the others.
    Row,
}

/// How an operand of dims `operand` broadcasts against a chain of dims `out`, if it is one
/// of the ways chains read operands (the fusion pass and the runtime both ask).
pub fn operand_kind(operand: &[usize], out: &[usize]) -> Option<Operand> {
    if operand == out {
        return Some(Operand::Full);
    }
    // Checked: a loaded graph's dims are not known to multiply within range.
    let elements = operand.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if elements == Some(1) {
        return Some(Operand::Scalar);
    }
    let last = *out.last()?;
    let leading_ones = operand.split_last().is_some_and(|(_, lead)| lead.iter().all(|&d| d == 1));
    let row = operand.len() <= out.len() && operand.last() == Some(&last) && leading_ones;
    row.then_some(Operand::Row)
}

pub fn run(chain: &FusedChain, inputs: &[&Tensor]) -> Result<Tensor> {
    match &chain.producer {
        Some(producer) => run_with_producer(chain, producer, inputs),
        None => run_chain(chain, inputs),
    }
}

/// A chain (its producer aside) on its inputs.
fn run_chain(chain: &FusedChain, inputs: &[&Tensor]) -> Result<Tensor> {
    let Some((shape, kinds)) = common_shape(inputs) else { return run_steps(chain, inputs) };
    if watched() {
        return run_steps(chain, inputs);
    }
    match inputs.iter().map(|t| t.device()).find(|d| d.is_gpu()) {
        Some(Device::Gpu(i)) => {
            if crate::device::current_scope()
                .is_none_or(|s| s.device_type.as_deref() != Some("CPU"))
            {
                if let Some(out) = crate::gpu::kernels::fused::run(chain, inputs, &shape, i)? {
                    return Ok(out);
                }
            }
            run_steps(chain, inputs)
        }
        Some(_) => run_steps(chain, inputs),
        None => run_cpu(chain, inputs, &shape, &kinds),
    }
}

/// Whether each op must run on its own: tapes record it, `enable_check_numerics` checks (and
/// names) it as TensorFlow's ops are, and a recording trace (a graph inlined into it) keeps
/// it as a node. A tf.function's trace also keeps a graph tape active; traces begun from Rust
/// (host calls, control-flow gradients) need not.
fn watched() -> bool {
    crate::autodiff::tape::any_active()
        || crate::check_numerics::enabled()
        || crate::graph::trace::recording()
}

/// The chain's shape (its inputs' broadcast) and how each input is read, if every input is
/// read in one of the chains' ways and one has the chain's shape (the pass fuses only such
/// chains; a relaxed signature may still bring other shapes, and chains of one-element
/// inputs have no shape of their own to run over: these run step by step).
fn common_shape(inputs: &[&Tensor]) -> Option<(Shape, Vec<Operand>)> {
    if inputs.iter().all(|t| t.num_elements() == 1) {
        return None;
    }
    let mut shape = inputs.first()?.shape().clone();
    for t in &inputs[1..] {
        shape = crate::shape::broadcast_shapes(&shape, t.shape()).ok()?;
    }
    let kinds =
        inputs.iter().map(|t| operand_kind(t.dims(), shape.dims())).collect::<Option<Vec<_>>>()?;
    kinds.contains(&Operand::Full).then_some((shape, kinds))
}

/// Each step as its own op through the funnel (recorded on tapes, placed as eager), on the
/// chain's inputs (a producer's output is input 0).
fn run_steps(chain: &FusedChain, inputs: &[&Tensor]) -> Result<Tensor> {
    steps_with(chain, inputs, dispatch::apply)
}

/// The chain's inputs: the producer's output, then the node's inputs after the producer's.
fn with_produced<'a>(produced: &'a Tensor, rest: &[&'a Tensor]) -> Vec<&'a Tensor> {
    std::iter::once(produced).chain(rest.iter().copied()).collect()
}

/// A chain with its producer: on the CPU (float32/float64, no tape watching) the producer's
/// kernel runs the chain on each tile of its output; otherwise the producer runs as an op
/// and the chain after it.
fn run_with_producer(
    chain: &FusedChain,
    producer: &Producer,
    inputs: &[&Tensor],
) -> Result<Tensor> {
    if inputs.len() != producer.arity + chain.num_inputs - 1 {
        return Err(Error::Internal("fused producer's inputs".into()));
    }
    let (own, rest) = inputs.split_at(producer.arity);

    let on_host =
        inputs.iter().all(|t| !t.device().is_gpu()) && dispatch::placed_on_host(&producer.op, own)?;
    if !watched() && on_host {
        if let Some(out) = epilogue_cpu(chain, producer, own, rest)? {
            return Ok(out);
        }
    }
    let produced = dispatch::apply1(&producer.op, own)?;
    run_chain(chain, &with_produced(&produced, rest))
}

/// The producer's CPU kernel with the chain as its epilogue, if the dtypes and shapes allow
/// (None: run them one after the other).
fn epilogue_cpu(
    chain: &FusedChain,
    producer: &Producer,
    own: &[&Tensor],
    rest: &[&Tensor],
) -> Result<Option<Tensor>> {
    let typed = matches!(chain.dtype, DType::F32 | DType::F64)
        && own.iter().chain(rest).all(|t| t.dtype() == chain.dtype)
        && fused_cpu::supported(chain);
    if !typed {
        return Ok(None);
    }
    // The producer's output dims, its operands checked as the op checks them.
    let dims: Vec<usize> = match (&producer.op, own) {
        (Op::MaxPoolGrad(grad), [x, g]) => {
            crate::ops::patches::check_max_pool_grad(x, g, &grad.0)?;
            x.dims().to_vec()
        }
        (Op::Composite(Composite::Conv2D { window, padding }), [x, f]) => {
            crate::ops::conv::conv2d_dims(x, f, window, padding)?.to_vec()
        }
        _ => return Ok(None),
    };
    let kinds: Option<Vec<Operand>> = std::iter::once(Some(Operand::Full))
        .chain(rest.iter().map(|t| operand_kind(t.dims(), &dims)))
        .collect();
    let Some(kinds) = kinds else { return Ok(None) };
    crate::device::log(producer.op.tf_name(), Device::Cpu);
    crate::device::log("FusedElementwise", Device::Cpu);
    macro_rules! typed {
        ($t:ty) => {{
            let values = values_of::<$t>;
            let rest: Vec<&[$t]> = rest.iter().map(|t| values(t)).collect::<Result<_>>()?;
            let epilogue = fused_cpu::Epilogue::new(chain, &rest, &kinds);
            let run = |offset: usize, tile: &[$t], dst: &mut [MaybeUninit<$t>]| {
                epilogue.run(offset, tile, dst)
            };
            let out = match (&producer.op, own) {
                (Op::MaxPoolGrad(grad), [x, g]) => {
                    let image = crate::ops::patches::check_max_pool_grad(x, g, &grad.0)?;
                    crate::ops::patches::max_pool_grad_then(
                        values(x)?,
                        values(g)?,
                        image,
                        &grad.0,
                        run,
                    )
                }
                (Op::Composite(Composite::Conv2D { window, padding }), [x, f]) => {
                    crate::ops::conv::conv2d_then(
                        (x, values(x)?),
                        (f, values(f)?),
                        window,
                        padding,
                        run,
                    )?
                }
                _ => return Ok(None),
            };
            <$t>::wrap(out)
        }};
    }
    let out = match chain.dtype {
        DType::F32 => typed!(f32),
        _ => typed!(f64),
    };
    Ok(Some(Tensor::from_buffer(out, Shape(dims))?))
}

/// Runs the steps in order with `kernel`; the last step's result is the chain's.
fn steps_with(
    chain: &FusedChain,
    inputs: &[&Tensor],
    kernel: fn(&Op, &[&Tensor]) -> Result<Vec<Tensor>>,
) -> Result<Tensor> {
    let mut results: Vec<Tensor> = Vec::with_capacity(chain.steps.len());
    for step in &chain.steps {
        let args: Vec<&Tensor> = step.args.iter().map(|a| pick(*a, inputs, &results)).collect();
        let out = kernel(&step.op, &args)?;
        results.push(
            out.into_iter().next().ok_or_else(|| Error::Internal("fused step output".into()))?,
        );
    }
    results.pop().ok_or_else(|| Error::Internal("empty fused chain".into()))
}

fn pick<'a>(a: Arg, inputs: &[&'a Tensor], results: &'a [Tensor]) -> &'a Tensor {
    match a {
        Arg::Input(k) => inputs[k],
        Arg::Step(j) => &results[j],
    }
}

fn run_cpu(
    chain: &FusedChain,
    inputs: &[&Tensor],
    shape: &Shape,
    kinds: &[Operand],
) -> Result<Tensor> {
    let n = shape.num_elements();
    let typed = matches!(chain.dtype, DType::F32 | DType::F64)
        && inputs.iter().all(|t| t.dtype() == chain.dtype)
        && fused_cpu::supported(chain);
    // The chunked path slices full inputs only, and runs primitives' kernels on pool threads:
    // a composite there would be placed again as an eager op, outside the node's device
    // scope (which is the calling thread's).
    let composite = chain.steps.iter().any(|s| matches!(s.op, Op::Composite(_)));
    if !typed && (kinds.contains(&Operand::Row) || composite) {
        return run_steps(chain, inputs);
    }
    crate::device::log("FusedElementwise", Device::Cpu);
    if typed {
        macro_rules! typed {
            ($t:ty) => {{
                let slices: Vec<&[$t]> = inputs
                    .iter()
                    .map(|t| <$t>::unwrap(t.buffer()).map(|v| v.as_slice()))
                    .collect::<Option<_>>()
                    .ok_or_else(|| Error::Internal("fused chain dtype".into()))?;
                let out = <$t>::wrap(fused_cpu::run(chain, &slices, kinds, n));
                return Tensor::from_buffer(out, shape.clone());
            }};
        }
        match chain.dtype {
            DType::F32 => typed!(f32),
            DType::F64 => typed!(f64),
            _ => {}
        }
    }
    let out = crate::with_dtype!(chain.dtype, T => {
        let mut out: Vec<T> = vec![T::from_f64(0.0); n];
        out.par_chunks_mut(CHUNK).enumerate().try_for_each(|(c, dst)| -> Result<()> {
            let start = c * CHUNK;
            let part: Vec<Tensor> = inputs
                .iter()
                .map(|t| match t.num_elements() {
                    1 => (*t).clone(),
                    _ => chunk_of(t, start, dst.len()),
                })
                .collect();
            let refs: Vec<&Tensor> = part.iter().collect();
            let result = steps_with(chain, &refs, dispatch::cpu_kernel)?;
            let values: &Vec<T> = T::unwrap(result.buffer())
                .ok_or_else(|| Error::Internal("fused chain dtype".into()))?;
            dst.copy_from_slice(values);
            Ok(())
        })?;
        T::wrap(out)
    }, else return Err(Error::Internal("fused chains are numeric".into())));
    Tensor::from_buffer(out, shape.clone())
}

fn values_of<T: Element>(t: &Tensor) -> Result<&[T]> {
    T::unwrap(t.buffer())
        .map(|v| v.as_slice())
        .ok_or_else(|| Error::Internal("fused chain dtype".into()))
}

fn chunk_of(t: &Tensor, start: usize, len: usize) -> Tensor {
    let buffer: Buffer =
        crate::with_movable!(t.buffer(), v => Movable::wrap_vec(v[start..start + len].to_vec()));
    Tensor::from_buffer_unchecked(buffer, Shape(vec![len]))
}
