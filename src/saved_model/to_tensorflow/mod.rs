//! Writing `saved_model.pb` in TensorFlow's format beside ferroflow's own `saved_model.json`,
//! so that TensorFlow's `tf.saved_model.load` reads what `tf.saved_model.save` wrote here:
//! one MetaGraph tagged "serve" whose function library holds each concrete function as a
//! `FunctionDef` of TensorFlow ops, whose object graph mirrors the saved objects (variables,
//! functions, the `signatures` map) and binds each function's variables, which TensorFlow
//! restores from the same `variables/` checkpoint ferroflow reads.
//!
//! ferroflow itself keeps loading `saved_model.json` (its graphs exactly as traced); the
//! TensorFlow file is for TensorFlow and for tools that read TensorFlow's format.

mod attrs;
mod body;
mod control;
mod export_nn;
mod export_ops;
mod export_print;
mod export_random;
mod function_def;
mod objects;
mod op_signatures;
mod saver;
mod serving_graph;
mod signature;
mod structured;

use super::format::SavedModelFile;
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::proto::tensorflow::meta_graph_def::MetaInfoDef;
use crate::proto::tensorflow::{
    FunctionDefLibrary, GraphDef, MetaGraphDef, SavedModel, VersionDef,
};
use crate::variable::Variable;
use function_def::{arg_names, ArgSpec, Library};
use prost::Message;
use serde::Deserialize;
use serde_json::Value;

pub const MODEL_FILE: &str = "saved_model.pb";

/// The GraphDef version TensorFlow 2.21 writes (`TF_GRAPH_DEF_VERSION`) and the oldest
/// consumer it declares.
const PRODUCER: i32 = 2474;
const MIN_CONSUMER: i32 = 12;

/// What the Python front end adds for TensorFlow: each concrete function's argument and
/// result structures, each function's Python signature.
#[derive(Deserialize)]
struct Structures {
    concrete_functions: Vec<ConcreteStructures>,
    functions: Vec<FunctionStructures>,
}

#[derive(Deserialize)]
struct ConcreteStructures {
    input_signature: Value,
    output_signature: Value,
}

#[derive(Deserialize)]
struct FunctionStructures {
    fullargspec: Value,
    input_signature: Value,
}

/// The bytes of `saved_model.pb` for the model `file` describes; `graphs[n]` is the n-th
/// concrete function's, `variables` the saved variables in `file.variables`' order,
/// `object_graph` the checkpoint's (which the saver's save function writes with them).
pub fn saved_model_pb(
    file: &SavedModelFile,
    graphs: &[&Graph],
    variables: &[Variable],
    structures: &Value,
    object_graph: &Value,
) -> Result<Vec<u8>> {
    let structures = Structures::deserialize(structures)
        .map_err(|e| Error::InvalidArgument(format!("saved function structures: {e}")))?;
    if structures.concrete_functions.len() != graphs.len()
        || structures.functions.len() != file.functions.len()
    {
        return Err(Error::InvalidArgument("one structure per saved function".into()));
    }
    let mut library = Library::default();
    let mut concretes = Vec::with_capacity(graphs.len());
    for (def, graph) in file.concrete_functions.iter().zip(graphs) {
        let resources = graph.variables();
        for v in &resources {
            if !variables.iter().any(|known| known.same(v)) {
                return Err(untracked(v));
            }
        }
        let names = arg_names(def.inputs.iter().map(|i| i.name.clone()));
        let args: Vec<ArgSpec> = def
            .inputs
            .iter()
            .zip(names)
            .map(|(i, name)| ArgSpec { name, dtype: i.dtype, dims: Some(i.dims.clone()) })
            .collect();
        let name = library.fresh_name(&def.name);
        let shape = function_def::Shape {
            args: &args,
            placeholder_arg: &|i| i,
            resources: &resources,
            passthrough: &[],
        };
        function_def::export(&mut library, &name, graph, &shape)?;
        concretes.push(objects::Concrete { name, resources });
    }
    let mut signatures = Vec::new();
    for (key, sig) in &file.signatures {
        let concrete = concretes.get(sig.concrete).ok_or_else(|| {
            Error::InvalidArgument(format!("signature {key} names no saved function"))
        })?;
        let def = library
            .functions
            .iter()
            .find(|f| f.signature.as_ref().is_some_and(|s| s.name == concrete.name))
            .cloned()
            .ok_or_else(|| Error::Internal("a concrete function went missing".into()))?;
        let name = signature::wrapper(
            &mut library,
            &signature::Callee {
                name: &concrete.name,
                def: &def,
                input_keys: &sig.inputs,
                outputs: &sig.outputs,
            },
        )?;
        signatures.push((key.clone(), name, sig.concrete));
    }
    let mut calls = Vec::new();
    for (key, wrapper, index) in &signatures {
        let sig = &file.signatures[key];
        let concrete = &file.concrete_functions[*index];
        let mut inputs: Vec<_> = sig.inputs.iter().cloned().zip(&concrete.inputs).collect();
        inputs.sort_by(|a, b| a.0.cmp(&b.0));
        let outputs = sig
            .outputs
            .iter()
            .map(|(name, flat)| {
                concrete.outputs.get(*flat).map(|spec| (name.clone(), spec)).ok_or_else(|| {
                    Error::InvalidArgument(format!("signature {key} names a missing output"))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        calls.push(serving_graph::SignatureCall {
            key,
            wrapper,
            inputs,
            outputs,
            resources: &concretes[*index].resources,
        });
    }
    if file.variables.len() != variables.len() {
        return Err(Error::Internal(
            "saved_model.json's variables and the saved ones differ".into(),
        ));
    }
    let saved = serving_graph::Saved {
        variables: file.variables.iter().zip(variables).collect(),
        object_graph: match object_graph {
            Value::Null => Vec::new(),
            graph => crate::checkpoint::object_graph_bytes(graph)?,
        },
    };
    let (graph_nodes, signature_def, saver_def) =
        serving_graph::build(&calls, &saved, &mut library)?;
    let object_graph = objects::object_graph(&objects::Parts {
        file,
        variables,
        concretes: &concretes,
        concrete_structures: &structures
            .concrete_functions
            .iter()
            .map(|c| (c.input_signature.clone(), c.output_signature.clone()))
            .collect::<Vec<_>>(),
        function_structures: &structures
            .functions
            .iter()
            .map(|f| (f.fullargspec.clone(), f.input_signature.clone()))
            .collect::<Vec<_>>(),
        signatures: &signatures,
    })?;
    let meta = MetaGraphDef {
        meta_info_def: Some(MetaInfoDef {
            tags: vec!["serve".into()],
            tensorflow_version: "2.21.0".into(),
            tensorflow_git_version: format!("ferroflow-{}", env!("CARGO_PKG_VERSION")),
            ..Default::default()
        }),
        graph_def: Some(GraphDef {
            node: graph_nodes,
            library: Some(FunctionDefLibrary { function: library.functions, ..Default::default() }),
            versions: Some(VersionDef {
                producer: PRODUCER,
                min_consumer: MIN_CONSUMER,
                bad_consumers: vec![],
            }),
            ..Default::default()
        }),
        object_graph_def: Some(object_graph),
        signature_def,
        saver_def,
        ..Default::default()
    };
    Ok(SavedModel { saved_model_schema_version: 1, meta_graphs: vec![meta] }.encode_to_vec())
}

fn untracked(v: &Variable) -> Error {
    Error::Value(format!(
        "Tried to export a function which references an 'untracked' resource: variable '{}'. \
         Every variable a saved function uses must be reachable from the saved object (assign \
         it to an attribute).",
        v.name()
    ))
}
