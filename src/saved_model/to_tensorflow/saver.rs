//! The saver that TensorFlow 1-style loaders run (TensorFlow Serving's C++ loader,
//! `tf.compat.v1.saved_model.load`, `saved_model_cli run`): they build the MetaGraph's own graph
//! in a session, feed the variables' path to `saver_def.filename_tensor_name` and run
//! `restore_op_name`, which assigns every variable its value from `variables/`. TensorFlow 2's
//! `tf.saved_model.load` restores through the object graph instead and ignores this.
//!
//! As TensorFlow writes it: a `saver_filename` placeholder and two `StatefulPartitionedCall`s
//! of the variables' handles, one of a restore function (`RestoreV2`, then an
//! `AssignVariableOp` per variable) and one of a save function (`SaveV2` of each variable's
//! value and of the checkpoint's object graph, so that what it writes restores in TensorFlow 2
//! too). Each returns the file prefix once its effects are done.

use super::attrs::{self, RESOURCE};
use super::body::{Body, TensorRef, Typed};
use super::function_def::{arg_names, Library};
use crate::buffer::Buffer;
use crate::checkpoint::OBJECT_GRAPH_KEY;
use crate::dtype::DType;
use crate::error::Result;
use crate::proto::tensorflow::attr_value::Value;
use crate::proto::tensorflow::op_def::ArgDef;
use crate::proto::tensorflow::saver_def::CheckpointFormatVersion;
use crate::proto::tensorflow::{FunctionDef, OpDef, SaverDef};
use crate::saved_model::format::VariableDef;
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use std::collections::BTreeMap;

fn string_vector(body: &mut Body, values: &[&str], hint: &str) -> Result<Typed> {
    let strings: Vec<TfString> = values.iter().map(|v| TfString::new(v.as_bytes())).collect();
    let dims = vec![strings.len()];
    let t = Tensor::from_buffer(Buffer::Str(strings), Shape(dims))?;
    Ok((body.constant(&t, hint)?, attrs::enum_of(DType::String)))
}

/// The arguments of both functions: the file prefix, then one handle per variable.
fn arguments(variables: &[&VariableDef], prefix: &str) -> Vec<String> {
    let hints = std::iter::once("file_prefix".to_string())
        .chain(variables.iter().map(|v| format!("{prefix}_{}", v.name.to_lowercase())));
    arg_names(hints)
}

fn function(
    name: String,
    args: &[String],
    body: Body,
    result: TensorRef,
    effects: Vec<String>,
) -> FunctionDef {
    let string = attrs::enum_of(DType::String);
    let arg = |(k, n): (usize, &String)| ArgDef {
        name: n.clone(),
        r#type: if k == 0 { string } else { RESOURCE },
        ..Default::default()
    };
    FunctionDef {
        signature: Some(OpDef {
            name,
            input_arg: args.iter().enumerate().map(arg).collect(),
            output_arg: vec![ArgDef {
                name: "identity".into(),
                r#type: string,
                ..Default::default()
            }],
            control_output: effects.clone(),
            is_stateful: true,
            ..Default::default()
        }),
        node_def: body.nodes,
        ret: BTreeMap::from([("identity".to_string(), result)]),
        control_ret: effects.into_iter().map(|e| (e.clone(), e)).collect(),
        ..Default::default()
    }
}

/// `Identity(file_prefix)` after every node of `effects` has run.
fn prefix_after(body: &mut Body, prefix: &str, effects: &[String]) -> Result<TensorRef> {
    let string = attrs::enum_of(DType::String);
    let out =
        body.op("Identity", "Identity", &[vec![(prefix.to_string(), string)]], &[string], vec![])?;
    let node = body.last().to_string();
    for effect in effects {
        body.control(&node, effect);
    }
    Ok(out[0].clone())
}

fn restore_function(library: &mut Library, variables: &[&VariableDef]) -> Result<String> {
    let args = arguments(variables, "assignvariableop");
    let mut body = Body::new(&args);
    let keys: Vec<&str> = variables.iter().map(|v| v.checkpoint_key.as_str()).collect();
    let names = string_vector(&mut body, &keys, "RestoreV2/tensor_names")?;
    let slices = string_vector(&mut body, &vec![""; keys.len()], "RestoreV2/shape_and_slices")?;
    let dtypes: Vec<i32> = variables.iter().map(|v| attrs::enum_of(v.dtype)).collect();
    let prefix = (args[0].clone(), attrs::enum_of(DType::String));
    let tensors = body.op(
        "RestoreV2",
        "RestoreV2",
        &[vec![prefix], vec![names], vec![slices]],
        &dtypes,
        vec![("dtypes", attrs::dtypes(dtypes.iter().copied()))],
    )?;
    let mut effects = Vec::new();
    for ((handle, tensor), dtype) in args[1..].iter().zip(&tensors).zip(&dtypes) {
        body.op(
            "AssignVariableOp",
            "AssignVariableOp",
            &[vec![(handle.clone(), RESOURCE)], vec![(tensor.clone(), *dtype)]],
            &[],
            vec![("dtype", attrs::dtype(*dtype))],
        )?;
        effects.push(body.last().to_string());
    }
    let result = prefix_after(&mut body, &args[0], &effects)?;
    let name = library.fresh_name("_traced_restore");
    library.functions.push(function(name.clone(), &args, body, result, effects));
    Ok(name)
}

fn save_function(
    library: &mut Library,
    variables: &[&VariableDef],
    object_graph: &[u8],
) -> Result<String> {
    let args = arguments(variables, "read_readvariableop");
    let mut body = Body::new(&args);
    let mut keys: Vec<&str> = variables.iter().map(|v| v.checkpoint_key.as_str()).collect();
    keys.push(OBJECT_GRAPH_KEY);
    let names = string_vector(&mut body, &keys, "SaveV2/tensor_names")?;
    let slices = string_vector(&mut body, &vec![""; keys.len()], "SaveV2/shape_and_slices")?;
    let mut values: Vec<Typed> = Vec::new();
    for (handle, v) in args[1..].iter().zip(variables) {
        let dtype = attrs::enum_of(v.dtype);
        let read = body.op(
            "ReadVariableOp",
            "Read/ReadVariableOp",
            &[vec![(handle.clone(), RESOURCE)]],
            &[dtype],
            vec![],
        )?;
        values.push((read[0].clone(), dtype));
    }
    let graph = Tensor::from_buffer(Buffer::Str(vec![TfString::new(object_graph)]), Shape(vec![]))?;
    values.push((body.constant(&graph, "Const")?, attrs::enum_of(DType::String)));
    let prefix = (args[0].clone(), attrs::enum_of(DType::String));
    body.op("SaveV2", "SaveV2", &[vec![prefix], vec![names], vec![slices], values], &[], vec![])?;
    let effects = vec![body.last().to_string()];
    let result = prefix_after(&mut body, &args[0], &effects)?;
    let name = library.fresh_name("_traced_save");
    library.functions.push(function(name.clone(), &args, body, result, effects));
    Ok(name)
}

/// Adds the save and restore functions to `library` and their calls to the MetaGraph's graph
/// `graph` (each variable's `VarHandleOp` output in `handles`, in `variables`' order).
pub fn build(
    graph: &mut Body,
    library: &mut Library,
    variables: &[&VariableDef],
    handles: &[TensorRef],
    object_graph: &[u8],
) -> Result<SaverDef> {
    let restore = restore_function(library, variables)?;
    let save = save_function(library, variables, object_graph)?;
    let string = attrs::enum_of(DType::String);
    let scalar = attrs::value(Value::Shape(attrs::shape(Some(&[]))));
    let filename =
        graph.op("Placeholder", "saver_filename", &[], &[string], vec![("shape", scalar)])?;
    let mut args: Vec<Typed> = vec![(filename[0].clone(), string)];
    args.extend(handles.iter().map(|h| (h.clone(), RESOURCE)));
    let call = |graph: &mut Body, f: &str| -> Result<(String, TensorRef)> {
        let out = graph.op(
            "StatefulPartitionedCall",
            "StatefulPartitionedCall",
            &[args.clone()],
            &[string],
            vec![("f", attrs::func(f))],
        )?;
        Ok((graph.last().to_string(), out[0].clone()))
    };
    let (_, saved) = call(graph, &save)?;
    let (restore_node, _) = call(graph, &restore)?;
    Ok(SaverDef {
        filename_tensor_name: format!("{}:0", node_of(&filename[0])),
        save_tensor_name: format!("{}:0", node_of(&saved)),
        restore_op_name: restore_node,
        version: CheckpointFormatVersion::V2 as i32,
        ..Default::default()
    })
}

fn node_of(tensor: &str) -> &str {
    tensor.split(':').next().unwrap_or(tensor)
}
