//! Traced graphs to and from their saved form: constants move to a tensor file (by index),
//! variables become indices into the saved variable list, `tf.print` keeps its stream's name.
//! Decoding checks every reference a node makes, so the executor never indexes out of range on
//! a hand-edited or hostile file.

use super::format::{GraphDef, KindDef, NodeDef};
use crate::dispatch::Op;
use crate::error::{Error, Result};
use crate::graph::fused::Arg;
use crate::graph::print::{Piece, PrintSpec, Sink};
use crate::graph::{Graph, Node, NodeKind, TensorType};
use crate::ops::registry::legacy_op;
use crate::tensor::Tensor;
use crate::variable::Variable;
use std::sync::Arc;

/// Makes the sink a loaded `tf.print` writes to, from the stream name it was saved with.
pub type SinkFactory<'a> = &'a dyn Fn(&str) -> Sink;

pub fn encode(
    graph: &Graph,
    variables: &[Variable],
    constants: &mut Vec<Tensor>,
) -> Result<GraphDef> {
    let variable_index = |v: &Variable| {
        variables.iter().position(|known| known.same(v)).ok_or_else(|| {
            Error::Value(format!(
                "Tried to export a function which references an 'untracked' resource: variable \
                 '{}'. Every variable a saved function uses must be reachable from the saved \
                 object (assign it to an attribute).",
                v.name()
            ))
        })
    };
    let nodes = graph
        .nodes
        .iter()
        .map(|node| {
            let kind = match &node.kind {
                NodeKind::Placeholder(i) => KindDef::Placeholder(*i),
                NodeKind::Const(t) => {
                    constants.push(t.clone());
                    KindDef::Const(constants.len() - 1)
                }
                NodeKind::Op(op) => KindDef::Primitive {
                    op: op.tf_name().to_string(),
                    attrs: op.primitive().attrs(),
                },
                NodeKind::Fused(_) => {
                    return Err(Error::Internal(
                        "saved graphs are written as traced, before fusion".into(),
                    ))
                }
                NodeKind::ReadVariable(v) => KindDef::ReadVariable(variable_index(v)?),
                NodeKind::AssignVariable(v) => KindDef::AssignVariable(variable_index(v)?),
                NodeKind::Print(spec) => KindDef::Print {
                    pieces: spec.pieces.clone(),
                    summarize: spec.summarize,
                    stream: spec.stream.clone(),
                },
                NodeKind::Cond(branches) => KindDef::Cond(
                    branches
                        .iter()
                        .map(|b| encode(b, variables, constants))
                        .collect::<Result<_>>()?,
                ),
                NodeKind::While { cond, body, loop_vars, saved } => KindDef::While {
                    cond: Box::new(encode(cond, variables, constants)?),
                    body: Box::new(encode(body, variables, constants)?),
                    loop_vars: *loop_vars,
                    saved: saved.clone(),
                },
            };
            Ok(NodeDef {
                name: node.name.clone(),
                kind,
                inputs: node.inputs.clone(),
                outputs: node.outputs.clone(),
                unknown_rank: node.unknown_rank.clone(),
                device: node.device.clone(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(GraphDef { num_inputs: graph.num_inputs, nodes, outputs: graph.outputs.clone() })
}

pub struct Decoder<'a> {
    pub variables: &'a [Variable],
    pub constants: &'a [Tensor],
    pub make_sink: SinkFactory<'a>,
}

fn malformed(why: String) -> Error {
    Error::DataLoss(format!("the saved function graph is malformed: {why}"))
}

impl Decoder<'_> {
    pub fn decode(&self, def: &GraphDef) -> Result<Graph> {
        let mut nodes: Vec<Node> = Vec::with_capacity(def.nodes.len());
        for (i, node) in def.nodes.iter().enumerate() {
            for v in &node.inputs {
                let fits = v.node < i && v.output < def.nodes[v.node].outputs.len();
                if !fits {
                    return Err(malformed(format!(
                        "node {} reads a value it cannot see",
                        node.name
                    )));
                }
            }
            let types: Vec<&TensorType> =
                node.inputs.iter().map(|v| &def.nodes[v.node].outputs[v.output]).collect();
            let unknown_rank: Vec<bool> = node
                .inputs
                .iter()
                .map(|v| def.nodes[v.node].unknown_rank.get(v.output).copied().unwrap_or(false))
                .collect();
            let kind = self.kind(node, def.num_inputs, &types, &unknown_rank)?;
            nodes.push(Node {
                kind,
                inputs: node.inputs.clone(),
                outputs: node.outputs.clone(),
                unknown_rank: node.unknown_rank.clone(),
                name: node.name.clone(),
                device: node.device.clone(),
                captured: false,
            });
        }
        for v in &def.outputs {
            if v.node >= nodes.len() || v.output >= nodes[v.node].outputs.len() {
                return Err(malformed("an output names no value".into()));
            }
        }
        let mut graph = Graph {
            nodes,
            outputs: def.outputs.clone(),
            num_inputs: def.num_inputs,
            ..Graph::default()
        };
        graph.finish();
        Ok(graph)
    }

    /// An op node must take as many inputs as its declaration says, and its recorded outputs
    /// must be what the op's shape rule gives for its inputs' recorded types.
    fn check_op(
        &self,
        op: &Op,
        node: &NodeDef,
        types: &[&TensorType],
        unknown_rank: &[bool],
    ) -> Result<()> {
        if !op.primitive().arity().admits(types.len()) {
            return Err(malformed(format!(
                "node {} gives {} {} inputs",
                node.name,
                op.tf_name(),
                types.len()
            )));
        }
        let types: Vec<TensorType> = types.iter().map(|&t| t.clone()).collect();
        // Values of unknown rank (host calls' results) are typed by the rank rule.
        let inferred = match crate::ops::host_call::rank_rule(op, &types, unknown_rank) {
            Ok(Some((inferred, _))) => Ok(inferred),
            Ok(None) => op.primitive().infer(&types),
            Err(e) => Err(e),
        }
        .map_err(|e| malformed(format!("node {}: {e}", node.name)))?;
        let fits = inferred.len() == node.outputs.len()
            && inferred.iter().zip(&node.outputs).all(|(i, o)| {
                i.dtype == o.dtype
                    && i.rank() == o.rank()
                    && i.dims
                        .iter()
                        .zip(&o.dims)
                        .all(|(a, b)| a.zip(*b).is_none_or(|(a, b)| a == b))
            });
        if !fits {
            return Err(malformed(format!(
                "node {}'s outputs are not what {} gives",
                node.name,
                op.tf_name()
            )));
        }
        Ok(())
    }

    fn kind(
        &self,
        node: &NodeDef,
        num_inputs: usize,
        types: &[&TensorType],
        unknown_rank: &[bool],
    ) -> Result<NodeKind> {
        let (inputs, outputs) = (node.inputs.len(), node.outputs.len());
        let expect = |want_inputs: Option<usize>, want_outputs: usize| {
            if want_inputs.is_some_and(|n| n != inputs) || outputs != want_outputs {
                return Err(malformed(format!(
                    "node {} has {inputs} inputs and {outputs} outputs",
                    node.name
                )));
            }
            Ok(())
        };
        let variable = |i: usize| {
            self.variables
                .get(i)
                .cloned()
                .ok_or_else(|| malformed(format!("node {} names variable {i}", node.name)))
        };
        Ok(match &node.kind {
            KindDef::Placeholder(i) if *i < num_inputs => {
                expect(Some(0), 1)?;
                NodeKind::Placeholder(*i)
            }
            KindDef::Placeholder(i) => {
                return Err(malformed(format!("placeholder {i} of {num_inputs} inputs")))
            }
            KindDef::Const(i) => {
                expect(Some(0), 1)?;
                let t = self
                    .constants
                    .get(*i)
                    .ok_or_else(|| malformed(format!("node {} names constant {i}", node.name)))?;
                let info = &node.outputs[0];
                let dims_fit = info.dims.len() == t.rank()
                    && info.dims.iter().zip(t.dims()).all(|(s, &d)| s.is_none_or(|s| s == d));
                if info.dtype != t.dtype() || !dims_fit {
                    return Err(malformed(format!(
                        "constant {} does not match its type",
                        node.name
                    )));
                }
                NodeKind::Const(t.clone())
            }
            KindDef::Primitive { op, attrs } => {
                let op = Op::decode(op, attrs)
                    .map_err(|e| malformed(format!("node {}: {e}", node.name)))?;
                self.check_op(&op, node, types, unknown_rank)?;
                NodeKind::Op(op)
            }
            KindDef::Op(legacy) => {
                let op = legacy_op(legacy.clone())
                    .map_err(|e| malformed(format!("node {}: {e}", node.name)))?;
                self.check_op(&op, node, types, unknown_rank)?;
                NodeKind::Op(op)
            }
            KindDef::Fused(chain) => {
                expect(Some(chain.num_inputs), 1)?;
                let args_fit = chain.steps.iter().enumerate().all(|(k, step)| {
                    step.args.iter().all(|a| match *a {
                        Arg::Input(i) => i < chain.num_inputs,
                        Arg::Step(j) => j < k,
                    })
                });
                // Only ops the fusion pass chains: the chain kernels run nothing else.
                let fusible = chain.steps.iter().all(|s| crate::graph::fused::fusible(&s.op));
                // Producers are taken in by the pass, never written.
                if chain.steps.is_empty() || !args_fit || !fusible || chain.producer.is_some() {
                    return Err(malformed(format!("fused node {} is inconsistent", node.name)));
                }
                NodeKind::Fused(Arc::new(chain.clone()))
            }
            KindDef::ReadVariable(i) => {
                expect(Some(0), 1)?;
                NodeKind::ReadVariable(variable(*i)?)
            }
            KindDef::AssignVariable(i) => {
                expect(Some(1), 0)?;
                NodeKind::AssignVariable(variable(*i)?)
            }
            KindDef::Print { pieces, summarize, stream } => {
                expect(None, 0)?;
                if pieces.iter().any(|p| matches!(p, Piece::Tensor(k) if *k >= inputs)) {
                    return Err(malformed(format!("print {} names a missing tensor", node.name)));
                }
                NodeKind::Print(Arc::new(PrintSpec {
                    pieces: pieces.clone(),
                    summarize: *summarize,
                    stream: stream.clone(),
                    sink: (self.make_sink)(stream),
                }))
            }
            KindDef::Cond(branches) => {
                let graphs = branches.iter().map(|b| self.decode(b)).collect::<Result<Vec<_>>>()?;
                let captured: usize = graphs.iter().map(|g| g.num_inputs).sum();
                let same_outputs = graphs.iter().all(|g| g.outputs.len() == outputs);
                if graphs.is_empty() || !same_outputs {
                    return Err(malformed(format!("cond {} has mismatched branches", node.name)));
                }
                expect(Some(1 + captured), outputs)?;
                NodeKind::Cond(graphs.into_iter().map(Arc::new).collect())
            }
            KindDef::While { cond, body, loop_vars, saved } => {
                let (cond, body, n) = (self.decode(cond)?, self.decode(body)?, *loop_vars);
                let consistent = cond.num_inputs >= n
                    && body.num_inputs >= n
                    && cond.outputs.len() == 1
                    && body.outputs.len() == n + saved.len();
                if !consistent {
                    return Err(malformed(format!("while loop {} is inconsistent", node.name)));
                }
                let kept = match saved.is_empty() {
                    true => 0,
                    false => 1 + saved.iter().map(|s| s.width()).sum::<usize>(),
                };
                expect(Some(cond.num_inputs + body.num_inputs - n), n + kept)?;
                let (cond, body, saved) = (Arc::new(cond), Arc::new(body), saved.clone());
                NodeKind::While { cond, body, loop_vars: n, saved }
            }
        })
    }
}
