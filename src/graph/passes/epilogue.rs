//! Epilogue fusion: a fused chain takes in the op that makes one of its full-shaped inputs
//! when only the chain reads that value and the op's CPU kernel can run the chain on each
//! tile of its output while the tile is in cache (`fused::has_epilogue_kernel`). The value
//! then never goes to memory and back. The producer's node is left unread for dead-code
//! elimination.

use crate::graph::fused::{self, Arg, FusedChain, Producer};
use crate::graph::ir::{Graph, NodeKind};
use std::sync::Arc;

/// Returns how many chains took in a producer.
pub fn absorb_producers(g: &mut Graph) -> usize {
    let uses = g.use_counts();
    let mut made = 0;
    for i in 0..g.nodes.len() {
        let node = &g.nodes[i];
        let NodeKind::Fused(chain) = &node.kind else { continue };
        if chain.producer.is_some() {
            continue;
        }
        let found = node.inputs.iter().position(|v| {
            let p = &g.nodes[v.node];
            matches!(&p.kind, NodeKind::Op(op) if fused::has_epilogue_kernel(op))
                && p.outputs.len() == 1
                && !p.unknown_rank.contains(&true)
                && uses[v.node][0] == 1
                && p.outputs[0].dims == node.outputs[0].dims
                && p.outputs[0].dtype == chain.dtype
                && p.device == node.device
        });
        let Some(k) = found else { continue };
        let p = node.inputs[k].node;
        let NodeKind::Op(op) = &g.nodes[p].kind else { unreachable!("checked above") };
        let producer = Producer { op: op.clone(), arity: g.nodes[p].inputs.len() };
        let chain = with_input_first(chain, k, producer);
        let mut rest = node.inputs.clone();
        rest.swap(0, k);
        let inputs = g.nodes[p].inputs.iter().chain(&rest[1..]).copied().collect();
        let node = &mut g.nodes[i];
        node.kind = NodeKind::Fused(Arc::new(chain));
        node.inputs = inputs;
        made += 1;
    }
    made
}

/// `chain` with its inputs `0` and `k` swapped (the produced value becomes input 0).
fn with_input_first(chain: &FusedChain, k: usize, producer: Producer) -> FusedChain {
    let swap = |a: Arg| match a {
        Arg::Input(j) if j == k => Arg::Input(0),
        Arg::Input(0) => Arg::Input(k),
        other => other,
    };
    let mut chain = chain.clone();
    for step in &mut chain.steps {
        step.args.iter_mut().for_each(|a| *a = swap(*a));
    }
    chain.producer = Some(producer);
    chain
}
