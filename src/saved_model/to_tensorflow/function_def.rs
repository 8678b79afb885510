//! A traced graph written as a TensorFlow `FunctionDef`: placeholders become input arguments,
//! each variable the graph touches a trailing `DT_RESOURCE` argument (a captured input, bound
//! by the loader to the variable object), constants `Const` nodes, primitives the nodes of the
//! op table (`export_ops`), control flow `If`/`Case`/`While` over functions of their own.
//!
//! A FunctionDef runs nodes in dependency order only, so the order a trace gives variable
//! reads and writes is kept with control inputs: each read after the last write of its
//! variable, each write after the reads and the write before it. Nodes with effects are the
//! function's control outputs, so they run even when no output needs them.

use super::attrs::{self, RESOURCE};
use super::body::{Body, TensorRef, Typed};
use super::{control, export_ops, export_print, op_signatures};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeKind};
use crate::proto::tensorflow::op_def::ArgDef;
use crate::proto::tensorflow::resource_handle_proto::DtypeAndShape;
use crate::proto::tensorflow::{FunctionDef, OpDef};
use crate::variable::Variable;
use std::collections::{BTreeMap, HashMap};

/// A data argument of an exported function.
#[derive(Clone, Debug)]
pub struct ArgSpec {
    pub name: String,
    pub dtype: DType,
    /// `None`: unknown rank.
    pub dims: Option<Vec<Option<usize>>>,
}

/// The functions written so far, and unique names for new ones.
#[derive(Default)]
pub struct Library {
    pub functions: Vec<FunctionDef>,
    counter: usize,
}

impl Library {
    /// `__inference_<hint>_<n>`, as TensorFlow names traced functions.
    pub fn fresh_name(&mut self, hint: &str) -> String {
        self.counter += 1;
        let hint: String =
            hint.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        format!("__inference_{hint}_{}", self.counter)
    }
}

/// Argument names as TensorFlow's function signatures require them (`[a-z][a-z0-9_]*`),
/// distinct from each other.
pub fn arg_names(hints: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut taken = Vec::<String>::new();
    for hint in hints {
        let mut name: String = hint
            .to_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
            name.insert_str(0, "arg_");
        }
        let base = name.clone();
        let mut n = 0;
        while taken.contains(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        taken.push(name);
    }
    taken
}

/// What one exported function takes and gives beyond its graph.
pub struct Shape<'a> {
    pub args: &'a [ArgSpec],
    /// The argument each graph placeholder reads.
    pub placeholder_arg: &'a dyn Fn(usize) -> usize,
    /// The variables passed in as resource arguments, after the data arguments.
    pub resources: &'a [Variable],
    /// Arguments returned unchanged after the graph's outputs (a loop body's loop-invariant
    /// state), as indices into data arguments then resources.
    pub passthrough: &'a [usize],
}

/// The order of variable accesses, kept with control inputs.
#[derive(Default)]
pub struct Effects {
    last_write: HashMap<u64, String>,
    reads_since: HashMap<u64, Vec<String>>,
    /// The last stateful node that touches no variable (a print, an assert, a stateful branch).
    last_unordered: Option<String>,
    /// Nodes with effects: the function's control outputs.
    pub nodes: Vec<String>,
}

/// TensorFlow's stateful ops whose relative order does not matter: its automatic control
/// dependencies leave its legacy random ops (`LEGACY_RANDOM_OPS`) and a few others
/// (`SKIPPED_ORDER_INSENSITIVE_STATEFUL_OPS`: checkpoint I/O, cuDNN RNNs) unchained.
const ORDER_INSENSITIVE: &[&str] = &[
    "RandomUniform",
    "RandomUniformInt",
    "RandomStandardNormal",
    "ParameterizedTruncatedNormal",
    "TruncatedNormal",
    "RandomShuffle",
    "Multinomial",
    "RandomGamma",
    "RandomGammaGrad",
    "RandomPoisson",
    "RandomPoissonV2",
    "CudnnRNN",
    "CudnnRNNBackprop",
    "CudnnRNNV2",
    "CudnnRNNV3",
    "CudnnRNNBackpropV2",
    "CudnnRNNBackpropV3",
    "RestoreV2",
    "SaveV2",
];

impl Effects {
    pub fn read(&mut self, body: &mut Body, node: &str, v: &Variable) {
        if let Some(w) = self.last_write.get(&v.id()) {
            body.control(node, w);
        }
        self.reads_since.entry(v.id()).or_default().push(node.to_string());
    }

    pub fn write(&mut self, body: &mut Body, node: &str, v: &Variable) {
        if let Some(w) = self.last_write.get(&v.id()) {
            body.control(node, w);
        }
        for r in self.reads_since.remove(&v.id()).unwrap_or_default() {
            if r != node {
                body.control(node, &r);
            }
        }
        self.last_write.insert(v.id(), node.to_string());
        if !self.nodes.iter().any(|n| n == node) {
            self.nodes.push(node.to_string());
        }
    }

    /// A stateful node that touches no variable runs after the previous one, as TensorFlow's
    /// automatic control dependencies chain them: two prints keep their program order.
    pub fn sequence(&mut self, body: &mut Body, node: &str, op: &str) {
        if ORDER_INSENSITIVE.contains(&op) {
            return;
        }
        if let Some(previous) = self.last_unordered.replace(node.to_string()) {
            body.control(node, &previous);
        }
    }
}

/// The enclosing function's view while one body is written.
pub struct Scope<'a> {
    pub body: &'a mut Body,
    pub library: &'a mut Library,
    pub resources: &'a [Variable],
    pub resource_refs: &'a [TensorRef],
    pub effects: &'a mut Effects,
}

impl Scope<'_> {
    pub fn resource(&self, v: &Variable) -> Result<Typed> {
        let k = self.resources.iter().position(|r| r.same(v)).ok_or_else(|| {
            Error::Internal(format!("variable {} is not an argument of its function", v.name()))
        })?;
        Ok((self.resource_refs[k].clone(), RESOURCE))
    }
}

fn resource_arg(name: &str, v: &Variable) -> ArgDef {
    let peek = v.peek();
    ArgDef {
        name: name.to_string(),
        r#type: RESOURCE,
        handle_data: vec![DtypeAndShape {
            dtype: attrs::enum_of(peek.dtype()),
            shape: Some(attrs::shape(Some(
                &peek.dims().iter().map(|&d| Some(d)).collect::<Vec<_>>(),
            ))),
        }],
        ..Default::default()
    }
}

/// Writes `graph` as the function `name` into the library; returns whether it is stateful.
pub fn export(library: &mut Library, name: &str, graph: &Graph, shape: &Shape) -> Result<bool> {
    let data_names: Vec<String> = shape.args.iter().map(|a| a.name.clone()).collect();
    let resource_names = arg_names(
        shape.resources.iter().enumerate().map(|(k, v)| format!("{}_resource_{k}", v.name())),
    );
    let resource_names: Vec<String> =
        arg_names(data_names.iter().cloned().chain(resource_names)).split_off(data_names.len());
    let all_names: Vec<String> = data_names.iter().chain(&resource_names).cloned().collect();
    let mut body = Body::new(&all_names);
    let mut effects = Effects::default();
    let mut values: Vec<Vec<TensorRef>> = Vec::with_capacity(graph.nodes.len());
    let mut stateful = !shape.resources.is_empty();
    {
        let mut scope = Scope {
            body: &mut body,
            library,
            resources: shape.resources,
            resource_refs: &resource_names,
            effects: &mut effects,
        };
        for node in &graph.nodes {
            let ins: Vec<Typed> = node
                .inputs
                .iter()
                .map(|v| (values[v.node][v.output].clone(), attrs::enum_of(graph.info(*v).dtype)))
                .collect();
            let outs: Vec<i32> = node.outputs.iter().map(|t| attrs::enum_of(t.dtype)).collect();
            let refs = match &node.kind {
                NodeKind::Placeholder(i) => {
                    let arg = (shape.placeholder_arg)(*i);
                    vec![data_names.get(arg).cloned().ok_or_else(|| {
                        Error::Internal(format!("placeholder {i} has no argument"))
                    })?]
                }
                NodeKind::Const(t) => vec![scope.body.constant(t, &node.name)?],
                NodeKind::ReadVariable(v) => {
                    let handle = scope.resource(v)?;
                    let out = scope.body.op(
                        "ReadVariableOp",
                        &node.name,
                        &[vec![handle]],
                        &outs,
                        vec![],
                    )?;
                    let n = scope.body.last().to_string();
                    scope.effects.read(scope.body, &n, v);
                    out
                }
                NodeKind::AssignVariable(v) => {
                    let handle = scope.resource(v)?;
                    scope.body.op(
                        "AssignVariableOp",
                        &node.name,
                        &[vec![handle], vec![ins[0].clone()]],
                        &[],
                        vec![("dtype", attrs::dtype(ins[0].1))],
                    )?;
                    let n = scope.body.last().to_string();
                    scope.effects.write(scope.body, &n, v);
                    vec![]
                }
                NodeKind::Op(op) => {
                    let before = scope.body.nodes.len();
                    let out = export_ops::emit(scope.body, op, &ins, &node.outputs, &node.name)?;
                    let emitted = scope.body.last().to_string();
                    // Any node of those written may be stateful (a random draw is followed by
                    // its scaling): the function is then stateful, the node an effect.
                    let tf_stateful = scope.body.nodes[before..]
                        .iter()
                        .any(|n| op_signatures::lookup(&n.op).is_some_and(|s| s.stateful));
                    if tf_stateful || node.has_effects() {
                        debug_assert!(!emitted.is_empty());
                        stateful = true;
                        let effect = scope.body.nodes[before..]
                            .iter()
                            .find(|n| op_signatures::lookup(&n.op).is_some_and(|s| s.stateful))
                            .map(|n| (n.name.clone(), n.op.clone()));
                        if let Some((n, op)) = effect {
                            scope.effects.sequence(scope.body, &n, &op);
                        }
                        let n = scope.body.last().to_string();
                        scope.effects.nodes.push(n);
                    }
                    out
                }
                NodeKind::Cond(branches) => {
                    let (out, s) = control::cond(&mut scope, node, branches, &ins, &outs, graph)?;
                    stateful |= s;
                    out
                }
                NodeKind::While { saved, .. } if !saved.is_empty() => {
                    return Err(Error::Unimplemented(format!(
                        "{}: a tf.while_loop differentiated inside a tf.function keeps its \
                         iterations' values for the gradient, which TensorFlow's format has no \
                         op for here yet; export a function without the gradient",
                        node.name
                    )))
                }
                NodeKind::While { cond, body, loop_vars, .. } => {
                    let (out, s) =
                        control::while_loop(&mut scope, node, cond, body, *loop_vars, &ins, graph)?;
                    stateful |= s;
                    out
                }
                NodeKind::Print(spec) => {
                    let printed = export_print::print(scope.body, spec, &ins, &node.name)?;
                    stateful = true;
                    scope.effects.sequence(scope.body, &printed, "PrintV2");
                    scope.effects.nodes.push(printed);
                    vec![]
                }
                NodeKind::Fused(_) => {
                    return Err(Error::Internal("saved graphs are written before fusion".into()))
                }
            };
            values.push(refs);
        }
    }
    stateful |= !effects.nodes.is_empty();

    // Outputs go through Identity nodes that wait for every effect, as TensorFlow's do.
    let mut output_args = Vec::new();
    let mut ret = BTreeMap::new();
    let returned: Vec<Typed> = graph
        .outputs
        .iter()
        .map(|v| (values[v.node][v.output].clone(), attrs::enum_of(graph.info(*v).dtype)))
        .chain(shape.passthrough.iter().map(|&k| {
            let dtype = shape.args.get(k).map_or(RESOURCE, |a| attrs::enum_of(a.dtype));
            (all_names[k].clone(), dtype)
        }))
        .collect();
    let out_names = arg_names((0..returned.len()).map(|k| match k {
        0 => "identity".to_string(),
        k => format!("identity_{k}"),
    }));
    for (k, (tensor, dtype)) in returned.into_iter().enumerate() {
        let out = body.op("Identity", "Identity", &[vec![(tensor, dtype)]], &[dtype], vec![])?;
        let node = body.last().to_string();
        for e in &effects.nodes {
            body.control(&node, e);
        }
        output_args.push(ArgDef {
            name: out_names[k].clone(),
            r#type: dtype,
            ..Default::default()
        });
        ret.insert(out_names[k].clone(), out[0].clone());
    }

    let mut input_arg: Vec<ArgDef> = shape
        .args
        .iter()
        .map(|a| ArgDef {
            name: a.name.clone(),
            r#type: attrs::enum_of(a.dtype),
            ..Default::default()
        })
        .collect();
    input_arg.extend(shape.resources.iter().zip(&resource_names).map(|(v, n)| resource_arg(n, v)));
    let input_shapes = shape
        .args
        .iter()
        .map(|a| attrs::shape(a.dims.as_deref()))
        .chain(shape.resources.iter().map(|_| attrs::shape(Some(&[]))));
    let control_ret: BTreeMap<String, String> =
        effects.nodes.iter().map(|n| (n.clone(), n.clone())).collect();
    library.functions.push(FunctionDef {
        signature: Some(OpDef {
            name: name.to_string(),
            input_arg,
            output_arg: output_args,
            control_output: effects.nodes.clone(),
            is_stateful: stateful,
            ..Default::default()
        }),
        attr: BTreeMap::from([("_input_shapes".to_string(), attrs::shapes(input_shapes))]),
        node_def: body.nodes,
        ret,
        control_ret,
        ..Default::default()
    });
    Ok(stateful)
}
