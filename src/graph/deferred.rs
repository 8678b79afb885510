//! Tracing as abstract evaluation: while a trace is open, an op on traced values does not run
//! its kernel. Its outputs' shapes and dtypes come from its declared shape rule over the
//! inputs' example types, and its values stay deferred (`Storage::Deferred`): they are
//! computed once, only if something reads them (a composition that needs a
//! value). A `tf.cond` or `tf.while_loop` node whose outputs' sizes are all known is deferred
//! the same way (its example run, branch choice and iterations included, happens if read).
//! Ops whose output sizes depend on values (where, unique, a shape input) run at once, as do
//! ops on constants only (the trace's constant folding).

use super::ir::{Graph, Node, NodeKind};
use crate::dispatch::Op;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::TensorType;
use crate::shape::Shape;
use crate::tensor::Tensor;
use std::cell::Cell;
use std::sync::{Arc, OnceLock};

thread_local! {
    /// Set while deferred values are being computed: their parts run for real.
    static MATERIALISING: Cell<usize> = const { Cell::new(0) };
}

/// Marks a materialisation for its scope (also when a kernel unwinds).
struct Materialising;

impl Materialising {
    fn enter() -> Materialising {
        MATERIALISING.with(|m| m.set(m.get() + 1));
        Materialising
    }
}

impl Drop for Materialising {
    fn drop(&mut self) {
        MATERIALISING.with(|m| m.set(m.get() - 1));
    }
}

/// A deferred output's shape, where its element count fits in memory; otherwise the kernel runs
/// now and reports it as eager mode would (no tensor of an impossible shape is ever made).
fn allocatable(t: &TensorType) -> Option<(DType, Shape)> {
    let dims = t.dims.iter().copied().collect::<Option<Vec<usize>>>()?;
    let n = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
    crate::shape::check_alloc(n, t.dtype).ok()?;
    Some((t.dtype, Shape(dims)))
}

/// What a deferred run computes: an op, or a control-flow node's example run.
enum Work {
    Op(Op),
    Node(Box<Node>),
}

impl Work {
    fn name(&self) -> &str {
        match self {
            Work::Op(op) => op.tf_name(),
            Work::Node(node) => node.type_name(),
        }
    }
}

/// One deferred op call: its inputs and, once read, its outputs.
pub struct DeferredRun {
    work: Work,
    inputs: Vec<Tensor>,
    results: OnceLock<Vec<Tensor>>,
}

impl std::fmt::Debug for DeferredRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeferredRun({})", self.work.name())
    }
}

impl DeferredRun {
    /// The outputs, computed the first time (inputs first, so a failure is an error).
    pub fn results(&self) -> Result<&[Tensor]> {
        if let Some(done) = self.results.get() {
            return Ok(done);
        }
        let _materialising = Materialising::enter();
        let computed = (|| {
            for t in &self.inputs {
                t.host()?;
            }
            let refs: Vec<&Tensor> = self.inputs.iter().collect();
            let _quiet = (super::trace::suspend(), crate::autodiff::tape::pause_all());
            let outputs = match &self.work {
                Work::Op(op) => crate::dispatch::execute_now(op, &refs)?,
                Work::Node(node) => super::executor::eval_example(node, &self.inputs)?,
            };
            for t in &outputs {
                t.host()?;
            }
            Ok(outputs)
        })();
        let outputs: Vec<Tensor> = computed?;
        Ok(self.results.get_or_init(|| outputs))
    }
}

/// `op`'s outputs as deferred values, or None where it must run now: outside traces, on
/// constants only, or where an output size depends on values.
pub fn defer(op: &Op, inputs: &[&Tensor]) -> Result<Option<Vec<Tensor>>> {
    if !super::trace::open() || MATERIALISING.with(Cell::get) > 0 {
        return Ok(None);
    }
    let primitive = op.primitive();
    let traced = |t: &&Tensor| t.is_deferred() || super::trace::is_symbolic(t);
    if !primitive.stateful() && !inputs.iter().any(traced) {
        return Ok(None);
    }
    if !primitive.arity().admits(inputs.len()) {
        return Ok(None);
    }
    // The example's own dims: reading them must not specialise the trace.
    let types: Vec<TensorType> =
        inputs.iter().map(|t| TensorType::known(t.dtype(), t.shape().dims())).collect();
    let outputs = primitive.infer(&types)?;
    let Some(shapes) = outputs.iter().map(allocatable).collect::<Option<Vec<_>>>() else {
        return Ok(None);
    };
    let inputs = inputs.iter().map(|t| (*t).clone()).collect();
    Ok(Some(deferred_outputs(Work::Op(op.clone()), inputs, shapes)))
}

fn deferred_outputs(work: Work, inputs: Vec<Tensor>, shapes: Vec<(DType, Shape)>) -> Vec<Tensor> {
    let run = Arc::new(DeferredRun { work, inputs, results: OnceLock::new() });
    shapes
        .into_iter()
        .enumerate()
        .map(|(i, (dtype, shape))| Tensor::deferred(run.clone(), i, shape, dtype))
        .collect()
}

/// A control-flow node's example outputs, deferred where every output size is known and the
/// node assigns no variable (an example run assigns the trace's view of a variable, which
/// must happen where the node was traced, not whenever a value is read).
pub fn defer_node(node: &Node, inputs: &[Tensor], types: &[TensorType]) -> Option<Vec<Tensor>> {
    if !super::trace::open() || MATERIALISING.with(Cell::get) > 0 {
        return None;
    }
    if !inputs.iter().any(|t| t.is_deferred() || super::trace::is_symbolic(t)) {
        return None;
    }
    if subgraphs(&node.kind).iter().any(|g| assigns(g)) {
        return None;
    }
    let shapes = types.iter().map(allocatable).collect::<Option<Vec<_>>>()?;
    Some(deferred_outputs(Work::Node(Box::new(node.clone())), inputs.to_vec(), shapes))
}

fn subgraphs(kind: &NodeKind) -> Vec<&Graph> {
    match kind {
        NodeKind::Cond(branches) => branches.iter().map(|g| &**g).collect(),
        NodeKind::While { cond, body, .. } => vec![&**cond, &**body],
        _ => Vec::new(),
    }
}

fn assigns(graph: &Graph) -> bool {
    graph.nodes.iter().any(|n| {
        matches!(n.kind, NodeKind::AssignVariable(_))
            || subgraphs(&n.kind).iter().any(|g| assigns(g))
    })
}

/// The `output`-th result of a deferred run, computed if need be.
pub fn value(run: &DeferredRun, output: usize) -> Result<&Tensor> {
    run.results()?
        .get(output)
        .ok_or_else(|| Error::Internal(format!("{} has no output {output}", run.work.name())))
}
