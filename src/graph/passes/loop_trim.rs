//! Loop trimming: a `While` stops taking captures its condition and body no longer read, and
//! stops keeping values (`loop_saves`) nothing reads. A loop's gradient keeps every value it
//! may read and the backward loop reads back every one of them; once dead-code elimination
//! has removed the reads its vector-Jacobian product does not need, this leaves the forward
//! loop keeping only what the backward loop uses. Nodes are visited last to first, so a
//! backward loop drops its reads of a forward loop's stacks before the forward loop is seen.

use crate::graph::ir::{Graph, NodeKind, ValueRef};
use crate::graph::loop_saves::Saved;
use std::sync::Arc;

/// Returns how many inputs and kept values were dropped. A body that keeps fewer values is
/// rewritten by `reoptimize` (the passes run on it again: what fed only the dropped values
/// goes, and chains they split can fuse); the captures it then no longer reads go too.
pub fn trim_loops(g: &mut Graph, reoptimize: &dyn Fn(&Graph) -> Graph) -> usize {
    let mut dropped = 0;
    for i in (0..g.nodes.len()).rev() {
        if !matches!(g.nodes[i].kind, NodeKind::While { .. }) {
            continue;
        }
        dropped += drop_unread_stacks(g, i, reoptimize);
        dropped += drop_unread_captures(g, i);
    }
    if dropped > 0 {
        g.finish();
    }
    dropped
}

/// Placeholders of `graph` no node or output reads, by input position.
fn unread_inputs(graph: &Graph) -> Vec<usize> {
    let mut read = vec![false; graph.nodes.len()];
    for v in graph.nodes.iter().flat_map(|n| &n.inputs).chain(&graph.outputs) {
        read[v.node] = true;
    }
    let mut unread: Vec<usize> = (graph.nodes.iter().enumerate())
        .filter_map(|(i, n)| match n.kind {
            NodeKind::Placeholder(p) if !read[i] => Some(p),
            _ => None,
        })
        .collect();
    unread.sort_unstable();
    unread
}

/// `graph` without the placeholders at input positions `gone`, the rest renumbered.
fn without_inputs(graph: &Graph, gone: &[usize]) -> Graph {
    let mut g = graph.clone();
    let keep: Vec<bool> = (g.nodes.iter())
        .map(|n| !matches!(n.kind, NodeKind::Placeholder(p) if gone.contains(&p)))
        .collect();
    for n in g.nodes.iter_mut() {
        if let NodeKind::Placeholder(p) = &mut n.kind {
            *p -= gone.iter().filter(|&&q| q < *p).count();
        }
    }
    g.num_inputs -= gone.len();
    g.compact(&keep, &Default::default());
    g
}

fn drop_unread_captures(g: &mut Graph, i: usize) -> usize {
    let NodeKind::While { cond, body, loop_vars: n, .. } = &g.nodes[i].kind else { return 0 };
    let n = *n;
    // Captures only: the loop variables' positions are fixed.
    let cond_gone: Vec<usize> = unread_inputs(cond).into_iter().filter(|&p| p >= n).collect();
    let body_gone: Vec<usize> = unread_inputs(body).into_iter().filter(|&p| p >= n).collect();
    if cond_gone.is_empty() && body_gone.is_empty() {
        return 0;
    }
    // Node inputs: the loop variables, `cond`'s captures, then `body`'s.
    let cond_captures = cond.num_inputs - n;
    let mut gone_inputs: Vec<usize> = cond_gone.clone();
    gone_inputs.extend(body_gone.iter().map(|p| p + cond_captures));
    let (cond, body) = (without_inputs(cond, &cond_gone), without_inputs(body, &body_gone));
    let node = &mut g.nodes[i];
    if let NodeKind::While { cond: c, body: b, .. } = &mut node.kind {
        *c = Arc::new(cond);
        *b = Arc::new(body);
    }
    let inputs = std::mem::take(&mut node.inputs);
    node.inputs = (inputs.into_iter().enumerate())
        .filter(|(k, _)| !gone_inputs.contains(k))
        .map(|(_, v)| v)
        .collect();
    gone_inputs.len()
}

fn drop_unread_stacks(g: &mut Graph, i: usize, reoptimize: &dyn Fn(&Graph) -> Graph) -> usize {
    let NodeKind::While { body, loop_vars: n, saved, .. } = &g.nodes[i].kind else { return 0 };
    if saved.is_empty() {
        return 0;
    }
    let n = *n;
    let uses = g.use_counts();
    let read = |k: usize| uses[i][k] > 0;
    // Output positions of each kept value's stack.
    let mut start = n + 1;
    let mut keep: Vec<bool> = Vec::with_capacity(saved.len());
    for how in saved {
        keep.push((start..start + how.width()).any(read));
        start += how.width();
    }
    // A read count with no stack read keeps the first stack: the count exists with stacks.
    if !keep.contains(&true) && read(n) {
        keep[0] = true;
    }
    if !keep.contains(&false) {
        return 0;
    }
    let dropped = keep.iter().filter(|k| !**k).count();
    // Old output position → new, for the outputs that stay.
    let mut moved: Vec<Option<usize>> = (0..n).map(Some).collect();
    let any = keep.contains(&true);
    moved.push(any.then_some(n));
    let mut next = n + usize::from(any);
    for (how, &kept) in saved.iter().zip(&keep) {
        for _ in 0..how.width() {
            moved.push(kept.then_some(next));
            next += usize::from(kept);
        }
    }
    let mut new_body = (**body).clone();
    let outputs = std::mem::take(&mut new_body.outputs);
    let (vars, values) = outputs.split_at(n);
    new_body.outputs = vars.to_vec();
    new_body.outputs.extend(values.iter().zip(&keep).filter(|(_, k)| **k).map(|(v, _)| *v));
    // Inner loops whose stacks only the dropped values read keep less in turn.
    let new_body = reoptimize(&new_body);
    let new_saved: Vec<Saved> =
        saved.iter().zip(&keep).filter(|(_, k)| **k).map(|(s, _)| *s).collect();
    let node = &mut g.nodes[i];
    let stays = |k: &usize| moved[*k].is_some();
    node.outputs = (node.outputs.iter().enumerate())
        .filter(|(k, _)| stays(k))
        .map(|(_, t)| t.clone())
        .collect();
    if !node.unknown_rank.is_empty() {
        node.unknown_rank = (node.unknown_rank.iter().enumerate())
            .filter(|(k, _)| stays(k))
            .map(|(_, u)| *u)
            .collect();
    }
    if let NodeKind::While { body, saved, .. } = &mut node.kind {
        *body = Arc::new(new_body);
        *saved = new_saved;
    }
    let renumber = |v: &mut ValueRef| {
        if v.node == i {
            // Only unread outputs were dropped, so every read one has a new position.
            v.output = moved[v.output].unwrap_or(v.output);
        }
    };
    for n in g.nodes.iter_mut() {
        n.inputs.iter_mut().for_each(renumber);
    }
    g.outputs.iter_mut().for_each(renumber);
    dropped
}
