//! A traced function with a variable, a constant and a cond saved and loaded back in Rust;
//! damaged directories that must be errors, never panics.

use super::*;
use crate::error::Error;
use crate::graph::{control, trace};
use crate::ops::{self, BinaryOp};
use crate::tensor::Tensor;
use crate::test_support::CpuScope;
use crate::variable::Variable;
use serde_json::{json, Value};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferroflow-sm-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("model")
}

/// `f(x) = x * w + 1` if `sum(x) > 0` else `x - w`, traced for float32 vectors.
fn trace_f(w: &Variable) -> crate::graph::Graph {
    let example = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    trace::begin();
    let x = trace::placeholder(&example, "x", vec![None]).unwrap();
    let positive = ops::binary(
        BinaryOp::Greater,
        &ops::reduce_sum(&x, None, false).unwrap(),
        &Tensor::scalar(0.0f32),
    )
    .unwrap();
    let branch = |f: &dyn Fn(&Tensor) -> Tensor| {
        trace::begin();
        let y = f(&x);
        trace::finish(&[y]).unwrap()
    };
    let then = branch(&|x| {
        let scaled = ops::binary(BinaryOp::Mul, x, &w.read()).unwrap();
        ops::binary(BinaryOp::Add, &scaled, &Tensor::scalar(1.0f32)).unwrap()
    });
    let otherwise = branch(&|x| ops::binary(BinaryOp::Sub, x, &w.read()).unwrap());
    let y = control::record_cond(&positive, vec![then, otherwise]).unwrap();
    trace::finish(&y).unwrap().graph
}

fn meta() -> Value {
    let spec = |name: &str| json!({"name": name, "dtype": "float32", "dims": [null]});
    json!({
        "objects": [
            {"kind": "user_object", "children": [{"name": "w", "node": 1}],
             "functions": {"f": 0}},
            {"kind": "variable", "variable": 0}
        ],
        "variables": [{"name": "w", "checkpoint_key": "w/.ATTRIBUTES/VARIABLE_VALUE",
                       "dtype": "float32", "dims": [], "declared": [], "trainable": true}],
        "functions": [{"name": "f", "concrete": [0]}],
        "concrete_functions": [{"name": "f", "inputs": [spec("x")], "outputs": [spec("y")]}],
        "signatures": {"serving_default": {"concrete": 0, "inputs": ["x"],
                                           "outputs": [["output_0", 0]]}}
    })
}

fn save_sample(name: &str) -> (PathBuf, Variable) {
    let _cpu = CpuScope::new();
    let w = Variable::new(&Tensor::scalar(3.0f32), "w", true, Some(vec![]), None).unwrap();
    let graph = trace_f(&w);
    let dir = scratch(name);
    write(&dir, meta(), &[&graph], std::slice::from_ref(&w), &json!({"nodes": []})).unwrap();
    (dir, w)
}

fn vector(values: &[f32]) -> Tensor {
    Tensor::from_slice(values, &[values.len()]).unwrap()
}

#[test]
fn a_saved_function_runs_after_loading_in_rust() {
    let (dir, _) = save_sample("round-trip");
    let _cpu = CpuScope::new();
    let model = FerroflowSavedModel::load(&dir).unwrap();
    assert_eq!(model.function_paths(), vec!["f".to_string()]);
    let y = model.call("f", &[vector(&[1.0, 2.0, 3.0])]).unwrap();
    assert_eq!(y[0].to_vec::<f32>().unwrap(), vec![4.0, 7.0, 10.0]);
    let y = model.call("f", &[vector(&[-1.0, -2.0])]).unwrap();
    assert_eq!(y[0].to_vec::<f32>().unwrap(), vec![-4.0, -5.0]);
    // The loaded function reads the loaded variable by reference.
    model.variable("w").unwrap().assign(&Tensor::scalar(10.0f32)).unwrap();
    let out = model.call_signature("serving_default", &[("x", vector(&[1.0]))]).unwrap();
    assert_eq!(out[0].0, "output_0");
    assert_eq!(out[0].1.to_vec::<f32>().unwrap(), vec![11.0]);
}

#[test]
fn calls_that_fit_no_saved_signature_are_errors() {
    let (dir, _) = save_sample("mismatch");
    let model = FerroflowSavedModel::load(&dir).unwrap();
    let ints = Tensor::from_slice(&[1i32, 2], &[2]).unwrap();
    assert!(matches!(model.call("f", &[ints]), Err(Error::InvalidArgument(_))));
    assert!(matches!(model.call("g", &[]), Err(Error::NotFound(_))));
    assert!(matches!(model.call_signature("serving_default", &[]), Err(Error::InvalidArgument(_))));
    assert!(matches!(model.call_signature("other", &[]), Err(Error::NotFound(_))));
}

#[test]
fn saving_again_replaces_the_model_whole() {
    let (dir, w) = save_sample("replace");
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    let _cpu = CpuScope::new();
    w.assign(&Tensor::scalar(5.0f32)).unwrap();
    let graph = trace_f(&w);
    write(&dir, meta(), &[&graph], std::slice::from_ref(&w), &json!({"nodes": []})).unwrap();
    assert_eq!(std::fs::read_to_string(dir.join("notes.txt")).unwrap(), "mine");
    let model = FerroflowSavedModel::load(&dir).unwrap();
    assert_eq!(model.variable("w").unwrap().peek().to_vec::<f32>().unwrap(), vec![5.0]);
    let leftovers = std::fs::read_dir(dir.parent().unwrap()).unwrap().count();
    assert_eq!(leftovers, 1, "staging directories were left behind");
}

#[test]
fn untracked_variables_cannot_be_saved() {
    let _cpu = CpuScope::new();
    let w = Variable::new(&Tensor::scalar(3.0f32), "w", true, Some(vec![]), None).unwrap();
    let graph = trace_f(&w);
    let result = write(&scratch("untracked"), meta(), &[&graph], &[], &json!({}));
    assert!(matches!(result, Err(Error::Value(m)) if m.contains("untracked")));
}

#[test]
fn missing_and_damaged_directories_are_errors() {
    assert!(matches!(FerroflowSavedModel::load(scratch("missing")), Err(Error::NotFound(_))));
    let (dir, _) = save_sample("damaged");
    let path = dir.join("saved_model.json");
    let good = std::fs::read(&path).unwrap();
    for cut in (0..good.len()).step_by(97) {
        std::fs::write(&path, &good[..cut]).unwrap();
        assert!(matches!(FerroflowSavedModel::load(&dir), Err(Error::DataLoss(_))), "cut at {cut}");
    }
    let text = String::from_utf8(good.clone()).unwrap();
    // References out of range, each in a different table.
    for (from, to) in [
        (r#""node":1"#, r#""node":9"#),
        (r#""concrete":[0]"#, r#""concrete":[4]"#),
        (r#""read_variable":0"#, r#""read_variable":7"#),
        (r#""placeholder":0"#, r#""placeholder":3"#),
        (r#""const":0"#, r#""const":99"#),
    ] {
        assert!(text.contains(from), "{from} not in the file");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
        assert!(
            matches!(FerroflowSavedModel::load(&dir), Err(Error::DataLoss(_))),
            "{from} → {to}"
        );
    }
    std::fs::write(&path, &good).unwrap();
    std::fs::remove_file(dir.join("constants.index")).unwrap();
    assert!(matches!(FerroflowSavedModel::load(&dir), Err(Error::NotFound(_))));
}

#[test]
fn a_hostile_op_attribute_is_refused_when_loading() {
    let (dir, _) = save_sample("hostile");
    let path = dir.join("saved_model.json");
    let mut file: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    // Make the reduction's axis point past the input's rank.
    let text = file.to_string();
    assert!(text.contains(r#""axes":[0]"#), "{text}");
    file = serde_json::from_str(&text.replacen(r#""axes":[0]"#, r#""axes":[5]"#, 1)).unwrap();
    std::fs::write(&path, file.to_string()).unwrap();
    // The registry checks each node against its op's shape rule while loading.
    assert!(matches!(FerroflowSavedModel::load(&dir), Err(Error::DataLoss(_))));
}

/// `SavedModel::load` reads TensorFlow's format (a directory TensorFlow wrote) as well as
/// ferroflow's, and calls signatures of both.
#[test]
fn saved_model_load_reads_both_formats() {
    let tf_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tf_saved_model");
    let Some(dir) = std::fs::read_dir(&tf_dir).ok().and_then(|entries| {
        entries.flatten().map(|e| e.path()).find(|p| p.join("saved_model.pb").is_file())
    }) else {
        panic!("no TensorFlow SavedModel fixture under {}", tf_dir.display());
    };
    let model = SavedModel::load(&dir).unwrap();
    assert!(matches!(model, SavedModel::TensorFlow(_)));
    assert!(!model.signature_names().is_empty());
    assert!(!model.variables().is_empty());
    let (ours, _) = save_sample("either-format");
    let model = SavedModel::load(&ours).unwrap();
    assert!(matches!(model, SavedModel::Ferroflow(_)));
    assert_eq!(model.signature_names(), vec!["serving_default"]);
}

/// Given the functions' structures, `write` also writes TensorFlow's `saved_model.pb`; read
/// alone (ferroflow's own file removed), it gives the function's results, both branches of its
/// `tf.cond` and the variable it reads.
#[test]
fn a_saved_model_is_also_written_in_tensorflows_format() {
    let _cpu = CpuScope::new();
    let w = Variable::new(&Tensor::scalar(3.0f32), "w", true, Some(vec![]), None).unwrap();
    let graph = trace_f(&w);
    let dir = scratch("tensorflow-format");
    let mut meta = meta();
    let spec = json!({"tensor_spec": {"name": "x", "dtype": "float32", "dims": [null]}});
    meta["tensorflow"] = json!({
        "concrete_functions": [{
            "input_signature": {"tuple": [{"tuple": [spec]}, {"dict": {}}]},
            "output_signature": {"tensor_spec": {"dtype": "float32", "dims": [null]}}
        }],
        "functions": [{"fullargspec": "none", "input_signature": "none"}]
    });
    let object_graph = json!({"nodes": [
        {"children": [{"node_id": 1, "local_name": "w"}]},
        {"attributes": [{"name": "VARIABLE_VALUE", "full_name": "w",
                         "checkpoint_key": "w/.ATTRIBUTES/VARIABLE_VALUE"}]}
    ]});
    let not_written = write(&dir, meta, &[&graph], std::slice::from_ref(&w), &object_graph);
    assert_eq!(not_written.unwrap(), None);
    std::fs::remove_file(dir.join("saved_model.json")).unwrap();
    let model = SavedModel::load(&dir).unwrap();
    assert!(matches!(model, SavedModel::TensorFlow(_)));
    let call = |x: &[f32]| {
        let out = model.call_signature("serving_default", &[("x", vector(x))]).unwrap();
        assert_eq!(out[0].0, "output_0");
        out[0].1.to_vec::<f32>().unwrap()
    };
    assert_eq!(call(&[1.0, 2.0, 3.0]), vec![4.0, 7.0, 10.0]);
    assert_eq!(call(&[-1.0, -2.0]), vec![-4.0, -5.0]);
}

#[test]
fn a_loop_keeping_values_for_its_gradient_round_trips_and_a_wrong_count_is_refused() {
    use super::format::KindDef;
    use super::graph_codec::{encode, Decoder};
    use crate::graph::{run, Mode};
    let g = crate::graph::tests::while_gradient_graph();
    let mut constants = Vec::new();
    let def = encode(&g, &[], &mut constants).unwrap();
    let sink: crate::graph::print::Sink = std::sync::Arc::new(|_: &str| Ok(()));
    let make_sink = move |_: &str| sink.clone();
    let decoder = Decoder { variables: &[], constants: &constants, make_sink: &make_sink };
    let back = decoder.decode(&def).unwrap();
    let _cpu = crate::test_support::CpuScope::new();
    let inputs = [Tensor::scalar(2.0f32), Tensor::scalar(3.0f32)];
    let values = |g: &crate::graph::Graph| -> Vec<f32> {
        let out = run(g, &inputs, Mode::Run).unwrap();
        out.iter().map(|t| t.to_vec::<f32>().unwrap()[0]).collect()
    };
    assert_eq!(values(&back), values(&g));
    // A file whose loop keeps fewer values than its body returns is damaged, not run.
    let mut damaged = def.clone();
    let keeping = damaged.nodes.iter_mut().find_map(|n| match &mut n.kind {
        KindDef::While { saved, .. } if !saved.is_empty() => Some(saved),
        _ => None,
    });
    keeping.unwrap().pop();
    let err = decoder.decode(&damaged).err().unwrap();
    assert!(matches!(err, crate::error::Error::DataLoss(_)), "{err}");
}
