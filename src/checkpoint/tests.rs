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
    let graph = json!({"nodes": [{"children": []}]});
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
    write(&prefix, &tensors, &json!({"k": 1})).unwrap();
    let data = std::fs::read(data_path(&prefix)).unwrap();
    for cut in (0..data.len()).step_by(7) {
        std::fs::write(data_path(&prefix), &data[..cut]).unwrap();
        assert!(matches!(CheckpointReader::open(&prefix), Err(Error::DataLoss(_))), "cut at {cut}");
    }
    // A flipped bit in any entry's bytes (bools sort last, so they end the data; the float32
    // entry sits just before them).
    for at in [data.len() - 1, data.len() - 7 - 4] {
        let mut bad = data.clone();
        bad[at] ^= 0x10;
        std::fs::write(data_path(&prefix), &bad).unwrap();
        let reader = CheckpointReader::open(&prefix).unwrap();
        let key = if at == data.len() - 1 { "b" } else { "a" };
        assert!(matches!(reader.tensor(key), Err(Error::DataLoss(_))), "flip at {at}");
    }
    let reader = CheckpointReader::open(&prefix).unwrap();
    assert!(matches!(reader.tensor("zzz"), Err(Error::NotFound(_))));
    std::fs::write(data_path(&prefix), &data).unwrap();
    for index in [
        "",
        "{",
        "[]",
        r#"{"format":"other","version":1,"object_graph":{}}"#,
        r#"{"format":"ferroflow-checkpoint","version":99,"object_graph":{}}"#,
    ] {
        std::fs::write(index_path(&prefix), index).unwrap();
        assert!(matches!(CheckpointReader::open(&prefix), Err(Error::DataLoss(_))), "{index}");
    }
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
    use super::tensor_bytes::from_bytes;
    let good = super::tensor_bytes::to_bytes(&strings(&["ab", "c"], &[2])).unwrap();
    assert!(from_bytes(DType::String, &[2], &good).is_ok());
    let mut long = good.clone();
    long[..8].copy_from_slice(&u64::MAX.to_le_bytes());
    let mut extra = good.clone();
    extra.push(b'!');
    for (bytes, dims) in [
        (&good[..good.len() - 1], vec![2]),
        (&good[..5], vec![2]),
        (&long[..], vec![2]),
        (&extra[..], vec![2]),
        (&good[..], vec![usize::MAX, 2]),
        (&good[..], vec![3]),
    ] {
        assert!(
            matches!(from_bytes(DType::String, &dims, bytes), Err(Error::DataLoss(_))),
            "{dims:?}"
        );
    }
}
