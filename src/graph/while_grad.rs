//! Gradients of a staged `While` recorded while a tape is active inside a trace, as
//! TensorFlow's while_v2 takes them: the forward loop keeps the values of every iteration
//! that a gradient may read (`loop_saves`), and a backward `While` runs its counter down,
//! replaying the body on iteration t's kept values under a fresh tape to take its
//! vector-Jacobian product for the loop variables (carried) and the body's captures and
//! variables (summed).
//!
//! The forward node itself is made to keep the values (`trace::extend_while`), so the body
//! runs once per iteration: a random op in the body gives the gradient the numbers the
//! forward pass drew. Inner loops in the body keep theirs too, and are read back with them in
//! the replay, so their gradients see the forward draws as well. Where the forward node is
//! out of reach (it belongs to a finished graph) the loop runs again, keeping its values.
//! The replay never recomputes a kept value; the optimizer's loop trimming
//! (`passes::trim_loops`) then keeps only the values the backward loop reads.

use super::control;
use super::control_grad::{replayed, traced, Recording};
use super::deferred;
use super::executor;
use super::ir::{Graph, NodeKind, ValueRef};
use super::loop_saves::Saved;
use super::trace;
use crate::autodiff::tape::{self, Backward, GradFn, Tape};
use crate::dispatch::Op;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops;
use crate::ops::primitive::TensorType;
use crate::tensor::Tensor;
use crate::variable::Variable;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Records `outputs` of a `While` node of this `kind` on the tapes watching its inputs or the
/// variables its body reads. `inputs` are the node's: the loop variables, `cond`'s captures,
/// then `body`'s.
pub fn record_while(kind: &NodeKind, inputs: &[Tensor], outputs: &mut [Tensor]) {
    if !tape::any_active() {
        return;
    }
    if let Some((grad, sources)) = Forward::recorded(kind, inputs) {
        let refs: Vec<&Tensor> = sources.iter().collect();
        tape::record_control_flow(&refs, outputs, grad);
    }
}

/// A recorded `While` being differentiated.
struct Forward {
    cond: Arc<Graph>,
    body: Arc<Graph>,
    n: usize,
    /// The values the node already keeps (its body's outputs after the loop variables).
    saved: Vec<Saved>,
    variables: Vec<Variable>,
    /// What the first gradient made the loop keep, for later gradients in the same trace.
    kept: Mutex<Option<Arc<Kept>>>,
}

/// A loop keeping every value its gradient may read.
struct Kept {
    /// The body returning the kept values after the next loop variables.
    body: Arc<Graph>,
    saved: Vec<Saved>,
    /// The keeping node's outputs: the final loop variables, the count, the stacks.
    outputs: Vec<Tensor>,
}

impl Kept {
    fn count(&self, n: usize) -> &Tensor {
        &self.outputs[n]
    }

    /// Where kept value `j`'s stack starts among the outputs.
    fn offset(&self, n: usize, j: usize) -> usize {
        n + 1 + self.saved[..j].iter().map(|s| s.width()).sum::<usize>()
    }

    /// Each kept value at iteration `step`, by the body value it keeps.
    fn at(&self, n: usize, step: &Tensor) -> Result<HashMap<ValueRef, Tensor>> {
        let mut found = HashMap::new();
        for (j, (how, v)) in self.saved.iter().zip(&self.body.outputs[n..]).enumerate() {
            if !found.contains_key(v) {
                let start = self.offset(n, j);
                let stack = &self.outputs[start..start + how.width()];
                found.insert(*v, read_back(*how, stack, step, self.body.info(*v))?);
            }
        }
        Ok(found)
    }
}

/// The value of type `ty` a stack kept at iteration `step`.
fn read_back(how: Saved, stack: &[Tensor], step: &Tensor, ty: &TensorType) -> Result<Tensor> {
    let value = how.at(stack, step)?;
    // What the trace knows of the value it stands for (a flat stack's read has unknown sizes).
    trace::set_static_dims(&value, &ty.dims)?;
    // Stacks of values computed from a host call's results (which have no value before the
    // graph runs) are stand-ins, whose reads have examples of no particular size: the value
    // is seen with a stand-in of its own type, as every value computed from such results is.
    if !deferred::stands_in(&stack[0]) {
        return Ok(value);
    }
    let example = crate::ops::host_call::stand_in(ty)?;
    trace::alias(&value, &example);
    Ok(example)
}

/// `body` (of a loop with `n` variables keeping `saved`) returning every value a gradient may
/// read after its next loop variables, its nested loops keeping theirs (so that an inner
/// loop's gradient, replayed from the outer loop's kept values, reads back what the inner
/// loop did in the forward pass). Returns what the body keeps, the values it kept already
/// first.
fn with_kept_values(body: &Graph, n: usize, saved: &[Saved]) -> (Graph, Vec<Saved>) {
    let mut g = body.clone();
    for node in g.nodes.iter_mut() {
        let NodeKind::While { cond, body: inner, loop_vars: m, saved: kept } = &node.kind else {
            continue;
        };
        let (inner, inner_saved) = with_kept_values(inner, *m, kept);
        if inner_saved.len() != kept.len() {
            let mut types = super::loop_saves::output_types(&inner, *m, &inner_saved);
            types[..*m].clone_from_slice(&node.outputs[..*m]);
            let (cond, m) = (cond.clone(), *m);
            node.kind =
                NodeKind::While { cond, body: Arc::new(inner), loop_vars: m, saved: inner_saved };
            node.outputs = types;
        }
    }
    let mut saved = saved.to_vec();
    for v in candidates(&g, n) {
        if !g.outputs[n..].contains(&v) {
            saved.push(Saved::for_dims(&g.info(v).dims));
            g.outputs.push(v);
        }
    }
    g.finish();
    (g, saved)
}

/// The body values a gradient may read and that change from one iteration to the next: the
/// loop variables each iteration starts from and the results of ops, variable reads and
/// keeping inner loops that depend on them or draw random numbers. What depends only on
/// captures, constants and variables (a weight read, its transpose) is read or computed again
/// in the replay rather than kept once per iteration. Host calls run again too (their
/// gradient is the last call's backward function), as do branches (their own gradients take
/// their inputs and outputs from the replay).
fn candidates(body: &Graph, n: usize) -> Vec<ValueRef> {
    let mut varies = vec![false; body.nodes.len()];
    let mut found = Vec::new();
    for (i, node) in body.nodes.iter().enumerate() {
        let reads_varying = node.inputs.iter().any(|v| varies[v.node]);
        varies[i] = match &node.kind {
            NodeKind::Placeholder(p) => *p < n,
            NodeKind::Op(op) => reads_varying || op.primitive().stateful(),
            NodeKind::While { cond, body, .. } => {
                reads_varying || cond.draws_random() || body.draws_random()
            }
            NodeKind::Cond(branches) => reads_varying || branches.iter().any(|b| b.draws_random()),
            _ => reads_varying,
        };
        let restorable = varies[i]
            && match &node.kind {
                NodeKind::Placeholder(_) => true,
                NodeKind::Op(Op::HostCall(_)) => false,
                NodeKind::Op(_) => true,
                NodeKind::While { saved, .. } => !saved.is_empty(),
                _ => false,
            };
        if !restorable || node.unknown_rank.contains(&true) {
            continue;
        }
        for (k, t) in node.outputs.iter().enumerate() {
            // A loop variable of any dtype: the replay starts from it.
            if t.dtype != DType::String || matches!(node.kind, NodeKind::Placeholder(_)) {
                found.push(ValueRef { node: i, output: k });
            }
        }
    }
    found
}

impl Forward {
    /// The gradient function of a `While` node of this `kind` on `inputs`, and its tape
    /// entry's sources: the inputs, then the values of the variables its body reads.
    fn recorded(kind: &NodeKind, inputs: &[Tensor]) -> Option<(GradFn, Vec<Tensor>)> {
        let NodeKind::While { cond, body, loop_vars, saved } = kind else { return None };
        let variables = body.variables();
        let mut sources = inputs.to_vec();
        sources.extend(variables.iter().map(|v| v.peek().with_id(v.id())));
        let forward = Forward {
            cond: cond.clone(),
            body: body.clone(),
            n: *loop_vars,
            saved: saved.clone(),
            variables,
            kept: Mutex::new(None),
        };
        let grad: GradFn = Arc::new(move |sources, outputs, upstream| {
            forward.gradient(sources, outputs, upstream)
        });
        Some((grad, sources))
    }

    fn body_captures(&self) -> std::ops::Range<usize> {
        let start = self.cond.num_inputs;
        start..start + self.body.num_inputs - self.n
    }

    /// `outputs` are the node's as recorded on the tape; `upstream` their gradients.
    fn gradient(
        &self,
        sources: &[Tensor],
        outputs: &[Tensor],
        upstream: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>> {
        let mut result = vec![None; sources.len()];
        // Sources a gradient is owed to: floating loop variables, the body's floating
        // captures, the variables (`cond`'s captures get none: a predicate is not
        // differentiable).
        let wanted: Vec<usize> = (0..self.n)
            .chain(self.body_captures())
            .chain(sources.len() - self.variables.len()..sources.len())
            .filter(|&i| tape::differentiable(&sources[i]))
            .collect();
        if wanted.is_empty() || upstream.iter().all(Option::is_none) || !trace::recording() {
            return Ok(result);
        }
        let kept = self.keeping_loop(sources, outputs)?;
        let backward = BackwardLoop { forward: self, kept: &kept, sources };
        for (&i, g) in wanted.iter().zip(backward.run(outputs, upstream, &wanted)?) {
            result[i] = g;
        }
        Ok(result)
    }

    /// The loop keeping every candidate value: this node, extended, where the trace still
    /// holds it; else a new loop on the same inputs.
    fn keeping_loop(&self, sources: &[Tensor], outputs: &[Tensor]) -> Result<Arc<Kept>> {
        let mut cache = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(kept) = cache.as_ref() {
            if trace::in_open_frame(kept.count(self.n)) {
                return Ok(kept.clone());
            }
        }
        let n = self.n;
        let (body, saved) = with_kept_values(&self.body, n, &self.saved);
        if saved.is_empty() {
            return Err(Error::Internal("a differentiated loop keeps no values".into()));
        }
        let body = Arc::new(body);
        let inputs = &sources[..sources.len() - self.variables.len()];
        let outputs = match saved.len() == self.saved.len() && !saved.is_empty() {
            // The node keeps every candidate already (a keeping loop differentiated again).
            true => outputs.to_vec(),
            false => self.extend_or_rerun(inputs, outputs, body.clone(), saved.clone())?,
        };
        let kept = Arc::new(Kept { body, saved, outputs });
        *cache = Some(kept.clone());
        Ok(kept)
    }

    /// The outputs of a loop keeping `saved` (`body`'s extra outputs).
    fn extend_or_rerun(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        body: Arc<Graph>,
        saved: Vec<Saved>,
    ) -> Result<Vec<Tensor>> {
        let n = self.n;
        let kind =
            NodeKind::While { cond: self.cond.clone(), body: body.clone(), loop_vars: n, saved };
        let Some(mut extra) = trace::extend_while(&outputs[0], &self.cond, &kind, inputs)? else {
            let (vars, captures) = inputs.split_at(n);
            let (cond_captures, body_captures) = captures.split_at(self.cond.num_inputs - n);
            let NodeKind::While { saved, .. } = kind else { unreachable!() };
            return control::record_while_keeping(
                vars,
                replayed(&self.cond, cond_captures),
                replayed(&body, body_captures),
                saved,
            );
        };
        // The node's new outputs go on the tapes as computed from its inputs, so that a
        // higher-order gradient flowing into the kept values reaches the loop's sources.
        let NodeKind::While { saved, .. } = kind else { unreachable!() };
        let extended = Arc::new(Forward {
            cond: self.cond.clone(),
            body,
            n,
            saved,
            variables: self.variables.clone(),
            kept: Mutex::new(None),
        });
        let finals = outputs[..n].to_vec();
        let grad: GradFn = Arc::new(move |sources, extra, upstream| {
            let all = [&finals[..], extra].concat();
            let upstream = [&vec![None; finals.len()][..], upstream].concat();
            extended.gradient(sources, &all, &upstream)
        });
        let mut sources: Vec<&Tensor> = inputs.iter().collect();
        let values: Vec<Tensor> = self.variables.iter().map(|v| v.peek().with_id(v.id())).collect();
        sources.extend(values.iter());
        tape::record_control_flow(&sources, &mut extra, grad);
        Ok([&outputs[..n], &extra[..]].concat())
    }
}

/// The backward `While` of one gradient.
struct BackwardLoop<'a> {
    forward: &'a Forward,
    kept: &'a Kept,
    /// The loop variables, `cond`'s captures, `body`'s captures, the variables' values.
    sources: &'a [Tensor],
}

impl BackwardLoop<'_> {
    /// Its variables are the counter, a gradient for each floating loop variable, and a
    /// running sum for each wanted capture or variable. Returns the wanted sources' gradients.
    fn run(
        &self,
        outputs: &[Tensor],
        upstream: &[Option<Tensor>],
        wanted: &[usize],
    ) -> Result<Vec<Option<Tensor>>> {
        let n = self.forward.n;
        let floating: Vec<usize> =
            (0..n).filter(|&k| tape::differentiable(&self.sources[k])).collect();
        let summed: Vec<usize> = wanted.iter().copied().filter(|&i| i >= n).collect();
        let mut init = vec![self.kept.count(n).clone()];
        for &k in &floating {
            init.push(match &upstream[k] {
                Some(u) => u.clone(),
                None => ops::zeros_like(&outputs[k])?,
            });
        }
        for &i in &summed {
            init.push(self.zeros_for(i)?);
        }
        let nf = floating.len();
        let body_dims = |k: usize| self.forward.body.nodes[k].outputs[0].dims.clone();
        let dims = |p: usize| match p {
            0 => vec![],
            p if p <= nf => body_dims(floating[p - 1]),
            p => trace::static_dims(&self.sources[summed[p - 1 - nf]]),
        };
        let cond =
            traced(&init, &dims, |args| Ok(vec![ops::greater(&args[0], &Tensor::scalar(0i32))?]))?;
        let body = traced(&init, &dims, |args| {
            let step = ops::sub(&args[0], &Tensor::scalar(1i32))?;
            let restored = self.kept.at(n, &step)?;
            let seeded = self.kept_seeds(upstream, &step)?;
            let found = self.step(&restored, &floating, &summed, &args[1..=nf], seeded)?;
            let mut next = vec![step];
            let (var_grads, sum_grads) = found.split_at(nf);
            for (g, &k) in var_grads.iter().zip(&floating) {
                next.push(match g {
                    Some(g) => g.clone(),
                    None => ops::zeros_like(&loop_var(&self.kept.body, &restored, k)?)?,
                });
            }
            for (g, total) in sum_grads.iter().zip(&args[1 + nf..]) {
                next.push(match g {
                    Some(g) => ops::add(total, g)?,
                    None => total.clone(),
                });
            }
            Ok(next)
        })?;
        let outs = control::record_while(&init, cond, body)?;
        let mut by_source: Vec<Option<Tensor>> = vec![None; self.sources.len()];
        for (&k, g) in floating.iter().zip(&outs[1..=nf]) {
            by_source[k] = Some(g.clone());
        }
        for (&i, g) in summed.iter().zip(&outs[1 + nf..]) {
            by_source[i] = Some(g.clone());
        }
        Ok(wanted.iter().map(|&i| by_source[i].take()).collect())
    }

    /// Gradients flowing into the node's own kept values (a higher-order gradient through a
    /// keeping loop): each becomes a seed of the value it keeps, at iteration `step`.
    fn kept_seeds(
        &self,
        upstream: &[Option<Tensor>],
        step: &Tensor,
    ) -> Result<Vec<(ValueRef, Tensor)>> {
        let n = self.forward.n;
        let mut seeds = Vec::new();
        for (j, how) in self.forward.saved.iter().enumerate() {
            let start = self.kept.offset(n, j);
            let Some(Some(u)) = upstream.get(start) else { continue };
            let mut stack = self.kept.outputs[start..start + how.width()].to_vec();
            stack[0] = u.clone();
            let v = self.kept.body.outputs[n + j];
            seeds.push((v, read_back(*how, &stack, step, self.kept.body.info(v))?));
        }
        Ok(seeds)
    }

    /// One iteration's vector-Jacobian product: the body replayed on the kept values under a
    /// fresh tape, seeded with `seeds` (one per floating loop variable) and `seeded` (kept
    /// values' own gradients). Gradients of the floating loop variables, then of `summed`.
    fn step(
        &self,
        restored: &HashMap<ValueRef, Tensor>,
        floating: &[usize],
        summed: &[usize],
        seeds: &[Tensor],
        seeded: Vec<(ValueRef, Tensor)>,
    ) -> Result<Vec<Option<Tensor>>> {
        let body = &self.kept.body;
        let n = self.forward.n;
        let caps = &self.sources[self.forward.body_captures()];
        let vars: Vec<Tensor> =
            (0..n).map(|k| loop_var(body, restored, k)).collect::<Result<_>>()?;
        let tape = Tape::new(false, false);
        let values = {
            let _recording = Recording::enter(&tape);
            floating.iter().for_each(|&k| tape.watch(&vars[k]));
            caps.iter().for_each(|t| tape.watch(t));
            self.forward.variables.iter().for_each(|v| tape.watch_variable(v));
            replay(body, n, restored, caps, &tape)?
        };
        let value = |v: &ValueRef| values[v.node][v.output].clone();
        let mut targets: Vec<Tensor> = floating.iter().map(|&k| value(&body.outputs[k])).collect();
        let mut all_seeds: Vec<Option<Tensor>> = seeds.iter().cloned().map(Some).collect();
        for (v, seed) in seeded {
            targets.push(value(&v));
            all_seeds.push(Some(seed));
        }
        let mut ids: Vec<u64> = floating.iter().map(|&k| vars[k].id()).collect();
        ids.extend(summed.iter().map(|&i| self.sources[i].id()));
        tape.gradient(&targets, &ids, &all_seeds)
    }

    /// Zeros shaped like source `i` (a variable's current value for a variable).
    fn zeros_for(&self, i: usize) -> Result<Tensor> {
        let variables = &self.forward.variables;
        let first_variable = self.sources.len() - variables.len();
        match i.checked_sub(first_variable) {
            Some(v) => {
                let value = variables[v].peek();
                let dims: Vec<i64> = value.shape().dims().iter().map(|&d| d as i64).collect();
                ops::zeros(&dims, value.dtype())
            }
            None => ops::zeros_like(&self.sources[i]),
        }
    }
}

/// Loop variable `k`'s value at the start of the iteration `restored` holds.
fn loop_var(body: &Graph, restored: &HashMap<ValueRef, Tensor>, k: usize) -> Result<Tensor> {
    let node = body.nodes.iter().position(|x| matches!(x.kind, NodeKind::Placeholder(p) if p == k));
    node.and_then(|i| restored.get(&ValueRef { node: i, output: 0 }))
        .cloned()
        .ok_or_else(|| Error::Internal("a loop variable was not kept".into()))
}

/// Every node's outputs in `body` replayed on kept values: a kept value is read back and goes
/// on `tape` alone as its op's result (no other tape may take it for computed here); anything
/// else runs again, recorded as a replay. `caps` are the body's captures.
fn replay(
    body: &Graph,
    n: usize,
    restored: &HashMap<ValueRef, Tensor>,
    caps: &[Tensor],
    tape: &Tape,
) -> Result<Vec<Vec<Tensor>>> {
    let mut values: Vec<Vec<Tensor>> = Vec::with_capacity(body.nodes.len());
    for (i, node) in body.nodes.iter().enumerate() {
        let args: Vec<Tensor> =
            node.inputs.iter().map(|v| values[v.node][v.output].clone()).collect();
        let kept: Option<Vec<Tensor>> = (0..node.outputs.len())
            .map(|k| restored.get(&ValueRef { node: i, output: k }).cloned())
            .collect();
        let outputs = match (&node.kind, kept) {
            (NodeKind::Placeholder(p), None) if *p >= n => {
                vec![caps.get(*p - n).cloned().ok_or_else(|| Error::Internal("capture".into()))?]
            }
            (NodeKind::Placeholder(_), Some(outs)) => outs,
            (NodeKind::Op(op), Some(mut outs)) => {
                if crate::autodiff::rules::has_gradient(op) {
                    let refs: Vec<&Tensor> = args.iter().collect();
                    tape.record_replayed(Backward::Op(op.clone()), &refs, &mut outs);
                }
                outs
            }
            // An inner loop read back with its kept values: its gradient reads them.
            (kind @ NodeKind::While { .. }, Some(mut outs)) => {
                if let Some((grad, sources)) = Forward::recorded(kind, &args) {
                    let refs: Vec<&Tensor> = sources.iter().collect();
                    tape.record_replayed(Backward::ControlFlow(grad), &refs, &mut outs);
                }
                outs
            }
            (NodeKind::ReadVariable(v), Some(mut outs)) => {
                if tape::differentiable(&outs[0]) {
                    let source = v.peek().with_id(v.id());
                    tape.record_replayed(Backward::Identity, &[&source], &mut outs);
                }
                outs
            }
            _ => executor::replay_node(node, args)?,
        };
        values.push(outputs);
    }
    Ok(values)
}
