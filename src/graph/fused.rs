//! A chain of elementwise ops fused by the fusion pass, and how it runs: one generated WGSL
//! kernel on a GPU; on the CPU one parallel pass over the data — float32/float64 chains of
//! arithmetic and math ops through typed block loops (`fused_cpu`), other chains of
//! primitives over full inputs and scalars in cache-sized chunks through the eager CPU
//! kernels; the rest (rows, Relu) step by step. Under a gradient tape the steps run one by
//! one, so each is recorded.

use crate::buffer::Buffer;
use crate::device::Device;
use crate::dispatch::{self, Op};
use crate::dtype::DType;
use crate::element::{Element, Movable};
use crate::error::{Error, Result};
use crate::graph::fused_cpu;
use crate::shape::Shape;
use crate::tensor::Tensor;
use rayon::prelude::*;

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
    let Some((shape, kinds)) = common_shape(inputs) else { return run_steps(chain, inputs) };
    // Under `enable_check_numerics` each step is checked (and named) as TensorFlow's ops are.
    if crate::autodiff::tape::any_active() || crate::check_numerics::enabled() {
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

/// Each step as its own op through the funnel (recorded on tapes, placed as eager).
pub fn run_steps(chain: &FusedChain, inputs: &[&Tensor]) -> Result<Tensor> {
    steps_with(chain, inputs, dispatch::apply)
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

fn chunk_of(t: &Tensor, start: usize, len: usize) -> Tensor {
    let buffer: Buffer =
        crate::with_movable!(t.buffer(), v => Movable::wrap_vec(v[start..start + len].to_vec()));
    Tensor::from_buffer_unchecked(buffer, Shape(vec![len]))
}
