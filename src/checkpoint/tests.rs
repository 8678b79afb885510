//! Round trips of every dtype, and damaged files that must be errors, never panics.

use super::*;
use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::Error;
use crate::shape::Shape;
use crate::tensor::Tensor;
use serde_json::json;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferroflow-ckpt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("ckpt-1")
}

fn sample(dtype: DType, n: usize) -> Tensor {
    let values: Vec<f64> = (0..n).map(|i| i as f64 * 1.5 - 2.0).collect();
    let t = Tensor::from_slice(&values, &[n]).unwrap();
    crate::ops::cast(&t, dtype).unwrap()
}

#[test]
fn every_dtype_round_trips_with_the_object_graph() {
    let prefix = scratch("dtypes");
    let tensors: Vec<(String, Tensor)> =
        DType::ALL.iter().map(|&d| (format!("v/{}", d.name()), sample(d, 5))).collect();
    let graph = json!({"nodes": [{"children": [], "attributes": []}]});
    write(&prefix, &tensors, &graph).unwrap();
    let reader = CheckpointReader::open(&prefix).unwrap();
    assert_eq!(reader.object_graph(), &graph);
    assert_eq!(reader.entries().len(), tensors.len());
    for (key, t) in &tensors {
        let back = reader.tensor(key).unwrap();
        assert_eq!((back.dtype(), back.shape()), (t.dtype(), t.shape()), "{key}");
        assert_eq!(back.host().unwrap(), t.host().unwrap(), "{key}");
    }
    let scalar = Tensor::from_buffer(
        Buffer::C128(vec![num_complex::Complex64::new(1.0, -2.0)]),
        Shape(vec![]),
    )
    .unwrap();
    write(&prefix, &[("c".into(), scalar.clone())], &json!(null)).unwrap();
    let reader = CheckpointReader::open(&prefix).unwrap();
    assert_eq!(reader.entries()[0].shape, Shape(vec![]));
    assert_eq!(reader.tensor("c").unwrap().host().unwrap(), scalar.host().unwrap());
}

#[test]
fn missing_and_damaged_files_are_typed_errors() {
    let prefix = scratch("damaged");
    assert!(matches!(CheckpointReader::open(&prefix), Err(Error::NotFound(_))));
    let tensors =
        vec![("a".to_string(), sample(DType::F32, 64)), ("b".to_string(), sample(DType::Bool, 7))];
    write(&prefix, &tensors, &graph_with(&["a", "b"])).unwrap();
    let read_all = |prefix: &std::path::Path| -> crate::error::Result<()> {
        let reader = CheckpointReader::open(prefix)?;
        reader.tensor("a")?;
        reader.tensor("b").map(drop)
    };
    read_all(&prefix).unwrap();
    let data = std::fs::read(data_path(&prefix)).unwrap();
    for cut in (0..data.len()).step_by(7) {
        std::fs::write(data_path(&prefix), &data[..cut]).unwrap();
        assert!(matches!(read_all(&prefix), Err(Error::DataLoss(_))), "cut at {cut}");
    }
    // A flipped bit anywhere in the data: in a tensor or in the object graph.
    for at in 0..data.len() {
        let mut bad = data.clone();
        bad[at] ^= 0x10;
        std::fs::write(data_path(&prefix), &bad).unwrap();
        assert!(matches!(read_all(&prefix), Err(Error::DataLoss(_))), "flip at {at}");
    }
    std::fs::write(data_path(&prefix), &data).unwrap();
    let reader = CheckpointReader::open(&prefix).unwrap();
    assert!(matches!(reader.tensor("zzz"), Err(Error::NotFound(_))));
    let index = std::fs::read(index_path(&prefix)).unwrap();
    for cut in 0..index.len() {
        std::fs::write(index_path(&prefix), &index[..cut]).unwrap();
        assert!(matches!(CheckpointReader::open(&prefix), Err(Error::DataLoss(_))), "cut {cut}");
    }
    // Every byte of the index is covered by a block checksum or is a footer handle or the
    // magic number, except the footer's zero padding after the handles.
    let padding = index.len() - 48 + handles_len(&index[index.len() - 48..])..index.len() - 8;
    for at in (0..index.len()).filter(|at| !padding.contains(at)) {
        for bit in [0x01, 0x80] {
            let mut bad = index.clone();
            bad[at] ^= bit;
            std::fs::write(index_path(&prefix), &bad).unwrap();
            let result = CheckpointReader::open(&prefix);
            // A continuation bit set on a handle's last byte only pads its varint with the
            // zero after it: the same handle, the same table.
            let same_handle = at >= index.len() - 48
                && result.as_ref().is_ok_and(|r| r.entries() == reader.entries());
            assert!(
                matches!(result, Err(Error::DataLoss(_))) || same_handle,
                "flip {bit:#x} at {at}"
            );
        }
    }
    std::fs::write(index_path(&prefix), b"{").unwrap();
    assert!(matches!(CheckpointReader::open(&prefix), Err(Error::DataLoss(_))));
}

fn handles_len(footer: &[u8]) -> usize {
    let (_, a) = super::sstable_format::BlockHandle::decode(footer).unwrap();
    let (_, b) = super::sstable_format::BlockHandle::decode(&footer[a..]).unwrap();
    a + b
}

/// A graph whose root holds one variable per key.
fn graph_with(keys: &[&str]) -> serde_json::Value {
    let children: Vec<_> =
        (0..keys.len()).map(|i| json!({"node_id": i + 1, "local_name": format!("v{i}")})).collect();
    let mut nodes = vec![json!({"children": children, "attributes": []})];
    for key in keys {
        nodes.push(json!({"children": [], "attributes": [
            {"name": "VARIABLE_VALUE", "full_name": key, "checkpoint_key": key}]}));
    }
    json!({ "nodes": nodes })
}

#[test]
fn the_object_graph_round_trips_through_tensorflows_message() {
    let prefix = scratch("graph");
    let mut graph = graph_with(&["a"]);
    graph["nodes"][0]["slot_variables"] = json!([
        {"original_variable_node_id": 1, "slot_name": "m", "slot_variable_node_id": 1}]);
    write(&prefix, &[("a".into(), sample(DType::F32, 2))], &graph).unwrap();
    let reader = CheckpointReader::open(&prefix).unwrap();
    assert_eq!(reader.object_graph(), &graph);
    assert!(reader.is_tensorflow_format());
    let proto = <crate::proto::tensorflow::TrackableObjectGraph as prost::Message>::decode(
        reader.object_graph_bytes().as_slice(),
    )
    .unwrap();
    let marks: Vec<_> = proto.nodes.iter().map(|n| n.has_checkpoint_values).collect();
    assert_eq!(marks, [Some(true), Some(true)]);
    assert_eq!(reader.entries().len(), 1, "the graph entry is not listed as a tensor");
    for bad in
        [json!({"k": 1}), json!({"nodes": [{"children": [{"node_id": 5, "local_name": "x"}]}]})]
    {
        assert!(matches!(write(&prefix, &[], &bad), Err(Error::InvalidArgument(_))), "{bad}");
    }
}

#[test]
fn tensorflow_written_checkpoints_read_with_their_values() {
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tf_checkpoint/ckpt");
    let reader = CheckpointReader::open(&fixture).unwrap();
    let value =
        |name: &str| reader.tensor(&format!("model/{name}/.ATTRIBUTES/VARIABLE_VALUE")).unwrap();
    let w = value("w");
    assert_eq!(w.dims(), &[2, 2]);
    assert_eq!(w.host().unwrap(), &Buffer::F32(vec![1.5, -2.0, 0.25, 4.0]));
    assert_eq!(value("steps").host().unwrap(), &Buffer::I64(vec![7]));
    assert_eq!(value("flags").host().unwrap(), &Buffer::Bool(vec![true, false, true]));
    assert_eq!(
        value("names").host().unwrap(),
        strings_of(&[b"alpha", b"", b"\xffbytes"]).host().unwrap()
    );
    assert_eq!(value("half").dtype(), DType::F16);
    assert_eq!(
        value("c").host().unwrap(),
        &Buffer::C128(vec![num_complex::Complex64::new(1.0, 2.0)])
    );
    let nodes = reader.object_graph()["nodes"].as_array().unwrap();
    assert_eq!(nodes[0]["children"][0]["local_name"], "model");
    // Written again by ferroflow, every value reads back the same.
    let prefix = scratch("rewrite");
    let tensors: Vec<(String, Tensor)> =
        reader.entries().iter().map(|e| (e.key.clone(), reader.tensor(&e.key).unwrap())).collect();
    write(&prefix, &tensors, reader.object_graph()).unwrap();
    let again = CheckpointReader::open(&prefix).unwrap();
    assert_eq!(again.object_graph(), reader.object_graph());
    for (key, t) in &tensors {
        assert_eq!(again.tensor(key).unwrap().host().unwrap(), t.host().unwrap(), "{key}");
    }
}

#[test]
fn checkpoints_in_ferroflows_first_format_still_load() {
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/checkpoint_v1/ckpt");
    let reader = CheckpointReader::open(&fixture).unwrap();
    assert!(!reader.is_tensorflow_format());
    let w = reader.tensor("model/w/.ATTRIBUTES/VARIABLE_VALUE").unwrap();
    assert_eq!(w.host().unwrap(), &Buffer::F32(vec![1.5, -2.0, 0.25, 4.0]));
    let names = reader.tensor("model/names/.ATTRIBUTES/VARIABLE_VALUE").unwrap();
    assert_eq!(names.host().unwrap(), strings_of(&[b"alpha", b"", b"\xffbytes"]).host().unwrap());
    assert_eq!(reader.object_graph()["nodes"][0]["children"][0]["local_name"], "model");
    // Damaged first-format files are still DataLoss.
    let prefix = scratch("legacy");
    let tensors = vec![("a".to_string(), sample(DType::F32, 64))];
    super::legacy_write::write(&prefix, &tensors, &json!({"k": 1})).unwrap();
    let data = std::fs::read(data_path(&prefix)).unwrap();
    for cut in (0..data.len()).step_by(7) {
        std::fs::write(data_path(&prefix), &data[..cut]).unwrap();
        assert!(matches!(CheckpointReader::open(&prefix), Err(Error::DataLoss(_))), "cut at {cut}");
    }
    std::fs::write(data_path(&prefix), &data).unwrap();
    for index in [
        "{",
        r#"{"format":"other","version":1,"object_graph":{}}"#,
        r#"{"format":"ferroflow-checkpoint","version":99,"object_graph":{}}"#,
    ] {
        std::fs::write(index_path(&prefix), index).unwrap();
        assert!(matches!(CheckpointReader::open(&prefix), Err(Error::DataLoss(_))), "{index}");
    }
}

fn strings_of(values: &[&[u8]]) -> Tensor {
    let v = values.iter().map(|s| crate::tstring::TfString::new(s)).collect();
    Tensor::from_buffer(Buffer::Str(v), Shape(vec![values.len()])).unwrap()
}

fn strings(values: &[&str], dims: &[usize]) -> Tensor {
    let v = values.iter().map(|s| crate::tstring::TfString::from(*s)).collect();
    Tensor::from_buffer(Buffer::Str(v), Shape(dims.to_vec())).unwrap()
}

#[test]
fn string_entries_round_trip_with_their_shapes() {
    let prefix = scratch("strings");
    let long = "x".repeat(100);
    let tensors = vec![
        ("grid".to_string(), strings(&["a", "", "café", &long], &[2, 2])),
        ("scalar".to_string(), strings(&["only"], &[])),
        ("empty".to_string(), strings(&[], &[0, 3])),
    ];
    write(&prefix, &tensors, &json!(null)).unwrap();
    let reader = CheckpointReader::open(&prefix).unwrap();
    for (key, t) in &tensors {
        let back = reader.tensor(key).unwrap();
        assert_eq!((back.dtype(), back.shape()), (DType::String, t.shape()), "{key}");
        assert_eq!(back.host().unwrap(), t.host().unwrap(), "{key}");
    }
}

#[test]
fn string_lengths_in_a_file_are_never_trusted() {
    use super::bundle_bytes::{decode, encode};
    use crate::io::masked_crc::mask;
    let (good, crc) = encode(&strings(&["ab", "c"], &[2])).unwrap();
    let crc = mask(crc);
    assert!(decode("k", DType::String, &[2], &good, crc).is_ok());
    // Two one-byte lengths, the four-byte length checksum, then "abc".
    assert_eq!(good.len(), 2 + 4 + 3);
    let mut long = good.clone();
    long[0] = 0xff;
    let mut extra = good.clone();
    extra.push(b'!');
    let mut flipped = good.clone();
    flipped[7] ^= 1;
    for (bytes, dims) in [
        (&good[..good.len() - 1], vec![2]),
        (&good[..5], vec![2]),
        (&long[..], vec![2]),
        (&extra[..], vec![2]),
        (&flipped[..], vec![2]),
        (&good[..], vec![usize::MAX, 2]),
        (&good[..], vec![3]),
        (&good[..], vec![100]),
    ] {
        let result = decode("k", DType::String, &dims, bytes, crc);
        assert!(matches!(result, Err(Error::DataLoss(_))), "{dims:?} {bytes:?}");
    }
}

/// An index whose single entry `key` says `entry`, beside a data file of `data`.
fn hostile_checkpoint(
    name: &str,
    entry: &crate::proto::tensorflow::BundleEntryProto,
    data: &[u8],
) -> PathBuf {
    use crate::proto::tensorflow::BundleHeaderProto;
    use prost::Message;
    let prefix = scratch(name);
    let header = BundleHeaderProto { num_shards: 1, ..Default::default() }.encode_to_vec();
    let value = entry.encode_to_vec();
    let rows = [(&b""[..], header.as_slice()), (&b"k"[..], value.as_slice())];
    std::fs::write(index_path(&prefix), super::sstable_write::build(rows)).unwrap();
    std::fs::write(data_path(&prefix), data).unwrap();
    prefix
}

#[test]
fn entries_pointing_anywhere_are_data_loss_not_allocations() {
    use crate::proto::tensorflow::{tensor_shape_proto::Dim, BundleEntryProto, TensorShapeProto};
    let shape = |dims: &[i64]| {
        Some(TensorShapeProto {
            dim: dims.iter().map(|&size| Dim { size, name: String::new() }).collect(),
            unknown_rank: false,
        })
    };
    let good = BundleEntryProto {
        dtype: DType::F32 as i32,
        shape: shape(&[2]),
        size: 8,
        crc32c: crate::io::masked_crc::masked_crc(&[0; 8]),
        ..Default::default()
    };
    let prefix = hostile_checkpoint("good", &good, &[0; 8]);
    assert_eq!(CheckpointReader::open(&prefix).unwrap().tensor("k").unwrap().dims(), &[2]);
    let variants = [
        BundleEntryProto { offset: 1 << 40, ..good.clone() },
        BundleEntryProto { size: 1 << 62, ..good.clone() },
        BundleEntryProto { offset: i64::MAX, size: i64::MAX, ..good.clone() },
        BundleEntryProto { offset: -1, ..good.clone() },
        BundleEntryProto { size: -8, ..good.clone() },
        BundleEntryProto { shard_id: 3, ..good.clone() },
        BundleEntryProto { shard_id: -1, ..good.clone() },
        BundleEntryProto { dtype: 999, ..good.clone() },
        BundleEntryProto { dtype: 21, ..good.clone() }, // DT_VARIANT
        BundleEntryProto { shape: shape(&[-1]), ..good.clone() },
        BundleEntryProto { shape: shape(&[1 << 40, 1 << 40]), ..good.clone() },
        BundleEntryProto { shape: shape(&[3]), ..good.clone() },
        BundleEntryProto { dtype: DType::String as i32, shape: shape(&[1 << 30]), ..good.clone() },
        BundleEntryProto { crc32c: 0, ..good.clone() },
    ];
    for (i, entry) in variants.iter().enumerate() {
        let prefix = hostile_checkpoint(&format!("hostile{i}"), entry, &[0; 8]);
        let result = CheckpointReader::open(&prefix).and_then(|r| r.tensor("k"));
        assert!(matches!(result, Err(Error::DataLoss(_))), "{i}: {entry:?} gave {result:?}");
    }
}
