//! Tracing: while a `tf.function` body runs, every op through `dispatch::apply` also becomes a
//! graph node. Tracing runs the ops on example values (the call's own arguments), so every
//! op's shape and dtype rules are the eager ones; the graph keeps what was done, not the values.
//! Frames nest: a `tf.cond` branch or loop body is traced into its own frame, and values it
//! reads from an enclosing frame become that subgraph's extra inputs (captures).

use super::ir::{Graph, Node, NodeKind, ValueRef};
use super::known_ints::{self, KnownInts};
use crate::dispatch::Op;
use crate::error::{Error, Result};
use crate::ops::ensure_shape::EnsureShape;
use crate::ops::primitive::{describe_dims, TensorType};
use crate::tensor::Tensor;
use crate::variable::Variable;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Default)]
struct Frame {
    graph: Graph,
    values: HashMap<u64, ValueRef>,
    /// Per node: its value depends on inputs, variables or randomness (not a constant).
    symbolic: Vec<bool>,
    /// Symbolic integer vectors whose elements are known in part (shapes built from `Shape`).
    known_ints: HashMap<ValueRef, KnownInts>,
    /// Values of the enclosing frame that feed this frame's capture placeholders, and the
    /// example tensors they were captured as.
    captures: Vec<ValueRef>,
    capture_examples: Vec<Tensor>,
    /// Placeholders for arguments (captures come after them).
    arguments: usize,
    /// Variable values assigned while tracing (variables themselves change only when run).
    shadow: HashMap<u64, Tensor>,
    names: HashMap<String, usize>,
    /// Some value has an unknown dimension.
    has_unknown: bool,
    /// A node bakes in a shape while some dimension is unknown (see `Traced::specialised`).
    specialised: bool,
    /// Values whose example size a composition read, each checked once (`note_dims_read`).
    checked: std::collections::HashSet<ValueRef>,
}

thread_local! {
    static FRAMES: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
    static SUSPENDED: Cell<usize> = const { Cell::new(0) };
    /// Some open frame has a value with an unknown dimension (cleared when the last closes):
    /// lets `note_dims_read` cost one thread-local read everywhere else.
    static UNKNOWN_DIMS: Cell<bool> = const { Cell::new(false) };
    /// Some open frame has a value of unknown rank (a host call's result; cleared with
    /// `UNKNOWN_DIMS`): lets `has_unknown_rank` cost one thread-local read everywhere else.
    static UNKNOWN_RANK: Cell<bool> = const { Cell::new(false) };
    /// The first tensor id of the outermost open trace: a tensor with a smaller id existed
    /// before the trace began, so a traced function that reads it closes over it.
    static FIRST_TRACED_ID: Cell<u64> = const { Cell::new(0) };
    /// The open trace's op-seed counter (TensorFlow's per-graph seeds for random ops that get
    /// only the global seed); reset when the outermost trace begins.
    static OP_SEEDS: Cell<i64> = const { Cell::new(0) };
    /// Open `requested_shape` scopes.
    static REQUESTED: Cell<usize> = const { Cell::new(0) };
    /// `tf.name_scope`'s prefix ("outer/inner/") for the names of recorded nodes.
    static NAME_SCOPE: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Sets the prefix of node names recorded from now on; returns the previous one.
pub fn set_name_scope(prefix: String) -> String {
    NAME_SCOPE.with(|s| std::mem::replace(&mut *s.borrow_mut(), prefix))
}

/// A finished trace: the graph and, for subgraphs, the enclosing values it captured.
pub struct Traced {
    pub graph: Graph,
    pub captures: Vec<ValueRef>,
    /// The enclosing frame's tensors behind `captures` (a subgraph's extra inputs).
    pub capture_examples: Vec<Tensor>,
    /// Some node's attributes (a fill or broadcast shape) were computed from an example shape
    /// where the signature leaves a dimension unknown: the graph is only valid for the traced
    /// shapes, so callers must trace again for other shapes.
    pub specialised: bool,
}

/// True while a trace records on this thread. While the frames are being edited (a node is
/// being recorded and some example value it reads runs its kernel) nothing nested records.
pub fn recording() -> bool {
    SUSPENDED.with(|s| s.get() == 0)
        && FRAMES.with(|f| f.try_borrow().map(|frames| !frames.is_empty()).unwrap_or(false))
}

/// True while a trace is open on this thread, recording or not (frames being edited mean
/// one is open).
pub fn open() -> bool {
    FRAMES.with(|f| f.try_borrow().map(|frames| !frames.is_empty()).unwrap_or(true))
}

/// While alive, ops run without being recorded (kernels' inner ops, example evaluation).
pub struct Suspend(());

pub fn suspend() -> Suspend {
    SUSPENDED.with(|s| s.set(s.get() + 1));
    Suspend(())
}

impl Drop for Suspend {
    fn drop(&mut self) {
        SUSPENDED.with(|s| s.set(s.get() - 1));
    }
}

/// While alive, a shape attribute of the ops recorded is what the caller asked for (the numbers
/// a user passed to `tf.fill`), not an example's size: it does not specialise the trace.
pub struct RequestedShape(());

pub fn requested_shape() -> RequestedShape {
    REQUESTED.with(|r| r.set(r.get() + 1));
    RequestedShape(())
}

impl Drop for RequestedShape {
    fn drop(&mut self) {
        REQUESTED.with(|r| r.set(r.get() - 1));
    }
}

/// The next op seed of the open trace's graph, or None outside traces.
pub fn next_op_seed() -> Option<i64> {
    open().then(|| {
        OP_SEEDS.with(|c| {
            c.set(c.get() + 1);
            c.get()
        })
    })
}

/// Starts a graph (`tf.function` body, or a branch/loop body inside one).
pub fn begin() {
    if !open() {
        OP_SEEDS.with(|c| c.set(0));
        FIRST_TRACED_ID.with(|c| c.set(crate::tensor::fresh_id()));
        super::deferred::take_shape_failure();
        super::deferred::forget_refined();
    }
    FRAMES.with(|f| f.borrow_mut().push(Frame::default()));
}

/// Abandons the innermost frame (the traced Python function raised).
pub fn abandon() {
    FRAMES.with(|f| f.borrow_mut().pop());
    forget_unknown_when_closed();
}

fn forget_unknown_when_closed() {
    if !open() {
        UNKNOWN_DIMS.with(|u| u.set(false));
        UNKNOWN_RANK.with(|u| u.set(false));
        super::deferred::forget_refined();
    }
}

/// Marks node `node`'s outputs whose rank is unknown (`Node::unknown_rank`).
fn mark_unknown_rank(frame: &mut Frame, node: usize, marks: Vec<bool>) {
    if marks.iter().any(|&m| m) {
        UNKNOWN_RANK.with(|u| u.set(true));
        frame.has_unknown = true;
        UNKNOWN_DIMS.with(|u| u.set(true));
        frame.graph.nodes[node].unknown_rank = marks;
    }
}

/// True for a traced value whose rank is unknown until the graph runs (the result of a host
/// call, `tf.py_function`, or of elementwise ops on one).
pub fn has_unknown_rank(t: &Tensor) -> bool {
    if !UNKNOWN_RANK.with(Cell::get) {
        return false;
    }
    FRAMES.with(|f| {
        let Ok(frames) = f.try_borrow() else { return false };
        let Some(depth) = frames.len().checked_sub(1) else { return false };
        find(&frames, depth, t.id()).is_some_and(|(d, v)| frames[d].graph.unknown_rank(v))
    })
}

/// `Tensor.set_shape` on a value of the trace in progress: its static dims merged with `dims`
/// (TensorFlow's `merge_with`, with its errors), from now on for every reader. False where `t`
/// is not a traced value (eager tensors only check compatibility).
pub fn set_static_dims(t: &Tensor, dims: &[Option<usize>]) -> Result<bool> {
    let merged = FRAMES.with(|f| -> Result<Option<TensorType>> {
        let mut frames = f.borrow_mut();
        let Some(depth) = frames.len().checked_sub(1) else { return Ok(None) };
        let Some((d, v)) = find(&frames, depth, t.id()) else { return Ok(None) };
        let graph = &mut frames[d].graph;
        let rank_unknown = graph.unknown_rank(v);
        let info = graph.info(v).clone();
        let merged = match rank_unknown {
            true => dims.to_vec(),
            false => merge_dims(&info.dims, dims)?,
        };
        let node = &mut graph.nodes[v.node];
        node.outputs[v.output].dims = merged.clone();
        if let Some(mark) = node.unknown_rank.get_mut(v.output) {
            *mark = false;
        }
        Ok(Some(TensorType { dtype: info.dtype, dims: merged }))
    })?;
    let Some(merged) = merged else { return Ok(false) };
    super::deferred::refine(t, merged);
    Ok(true)
}

/// A graph inlined into the trace in progress (a concrete function called there): a value
/// recorded for one of its nodes keeps what that graph knows of it (a `set_shape` made there,
/// the shape given to a host call's result) where the op recorded anew knows less, as
/// TensorFlow's call op has the function's output shapes. `inputs` are the node's: a value
/// passed through unchanged is the caller's, and keeps the caller's type.
pub(crate) fn keep_declared_types(node: &Node, inputs: &[u64], outputs: &[Tensor]) -> Result<()> {
    for (k, (info, t)) in node.outputs.iter().zip(outputs).enumerate() {
        if node.unknown_rank.get(k).copied().unwrap_or(false) || inputs.contains(&t.id()) {
            continue;
        }
        let less_known = has_unknown_rank(t) || {
            let own = static_dims(t);
            own.len() == info.dims.len()
                && own.iter().zip(&info.dims).any(|(o, d)| o.is_none() && d.is_some())
        };
        if less_known {
            set_static_dims(t, &info.dims)?;
        }
    }
    Ok(())
}

/// TensorFlow's `TensorShape.merge_with` of known dims, with its errors.
fn merge_dims(own: &[Option<usize>], given: &[Option<usize>]) -> Result<Vec<Option<usize>>> {
    if own.len() != given.len() {
        return Err(Error::Value(format!(
            "Shapes must be equal rank, but are {} and {}",
            own.len(),
            given.len()
        )));
    }
    own.iter()
        .zip(given)
        .enumerate()
        .map(|(i, (a, b))| match (a, b) {
            (Some(a), Some(b)) if a != b => Err(Error::Value(format!(
                "Dimension {i} in both shapes must be equal, but are {a} and {b}. Shapes are {} \
                 and {}.",
                describe_dims(own),
                describe_dims(given)
            ))),
            _ => Ok(a.or(*b)),
        })
        .collect()
}

/// Marks outputs of the node just recorded for `outputs` (control flow) as of unknown rank.
pub(crate) fn set_unknown_rank(outputs: &[Tensor], marks: &[bool]) {
    if !marks.iter().any(|&m| m) {
        return;
    }
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        let Some(frame) = frames.last_mut() else { return };
        let Some(v) = outputs.first().and_then(|o| frame.values.get(&o.id()).copied()) else {
            return;
        };
        mark_unknown_rank(frame, v.node, marks.to_vec());
    })
}

fn mark_unknown(frame: &mut Frame, unknown: bool) {
    frame.has_unknown |= unknown;
    if unknown {
        UNKNOWN_DIMS.with(|u| u.set(true));
    }
}

/// Compositions read a value's example dims (`Tensor::dims`) to build attributes and
/// constants (a mean's count, expand_dims's target shape). Where the traced value has an
/// unknown dimension those are the example's sizes, so the graph becomes valid only for the
/// traced shapes and callers trace again for others. Kernels run suspended and the trace's
/// own bookkeeping holds the frames, so neither counts.
pub fn note_dims_read(t: &Tensor) {
    if !UNKNOWN_DIMS.with(Cell::get) || SUSPENDED.with(Cell::get) > 0 {
        return;
    }
    // A lazy value's example runs here, before the frames are borrowed (its ops look at them).
    let dims = t.shape().dims().to_vec();
    FRAMES.with(|f| {
        let Ok(mut frames) = f.try_borrow_mut() else { return };
        let Some(depth) = frames.len().checked_sub(1) else { return };
        let Some((d, v)) = find(&frames, depth, t.id()) else { return };
        // A value of unknown rank (a host call's result) stands in as a scalar: checked too.
        if frames[d].graph.info(v).fully_known() && !frames[d].graph.unknown_rank(v) {
            return;
        }
        frames[depth].specialised = true;
        // Retracing per input shape covers sizes that follow the signature, not sizes that
        // follow values (a boolean mask's): the check turns those into an error at run time.
        let v = resolve(&mut frames, depth, t);
        let frame = &mut frames[depth];
        if frame.checked.insert(v) {
            let check =
                EnsureShape { shape: dims.iter().map(|&d| Some(d)).collect(), traced_size: true };
            let info = TensorType::known(t.dtype(), &dims);
            let kind = NodeKind::Op(Op::EnsureShape(check));
            push_node(frame, kind, vec![v], vec![info], "EnsureShape", true);
        }
    })
}

fn unique_name(frame: &mut Frame, base: &str) -> String {
    let base = NAME_SCOPE.with(|s| format!("{}{base}", s.borrow()));
    let n = frame.names.entry(base.clone()).or_insert(0);
    *n += 1;
    if *n == 1 {
        base.to_string()
    } else {
        format!("{base}_{}", *n - 1)
    }
}

fn push_node(
    frame: &mut Frame,
    kind: NodeKind,
    inputs: Vec<ValueRef>,
    outputs: Vec<TensorType>,
    base: &str,
    symbolic: bool,
) -> usize {
    let name = unique_name(frame, base);
    let index = frame.graph.nodes.len();
    frame.graph.nodes.push(Node {
        kind,
        inputs,
        outputs,
        unknown_rank: Vec::new(),
        name,
        device: crate::device::current_scope(),
        captured: false,
    });
    frame.symbolic.push(symbolic);
    index
}

/// A new argument of the innermost graph: returns the tensor the traced body sees.
pub fn placeholder(example: &Tensor, name: &str, dims: Vec<Option<usize>>) -> Result<Tensor> {
    if dims.len() != example.rank() {
        return Err(Error::Internal("placeholder rank differs from its example".into()));
    }
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        let frame = frames.last_mut().ok_or_else(not_tracing)?;
        let value = example.with_fresh_id();
        mark_unknown(frame, dims.iter().any(Option::is_none));
        let info = TensorType { dtype: example.dtype(), dims };
        let index = frame.arguments;
        frame.arguments += 1;
        let node = push_node(frame, NodeKind::Placeholder(index), vec![], vec![info], name, true);
        frame.values.insert(value.id(), ValueRef { node, output: 0 });
        Ok(value)
    })
}

fn not_tracing() -> Error {
    Error::Internal("no trace is open".into())
}

/// The value `t` in frame `depth`, capturing it from enclosing frames or as a constant.
fn resolve(frames: &mut [Frame], depth: usize, t: &Tensor) -> ValueRef {
    if let Some(&v) = frames[depth].values.get(&t.id()) {
        return v;
    }
    let mut outer = if depth > 0 { find(frames, depth - 1, t.id()) } else { None };
    let closed_over = closed_over(t);
    // A float eager value the function closes over, or one a tape watches, first read inside
    // a branch or loop body, enters the outermost graph as a constant and reaches the
    // subgraph as a capture: the control-flow node then takes it as an input, so a tape's
    // gradient reaches it (as TensorFlow's captured eager tensors), whether the tape is open
    // while tracing or only when the graph runs. Other eager values (integers, constants made
    // by the body) stay constants of the subgraph, which keeps their values known there.
    if outer.is_none() && depth > 0 && (closed_over || crate::autodiff::tape::watched(t.id())) {
        outer = Some((0, resolve(frames, 0, t)));
    }
    let node = match outer {
        // Reaches an enclosing frame's value: becomes an extra input of this subgraph.
        Some(_) => {
            let outer = resolve(frames, depth - 1, t);
            let info = frames[depth - 1].graph.info(outer).clone();
            let rank_unknown = frames[depth - 1].graph.unknown_rank(outer);
            let frame = &mut frames[depth];
            mark_unknown(frame, !info.fully_known());
            frame.captures.push(outer);
            frame.capture_examples.push(t.clone());
            let kind = NodeKind::Placeholder(usize::MAX);
            let node = push_node(frame, kind, vec![], vec![info], "capture", true);
            mark_unknown_rank(frame, node, vec![rank_unknown]);
            node
        }
        None => {
            // A lazy value's shape would run its kernel while the frames are held.
            let info = super::deferred::static_type(t);
            let node = push_node(
                &mut frames[depth],
                NodeKind::Const(t.clone()),
                vec![],
                vec![info],
                "Const",
                false,
            );
            frames[depth].graph.nodes[node].captured = closed_over;
            node
        }
    };
    let v = ValueRef { node, output: 0 };
    frames[depth].values.insert(t.id(), v);
    v
}

/// A float eager tensor that existed before the outermost trace began (see `Node::captured`).
fn closed_over(t: &Tensor) -> bool {
    t.id() < FIRST_TRACED_ID.with(Cell::get) && crate::autodiff::tape::differentiable(t)
}

fn find(frames: &[Frame], depth: usize, id: u64) -> Option<(usize, ValueRef)> {
    (0..=depth).rev().find_map(|d| frames[d].values.get(&id).map(|&v| (d, v)))
}

/// Records `op` (already run on the example inputs) as a node of the innermost graph. Its
/// output types come from the op's abstract rule over the inputs' static types; the example
/// run must agree with them (a disagreement is a bug in the rule, reported, never hidden).
pub(crate) fn record_op(op: &Op, inputs: &[&Tensor], outputs: &mut [Tensor]) -> Result<()> {
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        let depth = frames.len() - 1;
        let refs: Vec<ValueRef> = inputs.iter().map(|t| resolve(&mut frames, depth, t)).collect();
        let frame = &mut frames[depth];
        let types: Vec<TensorType> = refs.iter().map(|v| frame.graph.info(*v).clone()).collect();
        let symbolic_inputs = refs.iter().any(|v| frame.symbolic[v.node]);
        let unknown_rank: Vec<bool> = refs.iter().map(|v| frame.graph.unknown_rank(*v)).collect();
        let rank_rule = crate::ops::host_call::rank_rule(op, &types, &unknown_rank)?;
        let primitive = op.primitive();
        let symbolic = match primitive.reads_only_shapes() {
            // A shape is known at trace time unless some dimension (or the rank) is not.
            true => types.iter().any(|t| !t.fully_known()) || unknown_rank.contains(&true),
            false => symbolic_inputs || primitive.stateful(),
        };
        let known: Vec<Option<KnownInts>> = match known_ints::wanted(op) {
            true => refs.iter().zip(inputs).map(|(v, t)| known_elements(frame, *v, t)).collect(),
            false => Vec::new(),
        };
        // Values of unknown rank have no example to check the types against.
        let (infos, marks) = match rank_rule {
            Some((infos, marks)) => (infos, marks),
            None => (static_types(op, &types, &known, outputs, symbolic)?, Vec::new()),
        };
        // A scalar or a shape the caller asked for holds no example size.
        let baked = primitive.bakes_shape()
            && infos.first().is_some_and(|t| t.rank() > 0)
            && REQUESTED.with(Cell::get) == 0;
        frame.specialised |= frame.has_unknown && baked;
        mark_unknown(frame, infos.iter().any(|t| !t.fully_known()));
        let propagated = match symbolic && !known.is_empty() {
            true => known_ints::propagate(op, inputs, &types, &known),
            false => None,
        };
        let node = push_node(frame, NodeKind::Op(op.clone()), refs, infos, op.tf_name(), symbolic);
        mark_unknown_rank(frame, node, marks);
        if let Some(k) = propagated {
            frame.known_ints.insert(ValueRef { node, output: 0 }, k);
        }
        for (i, o) in outputs.iter_mut().enumerate() {
            // An output that is an input's handle (identity cast) needs its own identity.
            if inputs.iter().any(|x| x.id() == o.id()) {
                *o = o.with_fresh_id();
            }
            frame.values.insert(o.id(), ValueRef { node, output: i });
        }
        Ok(())
    })
}

/// What the innermost frame knows of the elements of each of `inputs` of `op`, as
/// `record_op` gives the op's shape rule (empty for an op that reads none): deferred outputs
/// then get the types their node is recorded with. A value of an enclosing frame enters this
/// one as a capture, of which nothing is known.
pub(crate) fn known_inputs(op: &Op, inputs: &[&Tensor]) -> Vec<Option<KnownInts>> {
    if !known_ints::wanted(op) {
        return Vec::new();
    }
    FRAMES.with(|f| {
        let Ok(frames) = f.try_borrow() else { return Vec::new() };
        let Some(depth) = frames.len().checked_sub(1) else { return Vec::new() };
        let frame = &frames[depth];
        inputs
            .iter()
            .map(|t| match find(&frames, depth, t.id()) {
                Some((d, v)) if d == depth => known_elements(frame, v, t),
                Some(_) => None,
                None => known_ints::of_constant(t),
            })
            .collect()
    })
}

/// What the trace knows of the elements of `t` (value `v` of `frame`): all of them for a
/// constant, those the frame tracked for a symbolic shape.
fn known_elements(frame: &Frame, v: ValueRef, t: &Tensor) -> Option<KnownInts> {
    match frame.symbolic[v.node] {
        true => frame.known_ints.get(&v).cloned(),
        false => known_ints::of_constant(t),
    }
}

/// The outputs' static types: a value computed from constants alone is itself a constant
/// (its example is its value), everything else gets what the op's `infer` rule says.
fn static_types(
    op: &Op,
    types: &[TensorType],
    known: &[Option<KnownInts>],
    outputs: &[Tensor],
    symbolic: bool,
) -> Result<Vec<TensorType>> {
    if !symbolic {
        return Ok(outputs.iter().map(TensorType::of).collect());
    }
    let inferred = match op.primitive().infer_with_values(types, known) {
        // An output rank that depends on an unknown dimension (gather_nd's index depth):
        // `TensorType` has no unknown rank, so the example's rank stands with unknown sizes.
        Err(Error::Unimplemented(_)) => {
            let unknown = |o: &Tensor| TensorType { dtype: o.dtype(), dims: vec![None; o.rank()] };
            return Ok(outputs.iter().map(unknown).collect());
        }
        other => other?,
    };
    // A lazy output's type came from the same rule (checking it would run its kernel).
    let agrees = inferred.len() == outputs.len()
        && inferred
            .iter()
            .zip(outputs)
            .all(|(t, o)| o.is_lazy() || t.admits(o.dtype(), o.shape().dims()));
    if !agrees {
        let show = |t: &TensorType| format!("{}{}", t.dtype, describe_dims(&t.dims));
        return Err(Error::Internal(format!(
            "the shape rule of {} gives [{}] for inputs [{}], but its kernel made [{}]",
            op.tf_name(),
            inferred.iter().map(show).collect::<Vec<_>>().join(", "),
            types.iter().map(show).collect::<Vec<_>>().join(", "),
            outputs.iter().map(|o| show(&TensorType::of(o))).collect::<Vec<_>>().join(", "),
        )));
    }
    Ok(inferred)
}

/// The value a traced read of `variable` sees (its latest traced assignment, else its value),
/// recorded as a read node. `None` when not recording.
pub(crate) fn read_variable(variable: &Variable) -> Option<Tensor> {
    if !recording() {
        return None;
    }
    let value = shadow_value(variable).with_fresh_id();
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        let frame = frames.last_mut().expect("recording");
        let info = TensorType::of(&value);
        let node = push_node(
            frame,
            NodeKind::ReadVariable(variable.clone()),
            vec![],
            vec![info],
            "ReadVariableOp",
            true,
        );
        frame.values.insert(value.id(), ValueRef { node, output: 0 });
    });
    Some(value)
}

/// The variable's value as the trace sees it: the innermost traced assignment, else its value.
pub(crate) fn shadow_value(variable: &Variable) -> Tensor {
    FRAMES
        .with(|f| f.borrow().iter().rev().find_map(|fr| fr.shadow.get(&variable.id()).cloned()))
        .unwrap_or_else(|| variable.peek())
}

/// Example evaluation during a trace assigns here instead of to the variable.
pub(crate) fn shadow_assign(variable: &Variable, value: &Tensor) {
    FRAMES.with(|f| {
        if let Some(frame) = f.borrow_mut().last_mut() {
            frame.shadow.insert(variable.id(), value.clone());
        }
    })
}

/// Records an assignment (checked by the caller); `false` when not recording.
pub(crate) fn assign_variable(variable: &Variable, value: &Tensor) -> bool {
    if !recording() {
        return false;
    }
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        let depth = frames.len() - 1;
        let v = resolve(&mut frames, depth, value);
        let frame = &mut frames[depth];
        push_node(
            frame,
            NodeKind::AssignVariable(variable.clone()),
            vec![v],
            vec![],
            "AssignVariableOp",
            true,
        );
        frame.shadow.insert(variable.id(), value.clone());
    });
    true
}

/// Marks the innermost graph as specialised (a nested graph was).
pub(crate) fn note_specialised() {
    FRAMES.with(|f| {
        if let Some(frame) = f.borrow_mut().last_mut() {
            frame.specialised = true;
        }
    })
}

/// Records a node whose example outputs were computed by the caller (control flow, print):
/// `outputs` get fresh identities mapped to the node.
pub(crate) fn record_node(
    kind: NodeKind,
    inputs: &[&Tensor],
    outputs: &mut [Tensor],
    dims: Vec<Vec<Option<usize>>>,
    base: &str,
) {
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        // Outside a trace (a hand-made `_core.record_cond` call) there is nothing to record.
        let Some(depth) = frames.len().checked_sub(1) else { return };
        let refs: Vec<ValueRef> = inputs.iter().map(|t| resolve(&mut frames, depth, t)).collect();
        let frame = &mut frames[depth];
        mark_unknown(frame, dims.iter().flatten().any(Option::is_none));
        let infos = outputs
            .iter()
            .zip(dims)
            .map(|(t, dims)| TensorType { dtype: t.dtype(), dims })
            .collect();
        let node = push_node(frame, kind, refs, infos, base, true);
        for (i, o) in outputs.iter_mut().enumerate() {
            *o = o.with_fresh_id();
            frame.values.insert(o.id(), ValueRef { node, output: i });
        }
    })
}

/// Ends the innermost frame; `outputs` become the graph's outputs.
pub fn finish(outputs: &[Tensor]) -> Result<Traced> {
    // A lazy shape some composition read could not be computed from the examples (the caller
    // abandons the frame).
    if let Some(e) = super::deferred::take_shape_failure() {
        return Err(e);
    }
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        let depth = frames.len().checked_sub(1).ok_or_else(not_tracing)?;
        let refs: Vec<ValueRef> = outputs.iter().map(|t| resolve(&mut frames, depth, t)).collect();
        let mut frame = frames.pop().expect("checked");
        if frames.is_empty() {
            UNKNOWN_DIMS.with(|u| u.set(false));
            UNKNOWN_RANK.with(|u| u.set(false));
            super::deferred::forget_refined();
        }
        // Captures are numbered after the arguments, in the order they were made.
        let mut next = frame.arguments;
        for node in frame.graph.nodes.iter_mut() {
            if let NodeKind::Placeholder(i) = &mut node.kind {
                if *i == usize::MAX {
                    *i = next;
                    next += 1;
                }
            }
        }
        frame.graph.outputs = refs;
        frame.graph.num_inputs = next;
        frame.graph.finish();
        Ok(Traced {
            graph: frame.graph,
            captures: frame.captures,
            capture_examples: frame.capture_examples,
            specialised: frame.specialised,
        })
    })
}

/// Makes the `While` node whose first output is `first` (recorded in an open frame, on
/// `cond`) into `kind`: the same loop keeping more values (`loop_saves`), its body the old
/// one with more outputs. `inputs` are the node's example inputs. Returns tensors for the
/// outputs after the loop variables (the count and every stack), or None when no open frame
/// holds such a node (it belongs to a finished graph).
pub(crate) fn extend_while(
    first: &Tensor,
    cond: &Arc<Graph>,
    kind: &NodeKind,
    inputs: &[Tensor],
) -> Result<Option<Vec<Tensor>>> {
    let NodeKind::While { body, loop_vars: n, saved, .. } = kind else {
        return Err(Error::Internal("extend_while needs a While".into()));
    };
    let found = FRAMES.with(|f| {
        let frames = f.borrow();
        let depth = frames.len().checked_sub(1)?;
        let (d, v) = find(&frames, depth, first.id())?;
        let node = &frames[d].graph.nodes[v.node];
        let same = match &node.kind {
            NodeKind::While { cond: c, body: b, loop_vars, saved: s } => {
                v.output == 0
                    && Arc::ptr_eq(c, cond)
                    && *loop_vars == *n
                    && b.nodes.len() == body.nodes.len()
                    && saved.starts_with(s)
                    && node.inputs.len() == inputs.len()
            }
            _ => false,
        };
        same.then(|| (d, v.node, node.clone()))
    });
    let Some((depth, index, mut node)) = found else { return Ok(None) };
    let mut types = super::loop_saves::output_types(body, *n, saved);
    types[..*n].clone_from_slice(&node.outputs[..*n]);
    node.kind = kind.clone();
    node.outputs = types.clone();
    let examples = match super::deferred::defer_node(&node, inputs, &types, &[]) {
        Some(deferred) => deferred,
        None => super::executor::eval_example(&node, inputs)?,
    };
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        let frame = &mut frames[depth];
        mark_unknown(frame, types.iter().any(|t| !t.fully_known()));
        frame.graph.nodes[index].kind = node.kind;
        frame.graph.nodes[index].outputs = types;
        let extra = examples.into_iter().enumerate().skip(*n).map(|(k, t)| {
            let t = t.with_fresh_id();
            frame.values.insert(t.id(), ValueRef { node: index, output: k });
            t
        });
        Ok(Some(extra.collect()))
    })
}

/// Whether an open frame knows `t` (a value of the trace under way).
pub(crate) fn in_open_frame(t: &Tensor) -> bool {
    FRAMES.with(|f| {
        let frames = f.borrow();
        frames.len().checked_sub(1).is_some_and(|depth| find(&frames, depth, t.id()).is_some())
    })
}

/// `copy` (a new identity of `original`) stands for the same value in the innermost graph.
/// Nothing happens when no trace records or the trace has not seen `original`.
pub(crate) fn alias(original: &Tensor, copy: &Tensor) {
    if !recording() {
        return;
    }
    FRAMES.with(|f| {
        let Ok(mut frames) = f.try_borrow_mut() else { return };
        let Some(depth) = frames.len().checked_sub(1) else { return };
        if find(&frames, depth, original.id()).is_none() {
            return;
        }
        let v = resolve(&mut frames, depth, original);
        frames[depth].values.insert(copy.id(), v);
    })
}

/// Captures `outer` (a value of an enclosing frame) into the innermost frame with `example`
/// standing for it there: the tensor returned is what the subgraph's ops see while tracing,
/// and the subgraph reads `outer` when it runs. A branch of a `Cond` gradient needs this: the
/// seed flowing back into a branch was made from the example of the branch taken while
/// tracing, which may be shaped unlike this branch's output (a TensorArray's append and
/// replace branches). Dims where the two examples differ become unknown.
pub(crate) fn capture_as(outer: &Tensor, example: &Tensor) -> Result<Tensor> {
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        let depth = frames.len().checked_sub(1).ok_or_else(not_tracing)?;
        if depth == 0 || find(&frames, depth - 1, outer.id()).is_none() {
            return Err(Error::Internal("capture_as needs a value of an enclosing frame".into()));
        }
        let source = resolve(&mut frames, depth - 1, outer);
        let outer_info = frames[depth - 1].graph.info(source).clone();
        if outer_info.dims.len() != example.rank() || outer_info.dtype != example.dtype() {
            return Err(Error::Internal(
                "capture_as needs an example of the same rank and dtype".into(),
            ));
        }
        // A lazy example's sizes are its static type's (reading its shape would run it).
        let example_dims: Vec<Option<usize>> = match example.is_lazy() {
            true => super::deferred::static_type(example).dims,
            false => example.shape().dims().iter().copied().map(Some).collect(),
        };
        let dims: Vec<Option<usize>> = (outer_info.dims.iter().zip(&example_dims))
            .map(|(&d, &e)| d.filter(|&d| Some(d) == e))
            .collect();
        let value = example.with_fresh_id();
        let frame = &mut frames[depth];
        mark_unknown(frame, dims.iter().any(Option::is_none));
        frame.captures.push(source);
        frame.capture_examples.push(outer.clone());
        let info = TensorType { dtype: outer_info.dtype, dims };
        let kind = NodeKind::Placeholder(usize::MAX);
        let node = push_node(frame, kind, vec![], vec![info], "capture", true);
        frame.values.insert(value.id(), ValueRef { node, output: 0 });
        Ok(value)
    })
}

/// What is known of `t`'s dims without tying the trace to its example: the traced value's
/// static dims (`None` where unknown until the graph runs), else the tensor's own. Unlike
/// `Tensor::dims`, reading them never specialises the trace.
pub fn static_dims(t: &Tensor) -> Vec<Option<usize>> {
    // A lazy value's own dims are its static type's: its shape would run its kernel.
    let own = || match t.is_lazy() {
        true => super::deferred::static_type(t).dims,
        false => t.shape().dims().iter().map(|&d| Some(d)).collect(),
    };
    if !UNKNOWN_DIMS.with(Cell::get) {
        return own();
    }
    FRAMES.with(|f| {
        // Frames being edited (a node is being recorded): its example values are concrete.
        let Ok(frames) = f.try_borrow() else { return own() };
        let Some(depth) = frames.len().checked_sub(1) else { return own() };
        match find(&frames, depth, t.id()) {
            Some((d, v)) => frames[d].graph.info(v).dims.clone(),
            None => own(),
        }
    })
}

/// True when `t` is a traced value known only when the graph runs.
pub fn is_symbolic(t: &Tensor) -> bool {
    FRAMES.with(|f| {
        let frames = f.borrow();
        if frames.is_empty() {
            return false;
        }
        find(&frames, frames.len() - 1, t.id()).is_some_and(|(d, v)| frames[d].symbolic[v.node])
    })
}

/// The graph name (`add:0`) and static dims of a value of the trace in progress.
pub fn describe(t: &Tensor) -> Option<(String, Vec<Option<usize>>)> {
    FRAMES.with(|f| {
        let frames = f.borrow();
        let (d, v) = find(&frames, frames.len().checked_sub(1)?, t.id())?;
        let node = &frames[d].graph.nodes[v.node];
        Some((format!("{}:{}", node.name, v.output), node.outputs[v.output].dims.clone()))
    })
}

/// Errors when Python asks for the value of a symbolic tensor (`what` names the use).
pub fn check_concrete(t: &Tensor, what: &str) -> Result<()> {
    if !is_symbolic(t) {
        return Ok(());
    }
    let name = describe(t).map(|(n, _)| n).unwrap_or_default();
    Err(Error::Type(format!(
        "{what} needs the value of the symbolic tensor '{name}', which inside a tf.function is \
         known only when the graph runs. Pass a Python value, or a tensor that does not depend on \
         the function's inputs or variables."
    )))
}
