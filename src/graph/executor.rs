//! Runs a graph: nodes in order, each op through `dispatch::apply` (so placement, kernels and
//! gradient tapes behave as in eager mode), every intermediate dropped after its last reader.
//! GPU ops only record into the device's pending batch, so one call submits its work together
//! unless a condition must be read back.
//!
//! Values move rather than copy where they can: a node that is a value's last reader takes the
//! graph's handle to it, a branch or loop body gets its inputs by value, and a loop's variables
//! pass from one iteration to the next. A value held by nothing else can then be changed in
//! place: a `Concat` that appends rows to such a value appends to its memory
//! (`dispatch::append_in_place`), so a TensorArray written once per iteration stays linear;
//! a `TensorScatterAdd` into such a value adds into its memory
//! (`dispatch::scatter_add_in_place`), so a loop's running sum of one row per iteration costs
//! a row per iteration, not the whole sum.

use super::fused;
use super::ir::{Graph, Node, NodeKind};
use super::loop_saves;
use super::op_times;
use super::trace;
use crate::dispatch::{self, Op};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A call: variables are read and assigned, `tf.print` prints. Inside a recording trace
    /// (a concrete function called there) the graph is inlined: its ops, control flow and
    /// prints are recorded into the trace.
    Run,
    /// Computing example outputs of control flow during a trace: variables are read and
    /// assigned in the trace's view of them, nothing prints, nothing is recorded.
    Example,
    /// Re-recording a traced branch into the frame being traced, under the tapes (a
    /// gradient's forward half): ops, reads and nested control flow are recorded again;
    /// nothing prints, and an assignment is an error (it would happen twice).
    Replay,
}

pub fn run(graph: &Graph, inputs: &[Tensor], mode: Mode) -> Result<Vec<Tensor>> {
    run_owned(graph, inputs.to_vec(), mode)
}

/// `run`, taking the inputs: one the caller no longer holds can be changed in place.
pub fn run_owned(graph: &Graph, inputs: Vec<Tensor>, mode: Mode) -> Result<Vec<Tensor>> {
    // The first CPU work may be a fused chain rather than a dispatched op.
    crate::kernels::pool::start();
    if inputs.len() != graph.num_inputs {
        return Err(Error::InvalidArgument(format!(
            "the graph takes {} inputs, got {}",
            graph.num_inputs,
            inputs.len()
        )));
    }
    let _quiet =
        (mode == Mode::Example).then(|| (trace::suspend(), crate::autodiff::tape::pause_all()));
    let mut inputs: Vec<Option<Tensor>> = inputs.into_iter().map(Some).collect();
    let mut slots: Vec<Option<Tensor>> = vec![None; graph.plan.slots];
    let inlined = mode == Mode::Run && trace::recording();
    for (i, node) in graph.nodes.iter().enumerate() {
        let released = &graph.plan.release[i];
        let args = node
            .inputs
            .iter()
            .enumerate()
            .map(|(k, v)| {
                let slot = graph.slot(*v);
                // The last read of a value whose last reader this node is takes it.
                let last = released.contains(&slot)
                    && !node.inputs[k + 1..].iter().any(|w| graph.slot(*w) == slot);
                let value = if last { slots[slot].take() } else { slots[slot].clone() };
                value.ok_or_else(|| missing(node))
            })
            .collect::<Result<Vec<Tensor>>>()?;
        let arg_ids: Vec<u64> = match inlined {
            true => args.iter().map(Tensor::id).collect(),
            false => Vec::new(),
        };
        let started = op_times::enabled().then(std::time::Instant::now);
        let outputs = {
            let _scope = node.device.clone().map(DeviceScope::enter);
            // Traced nodes carry attributes the op constructors validated; a loaded graph's come
            // from a file, and a kernel's assertion on a bad one must not abort the process.
            catch_unwind(AssertUnwindSafe(|| run_node(node, args, &mut inputs, mode)))
                .unwrap_or_else(|_| Err(invalid_node(node)))?
        };
        if let Some(started) = started {
            op_times::record(time_key(node, &outputs), started.elapsed());
        }
        check_dims(node, &outputs)?;
        if inlined && !matches!(node.kind, NodeKind::Placeholder(_)) {
            trace::keep_declared_types(node, &arg_ids, &outputs)?;
        }
        let offset = graph.plan.offsets[i];
        for (k, t) in outputs.into_iter().enumerate() {
            slots[offset + k] = Some(t);
        }
        for &s in &graph.plan.release[i] {
            slots[s] = None;
        }
    }
    let mut outputs = Vec::with_capacity(graph.outputs.len());
    for (k, v) in graph.outputs.iter().enumerate() {
        let slot = graph.slot(*v);
        let again = graph.outputs[k + 1..].iter().any(|w| graph.slot(*w) == slot);
        let value = if again { slots[slot].clone() } else { slots[slot].take() };
        outputs.push(value.ok_or_else(|| Error::Internal("graph output missing".into()))?);
    }
    Ok(outputs)
}

/// What `op_times` counts a node under: its type (a fused chain's steps too) and its first
/// output's dims, so the same op on different shapes is told apart.
fn time_key(node: &Node, outputs: &[Tensor]) -> String {
    let mut key = node.type_name().to_string();
    if let NodeKind::Fused(chain) = &node.kind {
        let steps: Vec<&str> = chain.steps.iter().map(|s| s.op.tf_name()).collect();
        let producer = chain.producer.as_ref().map(|p| format!("{}; ", p.op.tf_name()));
        key = format!("{key}({}{})", producer.unwrap_or_default(), steps.join(","));
    }
    match outputs.first() {
        Some(t) => format!("{key} {:?}", t.dims()),
        None => key,
    }
}

/// One node on `args` as example evaluation during a trace (control flow's example outputs).
pub(crate) fn eval_example(node: &Node, args: &[Tensor]) -> Result<Vec<Tensor>> {
    let _quiet = (trace::suspend(), crate::autodiff::tape::pause_all());
    run_node(node, args.to_vec(), &mut [], Mode::Example)
}

/// One node of a loop body replayed for its gradient on `args` (never a placeholder).
pub(crate) fn replay_node(node: &Node, args: Vec<Tensor>) -> Result<Vec<Tensor>> {
    let outputs = catch_unwind(AssertUnwindSafe(|| run_node(node, args, &mut [], Mode::Replay)))
        .unwrap_or_else(|_| Err(invalid_node(node)))?;
    check_dims(node, &outputs)?;
    Ok(outputs)
}

fn invalid_node(node: &Node) -> Error {
    Error::InvalidArgument(format!(
        "{} ({}) cannot run: its attributes do not fit its inputs (a damaged saved graph?)",
        node.name,
        node.type_name()
    ))
}

fn missing(node: &Node) -> Error {
    Error::Internal(format!("input of {} freed before use", node.name))
}

struct DeviceScope;

impl DeviceScope {
    fn enter(spec: crate::device::DeviceSpec) -> DeviceScope {
        crate::device::push_spec(spec);
        DeviceScope
    }
}

impl Drop for DeviceScope {
    fn drop(&mut self) {
        crate::device::pop_scope();
    }
}

fn run_node(
    node: &Node,
    mut args: Vec<Tensor>,
    inputs: &mut [Option<Tensor>],
    mode: Mode,
) -> Result<Vec<Tensor>> {
    if let NodeKind::Op(op @ Op::Concat(_)) = &node.kind {
        if mode == Mode::Run && args.len() == 2 {
            let rows = args.pop().ok_or_else(|| missing(node))?;
            return match dispatch::append_in_place(op, args.remove(0), &rows) {
                Ok(appended) => Ok(vec![appended?]),
                Err(buffer) => dispatch::apply(op, &[&buffer, &rows]),
            };
        }
    }
    if let NodeKind::Op(op @ Op::TensorScatterAdd(scatter_add)) = &node.kind {
        if mode == Mode::Run && args.len() == 3 {
            let total = args.remove(0);
            return match dispatch::scatter_add_in_place(op, scatter_add, total, &args[0], &args[1])
            {
                Ok(sum) => Ok(vec![sum?]),
                Err(total) => dispatch::apply(op, &[&total, &args[0], &args[1]]),
            };
        }
    }
    // A graph run while a trace records (a concrete function called inside another trace) is
    // inlined there: its loops, branches and prints must happen each time that trace's graph
    // runs, so they are recorded as nodes, never run now on the examples (which would unroll
    // a loop as far as its example test allows and bake in the example's branch).
    // Asked only by the nodes it concerns: the trace's thread-local is not read per node.
    let records = || mode == Mode::Replay || mode == Mode::Run && trace::recording();
    let refs: Vec<&Tensor> = args.iter().collect();
    Ok(match &node.kind {
        // Each input is read by its one placeholder (a second read is a damaged saved graph).
        NodeKind::Placeholder(i) => {
            let input = inputs.get_mut(*i).and_then(Option::take);
            vec![input.ok_or_else(|| invalid_node(node))?]
        }
        NodeKind::Const(t) => vec![t.clone()],
        // A host function runs (and goes on the tapes with its own backward function) when the
        // graph runs; inside a trace it is recorded like any stateful op.
        NodeKind::Op(Op::HostCall(call)) if mode == Mode::Run && !trace::open() => {
            crate::ops::host_call::run_now(call, &refs)?
        }
        // A random node draws its next numbers on every call of the graph.
        NodeKind::Op(op) if mode == Mode::Run && op.primitive().stateful() => {
            dispatch::apply(&op.next_run(), &refs)?
        }
        // Recorded for a gradient, a random node redraws the forward pass's numbers.
        NodeKind::Op(op) if mode == Mode::Replay && op.primitive().stateful() => {
            dispatch::apply(&op.replaying(), &refs)?
        }
        NodeKind::Op(op) => dispatch::apply(op, &refs)?,
        NodeKind::Fused(chain) => vec![fused::run(chain, &refs)?],
        NodeKind::ReadVariable(v) => match mode {
            Mode::Run | Mode::Replay => vec![v.read()],
            Mode::Example => vec![trace::shadow_value(v).with_fresh_id()],
        },
        NodeKind::AssignVariable(v) => {
            match mode {
                // The node is the value's last reader when the graph moved it here: the
                // variable may then take its buffer instead of copying it.
                Mode::Run => v.assign_owned(args.swap_remove(0))?,
                Mode::Example => {
                    v.check_assignable(&args[0])?;
                    trace::shadow_assign(v, &args[0]);
                }
                Mode::Replay => {
                    return Err(Error::Unimplemented(format!(
                        "a gradient through a tf.cond branch that assigns variable '{}' is not \
                         supported: assign outside the branch",
                        v.name()
                    )))
                }
            }
            vec![]
        }
        NodeKind::Print(spec) => {
            if mode == Mode::Run && records() {
                trace::record_node(node.kind.clone(), &refs, &mut [], vec![], "PrintV2");
            } else if mode == Mode::Run {
                spec.emit(&refs)?;
            }
            vec![]
        }
        NodeKind::Cond(branches) if records() => {
            let mut start = 1;
            let traced = branches.iter().map(|b| {
                start += b.num_inputs;
                super::control_grad::replayed(b, &args[start - b.num_inputs..start])
            });
            super::control::record_cond(&args[0], traced.collect())?
        }
        NodeKind::While { cond, body, loop_vars, saved } if records() => {
            let (vars, captures) = args.split_at(*loop_vars);
            let (cond_captures, body_captures) = captures.split_at(cond.num_inputs - loop_vars);
            super::control::record_while_keeping(
                vars,
                super::control_grad::replayed(cond, cond_captures),
                super::control_grad::replayed(body, body_captures),
                saved.clone(),
            )?
        }
        NodeKind::Cond(branches) => {
            let index = branch_index(&args[0], branches.len())?;
            // Each branch's captured values follow the selector, branch after branch. The
            // branch taken gets them by value; the others' are dropped first.
            let start = 1 + branches[..index].iter().map(|b| b.num_inputs).sum::<usize>();
            drop(refs);
            let taken: Vec<Tensor> =
                args.drain(..).skip(start).take(branches[index].num_inputs).collect();
            run_owned(&branches[index], taken, mode)?
        }
        NodeKind::While { cond, body, loop_vars, saved } => {
            let n = *loop_vars;
            drop(refs);
            let captures = args.split_off(n);
            let (cond_captures, body_captures) = captures.split_at(cond.num_inputs - n);
            let mut keeper = loop_saves::Keeper::new(body, n, saved)?;
            let mut vars = args;
            loop {
                let keep_going = run(cond, &[&vars[..], cond_captures].concat(), mode)?;
                if branch_index(&keep_going[0], 2)? != 0 {
                    break;
                }
                // The iteration's values move into the body, which can then change them.
                vars.extend_from_slice(body_captures);
                vars = run_owned(body, vars, mode)?;
                keeper.keep(vars.split_off(n));
            }
            vars.extend(keeper.finish()?);
            vars
        }
    })
}

/// Branch for a bool (true → 0) or integer (out of range → last) selector.
fn branch_index(selector: &Tensor, branches: usize) -> Result<usize> {
    if selector.num_elements() != 1 {
        return Err(Error::InvalidArgument(format!(
            "a condition must be a scalar, got shape {}",
            selector.shape()
        )));
    }
    let buffer = selector.host()?;
    if selector.dtype() == crate::dtype::DType::Bool {
        let truth =
            crate::with_all!(buffer, v => crate::element::Element::is_nonzero(v[0]), else false);
        return Ok(if truth { 0 } else { 1 });
    }
    let i = crate::with_all!(buffer, v => crate::element::Element::to_i64(v[0]), else {
        return Err(Error::InvalidArgument("a branch index must be an integer, got a string".into()))
    });
    Ok(if i >= 0 && (i as usize) < branches { i as usize } else { branches - 1 })
}

/// A value whose traced dims are known must keep them: a mismatch means the graph was traced
/// for other sizes (an attribute baked an example size), and would otherwise compute garbage.
fn check_dims(node: &Node, outputs: &[Tensor]) -> Result<()> {
    if outputs.len() != node.outputs.len() {
        // Only a hand-edited saved graph can get here; traced nodes record what their op made.
        return Err(Error::InvalidArgument(format!(
            "{} ({}) made {} outputs where its graph declares {}",
            node.name,
            node.type_name(),
            outputs.len(),
            node.outputs.len()
        )));
    }
    for (k, (info, t)) in node.outputs.iter().zip(outputs).enumerate() {
        if info.dtype != t.dtype() {
            return Err(Error::InvalidArgument(format!(
                "{} ({}) made {} where its graph declares {}",
                node.name,
                node.type_name(),
                t.dtype().name(),
                info.dtype.name()
            )));
        }
        // A value of unknown rank (a host call's result) may have any shape, as may one the
        // open trace records so (such a result recorded anew by an inlined graph: its example
        // is a stand-in). A lazy value (a replay's, inside a trace) is checked by its static
        // type: its example would run now, and a branch not taken while tracing may have
        // examples it cannot run on.
        let produced: Vec<Option<usize>> = match t.is_lazy() {
            true => super::deferred::static_type(t).dims,
            false => t.shape().dims().iter().copied().map(Some).collect(),
        };
        let fits = node.unknown_rank.get(k).copied().unwrap_or(false)
            || info.dims.len() == produced.len()
                && info
                    .dims
                    .iter()
                    .zip(&produced)
                    .all(|(s, d)| s.is_none() || d.is_none() || s == d)
            || trace::has_unknown_rank(t);
        if !fits {
            return Err(Error::InvalidArgument(format!(
                "{} ({}) was traced with shape {:?} but produced {}; trace the function again \
                 for these input sizes",
                node.name,
                node.type_name(),
                info.dims,
                t.shape()
            )));
        }
    }
    Ok(())
}
