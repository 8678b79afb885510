//! The object graph of a TensorFlow-written SavedModel, for rebuilding the loaded object in
//! Python (nested objects, variables, lists, functions), and calls of its concrete functions:
//! the caller's tensors, then the objects the function captured (`bound_inputs`).

use super::model::TfSavedModel;
use super::run_function::Value;
use crate::error::{Error, Result};
use crate::proto::tensorflow::saved_object::Kind;
use crate::tensor::Tensor;
use prost::Message;

/// One object: its kind (`user_object`, `variable`, `function`, `bare_concrete_function`,
/// `constant`, `resource`, `asset`, `captured_tensor`, or `none`), the registered identifier of
/// a user object (`_generic_user_object`, `trackable_list_wrapper`, `signature_map`...), its
/// named children, a function's concrete functions, and whether the function was declared with
/// an `input_signature` (a call that fits none is then a TypeError, else a ValueError).
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectNode {
    pub kind: &'static str,
    pub identifier: String,
    pub children: Vec<(String, usize)>,
    pub concrete_functions: Vec<String>,
    pub has_input_signature: bool,
}

/// TensorFlow stores a missing input signature as `NoneValue` (or not at all).
fn input_signature_given(spec: &crate::proto::tensorflow::FunctionSpec) -> bool {
    use crate::proto::tensorflow::structured_value::Kind as Structure;
    spec.input_signature
        .as_ref()
        .and_then(|s| s.kind.as_ref())
        .is_some_and(|k| !matches!(k, Structure::NoneValue(_)))
}

impl TfSavedModel {
    pub fn objects(&self) -> Vec<ObjectNode> {
        let graph = self.object_graph();
        let count = graph.nodes.len();
        graph
            .nodes
            .iter()
            .map(|node| {
                let (kind, identifier, concrete_functions) = match &node.kind {
                    Some(Kind::UserObject(u)) => ("user_object", u.identifier.clone(), vec![]),
                    Some(Kind::Variable(_)) => ("variable", String::new(), vec![]),
                    Some(Kind::Function(f)) => {
                        ("function", String::new(), f.concrete_functions.clone())
                    }
                    Some(Kind::BareConcreteFunction(b)) => (
                        "bare_concrete_function",
                        String::new(),
                        vec![b.concrete_function_name.clone()],
                    ),
                    Some(Kind::Constant(_)) => ("constant", String::new(), vec![]),
                    Some(Kind::Resource(_)) => ("resource", String::new(), vec![]),
                    Some(Kind::Asset(_)) => ("asset", String::new(), vec![]),
                    Some(Kind::CapturedTensor(_)) => ("captured_tensor", String::new(), vec![]),
                    None => ("none", String::new(), vec![]),
                };
                // Edges to no node are dropped: the file is not trusted.
                let children = node
                    .children
                    .iter()
                    .filter_map(|c| {
                        let id = usize::try_from(c.node_id).ok().filter(|&id| id < count)?;
                        Some((c.local_name.clone(), id))
                    })
                    .collect();
                let has_input_signature = match &node.kind {
                    Some(Kind::Function(f)) => {
                        f.function_spec.as_ref().is_some_and(input_signature_given)
                    }
                    _ => false,
                };
                ObjectNode { kind, identifier, children, concrete_functions, has_input_signature }
            })
            .collect()
    }

    /// The serialized `StructuredValue`s of a concrete function's canonicalized input
    /// signature and output signature (empty when absent).
    pub fn concrete_function_structure(&self, name: &str) -> Result<(Vec<u8>, Vec<u8>)> {
        let function = self.object_graph().concrete_functions.get(name).ok_or_else(|| {
            Error::NotFound(format!("the SavedModel has no concrete function '{name}'"))
        })?;
        let encode = |v: &Option<crate::proto::tensorflow::StructuredValue>| {
            v.as_ref().map(Message::encode_to_vec).unwrap_or_default()
        };
        Ok((encode(&function.canonicalized_input_signature), encode(&function.output_signature)))
    }

    /// Calls concrete function `name` with the caller's flat tensors; returns its flat outputs.
    pub fn call_concrete(&self, name: &str, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let function = self.object_graph().concrete_functions.get(name).ok_or_else(|| {
            Error::NotFound(format!("the SavedModel has no concrete function '{name}'"))
        })?;
        let mut args: Vec<Value> = inputs.iter().cloned().map(Value::Tensor).collect();
        let who = format!("function '{name}'");
        for &node in &function.bound_inputs {
            args.push(self.captures().bound(&who, node)?);
        }
        let outputs = self.library().call(name, args, 0)?;
        outputs.iter().map(|v| v.tensor(name).cloned()).collect()
    }
}
