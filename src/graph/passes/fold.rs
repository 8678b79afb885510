//! Constant folding: a pure op whose inputs are all constants runs once, at optimisation
//! time, and becomes a constant. An op that fails is left to fail when the graph runs.

use crate::dispatch;
use crate::graph::ir::{Graph, NodeKind};
use crate::graph::trace;
use crate::tensor::Tensor;

/// Returns how many nodes became constants.
pub fn fold_constants(g: &mut Graph) -> usize {
    let _quiet = (trace::suspend(), crate::autodiff::tape::pause_all());
    let mut folded = 0;
    for i in 0..g.nodes.len() {
        let node = &g.nodes[i];
        let NodeKind::Op(op) = &node.kind else { continue };
        if !node.is_pure() || node.inputs.is_empty() || node.outputs.len() != 1 {
            continue;
        }
        let constants: Option<Vec<Tensor>> = node
            .inputs
            .iter()
            .map(|v| match &g.nodes[v.node].kind {
                NodeKind::Const(t) if !g.nodes[v.node].captured => Some(t.clone()),
                _ => None,
            })
            .collect();
        let Some(constants) = constants else { continue };
        let refs: Vec<&Tensor> = constants.iter().collect();
        if let Some(spec) = node.device.clone() {
            crate::device::push_spec(spec);
        }
        let result = dispatch::apply(op, &refs);
        if node.device.is_some() {
            crate::device::pop_scope();
        }
        if let Ok(mut outputs) = result {
            let node = &mut g.nodes[i];
            node.kind = NodeKind::Const(outputs.remove(0));
            node.inputs.clear();
            folded += 1;
        }
    }
    folded
}
