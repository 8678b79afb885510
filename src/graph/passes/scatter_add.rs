//! Scatter accumulation: `x + scatter_nd(indices, updates, shape)`, where the scatter's shape
//! is `x`'s and only the add reads the scatter, becomes `TensorScatterAdd(x, indices,
//! updates)`. A loop's gradient sums each iteration's gathered rows into a total this way;
//! the executor then adds the rows into the total's own memory (see `ops::scatter_add`)
//! instead of building a dense zero tensor and adding it whole every iteration.
//!
//! The sums are the same numbers except in two corners: an untouched `-0.0` in `x` stays
//! `-0.0` (adding zeros made it `+0.0`), and updates to one place are added to `x` one after
//! another rather than summed first (a rounding difference), as TensorFlow's own
//! `tensor_scatter_nd_add` does.

use crate::dispatch::Op;
use crate::graph::ir::{Graph, NodeKind};
use crate::ops::binary::BinaryOp;
use crate::ops::index::ScatterNd;
use crate::ops::scatter_add::TensorScatterAdd;

/// Returns how many adds became scatter-adds.
pub fn accumulate_scatters(g: &mut Graph) -> usize {
    let uses = g.use_counts();
    let mut made = 0;
    for i in 0..g.nodes.len() {
        let node = &g.nodes[i];
        let is_add = matches!(node.kind, NodeKind::Op(Op::Binary(BinaryOp::Add)));
        if !is_add || node.inputs.len() != 2 || node.unknown_rank.contains(&true) {
            continue;
        }
        let out = &node.outputs[0];
        let summable = out.dtype.is_numeric() && !out.dtype.is_quantized();
        let found = (0..2).find(|&k| {
            let (scattered, total) = (node.inputs[k], node.inputs[1 - k]);
            let scatter = &g.nodes[scattered.node];
            let NodeKind::Op(Op::ScatterNd(ScatterNd(shape))) = &scatter.kind else {
                return false;
            };
            let total_type = g.info(total);
            // No broadcasting: the total, the scatter and the sum have one shape and dtype.
            summable
                && !g.unknown_rank(total)
                && total_type == out
                && shape.dims().iter().map(|&d| Some(d)).eq(out.dims.iter().copied())
                && uses[scattered.node][0] == 1
                && scatter.device == node.device
        });
        let Some(k) = found else { continue };
        let scatter = &g.nodes[node.inputs[k].node];
        let inputs = vec![node.inputs[1 - k], scatter.inputs[0], scatter.inputs[1]];
        let node = &mut g.nodes[i];
        node.kind = NodeKind::Op(Op::TensorScatterAdd(TensorScatterAdd));
        node.inputs = inputs;
        made += 1;
    }
    made
}
