//! Dead-code elimination: keeps what the outputs read, nodes with effects (assignments,
//! prints) and the placeholders (argument positions are fixed).

use crate::graph::ir::{Graph, NodeKind};
use std::collections::HashMap;

/// Returns how many nodes were removed.
pub fn eliminate_dead_code(g: &mut Graph) -> usize {
    let mut live = vec![false; g.nodes.len()];
    for v in &g.outputs {
        live[v.node] = true;
    }
    for (i, n) in g.nodes.iter().enumerate() {
        live[i] |= n.has_effects() || matches!(n.kind, NodeKind::Placeholder(_));
    }
    for i in (0..g.nodes.len()).rev() {
        if live[i] {
            for v in &g.nodes[i].inputs {
                live[v.node] = true;
            }
        }
    }
    let removed = live.iter().filter(|l| !**l).count();
    if removed > 0 {
        g.compact(&live, &HashMap::new());
    }
    removed
}
