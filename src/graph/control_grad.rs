//! Gradients of staged control flow recorded while a tape is active inside a trace. A `Cond`
//! node's gradient is another `Cond` on the same selector whose branches are the branches'
//! backward passes: each is traced by replaying the branch graph under a fresh tape (its ops
//! recorded into the new branch frame) and asking that tape for the gradients. The gradient
//! `Cond` is recorded the same way, so higher-order gradients follow. A `While` node's
//! gradient is in `while_grad`.

use super::control;
use super::executor::{self, Mode};
use super::ir::Graph;
use super::trace::{self, Traced};
use crate::autodiff::tape::{self, GradFn, Tape};
use crate::error::Result;
use crate::ops;
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

/// A loop's condition or body traced in a fresh frame: placeholders like `examples` (with the
/// static dims `dims` gives by position) feed `f`, whose results are the graph's outputs.
pub(super) fn traced(
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
pub(super) struct Recording<'a>(&'a Tape);

impl<'a> Recording<'a> {
    pub(super) fn enter(tape: &'a Tape) -> Recording<'a> {
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
