//! Common-subexpression elimination: a pure node with the same op, attributes and inputs as an
//! earlier one reads the earlier one's outputs instead.

use crate::graph::ir::{Graph, ValueRef};
use std::collections::HashMap;

/// Returns how many nodes were merged away.
pub fn eliminate_common_subexpressions(g: &mut Graph) -> usize {
    let mut seen: HashMap<(String, Vec<ValueRef>), usize> = HashMap::new();
    let mut replace: HashMap<ValueRef, ValueRef> = HashMap::new();
    let mut keep = vec![true; g.nodes.len()];
    for (i, node) in g.nodes.iter_mut().enumerate() {
        // Earlier merges redirect this node's inputs first, so chains of duplicates collapse.
        let inputs: Vec<ValueRef> =
            node.inputs.iter().map(|v| *replace.get(v).unwrap_or(v)).collect();
        node.inputs = inputs.clone();
        if !node.is_pure() {
            continue;
        }
        let crate::graph::ir::NodeKind::Op(op) = &node.kind else { continue };
        let key = (format!("{op:?}|{:?}", node.device), inputs);
        match seen.get(&key) {
            Some(&first) => {
                for k in 0..node.outputs.len() {
                    replace.insert(
                        ValueRef { node: i, output: k },
                        ValueRef { node: first, output: k },
                    );
                }
                keep[i] = false;
            }
            None => {
                seen.insert(key, i);
            }
        }
    }
    let merged = keep.iter().filter(|k| !**k).count();
    if merged > 0 {
        g.compact(&keep, &replace);
    }
    merged
}
