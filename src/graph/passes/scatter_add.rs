//! Scatter accumulation: `x + scatter_nd(indices, updates, shape)`, where the scatter's shape
//! is `x`'s and only the add reads the scatter, becomes `TensorScatterAdd(x, indices,
//! updates)`. A loop's gradient sums each iteration's gathered rows into a total this way;
//! the executor then adds the rows into the total's own memory (see `ops::scatter_add`)
//! instead of building a dense zero tensor and adding it whole every iteration.
//!
//! The sums are the add's, bit for bit: the scatter must hold one index (a gathered row's
//! gradient), so no two updates meet (several would be summed before the add there, one
//! after another into `x` here, rounding differently), and the op made here turns every
//! `-0.0` positive as adding the dense scatter's zeros does (`as_dense_add`; TensorFlow's own
//! `tensor_scatter_nd_add` keeps them).

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
        let summable =
            out.dtype.is_numeric() && !out.dtype.is_quantized() && !out.dtype.is_complex();
        let found = (0..2).find(|&k| {
            let (scattered, total) = (node.inputs[k], node.inputs[1 - k]);
            let scatter = &g.nodes[scattered.node];
            let NodeKind::Op(Op::ScatterNd(ScatterNd(shape))) = &scatter.kind else {
                return false;
            };
            let total_type = g.info(total);
            // One index: every leading axis of the indices known to be 1.
            let index = scatter.inputs[0];
            let index_dims = &g.info(index).dims;
            let one_index = !g.unknown_rank(index)
                && index_dims
                    .split_last()
                    .is_some_and(|(_, lead)| lead.iter().all(|&d| d == Some(1)));
            // No broadcasting: the total, the scatter and the sum have one shape and dtype.
            summable
                && one_index
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
        node.kind = NodeKind::Op(Op::TensorScatterAdd(TensorScatterAdd { as_dense_add: true }));
        node.inputs = inputs;
        made += 1;
    }
    made
}
