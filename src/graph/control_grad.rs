//! Gradients of staged control flow recorded while a tape is active inside a trace. A `Cond`
//! node's gradient is another `Cond` on the same selector whose branches are the branches'
//! backward passes: each is traced by replaying the branch graph under a fresh tape (its ops
//! recorded into the new branch frame) and asking that tape for the gradients. The gradient
//! `Cond` is recorded the same way, so higher-order gradients follow. A `While` node's
//! gradient is a backward `While` over the forward iterations' saved loop variables (see
//! `Loop`).

use super::control;
use super::executor::{self, Mode};
use super::ir::Graph;
use super::trace::{self, Traced};
use crate::autodiff::tape::{self, GradFn, Tape};
use crate::error::Result;
use crate::ops;
use crate::ops::shape_input::ShapeArg;
use crate::ops::static_shape;
use crate::tensor::Tensor;
use crate::variable::Variable;
use std::sync::Arc;

/// Records `outputs` of a `Cond` on the tapes watching its inputs or the variables its
/// branches read. `inputs` are the node's: the selector, then each branch's captured values,
/// branch after branch.
pub fn record_cond(branches: &[Arc<Graph>], inputs: &[Tensor], outputs: &mut [Tensor]) {
    if !tape::any_active() {
        return;
    }
    let mut variables: Vec<Variable> = Vec::new();
    for v in branches.iter().flat_map(|b| b.variables()) {
        if !variables.iter().any(|f| f.id() == v.id()) {
            variables.push(v);
        }
    }
    // A variable enters the entry as its value under the variable's id, as reads do.
    let mut sources = inputs.to_vec();
    sources.extend(variables.iter().map(|v| v.peek().with_id(v.id())));
    let branches = branches.to_vec();
    let grad: GradFn = Arc::new(move |sources, _outputs, upstream| {
        cond_gradient(&branches, &variables, sources, upstream)
    });
    let refs: Vec<&Tensor> = sources.iter().collect();
    // TensorFlow's If gradient gives None for an integer target (only While's answers zeros).
    tape::record_custom(&refs, outputs, grad);
}

/// Records `outputs` of a `While` on the tapes watching its inputs or the variables its body
/// reads. `inputs` are the node's: the loop variables, `cond`'s captures, then `body`'s.
pub fn record_while(
    cond: &Arc<Graph>,
    body: &Arc<Graph>,
    loop_vars: usize,
    inputs: &[Tensor],
    outputs: &mut [Tensor],
) {
    if !tape::any_active() {
        return;
    }
    let variables = body.variables();
    let mut sources = inputs.to_vec();
    sources.extend(variables.iter().map(|v| v.peek().with_id(v.id())));
    let (cond, body) = (cond.clone(), body.clone());
    let grad: GradFn = Arc::new(move |sources, outputs, upstream| {
        let loop_ = Loop { cond: &cond, body: &body, n: loop_vars, variables: &variables, sources };
        loop_.gradient(outputs, upstream)
    });
    let refs: Vec<&Tensor> = sources.iter().collect();
    tape::record_control_flow(&refs, outputs, grad);
}

/// A recorded `While` being differentiated. Its backward pass is two staged loops: the forward
/// loop run again carrying an iteration counter and, per loop variable, the values every
/// iteration started from stacked on a new leading axis; then a loop running the counter down
/// that replays the body on that iteration's values under a fresh tape and takes its
/// vector-Jacobian product for the loop variables (carried) and the body's captures and
/// variables (summed). Both loops are recorded like any `While`, so higher orders follow.
struct Loop<'a> {
    cond: &'a Graph,
    body: &'a Graph,
    n: usize,
    variables: &'a [Variable],
    /// The loop variables, `cond`'s captures, `body`'s captures, the variables' values.
    sources: &'a [Tensor],
}

impl Loop<'_> {
    fn body_captures(&self) -> std::ops::Range<usize> {
        let start = self.cond.num_inputs;
        start..start + self.body.num_inputs - self.n
    }

    fn var_dims(&self, k: usize) -> Vec<Option<usize>> {
        self.body.nodes[k].outputs[0].dims.clone()
    }

    fn gradient(
        &self,
        outputs: &[Tensor],
        upstream: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>> {
        let mut result = vec![None; self.sources.len()];
        let n = self.n;
        // Sources a gradient is owed to: floating loop variables, the body's floating
        // captures, the variables (`cond`'s captures get none: a predicate is not
        // differentiable).
        let wanted: Vec<usize> = (0..n)
            .chain(self.body_captures())
            .chain(self.sources.len() - self.variables.len()..self.sources.len())
            .filter(|&i| tape::differentiable(&self.sources[i]))
            .collect();
        if wanted.is_empty() || upstream.iter().all(Option::is_none) || !trace::recording() {
            return Ok(result);
        }
        let (count, stacks) = self.accumulate()?;
        let grads = self.backward(&count, &stacks, outputs, upstream, &wanted)?;
        for (&i, g) in wanted.iter().zip(grads) {
            result[i] = g;
        }
        Ok(result)
    }

    /// The forward loop again with a counter and, per loop variable, the values every
    /// iteration started from (`Saved`; the last entry holds the final values).
    fn accumulate(&self) -> Result<(Tensor, Vec<Tensor>)> {
        let n = self.n;
        let vars = &self.sources[..n];
        let mut init = vec![Tensor::scalar(0i32)];
        init.extend(vars.iter().cloned());
        for (k, v) in vars.iter().enumerate() {
            init.extend(self.saved(k).start(v)?);
        }
        let dims = self.saved_dims();
        let cond = traced(&init, &|p| dims[p].clone(), |args| {
            let caps = &self.sources[n..self.cond.num_inputs];
            executor::run(self.cond, &[&args[1..=n], caps].concat(), Mode::Replay)
        })?;
        let body = traced(&init, &|p| dims[p].clone(), |args| {
            let caps = &self.sources[self.body_captures()];
            let next = executor::run(self.body, &[&args[1..=n], caps].concat(), Mode::Replay)?;
            let mut out = vec![ops::add(&args[0], &Tensor::scalar(1i32))?];
            out.extend(next.iter().cloned());
            let mut rest = &args[n + 1..];
            for (k, v) in next.iter().enumerate() {
                let saved = self.saved(k);
                let (mine, others) = rest.split_at(saved.width());
                out.extend(saved.push(mine, v)?);
                rest = others;
            }
            Ok(out)
        })?;
        let mut outs = control::record_while(&init, cond, body)?;
        let stacks = outs.split_off(n + 1);
        Ok((outs.swap_remove(0), stacks))
    }

    fn saved(&self, k: usize) -> Saved {
        let dims = self.var_dims(k);
        match dims.iter().all(Option::is_some) {
            true => Saved::Stacked(dims),
            false => Saved::Flat(dims.len()),
        }
    }

    /// Static dims of the accumulating loop's variables: counter, loop variables, saved values.
    fn saved_dims(&self) -> Vec<Vec<Option<usize>>> {
        let mut dims = vec![vec![]];
        dims.extend((0..self.n).map(|k| self.var_dims(k)));
        dims.extend((0..self.n).flat_map(|k| self.saved(k).dims()));
        dims
    }

    /// Each loop variable's value at the start of iteration `step`, from `saved` (the
    /// accumulating loop's saved values, variable after variable).
    fn restore(&self, saved: &[Tensor], step: &Tensor) -> Result<Vec<Tensor>> {
        let mut rest = saved;
        (0..self.n)
            .map(|k| {
                let how = self.saved(k);
                let (mine, others) = rest.split_at(how.width());
                rest = others;
                how.at(mine, step)
            })
            .collect()
    }

    /// The loop running the counter down: its variables are the counter, a gradient for each
    /// floating loop variable, and a running sum for each wanted capture or variable.
    fn backward(
        &self,
        count: &Tensor,
        stacks: &[Tensor],
        outputs: &[Tensor],
        upstream: &[Option<Tensor>],
        wanted: &[usize],
    ) -> Result<Vec<Option<Tensor>>> {
        let n = self.n;
        let floating: Vec<usize> =
            (0..n).filter(|&k| tape::differentiable(&self.sources[k])).collect();
        let summed: Vec<usize> = wanted.iter().copied().filter(|&i| i >= n).collect();
        let mut init = vec![count.clone()];
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
        let dims = |p: usize| match p {
            0 => vec![],
            p if p <= nf => self.var_dims(floating[p - 1]),
            p => trace::static_dims(&self.sources[summed[p - 1 - nf]]),
        };
        let cond =
            traced(&init, &dims, |args| Ok(vec![ops::greater(&args[0], &Tensor::scalar(0i32))?]))?;
        let body = traced(&init, &dims, |args| {
            let step = ops::sub(&args[0], &Tensor::scalar(1i32))?;
            let vars = self.restore(stacks, &step)?;
            let mut next = vec![step];
            let found = self.step(&vars, &floating, &summed, &args[1..=nf])?;
            let (var_grads, sum_grads) = found.split_at(nf);
            for (g, &k) in var_grads.iter().zip(&floating) {
                next.push(match g {
                    Some(g) => g.clone(),
                    None => ops::zeros_like(&vars[k])?,
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

    /// One iteration's vector-Jacobian product: the body replayed on `vars` under a fresh
    /// tape, seeded with `seeds` (one per floating loop variable). Gradients of the floating
    /// loop variables, then of the `summed` sources.
    fn step(
        &self,
        vars: &[Tensor],
        floating: &[usize],
        summed: &[usize],
        seeds: &[Tensor],
    ) -> Result<Vec<Option<Tensor>>> {
        let caps = &self.sources[self.body_captures()];
        let tape = Tape::new(false, false);
        let outs = {
            let _recording = Recording::enter(&tape);
            floating.iter().for_each(|&k| tape.watch(&vars[k]));
            caps.iter().for_each(|t| tape.watch(t));
            self.variables.iter().for_each(|v| tape.watch_variable(v));
            executor::run(self.body, &[vars, caps].concat(), Mode::Replay)?
        };
        let targets: Vec<Tensor> = floating.iter().map(|&k| outs[k].clone()).collect();
        let seeds: Vec<Option<Tensor>> = seeds.iter().cloned().map(Some).collect();
        let mut ids: Vec<u64> = floating.iter().map(|&k| vars[k].id()).collect();
        ids.extend(summed.iter().map(|&i| self.sources[i].id()));
        tape.gradient(&targets, &ids, &seeds)
    }

    /// Zeros shaped like source `i` (a variable's current value for a variable).
    fn zeros_for(&self, i: usize) -> Result<Tensor> {
        let first_variable = self.sources.len() - self.variables.len();
        match i.checked_sub(first_variable) {
            Some(v) => {
                let value = self.variables[v].peek();
                let dims: Vec<i64> = value.shape().dims().iter().map(|&d| d as i64).collect();
                ops::zeros(&dims, value.dtype())
            }
            None => ops::zeros_like(&self.sources[i]),
        }
    }
}

/// How the accumulating loop saves one loop variable's value at every iteration.
enum Saved {
    /// A variable of fully known shape (these dims): its values stacked on a new leading axis.
    Stacked(Vec<Option<usize>>),
    /// A variable whose shape may change between iterations (a TensorArray's growing buffer),
    /// of this rank: its values flattened one after another into a vector, with an int32
    /// matrix of their shapes and a vector of where each starts.
    Flat(usize),
}

impl Saved {
    /// How many loop variables of the accumulating loop hold the saved values.
    fn width(&self) -> usize {
        match self {
            Saved::Stacked(_) => 1,
            Saved::Flat(_) => 3,
        }
    }

    fn dims(&self) -> Vec<Vec<Option<usize>>> {
        match self {
            Saved::Stacked(d) => vec![[vec![None], d.clone()].concat()],
            Saved::Flat(rank) => vec![vec![None], vec![None, Some(*rank)], vec![None]],
        }
    }

    /// The saved values holding only `v`.
    fn start(&self, v: &Tensor) -> Result<Vec<Tensor>> {
        match self {
            Saved::Stacked(_) => Ok(vec![ops::expand_dims(v, 0)?]),
            Saved::Flat(_) => Ok(vec![
                ops::reshape(v, &[-1])?,
                ops::expand_dims(&static_shape::shape_vector(v)?, 0)?,
                Tensor::from_slice(&[0i32], &[1])?,
            ]),
        }
    }

    /// `saved` with `v` appended.
    fn push(&self, saved: &[Tensor], v: &Tensor) -> Result<Vec<Tensor>> {
        match self {
            Saved::Stacked(_) => Ok(vec![ops::concat(&[&saved[0], &ops::expand_dims(v, 0)?], 0)?]),
            Saved::Flat(_) => {
                let (flat, shapes, starts) = (&saved[0], &saved[1], &saved[2]);
                let end = static_shape::shape_vector(flat)?;
                Ok(vec![
                    ops::concat(&[flat, &ops::reshape(v, &[-1])?], 0)?,
                    ops::concat(
                        &[shapes, &ops::expand_dims(&static_shape::shape_vector(v)?, 0)?],
                        0,
                    )?,
                    ops::concat(&[starts, &end], 0)?,
                ])
            }
        }
    }

    /// The value saved at position `step` (an int32 scalar).
    fn at(&self, saved: &[Tensor], step: &Tensor) -> Result<Tensor> {
        match self {
            Saved::Stacked(_) => ops::gather(&saved[0], step, 0, 0),
            Saved::Flat(_) => {
                let shape = ops::gather(&saved[1], step, 0, 0)?;
                let start = ops::gather(&saved[2], step, 0, 0)?;
                let size = ops::reduce(ops::ReduceOp::Prod, &shape, None, false)?;
                let end = ops::add(&start, &size)?;
                let values = ops::gather(
                    &saved[0],
                    &ops::range(&start, &end, &Tensor::scalar(1i32))?,
                    0,
                    0,
                )?;
                ShapeArg::Traced(shape).apply(&[&values], |dims| {
                    Ok(crate::dispatch::Op::Reshape(crate::ops::shape_ops::Reshape(dims.to_vec())))
                })
            }
        }
    }
}

/// A loop's condition or body traced in a fresh frame: placeholders like `examples` (with the
/// static dims `dims` gives by position) feed `f`, whose results are the graph's outputs.
fn traced(
    examples: &[Tensor],
    dims: &dyn Fn(usize) -> Vec<Option<usize>>,
    f: impl FnOnce(&[Tensor]) -> Result<Vec<Tensor>>,
) -> Result<Traced> {
    trace::begin();
    let made = examples
        .iter()
        .enumerate()
        .map(|(k, t)| trace::placeholder(t, "loop_var", dims(k)))
        .collect::<Result<Vec<_>>>()
        .and_then(|args| f(&args));
    match made {
        Ok(outs) => trace::finish(&outs),
        Err(e) => {
            trace::abandon();
            Err(e)
        }
    }
}

/// `sources`: the selector, the branches' captures, then the variables' values. Returns a
/// gradient for each differentiable source (None for the selector and integer captures).
fn cond_gradient(
    branches: &[Arc<Graph>],
    variables: &[Variable],
    sources: &[Tensor],
    upstream: &[Option<Tensor>],
) -> Result<Vec<Option<Tensor>>> {
    let mut result = vec![None; sources.len()];
    let wanted: Vec<usize> =
        (1..sources.len()).filter(|&i| tape::differentiable(&sources[i])).collect();
    if wanted.is_empty() || upstream.iter().all(Option::is_none) || !trace::recording() {
        return Ok(result);
    }
    let mut traced = Vec::with_capacity(branches.len());
    let mut start = 1;
    for graph in branches {
        let range = start..start + graph.num_inputs;
        start = range.end;
        trace::begin();
        let backward = BranchBackward { graph, range, variables, sources };
        match backward.trace(upstream, &wanted) {
            Ok(grads) => traced.push(trace::finish(&grads)?),
            Err(e) => {
                trace::abandon();
                return Err(e);
            }
        }
    }
    let grads = control::record_cond(&sources[0], traced)?;
    for (&i, g) in wanted.iter().zip(grads) {
        result[i] = Some(g);
    }
    Ok(result)
}

struct BranchBackward<'a> {
    graph: &'a Graph,
    /// The branch's captures among the sources.
    range: std::ops::Range<usize>,
    variables: &'a [Variable],
    /// The captures, then the variables' values under their ids.
    sources: &'a [Tensor],
}

impl BranchBackward<'_> {
    /// Inside a fresh frame: the gradient of each wanted source (zeros where this branch does
    /// not reach it).
    fn trace(&self, upstream: &[Option<Tensor>], wanted: &[usize]) -> Result<Vec<Tensor>> {
        let tape = Tape::new(false, false);
        let outs = {
            let _recording = Recording::enter(&tape);
            self.sources[self.range.clone()].iter().for_each(|t| tape.watch(t));
            self.variables.iter().for_each(|v| tape.watch_variable(v));
            executor::run(self.graph, &self.sources[self.range.clone()], Mode::Replay)?
        };
        // Outputs nothing flows back to are left out (a None seed would mean ones). A seed is
        // the gradient of the Cond's output, traced on the example of the branch taken while
        // tracing; where this branch's output example is shaped otherwise, the branch reads
        // the seed through a capture with an example of its own output's shape.
        let mut targets = Vec::new();
        let mut seeds = Vec::new();
        for (o, u) in outs.into_iter().zip(upstream) {
            let Some(u) = u else { continue };
            // A lazy output's example is computed only if read, and a branch not taken while
            // tracing may have examples it cannot run on (a TensorArray's append branch with a
            // negative gap): its seed then stands in as zeros of its own (lazy) output.
            let lazy = o.is_lazy() || u.is_lazy();
            let u = match u.rank() == o.rank() && (lazy || u.shape() != o.shape()) {
                true if lazy && trace::is_symbolic(u) => {
                    trace::capture_as(u, &ops::zeros_like(&o)?)?
                }
                // A constant seed: its value holds for every branch.
                true if lazy => u.clone(),
                true => {
                    let dims: Vec<i64> = o.shape().dims().iter().map(|&d| d as i64).collect();
                    trace::capture_as(u, &ops::zeros(&dims, u.dtype())?)?
                }
                false => u.clone(),
            };
            targets.push(o);
            seeds.push(Some(u));
        }
        // A value both branches captured is a source once per branch: each branch answers
        // only for its own captures (and the variables), or the gradient would count twice.
        let own: Vec<usize> = wanted.iter().copied().filter(|&i| self.owns(i)).collect();
        let ids: Vec<u64> = own.iter().map(|&i| self.sources[i].id()).collect();
        let mut found: Vec<Option<Tensor>> = vec![None; self.sources.len()];
        for (&i, g) in own.iter().zip(tape.gradient(&targets, &ids, &seeds)?) {
            found[i] = g;
        }
        wanted
            .iter()
            .map(|&i| found[i].take().map_or_else(|| ops::zeros_like(&self.sources[i]), Ok))
            .collect()
    }

    fn owns(&self, i: usize) -> bool {
        self.range.contains(&i) || i >= self.sources.len() - self.variables.len()
    }
}

/// A tape recording for the duration of a scope.
struct Recording<'a>(&'a Tape);

impl<'a> Recording<'a> {
    fn enter(tape: &'a Tape) -> Recording<'a> {
        tape.push();
        Recording(tape)
    }
}

impl Drop for Recording<'_> {
    fn drop(&mut self) {
        self.0.pop();
    }
}

/// A `Traced` for a branch graph replayed inside another frame, fed `captures`.
pub(super) fn replayed(graph: &Graph, captures: &[Tensor]) -> Traced {
    Traced {
        graph: graph.clone(),
        captures: Vec::new(),
        capture_examples: captures.to_vec(),
        specialised: false,
    }
}
