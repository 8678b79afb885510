//! New instances of a graph for `tf.data`: TensorFlow instantiates a dataset function's kernels
//! for each iterator, so the random ops in a `map` function draw their sequence from its start
//! again for every iterator when seeded (two epochs of `map(random_crop)` under `set_seed` crop
//! alike) and from new keys when not. Within one iterator (its repeats, nested datasets) the
//! instance goes on drawing.

use super::ir::{Graph, NodeKind};
use crate::ops::registry::Op;
use std::sync::Arc;

impl Graph {
    /// Whether a node, in a branch or loop body too, draws random numbers when it runs.
    pub fn draws_random(&self) -> bool {
        self.nodes.iter().any(|n| match &n.kind {
            NodeKind::Op(op) => fresh_op(op).is_some(),
            NodeKind::Cond(branches) => branches.iter().any(|b| b.draws_random()),
            NodeKind::While { cond, body, .. } => cond.draws_random() || body.draws_random(),
            _ => false,
        })
    }

    /// A copy whose random nodes start their draws again (see the module's documentation).
    pub fn fresh_instance(&self) -> Graph {
        let mut graph = self.clone();
        for node in &mut graph.nodes {
            let fresh = match &node.kind {
                NodeKind::Op(op) => fresh_op(op).map(NodeKind::Op),
                NodeKind::Cond(branches) if branches.iter().any(|b| b.draws_random()) => Some(
                    NodeKind::Cond(branches.iter().map(|b| Arc::new(b.fresh_instance())).collect()),
                ),
                NodeKind::While { cond, body, loop_vars, saved }
                    if cond.draws_random() || body.draws_random() =>
                {
                    Some(NodeKind::While {
                        cond: Arc::new(cond.fresh_instance()),
                        body: Arc::new(body.fresh_instance()),
                        loop_vars: *loop_vars,
                        saved: saved.clone(),
                    })
                }
                _ => None,
            };
            if let Some(kind) = fresh {
                node.kind = kind;
            }
        }
        graph
    }
}

/// A random op as a new instance draws it; None for any other op.
fn fresh_op(op: &Op) -> Option<Op> {
    match op {
        Op::Random(spec) => Some(Op::Random(spec.fresh_instance())),
        Op::ShapeFromInput(op) => op.fresh_instance().map(Op::ShapeFromInput),
        _ => None,
    }
}
