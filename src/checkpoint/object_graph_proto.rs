//! The object graph between its two forms: the JSON the Python side builds and reads
//! (`{"nodes": [{"children": [...], "attributes": [...]}]}`, described in
//! `docs/checkpoint-format.md`) and TensorFlow's `TrackableObjectGraph` message, which a
//! TensorFlow checkpoint stores as the string tensor `_CHECKPOINTABLE_OBJECT_GRAPH`.

use crate::error::{Error, Result};
use crate::proto::tensorflow::trackable_object_graph::trackable_object::{
    ObjectReference, SerializedTensor, SlotVariableReference,
};
use crate::proto::tensorflow::trackable_object_graph::TrackableObject;
use crate::proto::tensorflow::TrackableObjectGraph;
use serde_json::{json, Map, Value};

pub fn to_proto(graph: &Value) -> Result<TrackableObjectGraph> {
    let bad = |why: &str| Error::InvalidArgument(format!("checkpoint object graph: {why}"));
    let nodes = graph.get("nodes").and_then(Value::as_array).ok_or_else(|| bad("no node list"))?;
    let node_id = |v: Option<&Value>| -> Result<i32> {
        v.and_then(Value::as_u64)
            .filter(|&i| (i as usize) < nodes.len())
            .and_then(|i| i32::try_from(i).ok())
            .ok_or_else(|| bad("an edge to no node"))
    };
    let text = |v: Option<&Value>| -> Result<String> {
        v.and_then(Value::as_str).map(str::to_owned).ok_or_else(|| bad("a missing name"))
    };
    let list = |node: &Value, field: &str| -> Vec<Value> {
        node.get(field).and_then(Value::as_array).cloned().unwrap_or_default()
    };
    let mut proto = TrackableObjectGraph::default();
    for node in nodes {
        let mut object = TrackableObject::default();
        for edge in list(node, "children") {
            object.children.push(ObjectReference {
                node_id: node_id(edge.get("node_id"))?,
                local_name: text(edge.get("local_name"))?,
            });
        }
        for attribute in list(node, "attributes") {
            object.attributes.push(SerializedTensor {
                name: text(attribute.get("name"))?,
                full_name: text(attribute.get("full_name"))?,
                checkpoint_key: text(attribute.get("checkpoint_key"))?,
                optional_restore: false,
            });
        }
        for slot in list(node, "slot_variables") {
            object.slot_variables.push(SlotVariableReference {
                original_variable_node_id: node_id(slot.get("original_variable_node_id"))?,
                slot_name: text(slot.get("slot_name"))?,
                slot_variable_node_id: node_id(slot.get("slot_variable_node_id"))?,
            });
        }
        proto.nodes.push(object);
    }
    mark_checkpoint_values(&mut proto);
    Ok(proto)
}

/// Sets `has_checkpoint_values` on every node: whether it or anything it reaches holds a value.
/// TensorFlow's restore skips the nodes marked false, so this must not under-report.
fn mark_checkpoint_values(proto: &mut TrackableObjectGraph) {
    let mut has: Vec<bool> = proto.nodes.iter().map(|n| !n.attributes.is_empty()).collect();
    // Edges may form cycles (a model and its optimizer name each other): iterate to the fixed
    // point, which takes at most one pass per node.
    loop {
        let mut changed = false;
        for (i, node) in proto.nodes.iter().enumerate() {
            let reaches = node
                .children
                .iter()
                .map(|c| c.node_id)
                .chain(node.slot_variables.iter().map(|s| s.slot_variable_node_id));
            if !has[i] && reaches.into_iter().any(|c| has[c as usize]) {
                has[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (node, value) in proto.nodes.iter_mut().zip(has) {
        node.has_checkpoint_values = Some(value);
    }
}

/// The JSON form of a stored graph. Edges are not checked here; the Python side validates the
/// graph it restores from (`ObjectGraph.parse`).
pub fn to_json(proto: &TrackableObjectGraph) -> Value {
    let nodes: Vec<Value> = proto
        .nodes
        .iter()
        .map(|node| {
            let mut out = Map::new();
            let children: Vec<Value> = node
                .children
                .iter()
                .map(|c| json!({"node_id": c.node_id, "local_name": c.local_name}))
                .collect();
            let attributes: Vec<Value> = node
                .attributes
                .iter()
                .map(|a| {
                    json!({"name": a.name, "full_name": a.full_name,
                           "checkpoint_key": a.checkpoint_key})
                })
                .collect();
            out.insert("children".into(), Value::Array(children));
            out.insert("attributes".into(), Value::Array(attributes));
            if !node.slot_variables.is_empty() {
                let slots = node
                    .slot_variables
                    .iter()
                    .map(|s| {
                        json!({"original_variable_node_id": s.original_variable_node_id,
                               "slot_name": s.slot_name,
                               "slot_variable_node_id": s.slot_variable_node_id})
                    })
                    .collect();
                out.insert("slot_variables".into(), Value::Array(slots));
            }
            Value::Object(out)
        })
        .collect();
    json!({ "nodes": nodes })
}
