//! Tracing as abstract evaluation: while a trace is open, an op on traced values does not run
//! its kernel. Its outputs' shapes and dtypes come from its declared shape rule over the
//! inputs' example types, and its values stay deferred (`Storage::Deferred`): they are
//! computed once, only if something reads them (a composition that needs a
//! value). A `tf.cond` or `tf.while_loop` node whose outputs' sizes are all known is deferred
//! the same way (its example run, branch choice and iterations included, happens if read).
//! Where an output size depends on values (where, unique, a shape input computed from data)
//! or on such a value, the output is lazy: its shape too is known only once the kernel runs,
//! which happens only if a composition reads it. Ops on constants only run at once (the
//! trace's constant folding).

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
    /// The first failure of a lazy shape's example run: `Tensor::shape` cannot return it, so
    /// the trace reports it when it finishes.
    static SHAPE_FAILURE: std::cell::RefCell<Option<Error>> = const { std::cell::RefCell::new(None) };
    /// Types `Tensor.set_shape` gave lazy values of the open trace, by (run, output).
    static REFINED: std::cell::RefCell<std::collections::HashMap<(usize, usize), TensorType>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
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

/// A deferred output's shape and whether it is lazy (some size unknown: the shape is a
/// stand-in with 0 there). None where a known element count does not fit in memory: the
/// kernel then runs now and reports it as eager mode would (no tensor of an impossible shape
/// is ever made).
fn allocatable(t: &TensorType) -> Option<(DType, Shape, bool)> {
    if !t.fully_known() {
        return Some((t.dtype, Shape(t.dims.iter().map(|d| d.unwrap_or(0)).collect()), true));
    }
    let dims: Vec<usize> = t.dims.iter().flatten().copied().collect();
    let n = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
    crate::shape::check_alloc(n, t.dtype).ok()?;
    Some((t.dtype, Shape(dims), false))
}

/// What abstract evaluation knows of `t`: a lazy value's inferred type, else its own dims
/// (reading them does not specialise the trace).
pub fn static_type(t: &Tensor) -> TensorType {
    if let Some((run, output)) = t.deferred_source().filter(|_| t.is_lazy()) {
        let key = (run as *const DeferredRun as usize, output);
        if let Some(refined) = REFINED.with(|r| r.borrow().get(&key).cloned()) {
            return refined;
        }
        if let Some(known) = run.types.get(output) {
            return known.clone();
        }
    }
    TensorType::known(t.dtype(), t.shape().dims())
}

/// A lazy output's shape, running its kernel (and its inputs') on the examples if need be.
/// None if that fails: the failure is kept for the trace to report.
pub fn shape(run: &DeferredRun, output: usize) -> Option<&Shape> {
    match value(run, output) {
        Ok(t) => Some(t.shape()),
        Err(e) => {
            SHAPE_FAILURE.with(|f| {
                f.borrow_mut().get_or_insert(e);
            });
            None
        }
    }
}

/// What `Tensor.set_shape` says of a lazy value `t` (its static type from now on).
pub(crate) fn refine(t: &Tensor, refined: TensorType) {
    if let Some((run, output)) = t.deferred_source().filter(|_| t.is_lazy()) {
        let key = (run as *const DeferredRun as usize, output);
        REFINED.with(|r| r.borrow_mut().insert(key, refined));
    }
}

/// Whether `t` is a lazy value standing in for results of a host call (see
/// `DeferredRun::stands_in`): its example, when read, is zeros of its type.
pub(crate) fn stands_in(t: &Tensor) -> bool {
    t.deferred_source().filter(|_| t.is_lazy()).is_some_and(|(run, _)| run.stands_in)
}

/// Forgets the refinements (the outermost trace begins or ends: no lazy value outlives it).
pub(crate) fn forget_refined() {
    REFINED.with(|r| r.borrow_mut().clear());
}

/// The failure `shape` kept since the last call, if any.
pub fn take_shape_failure() -> Option<Error> {
    SHAPE_FAILURE.with(|f| f.borrow_mut().take())
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
    /// The outputs' types as abstract evaluation gave them.
    types: Vec<TensorType>,
    /// It depends on a host call's results, which have no value before the graph runs: read
    /// while tracing, its outputs are stand-ins of its types (`host_call::stand_in`).
    stands_in: bool,
    results: OnceLock<Vec<Tensor>>,
}

impl std::fmt::Debug for DeferredRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeferredRun({})", self.work.name())
    }
}

impl DeferredRun {
    /// Whether the outputs have been computed.
    pub fn is_done(&self) -> bool {
        self.results.get().is_some()
    }

    /// The outputs, computed the first time (inputs first, so a failure is an error).
    pub fn results(&self) -> Result<&[Tensor]> {
        if let Some(done) = self.results.get() {
            return Ok(done);
        }
        if self.stands_in {
            let outputs = self.types.iter().map(crate::ops::host_call::stand_in);
            let outputs = outputs.collect::<Result<Vec<Tensor>>>()?;
            return Ok(self.results.get_or_init(|| outputs));
        }
        let _materialising = Materialising::enter();
        // `Shape` and its kind read only their inputs' shapes: the inputs' values can wait.
        let values_read = match &self.work {
            Work::Op(op) => !op.primitive().reads_only_shapes(),
            Work::Node(_) => true,
        };
        let computed = (|| {
            for t in self.inputs.iter().filter(|_| values_read) {
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
/// constants only, or where a known output size does not fit in memory.
pub fn defer(op: &Op, inputs: &[&Tensor]) -> Result<Option<Vec<Tensor>>> {
    if !super::trace::open() || MATERIALISING.with(Cell::get) > 0 {
        return Ok(None);
    }
    let primitive = op.primitive();
    if !primitive.arity().admits(inputs.len()) {
        return Ok(None);
    }
    let types: Vec<TensorType> = inputs.iter().map(|t| static_type(t)).collect();
    let recording = super::trace::recording();
    let traced = |t: &&Tensor| t.is_deferred() || super::trace::is_symbolic(t);
    if !primitive.stateful() && !inputs.iter().any(traced) {
        // Constants fold, but a shape error is still the graph's (checked as TensorFlow
        // builds a node), raised as it would be there.
        if recording {
            primitive.infer(&types).map_err(shape_function_error)?;
        }
        return Ok(None);
    }
    let inputs_owned = inputs.iter().map(|t| (*t).clone()).collect();
    // Values of unknown rank (host calls' results): their types come from the rank rule, and
    // they are lazy, so a composition that reads their sizes fails instead of reading a stand-in.
    let unknown: Vec<bool> = inputs.iter().map(|t| super::trace::has_unknown_rank(t)).collect();
    if let Some((outputs, marks)) = crate::ops::host_call::rank_rule(op, &types, &unknown)? {
        return Ok(deferred_outputs(Work::Op(op.clone()), inputs_owned, outputs, &marks));
    }
    let outputs = match recording {
        // The trace's own types first: sizes its signature leaves unknown may not be judged
        // by the example's. Rules that need a size the trace lacks (a shape of unknown
        // length) take the example's, specialising the trace as before.
        // The elements of shape inputs the trace knows (a `[batch, 3]` built from a traced
        // batch size) count as they do for the node's recorded type: a lazy value's stand-in
        // must have the sizes the graph says it has.
        true => {
            let traced: Vec<TensorType> = inputs.iter().map(|t| traced_type(t)).collect();
            let known = super::trace::known_inputs(op, inputs);
            primitive
                .infer_with_values(&traced, &known)
                .or_else(|_| primitive.infer(&traced))
                .or_else(|_| primitive.infer(&types))
                .map_err(shape_function_error)?
        }
        false => primitive.infer(&types)?,
    };
    Ok(deferred_outputs(Work::Op(op.clone()), inputs_owned, outputs, &[]))
}

/// What the trace knows of an input's type: a deferred value's own type, else the traced
/// value's static dims (a signature's unknown sizes stay unknown, so a shape rule never
/// rejects what only the example's sizes make incompatible: TensorFlow decides that when the
/// graph runs).
fn traced_type(t: &Tensor) -> TensorType {
    if t.is_deferred() {
        return static_type(t);
    }
    TensorType { dtype: t.dtype(), dims: super::trace::static_dims(t) }
}

/// A shape rule's error while a graph is built: TensorFlow's shape functions raise ValueError
/// there (the same mismatch run eagerly is an InvalidArgumentError), and its graph builder
/// checks dtypes first, raising TypeError for inputs that disagree or that an op refuses
/// (`Error::dtype_mismatch`/`unsupported_dtype` wording).
fn shape_function_error(e: Error) -> Error {
    match graph_dtype_error(e) {
        Error::InvalidArgument(m) => Error::Value(m),
        other => other,
    }
}

/// An op's dtype refusal while a graph is built is TensorFlow's graph builder's TypeError.
pub(crate) fn graph_dtype_error(e: Error) -> Error {
    match e {
        Error::InvalidArgument(m) if is_dtype_error(&m) => Error::Type(m),
        other => other,
    }
}

fn is_dtype_error(message: &str) -> bool {
    (message.starts_with("cannot compute ")
        && message.contains("(zero-based) was expected to be a"))
        || message.starts_with("Value for attr 'T' of ")
}

/// Deferred outputs of the given types, or None where one cannot be allocated; those marked in
/// `unknown_rank` are lazy (their types stand in with no dims).
fn deferred_outputs(
    work: Work,
    inputs: Vec<Tensor>,
    types: Vec<TensorType>,
    unknown_rank: &[bool],
) -> Option<Vec<Tensor>> {
    let mut shapes = types.iter().map(allocatable).collect::<Option<Vec<_>>>()?;
    for (shape, &unknown) in shapes.iter_mut().zip(unknown_rank) {
        shape.2 |= unknown;
    }
    let stands_in = matches!(&work, Work::Op(Op::HostCall(_)))
        || inputs.iter().any(|t| t.deferred_source().is_some_and(|(run, _)| run.stands_in));
    let run = Arc::new(DeferredRun { work, inputs, types, stands_in, results: OnceLock::new() });
    Some(
        shapes
            .into_iter()
            .enumerate()
            .map(|(i, (dtype, shape, lazy))| Tensor::deferred(run.clone(), i, shape, dtype, lazy))
            .collect(),
    )
}

/// A control-flow node's example outputs, deferred (lazy where a size is unknown) where the
/// node assigns no variable (an example run assigns the trace's view of a variable, which
/// must happen where the node was traced, not whenever a value is read).
pub fn defer_node(
    node: &Node,
    inputs: &[Tensor],
    types: &[TensorType],
    unknown_rank: &[bool],
) -> Option<Vec<Tensor>> {
    if !super::trace::open() || MATERIALISING.with(Cell::get) > 0 {
        return None;
    }
    if !inputs.iter().any(|t| t.is_deferred() || super::trace::is_symbolic(t)) {
        return None;
    }
    if subgraphs(&node.kind).iter().any(|g| assigns(g)) {
        return None;
    }
    let work = Work::Node(Box::new(node.clone()));
    deferred_outputs(work, inputs.to_vec(), types.to_vec(), unknown_rank)
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
