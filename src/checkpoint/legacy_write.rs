//! Writes checkpoints in ferroflow's first format (see `legacy`), so tests can check that
//! such files still load.

use super::atomic::{io_error, write_atomic};
use super::legacy::{CRC_KEY, DTYPES_KEY, FORMAT, STRING_SHAPES_KEY, VERSION};
use super::paths::{data_path, index_path};
use super::tensor_bytes::{stored_form, to_bytes};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use safetensors::tensor::TensorView;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;

/// Writes `tensors` (key, value) and `object_graph` (any JSON) under `prefix`, atomically.
pub fn write(prefix: &Path, tensors: &[(String, Tensor)], object_graph: &Value) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    if let Some((key, _)) = tensors.iter().find(|(k, _)| !seen.insert(k.as_str())) {
        return Err(Error::InvalidArgument(format!("two checkpoint entries named '{key}'")));
    }
    let mut stored = Vec::with_capacity(tensors.len());
    let mut dtypes = serde_json::Map::new();
    let mut crcs = serde_json::Map::new();
    let mut string_shapes = serde_json::Map::new();
    for (key, t) in tensors {
        let (dtype, mut dims) = stored_form(t.dtype(), t.dims());
        let bytes = to_bytes(t)?;
        if t.dtype().is_string() {
            string_shapes.insert(key.clone(), json!(t.dims()));
            dims = vec![bytes.len()];
        }
        crcs.insert(key.clone(), json!(crc32fast::hash(&bytes)));
        stored.push((key.clone(), dtype, dims, bytes));
        dtypes.insert(key.clone(), json!(t.dtype().name()));
    }
    let views = stored
        .iter()
        .map(|(k, dtype, dims, bytes)| {
            Ok((k.as_str(), TensorView::new(*dtype, dims.clone(), bytes)?))
        })
        .collect::<std::result::Result<Vec<_>, safetensors::SafeTensorError>>()
        .map_err(|e| Error::Internal(format!("checkpoint entry: {e}")))?;
    let metadata = HashMap::from([
        (DTYPES_KEY.to_string(), Value::Object(dtypes).to_string()),
        (CRC_KEY.to_string(), Value::Object(crcs).to_string()),
        (STRING_SHAPES_KEY.to_string(), Value::Object(string_shapes).to_string()),
    ]);
    let data = safetensors::serialize(views, Some(metadata))
        .map_err(|e| Error::Internal(format!("checkpoint data: {e}")))?;
    if let Some(dir) = prefix.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| io_error(e, dir))?;
    }
    write_atomic(&data_path(prefix), &data)?;
    let index = json!({ "format": FORMAT, "version": VERSION, "object_graph": object_graph });
    write_atomic(&index_path(prefix), index.to_string().as_bytes())
}
