//! Elementwise fusion: a node absorbs elementwise producers that only it reads and that have
//! its shape; the chain becomes one `Fused` node (one kernel on a GPU, one pass on the CPU).
//! Operands from outside a chain must have the chain's shape, be scalars or be rows along its
//! last axis (a bias: `[C]` or `[1, .., C]` against `[.., C]`).

use crate::graph::fused::{self, Arg, FusedChain, Step};
use crate::graph::ir::{Graph, Node, NodeKind, ValueRef};
use std::collections::HashMap;
use std::sync::Arc;

/// Can `node` be part of a chain: an elementwise op with fully known dims whose operands all
/// have its dims or are scalars or rows (`fused::operand_kind`).
fn eligible(g: &Graph, node: &Node) -> bool {
    let NodeKind::Op(op) = &node.kind else { return false };
    if !fused::fusible(op) || node.outputs.len() != 1 || !node.outputs[0].fully_known() {
        return false;
    }
    // A value of unknown rank has no dims to build a chain over.
    if node.unknown_rank.contains(&true) {
        return false;
    }
    let dims: Vec<usize> = node.outputs[0].dims.iter().map(|d| d.unwrap_or(0)).collect();
    // Chains run numeric kernels: string concatenation and comparison stay single nodes.
    node.inputs.iter().all(|v| {
        let info = g.info(*v);
        let operand: Vec<usize> = info.dims.iter().map(|d| d.unwrap_or(0)).collect();
        !info.dtype.is_string()
            && info.fully_known()
            && fused::operand_kind(&operand, &dims).is_some()
    })
}

/// Returns how many fused nodes were made.
pub fn fuse_elementwise(g: &mut Graph) -> usize {
    let uses = g.use_counts();
    let ok: Vec<bool> = g.nodes.iter().map(|n| eligible(g, n)).collect();
    // members[i]: the nodes (ascending) whose chain ends at node i.
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); g.nodes.len()];
    let mut absorbed = vec![false; g.nodes.len()];
    for i in 0..g.nodes.len() {
        if !ok[i] {
            continue;
        }
        let mut chain = Vec::new();
        for v in g.nodes[i].inputs.clone() {
            let p = v.node;
            let absorbable = ok[p]
                && !absorbed[p]
                && uses[p][0] == 1
                && g.nodes[p].outputs[0].dims == g.nodes[i].outputs[0].dims
                && g.nodes[p].device == g.nodes[i].device;
            if absorbable {
                absorbed[p] = true;
                chain.append(&mut members[p]);
            }
        }
        chain.push(i);
        chain.sort_unstable();
        members[i] = chain;
    }
    let mut made = 0;
    for i in 0..g.nodes.len() {
        if absorbed[i] || members[i].len() < 2 {
            continue;
        }
        let (chain, inputs) = build_chain(g, &members[i]);
        let node = &mut g.nodes[i];
        node.kind = NodeKind::Fused(Arc::new(chain));
        node.inputs = inputs;
        made += 1;
    }
    made
}

/// The chain's steps and its external inputs (each distinct value once).
fn build_chain(g: &Graph, members: &[usize]) -> (FusedChain, Vec<ValueRef>) {
    let position: HashMap<usize, usize> =
        members.iter().enumerate().map(|(k, &m)| (m, k)).collect();
    let mut inputs: Vec<ValueRef> = Vec::new();
    let mut steps = Vec::with_capacity(members.len());
    for &m in members {
        let node = &g.nodes[m];
        let NodeKind::Op(op) = &node.kind else { unreachable!("eligible nodes are ops") };
        let args = node
            .inputs
            .iter()
            .map(|v| match position.get(&v.node) {
                Some(&k) => Arg::Step(k),
                None => Arg::Input(inputs.iter().position(|x| x == v).unwrap_or_else(|| {
                    inputs.push(*v);
                    inputs.len() - 1
                })),
            })
            .collect();
        steps.push(Step { op: op.clone(), args });
    }
    let root = &g.nodes[*members.last().expect("chains are not empty")];
    let dtype = root.outputs[0].dtype;
    let chain = FusedChain { steps, num_inputs: inputs.len(), dtype, producer: None };
    (chain, inputs)
}
