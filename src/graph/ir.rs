//! The traced graph: nodes in program order (so order is also a valid schedule), each reading
//! earlier nodes' outputs. Control flow holds its branches and loop bodies as nested graphs.

use super::fused::FusedChain;
use super::print::PrintSpec;
use crate::device::DeviceSpec;
use crate::dispatch::Op;
use crate::ops::primitive::TensorType;
use crate::tensor::Tensor;
use crate::variable::Variable;
use std::sync::Arc;

/// Output `output` of node `node`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct ValueRef {
    pub node: usize,
    pub output: usize,
}

#[derive(Clone)]
pub enum NodeKind {
    /// The n-th input of the graph.
    Placeholder(usize),
    Const(Tensor),
    Op(Op),
    /// A chain of elementwise ops run as one kernel (made by the fusion pass).
    Fused(Arc<FusedChain>),
    ReadVariable(Variable),
    /// Input: the new value. No outputs; runs where it was traced relative to reads.
    AssignVariable(Variable),
    /// `tf.print`: inputs are the tensors it formats.
    Print(Arc<PrintSpec>),
    /// Input 0 picks the branch (bool: true → 0, false → 1; int: out of range → last); then
    /// each branch's captured values, branch after branch (a branch's inputs are captures).
    Cond(Vec<Arc<Graph>>),
    /// Inputs: the loop variables, then the values `cond` captured, then those `body` did.
    /// `cond` maps (vars, its captures) to a scalar bool; `body` (vars, its captures) to the
    /// next vars, then one value per `saved` entry, kept from every iteration for a gradient
    /// (see `loop_saves`: the node then also outputs the iteration count and the stacks).
    While {
        cond: Arc<Graph>,
        body: Arc<Graph>,
        loop_vars: usize,
        saved: Vec<super::loop_saves::Saved>,
    },
}

#[derive(Clone)]
pub struct Node {
    pub kind: NodeKind,
    pub inputs: Vec<ValueRef>,
    pub outputs: Vec<TensorType>,
    /// Per output, whether its rank is unknown until the graph runs (a host call's result, and
    /// elementwise results of one): its `outputs` entry then holds no dims. Empty when every
    /// rank is known.
    pub unknown_rank: Vec<bool>,
    pub name: String,
    /// The `tf.device` scope in force when the node was traced.
    pub device: Option<DeviceSpec>,
    /// A `Const` holding a float eager tensor the function closes over (TensorFlow's captured
    /// input): never folded, so that a tape watching that tensor when the graph runs
    /// differentiates through the ops that read it, however the function was first traced.
    pub captured: bool,
}

impl Node {
    /// TensorFlow's op type name, as `Operation.type` shows it.
    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            NodeKind::Placeholder(_) => "Placeholder",
            NodeKind::Const(_) => "Const",
            NodeKind::Op(op) => op.tf_name(),
            NodeKind::Fused(_) => "FusedElementwise",
            NodeKind::ReadVariable(_) => "ReadVariableOp",
            NodeKind::AssignVariable(_) => "AssignVariableOp",
            NodeKind::Print(_) => "PrintV2",
            NodeKind::Cond(b) if b.len() == 2 => "If",
            NodeKind::Cond(_) => "Case",
            NodeKind::While { .. } => "While",
        }
    }

    /// Effects beyond its outputs: must run even when nothing reads it, and never be merged.
    pub fn has_effects(&self) -> bool {
        match &self.kind {
            NodeKind::AssignVariable(_) | NodeKind::Print(_) => true,
            // A shape check's effect is its error: it stays even when nothing reads it.
            NodeKind::Op(
                crate::ops::registry::Op::EnsureShape(_) | crate::ops::registry::Op::Assert(_),
            ) => true,
            // A host function runs whether or not its results are read (unless stateless).
            NodeKind::Op(crate::ops::registry::Op::HostCall(call)) => {
                crate::ops::host_call::has_effects(call)
            }
            NodeKind::Cond(branches) => branches.iter().any(|g| g.has_effects()),
            NodeKind::While { cond, body, .. } => cond.has_effects() || body.has_effects(),
            _ => false,
        }
    }

    /// Same inputs give the same outputs and nothing else happens: foldable and mergeable.
    pub fn is_pure(&self) -> bool {
        // A check's error is its effect: it is neither folded away nor merged.
        if self.has_effects() {
            return false;
        }
        match &self.kind {
            NodeKind::Op(op) => !op.primitive().stateful(),
            NodeKind::Fused(_) => true,
            _ => false,
        }
    }
}

/// A traced function body. Nodes are in a valid execution order; `plan` says when each value
/// can be freed.
#[derive(Clone, Default)]
pub struct Graph {
    pub nodes: Vec<Node>,
    pub outputs: Vec<ValueRef>,
    pub num_inputs: usize,
    pub plan: Plan,
}

/// Slot numbering of every node output, and which slots die after each node.
#[derive(Clone, Default)]
pub struct Plan {
    pub offsets: Vec<usize>,
    pub slots: usize,
    /// `release[n]`: slots whose last reader is node `n`.
    pub release: Vec<Vec<usize>>,
}

impl Graph {
    pub fn slot(&self, v: ValueRef) -> usize {
        self.plan.offsets[v.node] + v.output
    }

    pub fn info(&self, v: ValueRef) -> &TensorType {
        &self.nodes[v.node].outputs[v.output]
    }

    /// Whether the value's rank is unknown until the graph runs (see `Node::unknown_rank`).
    pub fn unknown_rank(&self, v: ValueRef) -> bool {
        self.nodes[v.node].unknown_rank.get(v.output).copied().unwrap_or(false)
    }

    pub fn has_effects(&self) -> bool {
        self.nodes.iter().any(Node::has_effects)
    }

    /// How many times each node output is read (graph outputs count as reads).
    pub fn use_counts(&self) -> Vec<Vec<usize>> {
        let mut uses: Vec<Vec<usize>> =
            self.nodes.iter().map(|n| vec![0; n.outputs.len()]).collect();
        for v in self.nodes.iter().flat_map(|n| &n.inputs).chain(&self.outputs) {
            uses[v.node][v.output] += 1;
        }
        uses
    }

    /// Recomputes slot numbers and release points after the nodes changed.
    /// The variables the graph (nested control flow included) reads or assigns, in first-use
    /// order, once each.
    pub fn variables(&self) -> Vec<Variable> {
        fn walk(g: &Graph, found: &mut Vec<Variable>) {
            for node in &g.nodes {
                match &node.kind {
                    NodeKind::ReadVariable(v) | NodeKind::AssignVariable(v)
                        if !found.iter().any(|f| f.id() == v.id()) =>
                    {
                        found.push(v.clone())
                    }
                    NodeKind::Cond(branches) => branches.iter().for_each(|b| walk(b, found)),
                    NodeKind::While { cond, body, .. } => {
                        walk(cond, found);
                        walk(body, found);
                    }
                    _ => {}
                }
            }
        }
        let mut found = Vec::new();
        walk(self, &mut found);
        found
    }

    pub fn finish(&mut self) {
        let mut offsets = Vec::with_capacity(self.nodes.len());
        let mut slots = 0;
        for n in &self.nodes {
            offsets.push(slots);
            slots += n.outputs.len();
        }
        let mut last_reader: Vec<Option<usize>> = vec![None; slots];
        for (i, n) in self.nodes.iter().enumerate() {
            for v in &n.inputs {
                last_reader[offsets[v.node] + v.output] = Some(i);
            }
        }
        for v in &self.outputs {
            last_reader[offsets[v.node] + v.output] = None;
        }
        let mut release = vec![Vec::new(); self.nodes.len()];
        for (slot, reader) in last_reader.into_iter().enumerate() {
            if let Some(i) = reader {
                release[i].push(slot);
            }
        }
        self.plan = Plan { offsets, slots, release };
    }

    /// Keeps the nodes marked in `keep` (which must include everything they read), renumbering
    /// references; `replace` first redirects reads of one value to another.
    pub fn compact(
        &mut self,
        keep: &[bool],
        replace: &std::collections::HashMap<ValueRef, ValueRef>,
    ) {
        let redirect = |v: ValueRef| {
            let mut v = v;
            while let Some(&to) = replace.get(&v) {
                v = to;
            }
            v
        };
        let mut new_index = vec![usize::MAX; self.nodes.len()];
        let mut nodes = Vec::with_capacity(self.nodes.len());
        for (i, mut n) in std::mem::take(&mut self.nodes).into_iter().enumerate() {
            if !keep[i] {
                continue;
            }
            for v in n.inputs.iter_mut() {
                let r = redirect(*v);
                *v = ValueRef { node: new_index[r.node], output: r.output };
            }
            new_index[i] = nodes.len();
            nodes.push(n);
        }
        for v in self.outputs.iter_mut() {
            let r = redirect(*v);
            *v = ValueRef { node: new_index[r.node], output: r.output };
        }
        self.nodes = nodes;
        self.finish();
    }
}
