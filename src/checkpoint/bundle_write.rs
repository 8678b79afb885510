//! Writes a checkpoint in TensorFlow's format (a tensor bundle): the tensors into
//! `<prefix>.data-00000-of-00001`, then `<prefix>.index`, an SSTable from each key to its
//! `BundleEntryProto` under a `BundleHeaderProto` at the empty key. The object graph is the
//! string entry `_CHECKPOINTABLE_OBJECT_GRAPH`, so TensorFlow restores the objects by
//! structure. Each file is written atomically, data first, so a reader never sees half of one.

use super::atomic::{io_error, write_atomic};
use super::paths::{data_path, index_path, OBJECT_GRAPH_KEY};
use super::{bundle_bytes, object_graph_proto, sstable_write};
use crate::buffer::Buffer;
use crate::error::{Error, Result};
use crate::io::masked_crc::mask;
use crate::proto::tensorflow::{
    bundle_header_proto::Endianness, tensor_shape_proto::Dim, BundleEntryProto, BundleHeaderProto,
    TensorShapeProto, VersionDef,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use prost::Message;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// TensorFlow's bundle format version (`kTensorBundleVersion`) and the oldest reader it needs.
pub const BUNDLE_VERSION: i32 = 1;
pub const BUNDLE_MIN_CONSUMER: i32 = 0;

/// The serialized `TrackableObjectGraph` stored under `OBJECT_GRAPH_KEY` for `object_graph`.
pub fn object_graph_bytes(object_graph: &Value) -> Result<Vec<u8>> {
    Ok(object_graph_proto::to_proto(object_graph)?.encode_to_vec())
}

/// Writes `tensors` (key, value) and `object_graph` (JSON, or null for none) under `prefix`.
pub fn write(prefix: &Path, tensors: &[(String, Tensor)], object_graph: &Value) -> Result<()> {
    let graph_entry = match object_graph {
        Value::Null => None,
        graph => {
            let bytes = object_graph_bytes(graph)?;
            let scalar = Buffer::Str(vec![TfString::new(&bytes)]);
            Some((OBJECT_GRAPH_KEY.to_string(), Tensor::from_buffer(scalar, Shape(vec![]))?))
        }
    };
    let mut entries: BTreeMap<String, BundleEntryProto> = BTreeMap::new();
    let mut data = Vec::new();
    for (key, t) in tensors.iter().chain(graph_entry.iter()) {
        if key.is_empty() {
            return Err(Error::InvalidArgument("a checkpoint key cannot be empty".into()));
        }
        let (bytes, crc) = bundle_bytes::encode(t)?;
        let entry = BundleEntryProto {
            dtype: t.dtype() as i32,
            shape: Some(TensorShapeProto {
                dim: t
                    .dims()
                    .iter()
                    .map(|&d| Dim { size: d as i64, name: String::new() })
                    .collect(),
                unknown_rank: false,
            }),
            shard_id: 0,
            offset: data.len() as i64,
            size: bytes.len() as i64,
            crc32c: mask(crc),
            slices: Vec::new(),
        };
        if entries.insert(key.clone(), entry).is_some() {
            return Err(Error::InvalidArgument(format!("Adding duplicate key: {key}")));
        }
        data.extend_from_slice(&bytes);
    }
    let header = BundleHeaderProto {
        num_shards: 1,
        endianness: Endianness::Little as i32,
        version: Some(VersionDef {
            producer: BUNDLE_VERSION,
            min_consumer: BUNDLE_MIN_CONSUMER,
            bad_consumers: Vec::new(),
        }),
    };
    let values: Vec<(String, Vec<u8>)> = std::iter::once((String::new(), header.encode_to_vec()))
        .chain(entries.iter().map(|(k, e)| (k.clone(), e.encode_to_vec())))
        .collect();
    let index = sstable_write::build(values.iter().map(|(k, v)| (k.as_bytes(), v.as_slice())));
    if let Some(dir) = prefix.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| io_error(e, dir))?;
    }
    write_atomic(&data_path(prefix), &data)?;
    write_atomic(&index_path(prefix), &index)
}
