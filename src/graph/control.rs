//! Staged control flow: branches and loop bodies traced into subgraphs by the caller become
//! one `Cond` or `While` node of the enclosing graph. Its example outputs (what the rest of the
//! trace computes with) come from running the node on the example inputs.

use super::control_grad;
use super::executor;
use super::ir::{Graph, Node, NodeKind};
use super::loop_saves::{self, Saved};
use super::trace::{self, Traced};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::TensorType;
use crate::tensor::Tensor;
use std::sync::Arc;

type Dims = Vec<Option<usize>>;

fn output_dims(g: &Graph) -> Vec<Dims> {
    g.outputs.iter().map(|v| g.info(*v).dims.clone()).collect()
}

/// Static dims two traced results share: equal sizes stay known.
fn merge(a: &[Dims], b: &[Dims]) -> Vec<Dims> {
    a.iter()
        .zip(b)
        .map(|(x, y)| match x.len() == y.len() {
            true => x.iter().zip(y).map(|(p, q)| if p == q { *p } else { None }).collect(),
            false => vec![None; x.len()],
        })
        .collect()
}

/// `tf.cond`/`tf.switch_case`: `selector` is a bool or integer scalar; every branch returns
/// values of the same dtypes.
pub fn record_cond(selector: &Tensor, branches: Vec<Traced>) -> Result<Vec<Tensor>> {
    let first = branches.first().ok_or_else(|| Error::Value("no branches".into()))?;
    let dtypes =
        |t: &Traced| t.graph.outputs.iter().map(|v| t.graph.info(*v).dtype).collect::<Vec<_>>();
    for b in &branches[1..] {
        if dtypes(b) != dtypes(first) {
            return Err(Error::Type(format!(
                "branches of a tf.cond or tf.switch_case must return the same dtypes, got {:?} and {:?}",
                dtypes(first),
                dtypes(b)
            )));
        }
    }
    let mut dims = output_dims(&first.graph);
    for b in &branches[1..] {
        dims = merge(&dims, &output_dims(&b.graph));
    }
    // An output is of unknown rank where some branch's is (a host call's result).
    let unknown_rank: Vec<bool> = (0..dims.len())
        .map(|k| branches.iter().any(|b| b.graph.unknown_rank(b.graph.outputs[k])))
        .collect();
    if branches.iter().any(|b| b.specialised) {
        trace::note_specialised();
    }
    let mut inputs = vec![selector.clone()];
    for b in &branches {
        inputs.extend(b.capture_examples.iter().cloned());
    }
    let graphs: Vec<Arc<Graph>> = branches.into_iter().map(|b| Arc::new(b.graph)).collect();
    let dtypes = graphs[0].outputs.iter().map(|v| graphs[0].info(*v).dtype).collect();
    let kind = NodeKind::Cond(graphs.clone());
    let mut outputs = record(kind, &inputs, dims, dtypes, &unknown_rank, "cond")?;
    control_grad::record_cond(&graphs, &inputs, &mut outputs);
    Ok(outputs)
}

/// `tf.while_loop`: `cond` and `body` were traced with the loop variables as their first
/// inputs; `body` returns the next values of the same dtypes and compatible shapes.
pub fn record_while(vars: &[Tensor], cond: Traced, body: Traced) -> Result<Vec<Tensor>> {
    record_while_keeping(vars, cond, body, Vec::new())
}

/// `record_while` for a body that also returns values to keep from every iteration, one per
/// `saved` entry after the next loop variables (see `loop_saves`).
pub fn record_while_keeping(
    vars: &[Tensor],
    cond: Traced,
    body: Traced,
    saved: Vec<Saved>,
) -> Result<Vec<Tensor>> {
    let n = vars.len();
    let takes_vars = |g: &Graph| {
        g.num_inputs >= n
            && g.nodes.len() >= n
            && g.nodes[..n].iter().all(|node| matches!(node.kind, NodeKind::Placeholder(_)))
    };
    if !takes_vars(&cond.graph) || !takes_vars(&body.graph) || cond.graph.outputs.len() != 1 {
        return Err(Error::InvalidArgument(
            "a while loop's condition and body must be traced with the loop variables as their \
             first inputs, and the condition must return one value"
                .into(),
        ));
    }
    if body.graph.outputs.len() != n + saved.len() {
        return Err(Error::InvalidArgument(format!(
            "the body of a tf.while_loop must return its {n} loop variables, got {} values",
            body.graph.outputs.len() - saved.len().min(body.graph.outputs.len())
        )));
    }
    let out_dtypes: Vec<_> =
        body.graph.outputs[..n].iter().map(|v| body.graph.info(*v).dtype).collect();
    let in_dtypes: Vec<_> = vars.iter().map(Tensor::dtype).collect();
    if out_dtypes != in_dtypes {
        return Err(Error::Type(format!(
            "the body of a tf.while_loop must return its loop variables' dtypes {in_dtypes:?}, \
             got {out_dtypes:?}"
        )));
    }
    // The loop variables' dims are those every iteration starts from (the body's inputs).
    let mut types = loop_saves::output_types(&body.graph, n, &saved);
    for (t, node) in types.iter_mut().zip(&body.graph.nodes[..n]) {
        t.dims = node.outputs[0].dims.clone();
    }
    if cond.specialised || body.specialised {
        trace::note_specialised();
    }
    let mut inputs = vars.to_vec();
    inputs.extend(cond.capture_examples.iter().cloned());
    inputs.extend(body.capture_examples.iter().cloned());
    let (cond, body) = (Arc::new(cond.graph), Arc::new(body.graph));
    let kind = NodeKind::While { cond: cond.clone(), body: body.clone(), loop_vars: n, saved };
    let dims = types.iter().map(|t| t.dims.clone()).collect();
    let dtypes = types.iter().map(|t| t.dtype).collect();
    let mut outputs = record(kind.clone(), &inputs, dims, dtypes, &[], "while")?;
    super::while_grad::record_while(&kind, &inputs, &mut outputs);
    Ok(outputs)
}

/// Records the node; its example outputs are deferred (run on the example inputs if read)
/// where their sizes are known, else computed now.
fn record(
    kind: NodeKind,
    inputs: &[Tensor],
    dims: Vec<Dims>,
    dtypes: Vec<DType>,
    unknown_rank: &[bool],
    base: &str,
) -> Result<Vec<Tensor>> {
    let node = Node {
        kind,
        inputs: Vec::new(),
        outputs: Vec::new(),
        unknown_rank: Vec::new(),
        name: base.into(),
        device: None,
        captured: false,
    };
    let types: Vec<TensorType> = dtypes
        .into_iter()
        .zip(&dims)
        .map(|(dtype, d)| TensorType { dtype, dims: d.clone() })
        .collect();
    let mut outputs = match super::deferred::defer_node(&node, inputs, &types, unknown_rank) {
        Some(deferred) => deferred,
        None => executor::eval_example(&node, inputs)?,
    };
    let refs: Vec<&Tensor> = inputs.iter().collect();
    trace::record_node(node.kind, &refs, &mut outputs, dims, base);
    trace::set_unknown_rank(&outputs, unknown_rank);
    Ok(outputs)
}
