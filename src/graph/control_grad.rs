//! Gradients of staged control flow recorded while a tape is active inside a trace. A `Cond`
//! node's gradient is another `Cond` on the same selector whose branches are the branches'
//! backward passes: each is traced by replaying the branch graph under a fresh tape (its ops
//! recorded into the new branch frame) and asking that tape for the gradients. The gradient
//! `Cond` is recorded the same way, so higher-order gradients follow. A `While` node has no
//! gradient yet: asking for one raises, rather than silently giving None.

use super::control;
use super::executor::{self, Mode};
use super::ir::Graph;
use super::trace::{self, Traced};
use crate::autodiff::tape::{self, GradFn, Tape};
use crate::error::{Error, Result};
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
    tape::record_custom(&refs, outputs, grad);
}

/// Records `outputs` of a `While` so that a gradient through it is an error, not a None.
pub fn record_while(inputs: &[Tensor], outputs: &mut [Tensor]) {
    if !tape::any_active() {
        return;
    }
    let grad: GradFn = Arc::new(|_, _, _| {
        Err(Error::Unimplemented(
            "gradients through a tf.while_loop (or a Python loop over a tensor) staged inside a \
             tf.function are not supported yet: differentiate the tf.function from outside, \
             under an eager GradientTape, or loop over a Python range"
                .into(),
        ))
    });
    let refs: Vec<&Tensor> = inputs.iter().collect();
    tape::record_custom(&refs, outputs, grad);
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
        // Outputs nothing flows back to are left out (a None seed would mean ones).
        let (targets, seeds): (Vec<Tensor>, Vec<Option<Tensor>>) = outs
            .into_iter()
            .zip(upstream)
            .filter_map(|(o, u)| u.clone().map(|u| (o, Some(u))))
            .unzip();
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
