//! Graph rewrites run once per trace, before the first call: constant folding, common
//! subexpression elimination, dead-code elimination (with loop trimming), scatter
//! accumulation, elementwise fusion and epilogue fusion
//! (a chain taken into the kernel of the op before it). Each keeps the
//! graph's results; tests check both the rewritten graph and unchanged outputs.

mod cse;
mod dce;
mod epilogue;
mod fold;
mod fuse;
mod loop_trim;
mod scatter_add;

pub use cse::eliminate_common_subexpressions;
pub use dce::eliminate_dead_code;
pub use epilogue::absorb_producers;
pub use fold::fold_constants;
pub use fuse::fuse_elementwise;
pub use loop_trim::trim_loops;
pub use scatter_add::accumulate_scatters;

use super::ir::{Graph, NodeKind};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    Fold,
    Cse,
    Dce,
    Fuse,
}

pub const ALL: [Pass; 5] = [Pass::Fold, Pass::Cse, Pass::Dce, Pass::Fuse, Pass::Dce];

/// `graph` rewritten by `passes` in order, nested graphs (branches, loop bodies) first.
pub fn optimize(graph: &Graph, passes: &[Pass]) -> Graph {
    let mut g = graph.clone();
    for node in g.nodes.iter_mut() {
        match &mut node.kind {
            NodeKind::Cond(branches) => {
                for b in branches.iter_mut() {
                    *b = Arc::new(optimize(b, passes));
                }
            }
            NodeKind::While { cond, body, .. } => {
                *cond = Arc::new(optimize(cond, passes));
                *body = Arc::new(optimize(body, passes));
            }
            _ => {}
        }
    }
    for pass in passes {
        match pass {
            Pass::Fold => fold_constants(&mut g),
            Pass::Cse => eliminate_common_subexpressions(&mut g),
            // Trimming a loop reads the graph without dead readers, and can leave what fed
            // its dropped captures dead.
            Pass::Dce => {
                let removed = eliminate_dead_code(&mut g);
                match trim_loops(&mut g, &|body| optimize(body, passes)) {
                    0 => removed,
                    trimmed => removed + trimmed + eliminate_dead_code(&mut g),
                }
            }
            Pass::Fuse => {
                // Before fusion, which would take the add into an elementwise chain.
                let accumulated = accumulate_scatters(&mut g);
                let made = accumulated + fuse_elementwise(&mut g);
                // The chains' absorbed nodes still read their producers until removed.
                eliminate_dead_code(&mut g);
                made + absorb_producers(&mut g)
            }
        };
    }
    g.finish();
    g
}
