//! The MetaGraph's own graph and `signature_def` map, which TensorFlow's serving tools and
//! TensorFlow 1-style loaders read: per signature a `Placeholder` per input
//! (`<signature>_<input>`) and a `StatefulPartitionedCall` of its wrapper function whose
//! outputs the signature names, the variables passed in as `VarHandleOp`s (one per saved
//! variable), and the saver that restores them (`saver.rs`).

use super::attrs::{self, RESOURCE};
use super::body::{Body, Typed};
use super::function_def::Library;
use super::saver;
use crate::error::{Error, Result};
use crate::proto::tensorflow::attr_value::Value;
use crate::proto::tensorflow::tensor_info::Encoding;
use crate::proto::tensorflow::{NodeDef, SaverDef, SignatureDef, TensorInfo};
use crate::saved_model::format::{TensorSpecDef, VariableDef};
use crate::variable::Variable;
use std::collections::BTreeMap;

/// One signature as the graph calls it.
pub struct SignatureCall<'a> {
    pub key: &'a str,
    pub wrapper: &'a str,
    /// (input name, spec), sorted by name: the wrapper's data arguments.
    pub inputs: Vec<(String, &'a TensorSpecDef)>,
    /// (output name, spec), sorted by name: the wrapper's outputs.
    pub outputs: Vec<(String, &'a TensorSpecDef)>,
    pub resources: &'a [Variable],
}

fn info(name: String, spec: &TensorSpecDef) -> TensorInfo {
    TensorInfo {
        dtype: attrs::enum_of(spec.dtype),
        tensor_shape: Some(attrs::shape(Some(&spec.dims))),
        encoding: Some(Encoding::Name(name)),
    }
}

/// A graph tensor's name (`node:index`) from a function body's ref (`node:arg:index`); the
/// ops here have a single output argument, so the index is the flat one.
fn graph_name(body_ref: &str) -> String {
    match (body_ref.split_once(':'), body_ref.rsplit_once(':')) {
        (Some((node, _)), Some((_, index))) => format!("{node}:{index}"),
        _ => format!("{body_ref}:0"),
    }
}

/// Every saved variable (its entry in `saved_model.json` and itself, in that file's order) and
/// the checkpoint's serialized object graph, which the saver's save function writes.
pub struct Saved<'a> {
    pub variables: Vec<(&'a VariableDef, &'a Variable)>,
    pub object_graph: Vec<u8>,
}

/// The graph's nodes, the signature defs, and the saver (none when nothing is saved).
pub type ServingGraph = (Vec<NodeDef>, BTreeMap<String, SignatureDef>, Option<SaverDef>);

pub fn build(
    calls: &[SignatureCall],
    saved: &Saved,
    library: &mut Library,
) -> Result<ServingGraph> {
    let mut body = Body::default();
    let mut handles: Vec<(Variable, String)> = Vec::new();
    let mut defs = BTreeMap::new();
    for (_, v) in &saved.variables {
        let peek = v.peek();
        let dims: Vec<Option<usize>> = peek.dims().iter().map(|&d| Some(d)).collect();
        let name = body.unique(v.name().trim_end_matches(":0"));
        let shared = attrs::value(Value::S(name.clone().into_bytes()));
        let out = body.op(
            "VarHandleOp",
            &name,
            &[],
            &[RESOURCE],
            vec![
                ("dtype", attrs::dtype(attrs::enum_of(peek.dtype()))),
                ("shape", attrs::value(Value::Shape(attrs::shape(Some(&dims))))),
                ("shared_name", shared),
            ],
        )?;
        handles.push(((*v).clone(), out[0].clone()));
    }
    for call in calls {
        let mut args: Vec<Typed> = Vec::new();
        let mut inputs = BTreeMap::new();
        for (name, spec) in &call.inputs {
            let dtype = attrs::enum_of(spec.dtype);
            let out = body.op(
                "Placeholder",
                &format!("{}_{name}", call.key),
                &[],
                &[dtype],
                vec![("shape", attrs::value(Value::Shape(attrs::shape(Some(&spec.dims)))))],
            )?;
            inputs.insert(name.clone(), info(graph_name(&out[0]), spec));
            args.push((out[0].clone(), dtype));
        }
        for v in call.resources {
            // A missing handle would shift the call's positional arguments: never skip one.
            let (_, handle) = handles.iter().find(|(known, _)| known.same(v)).ok_or_else(|| {
                Error::Internal(format!(
                    "signature {} reads a variable that is not saved",
                    call.key
                ))
            })?;
            args.push((handle.clone(), RESOURCE));
        }
        let tout: Vec<i32> = call.outputs.iter().map(|(_, s)| attrs::enum_of(s.dtype)).collect();
        let results = body.op(
            "StatefulPartitionedCall",
            "StatefulPartitionedCall",
            &[args],
            &tout,
            vec![("f", attrs::func(call.wrapper))],
        )?;
        let outputs = call
            .outputs
            .iter()
            .zip(&results)
            .map(|((name, spec), r)| (name.clone(), info(graph_name(r), spec)))
            .collect();
        let method_name = "tensorflow/serving/predict".to_string();
        let def = SignatureDef { inputs, outputs, method_name, ..Default::default() };
        defs.insert(call.key.to_string(), def);
    }
    let saver_def = match saved.variables.is_empty() {
        true => None,
        false => {
            let defs: Vec<&VariableDef> = saved.variables.iter().map(|(d, _)| *d).collect();
            let refs: Vec<String> = handles.iter().map(|(_, h)| h.clone()).collect();
            Some(saver::build(&mut body, library, &defs, &refs, &saved.object_graph)?)
        }
    };
    let mut nodes = body.nodes;
    for node in &mut nodes {
        for input in &mut node.input {
            if !input.starts_with('^') {
                let name = graph_name(input);
                *input = name.strip_suffix(":0").map_or(name.clone(), str::to_string);
            }
        }
    }
    Ok((nodes, defs, saver_def))
}
