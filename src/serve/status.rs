//! The model status and metadata responses, shaped as TensorFlow Serving prints its
//! `GetModelStatusResponse` and `GetModelMetadataResponse` protos as JSON (int64 fields as
//! strings, default values included).

use super::registry::{Servable, VersionStatus};
use super::signature::{proto_name, TensorInfo};
use serde_json::{json, Map, Value};

/// `{"model_version_status": [{"version": "1", "state": "AVAILABLE", "status": {...}}]}`
pub fn status_json(versions: &[VersionStatus]) -> String {
    let entries: Vec<Value> = versions
        .iter()
        .map(|v| {
            let (code, message) = match &v.error {
                Some(e) => (e.code_name(), e.message.as_str()),
                None => ("OK", ""),
            };
            json!({
                "version": v.version.to_string(),
                "state": v.state,
                "status": { "error_code": code, "error_message": message },
            })
        })
        .collect();
    pretty(&json!({ "model_version_status": entries }))
}

/// A `TensorInfo` proto: dtype, shape (-1 for unknown sizes) and the graph tensor's name.
fn tensor_info(info: &TensorInfo, tensor_name: String) -> Value {
    let dims: Vec<Value> = info
        .dims
        .iter()
        .map(|d| json!({ "size": d.map_or(-1, |d| d as i64).to_string(), "name": "" }))
        .collect();
    json!({
        "dtype": proto_name(info.dtype),
        "tensor_shape": { "dim": dims, "unknown_rank": info.unknown_rank },
        "name": tensor_name,
    })
}

/// `{"model_spec": {...}, "metadata": {"signature_def": {"signature_def": {...}}}}`. Tensor
/// names follow TensorFlow 2's saved signatures: inputs `<signature>_<input>:0`, outputs
/// `StatefulPartitionedCall:<i>` in the outputs' sorted order, unless a TensorFlow-written
/// SignatureDef names them (and its method), as TensorFlow Serving then reports.
pub fn metadata_json(servable: &Servable) -> String {
    let mut signature_def = Map::new();
    for signature in &servable.signatures {
        let inputs: Map<String, Value> = signature
            .inputs
            .iter()
            .map(|i| {
                let default = || format!("{}_{}:0", signature.name, i.name);
                (i.name.clone(), tensor_info(i, i.tensor_name.clone().unwrap_or_else(default)))
            })
            .collect();
        let outputs: Map<String, Value> = signature
            .outputs
            .iter()
            .enumerate()
            .map(|(k, o)| {
                let default = || format!("StatefulPartitionedCall:{k}");
                (o.name.clone(), tensor_info(o, o.tensor_name.clone().unwrap_or_else(default)))
            })
            .collect();
        signature_def.insert(
            signature.name.clone(),
            json!({
                "inputs": inputs,
                "outputs": outputs,
                "method_name": signature
                    .method_name
                    .as_deref()
                    .unwrap_or("tensorflow/serving/predict"),
                "defaults": {},
            }),
        );
    }
    pretty(&json!({
        "model_spec": {
            "name": servable.model_name,
            "signature_name": "",
            "version": servable.version.to_string(),
        },
        "metadata": { "signature_def": { "signature_def": signature_def } },
    }))
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}
