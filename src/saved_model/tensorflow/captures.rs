//! What a saved concrete function's `bound_inputs` name: variable objects, and constant objects
//! (eager tensors a function captured when it was traced, such as the mean and variance a
//! Keras `Normalization` layer holds as plain tensors in EfficientNet and ConvNeXt). TensorFlow
//! saves a constant as a `SavedConstant` naming a `Const` node of the MetaGraph's own graph.
//! Resource objects (hash tables) and assets (a vocabulary file's path) are bound too; see
//! `resources.rs`.

use super::run_function::Value;
use crate::error::{Error, Result};
use crate::proto::tensorflow::{attr_value, saved_object::Kind, MetaGraphDef, SavedObjectGraph};
use crate::tensor::Tensor;
use crate::variable::Variable;
use std::collections::BTreeMap;

/// The captured objects a function can be bound to, by node id of the object graph.
pub struct Captures {
    pub variables: BTreeMap<usize, Variable>,
    /// Constants, and assets as the string scalar of their file's path.
    pub constants: BTreeMap<usize, Tensor>,
    /// Resources made by their objects' creator functions.
    pub resources: BTreeMap<usize, Value>,
    /// Resources whose creators use an op ferroflow lacks: why, for the functions binding them.
    pub unavailable: BTreeMap<usize, String>,
}

impl Captures {
    /// The value bound for object `node`, or UnimplementedError naming what `who` captured
    /// (tensors captured from other functions).
    pub fn bound(&self, who: &str, node: i32) -> Result<Value> {
        let id = usize::try_from(node).ok();
        let found = id.and_then(|id| {
            self.variables
                .get(&id)
                .map(|v| Value::Variable(v.clone()))
                .or_else(|| self.constants.get(&id).map(|t| Value::Tensor(t.clone())))
                .or_else(|| self.resources.get(&id).cloned())
        });
        if let Some(why) = id.and_then(|id| self.unavailable.get(&id)) {
            return Err(Error::Unimplemented(format!(
                "{who} captures resource object {node}, which cannot be made: {why}"
            )));
        }
        found.ok_or_else(|| {
            Error::Unimplemented(format!(
                "{who} captures object {node}, which is not a variable, constant, asset or \
                 hash table: ferroflow imports only those captures yet"
            ))
        })
    }
}

/// Every constant object's tensor, by node id: the `value` of the graph's `Const` node it names.
pub fn constants_of(
    meta: &MetaGraphDef,
    objects: &SavedObjectGraph,
    corrupt: impl Fn(String) -> Error,
) -> Result<BTreeMap<usize, Tensor>> {
    let nodes = meta.graph_def.as_ref().map(|g| g.node.as_slice()).unwrap_or_default();
    let mut constants = BTreeMap::new();
    for (id, object) in objects.nodes.iter().enumerate() {
        let Some(Kind::Constant(constant)) = &object.kind else { continue };
        let name = &constant.operation;
        let value = nodes
            .iter()
            .find(|n| n.name == *name && n.op == "Const")
            .and_then(|n| n.attr.get("value"))
            .and_then(|a| match &a.value {
                Some(attr_value::Value::Tensor(t)) => Some(t),
                _ => None,
            })
            .ok_or_else(|| corrupt(format!("constant object {id} names no Const node '{name}'")))?;
        constants.insert(id, crate::io::tensor_proto::from_proto(value)?);
    }
    Ok(constants)
}
