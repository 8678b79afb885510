//! Keras and tf.Module SavedModels that TensorFlow 2.21 wrote (`tools/tf_saved_model_fixtures.py`),
//! run from Rust and compared with the outputs TensorFlow gave on the same inputs
//! (`tests/fixtures/tf_saved_model/<name>_reference.json`: `input:<arg>` and `output:<key>` of
//! `serving_default`, each with shape, dtype and values).

use super::*;
use crate::tensor::Tensor;
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tf_saved_model")
}

fn tensor_of(entry: &Json) -> Tensor {
    let dims: Vec<usize> =
        entry["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
    let values = entry["values"].as_array().unwrap();
    match entry["dtype"].as_str().unwrap_or("float32") {
        "float32" => {
            let v: Vec<f32> = values.iter().map(|v| v.as_f64().unwrap() as f32).collect();
            Tensor::from_slice(&v, &dims).unwrap()
        }
        "int32" => {
            let v: Vec<i32> = values.iter().map(|v| v.as_i64().unwrap() as i32).collect();
            Tensor::from_slice(&v, &dims).unwrap()
        }
        "int64" => {
            let v: Vec<i64> = values.iter().map(|v| v.as_i64().unwrap()).collect();
            Tensor::from_slice(&v, &dims).unwrap()
        }
        "string" => {
            let v = values
                .iter()
                .map(|v| crate::tstring::TfString::new(v.as_str().unwrap().as_bytes()));
            crate::ops::strings::string_tensor(v.collect(), &dims)
        }
        other => panic!("reference dtype {other}"),
    }
}

/// Runs `serving_default` of `dir` on the reference inputs; returns the largest absolute and
/// relative errors against TensorFlow's outputs after asserting `|got - want| <= tol + tol·|want|`.
fn run_against_reference(dir: &Path, reference: &Path, tol: f64) -> (f64, f64) {
    let model = TfSavedModel::load(dir).unwrap();
    let json: Json = serde_json::from_str(&std::fs::read_to_string(reference).unwrap()).unwrap();
    let entries = json.as_object().unwrap();
    let inputs: Vec<(&str, Tensor)> = entries
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("input:")?, tensor_of(v))))
        .collect();
    let outputs = model.call_signature("serving_default", &inputs).unwrap();
    let (mut max_abs, mut max_rel) = (0f64, 0f64);
    let mut compared = 0;
    for (key, got) in outputs {
        let want = tensor_of(&json[format!("output:{key}")]);
        assert_eq!(got.dims(), want.dims(), "output {key}");
        let got: Vec<f64> =
            crate::ops::cast(&got, crate::dtype::DType::F64).unwrap().to_vec().unwrap();
        let want: Vec<f64> =
            crate::ops::cast(&want, crate::dtype::DType::F64).unwrap().to_vec().unwrap();
        for (g, w) in got.iter().zip(&want) {
            let error = (g - w).abs();
            max_abs = max_abs.max(error);
            max_rel = max_rel.max(error / w.abs().max(f64::MIN_POSITIVE));
            assert!(error <= tol + tol * w.abs(), "{key}: {got:?} vs {want:?}");
        }
        compared += 1;
    }
    assert!(compared > 0, "no outputs compared");
    eprintln!("{}: max abs error {max_abs:.3e}, max rel error {max_rel:.3e}", dir.display());
    (max_abs, max_rel)
}

fn checked_in(name: &str) {
    let dir = fixtures();
    run_against_reference(&dir.join(name), &dir.join(format!("{name}_reference.json")), 1e-5);
}

/// Conv2D (SAME) + BatchNormalization (composed) + MaxPool, Conv2D stride 2 VALID, AvgPool SAME,
/// Flatten (Shape/StridedSlice/Pack/Reshape), Dense.
#[test]
fn keras_cnn_runs_with_tensorflows_outputs() {
    checked_in("keras_cnn");
}

/// Embedding (SelectV2 wrapping negative ids, GatherV2) + GlobalAveragePooling1D (Mean).
#[test]
fn keras_embedding_runs_with_tensorflows_outputs() {
    checked_in("keras_embedding");
}

/// tf.cond (StatelessIf) and tf.while_loop (While reading a variable) in a tf.Module.
#[test]
fn module_cond_while_runs_with_tensorflows_outputs() {
    checked_in("module_cond_while");
}

/// Keras StringLookup and IntegerLookup: hash tables made and filled at load by their
/// resource objects' creator and initializer functions (HashTableV2, LookupTableImportV2),
/// read by LookupTableFindV2.
#[test]
fn keras_string_and_integer_lookup_runs_with_tensorflows_outputs() {
    checked_in("keras_string_and_integer_lookup");
}

/// TextVectorization: StringLower, StaticRegexReplace, StringSplitV2, a hash table, then
/// DenseBincount, Cumsum and RaggedTensorToTensor making the ragged ids a padded batch.
#[test]
fn keras_text_vectorization_runs_with_tensorflows_outputs() {
    checked_in("keras_text_vectorization");
}

/// Calls (PartitionedCall, StatefulPartitionedCall, an XLA-compiled helper), If, Case and
/// StatelessCase, StatelessWhile, a TensorArray, a captured constant, a custom gradient's
/// IdentityN, and a table filled from a vocabulary asset (InitializeTableFromTextFileV2).
#[test]
fn module_control_flow_runs_with_tensorflows_outputs() {
    checked_in("module_control_flow");
}

/// Two stacked LSTMs: While loops over TensorLists (FromTensor, GetItem, Reserve, SetItem,
/// Stack), Split, Sigmoid/Tanh gates.
#[test]
fn keras_lstm_runs_with_tensorflows_outputs() {
    checked_in("keras_lstm");
}

#[test]
fn keras_gru_runs_with_tensorflows_outputs() {
    checked_in("keras_gru");
}

#[test]
fn keras_simple_rnn_runs_with_tensorflows_outputs() {
    checked_in("keras_simple_rnn");
}

/// MobileNetV2 (96×96, 10 classes): its variables are 18 MB, so the fixture is not checked in.
/// Set `FERROFLOW_TF_FIXTURES` to a directory written by `tools/tf_saved_model_fixtures.py DIR
/// keras_mobilenet_v2` (holding `keras_mobilenet_v2/` and `keras_mobilenet_v2_reference.json`,
/// the npz as JSON) to run it; without it the test checks nothing and says so.
#[test]
fn keras_mobilenet_v2_runs_with_tensorflows_outputs_when_given() {
    let Some(dir) = std::env::var_os("FERROFLOW_TF_FIXTURES").map(PathBuf::from) else {
        eprintln!("FERROFLOW_TF_FIXTURES is not set: MobileNetV2 skipped");
        return;
    };
    run_against_reference(
        &dir.join("keras_mobilenet_v2"),
        &dir.join("keras_mobilenet_v2_reference.json"),
        1e-5,
    );
}
