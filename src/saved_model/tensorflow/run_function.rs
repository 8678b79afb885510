//! Runs a `FunctionDef` eagerly: its nodes in dependency order (data and control inputs), each
//! through the op table, with references resolved as TensorFlow writes them inside functions:
//! `arg` (a function argument), `node:out_arg:index` (an output of a node) and `^node` (a
//! control input, which only orders).

use super::node_attrs::NodeAttrs;
use super::op_table;
use super::ops_lookup::Table;
use super::ops_tensor_list::TensorList;
use crate::error::{Error, Result};
use crate::proto::tensorflow::{FunctionDef, NodeDef, OpDef};
use crate::tensor::Tensor;
use crate::variable::Variable;
use std::collections::{HashMap, VecDeque};

/// Calls nest at most this deep (a hostile file could make a function call itself).
const MAX_CALL_DEPTH: usize = 64;

/// What flows along a function's edges.
#[derive(Clone)]
pub enum Value {
    Tensor(Tensor),
    /// A resource handle: a variable.
    Variable(Variable),
    /// A variant: a TensorList (Keras RNNs, TensorArrays).
    TensorList(TensorList),
    /// A resource handle: a hash table (lookup layers, `tf.lookup` tables).
    Table(Table),
}

impl Value {
    pub fn tensor(&self, node: &str) -> Result<&Tensor> {
        match self {
            Value::Tensor(t) => Ok(t),
            Value::Variable(_) => Err(Error::InvalidArgument(format!(
                "node '{node}' takes a tensor but was given a variable handle"
            ))),
            Value::TensorList(_) => Err(Error::InvalidArgument(format!(
                "node '{node}' takes a tensor but was given a TensorList"
            ))),
            Value::Table(_) => Err(Error::InvalidArgument(format!(
                "node '{node}' takes a tensor but was given a hash table handle"
            ))),
        }
    }
}

/// A MetaGraph's functions and the definitions of the ops its nodes use.
pub struct Library {
    pub functions: HashMap<String, FunctionDef>,
    pub op_defs: HashMap<String, OpDef>,
}

impl Library {
    pub fn call(&self, name: &str, args: Vec<Value>, depth: usize) -> Result<Vec<Value>> {
        let function = self.functions.get(name).ok_or_else(|| {
            Error::NotFound(format!("the SavedModel's library has no function '{name}'"))
        })?;
        if depth > MAX_CALL_DEPTH {
            return Err(Error::InvalidArgument(format!(
                "function '{name}' nests calls more than {MAX_CALL_DEPTH} deep"
            )));
        }
        let signature = function
            .signature
            .as_ref()
            .ok_or_else(|| Error::DataLoss(format!("function '{name}' has no signature")))?;
        if args.len() != signature.input_arg.len() {
            return Err(Error::InvalidArgument(format!(
                "function '{name}' takes {} arguments, got {}",
                signature.input_arg.len(),
                args.len()
            )));
        }
        let mut values: HashMap<&str, Vec<Value>> = HashMap::new();
        for (arg, value) in signature.input_arg.iter().zip(args) {
            values.insert(arg.name.as_str(), vec![value]);
        }
        let nodes: HashMap<&str, &NodeDef> =
            function.node_def.iter().map(|n| (n.name.as_str(), n)).collect();
        for index in order(function, name)? {
            let node = &function.node_def[index];
            let attrs = NodeAttrs::new(node, &self.op_defs);
            let inputs = node
                .input
                .iter()
                .filter(|input| !input.starts_with('^'))
                .map(|input| self.resolve(&nodes, &values, input))
                .collect::<Result<Vec<Value>>>()?;
            let outputs = op_table::run(&attrs, inputs, self, depth)?;
            if values.insert(node.name.as_str(), outputs).is_some() {
                // TensorFlow refuses such a function; running it would read either value.
                return Err(Error::DataLoss(format!(
                    "function '{name}' has two nodes or arguments named '{}'",
                    node.name
                )));
            }
        }
        signature
            .output_arg
            .iter()
            .map(|arg| {
                let reference = function.ret.get(&arg.name).ok_or_else(|| {
                    Error::DataLoss(format!("function '{name}' does not return '{}'", arg.name))
                })?;
                self.resolve(&nodes, &values, reference)
            })
            .collect()
    }

    fn resolve(
        &self,
        nodes: &HashMap<&str, &NodeDef>,
        values: &HashMap<&str, Vec<Value>>,
        reference: &str,
    ) -> Result<Value> {
        let mut parts = reference.split(':');
        let source = parts.next().unwrap_or_default();
        let produced = values.get(source).ok_or_else(|| {
            Error::DataLoss(format!("a node reads '{reference}', which nothing produces"))
        })?;
        let position = match (parts.next(), parts.next()) {
            (None, _) => 0,
            (Some(arg), index) => {
                let index = index
                    .map_or(Ok(0), |i| i.parse::<usize>())
                    .map_err(|_| Error::DataLoss(format!("malformed reference '{reference}'")))?;
                match nodes.get(source) {
                    Some(node) => {
                        NodeAttrs::new(node, &self.op_defs).output_position(arg, index)?
                    }
                    None => index,
                }
            }
        };
        produced.get(position).cloned().ok_or_else(|| {
            Error::DataLoss(format!("'{reference}' names an output its node does not have"))
        })
    }
}

/// The nodes' indices in an order where every node comes after what it reads or waits on.
fn order(function: &FunctionDef, name: &str) -> Result<Vec<usize>> {
    let index_of: HashMap<&str, usize> =
        function.node_def.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
    let mut waiting = vec![0usize; function.node_def.len()];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); function.node_def.len()];
    for (i, node) in function.node_def.iter().enumerate() {
        for input in &node.input {
            let source = input.trim_start_matches('^').split(':').next().unwrap_or_default();
            // Function arguments are not nodes.
            if let Some(&producer) = index_of.get(source) {
                waiting[i] += 1;
                readers[producer].push(i);
            }
        }
    }
    let mut ready: VecDeque<usize> = (0..waiting.len()).filter(|&i| waiting[i] == 0).collect();
    let mut sorted = Vec::with_capacity(waiting.len());
    while let Some(i) = ready.pop_front() {
        sorted.push(i);
        for &reader in &readers[i] {
            waiting[reader] -= 1;
            if waiting[reader] == 0 {
                ready.push_back(reader);
            }
        }
    }
    if sorted.len() != waiting.len() {
        return Err(Error::InvalidArgument(format!("function '{name}' has a cycle")));
    }
    Ok(sorted)
}
