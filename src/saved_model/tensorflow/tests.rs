//! A Keras MLP that TensorFlow 2.21 exported (`tests/fixtures/tf_saved_model/keras_mlp`,
//! written by `tools/tf_saved_model_fixtures.py`), run from Rust against TensorFlow's outputs.

use super::*;
use crate::error::Error;
use crate::tensor::Tensor;
use serde_json::Value as Json;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tf_saved_model").join(name)
}

fn reference(name: &str) -> (Tensor, Vec<f32>) {
    let text = std::fs::read_to_string(fixture(&format!("{name}_reference.json"))).unwrap();
    let json: Json = serde_json::from_str(&text).unwrap();
    let array = |key: &str| -> (Vec<usize>, Vec<f32>) {
        let entry = &json[key];
        let dims = entry["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize);
        let values = entry["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32);
        (dims.collect(), values.collect())
    };
    let (dims, values) = array("input:features");
    (Tensor::from_slice(&values, &dims).unwrap(), array("output:output_0").1)
}

#[test]
fn a_tensorflow_keras_export_runs_with_tensorflows_outputs() {
    let model = TfSavedModel::load(fixture("keras_mlp")).unwrap();
    assert_eq!(model.signature_names(), ["serve", "serving_default"]);
    let (inputs, outputs) = model.signature_specs("serving_default").unwrap();
    assert_eq!(inputs[0].key, "features");
    assert_eq!(inputs[0].dims, Some(vec![None, Some(8)]));
    assert_eq!(outputs[0].key, "output_0");
    let (x, expected) = reference("keras_mlp");
    let result = model.call_signature("serving_default", &[("features", x.clone())]).unwrap();
    assert_eq!(result[0].0, "output_0");
    let got: Vec<f32> = result[0].1.to_vec().unwrap();
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(&expected) {
        assert!((g - e).abs() <= 1e-5 + 1e-5 * e.abs(), "{got:?} vs {expected:?}");
    }
    // Keras keeps each variable twice (`variables` and `_all_variables`): 2 x 4.
    assert_eq!(model.variables().len(), 8);
    // Bad calls are typed errors.
    let wrong = Tensor::from_slice(&[1.0f32; 6], &[2, 3]).unwrap();
    for bad in [
        model.call_signature("serving_default", &[("features", wrong)]),
        model.call_signature("serving_default", &[]),
        model.call_signature("serving_default", &[("features", x.clone()), ("other", x.clone())]),
    ] {
        assert!(matches!(bad, Err(Error::InvalidArgument(_))));
    }
    assert!(matches!(model.call_signature("nope", &[]), Err(Error::NotFound(_))));
    // `SavedModel::load` reads this format too, with the same results; the loader of
    // ferroflow's format alone points at it.
    let either = crate::SavedModel::load(fixture("keras_mlp")).unwrap();
    let direct = model.call_signature("serving_default", &[("features", x.clone())]).unwrap();
    let through = either.call_signature("serving_default", &[("features", x.clone())]).unwrap();
    assert_eq!(direct[0].1.to_vec::<f32>().unwrap(), through[0].1.to_vec::<f32>().unwrap());
    match crate::saved_model::FerroflowSavedModel::load(fixture("keras_mlp")) {
        Err(Error::InvalidArgument(message)) => {
            assert!(message.contains("SavedModel::load"), "{message}")
        }
        _ => panic!("FerroflowSavedModel::load should refuse a TensorFlow-written directory"),
    }
}

#[test]
fn missing_and_damaged_directories_are_typed_errors() {
    assert!(matches!(TfSavedModel::load(fixture("absent")), Err(Error::NotFound(_))));
    let dir = std::env::temp_dir().join(format!("ferroflow-tfsm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("variables")).unwrap();
    let pb = std::fs::read(fixture("keras_mlp/saved_model.pb")).unwrap();
    for name in ["variables.index", "variables.data-00000-of-00001"] {
        std::fs::copy(fixture("keras_mlp/variables").join(name), dir.join("variables").join(name))
            .unwrap();
    }
    for cut in (0..pb.len()).step_by(997) {
        std::fs::write(dir.join("saved_model.pb"), &pb[..cut]).unwrap();
        // A prefix of a message may still parse (protobuf has no end marker): then what it
        // lacks is an error too, never a panic.
        if let Ok(model) = TfSavedModel::load(&dir) {
            let _ = model.call_signature("serving_default", &[]);
        }
    }
    std::fs::write(dir.join("saved_model.pb"), b"\xff\xff\xff").unwrap();
    assert!(matches!(TfSavedModel::load(&dir), Err(Error::DataLoss(_))));
}

#[test]
fn an_op_outside_the_table_is_unimplemented_and_named() {
    use crate::proto::tensorflow::{op_def::ArgDef, FunctionDef, NodeDef, OpDef};
    let function = FunctionDef {
        signature: Some(OpDef {
            name: "f".into(),
            input_arg: vec![ArgDef { name: "x".into(), ..Default::default() }],
            output_arg: vec![ArgDef { name: "y".into(), ..Default::default() }],
            ..Default::default()
        }),
        node_def: vec![NodeDef {
            name: "weird".into(),
            op: "FancyNewOp".into(),
            input: vec!["x".into()],
            ..Default::default()
        }],
        ret: [("y".to_string(), "weird:output:0".to_string())].into(),
        ..Default::default()
    };
    let library = super::run_function::Library {
        functions: [("f".to_string(), function)].into(),
        op_defs: Default::default(),
    };
    let x = super::run_function::Value::Tensor(Tensor::scalar(1.0f32));
    match library.call("f", vec![x], 0) {
        Err(Error::Unimplemented(message)) => assert!(message.contains("FancyNewOp"), "{message}"),
        _ => panic!("expected UnimplementedError"),
    }
}

/// A copy of fixture `name` in a fresh temporary directory.
fn copy_fixture(name: &str, tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ferroflow-tfsm-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let source = fixture(name);
    for entry in ["saved_model.pb", "variables", "assets"] {
        let from = source.join(entry);
        if from.is_dir() {
            std::fs::create_dir_all(dir.join(entry)).unwrap();
            for file in std::fs::read_dir(&from).unwrap() {
                let file = file.unwrap().path();
                std::fs::copy(&file, dir.join(entry).join(file.file_name().unwrap())).unwrap();
            }
        } else {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(&from, dir.join(entry)).unwrap();
        }
    }
    dir
}

/// Assets and resources come from the file: an asset name leaving `assets/`, a missing
/// vocabulary and damaged bytes are typed errors, never a panic or a read elsewhere.
#[test]
fn damaged_assets_and_resources_are_typed_errors() {
    use crate::proto::tensorflow::SavedModel as Proto;
    use prost::Message;
    let dir = copy_fixture("module_control_flow", "assets");
    let pb = std::fs::read(dir.join("saved_model.pb")).unwrap();
    let mut proto = Proto::decode(pb.as_slice()).unwrap();
    proto.meta_graphs[0].asset_file_def[0].filename = "../saved_model.pb".into();
    std::fs::write(dir.join("saved_model.pb"), proto.encode_to_vec()).unwrap();
    assert!(matches!(TfSavedModel::load(&dir), Err(Error::DataLoss(m)) if m.contains("assets")));
    std::fs::write(dir.join("saved_model.pb"), &pb).unwrap();
    assert!(TfSavedModel::load(&dir).is_ok());
    std::fs::remove_dir_all(dir.join("assets")).unwrap();
    assert!(matches!(TfSavedModel::load(&dir), Err(Error::NotFound(_))));
    // Flipped bytes across the whole file: each load is a model or an error.
    for at in (0..pb.len()).step_by(211) {
        let mut bad = pb.clone();
        bad[at] ^= 0x5a;
        std::fs::write(dir.join("saved_model.pb"), &bad).unwrap();
        let _ = TfSavedModel::load(&dir);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
