//! Loading a TensorFlow-written SavedModel directory: the MetaGraph tagged "serve", its
//! variables (restored from `variables/` by the checkpoint keys of the object graph, whose node
//! ids are the SavedObjectGraph's) and its signatures (each the concrete function a
//! `signatures` entry of the root object names, called with its bound inputs: variables,
//! constants, assets and resources, which `resources.rs` makes and initializes at load).

use super::captures::{constants_of, Captures};
use super::resources::{assets_of, create_resources};
use super::run_function::{Library, Value};
use crate::checkpoint::CheckpointReader;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::proto::tensorflow::{
    saved_object::Kind, MetaGraphDef, SavedModel as SavedModelProto, SavedObjectGraph, TensorInfo,
};
use crate::tensor::Tensor;
use crate::variable::Variable;
use prost::Message;
use std::collections::BTreeMap;
use std::path::Path;

/// One input or output of a signature: its key, dtype and shape (None for an unknown dim;
/// no dims at all for an unknown rank).
#[derive(Clone, Debug, PartialEq)]
pub struct SignatureSpec {
    pub key: String,
    pub dtype: DType,
    pub dims: Option<Vec<Option<usize>>>,
    /// The graph tensor the SignatureDef names (`serving_default_x:0`); empty when none.
    pub tensor_name: String,
}

struct Signature {
    function: String,
    /// The function's user inputs, in its argument order.
    inputs: Vec<SignatureSpec>,
    /// Output keys, in the function's output order.
    outputs: Vec<SignatureSpec>,
    /// What the function's remaining arguments are bound to.
    bound: Vec<Value>,
    /// The SignatureDef's `method_name` (`tensorflow/serving/predict`).
    method: String,
}

pub struct TfSavedModel {
    library: Library,
    signatures: BTreeMap<String, Signature>,
    /// The variable and constant objects, by node id of the object graph.
    captures: Captures,
    objects: SavedObjectGraph,
}

fn corrupt(dir: &Path, why: impl std::fmt::Display) -> Error {
    Error::DataLoss(format!("{} is not a valid SavedModel: {why}", dir.display()))
}

impl TfSavedModel {
    /// Whether `dir` holds a TensorFlow-format SavedModel (`saved_model.pb`).
    pub fn is_tensorflow_format(dir: &Path) -> bool {
        dir.join("saved_model.pb").is_file()
    }

    pub fn load(dir: impl AsRef<Path>) -> Result<TfSavedModel> {
        let dir = dir.as_ref();
        let file = dir.join("saved_model.pb");
        let bytes = std::fs::read(&file).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::NotFound(format!(
                "SavedModel file does not exist at: {}/{{saved_model.pbtxt|saved_model.pb}}",
                dir.display()
            )),
            _ => crate::checkpoint::io_error(e, &file),
        })?;
        let proto = SavedModelProto::decode(bytes.as_slice()).map_err(|e| corrupt(dir, e))?;
        let meta = proto
            .meta_graphs
            .into_iter()
            .find(|m| m.meta_info_def.as_ref().is_none_or(|i| i.tags.iter().any(|t| t == "serve")))
            .ok_or_else(|| corrupt(dir, "no MetaGraph is tagged 'serve'"))?;
        let library = library_of(&meta);
        let objects = meta.object_graph_def.clone().unwrap_or_default();
        let variables = restore_variables(dir, &objects)?;
        let mut constants = constants_of(&meta, &objects, |why| corrupt(dir, why))?;
        constants.extend(assets_of(dir, &meta, &objects, |why| corrupt(dir, why))?);
        let (resources, unavailable) = (BTreeMap::new(), BTreeMap::new());
        let mut captures = Captures { variables, constants, resources, unavailable };
        create_resources(&objects, &library, &mut captures)?;
        let signatures = signatures_of(dir, &meta, &objects, &library, &captures)?;
        Ok(TfSavedModel { library, signatures, captures, objects })
    }

    pub fn signature_names(&self) -> Vec<&str> {
        self.signatures.keys().map(String::as_str).collect()
    }

    /// (inputs, outputs) of a signature.
    pub fn signature_specs(&self, name: &str) -> Result<(&[SignatureSpec], &[SignatureSpec])> {
        let signature = self.signature(name)?;
        Ok((&signature.inputs, &signature.outputs))
    }

    /// A signature's `method_name`, as its SignatureDef gives it.
    pub fn signature_method(&self, name: &str) -> Result<&str> {
        Ok(&self.signature(name)?.method)
    }

    /// The variables, in the order of their nodes in the object graph.
    pub fn variables(&self) -> Vec<&Variable> {
        self.captures.variables.values().collect()
    }

    /// The variable of object node `node`, if it is one.
    pub fn variable_of_node(&self, node: usize) -> Option<&Variable> {
        self.captures.variables.get(&node)
    }

    pub(super) fn object_graph(&self) -> &SavedObjectGraph {
        &self.objects
    }

    pub(super) fn captures(&self) -> &Captures {
        &self.captures
    }

    pub(super) fn library(&self) -> &Library {
        &self.library
    }

    fn signature(&self, name: &str) -> Result<&Signature> {
        self.signatures
            .get(name)
            .ok_or_else(|| Error::NotFound(format!("the SavedModel has no signature '{name}'")))
    }

    /// Calls a signature with named inputs; returns its named outputs, sorted by name.
    pub fn call_signature(
        &self,
        name: &str,
        inputs: &[(&str, Tensor)],
    ) -> Result<Vec<(String, Tensor)>> {
        let signature = self.signature(name)?;
        let mut args = Vec::with_capacity(signature.inputs.len() + signature.bound.len());
        for spec in &signature.inputs {
            let (_, value) = inputs.iter().find(|(key, _)| *key == spec.key).ok_or_else(|| {
                Error::InvalidArgument(format!("signature '{name}' needs input '{}'", spec.key))
            })?;
            check_input(name, spec, value)?;
            args.push(Value::Tensor(value.clone()));
        }
        if let Some((extra, _)) =
            inputs.iter().find(|(key, _)| !signature.inputs.iter().any(|s| s.key == *key))
        {
            return Err(Error::InvalidArgument(format!(
                "signature '{name}' has no input '{extra}'"
            )));
        }
        args.extend(signature.bound.iter().cloned());
        let outputs = self.library.call(&signature.function, args, 0)?;
        let mut named = signature
            .outputs
            .iter()
            .zip(outputs)
            .map(|(spec, value)| Ok((spec.key.clone(), value.tensor(&spec.key)?.clone())))
            .collect::<Result<Vec<_>>>()?;
        named.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(named)
    }
}

fn check_input(name: &str, spec: &SignatureSpec, value: &Tensor) -> Result<()> {
    let fits = value.dtype() == spec.dtype
        && spec.dims.as_ref().is_none_or(|dims| {
            dims.len() == value.rank()
                && dims.iter().zip(value.dims()).all(|(d, &v)| d.is_none_or(|d| d == v))
        });
    if fits {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "signature '{name}' input '{}' must be {} of shape {}, got {} of shape {:?}",
        spec.key,
        spec.dtype.name(),
        describe_dims(&spec.dims),
        value.dtype().name(),
        value.dims()
    )))
}

fn describe_dims(dims: &Option<Vec<Option<usize>>>) -> String {
    match dims {
        None => "<unknown>".into(),
        Some(d) => {
            let parts: Vec<String> =
                d.iter().map(|x| x.map_or("None".into(), |v| v.to_string())).collect();
            format!("({})", parts.join(", "))
        }
    }
}

fn library_of(meta: &MetaGraphDef) -> Library {
    let functions = meta
        .graph_def
        .as_ref()
        .and_then(|g| g.library.as_ref())
        .map(|lib| {
            lib.function
                .iter()
                .filter_map(|f| Some((f.signature.as_ref()?.name.clone(), f.clone())))
                .collect()
        })
        .unwrap_or_default();
    let op_defs = meta
        .meta_info_def
        .as_ref()
        .and_then(|i| i.stripped_op_list.as_ref())
        .map(|list| list.op.iter().map(|op| (op.name.clone(), op.clone())).collect())
        .unwrap_or_default();
    Library { functions, op_defs }
}

/// Every variable object, by node id, with its value from the checkpoint.
fn restore_variables(dir: &Path, objects: &SavedObjectGraph) -> Result<BTreeMap<usize, Variable>> {
    let wanted: Vec<(usize, &crate::proto::tensorflow::SavedVariable)> = objects
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| match &n.kind {
            Some(Kind::Variable(v)) => Some((i, v)),
            _ => None,
        })
        .collect();
    let mut variables = BTreeMap::new();
    if wanted.is_empty() {
        return Ok(variables);
    }
    let reader = CheckpointReader::open(&dir.join("variables").join("variables"))?;
    let graph = reader.object_graph();
    for (node, saved) in wanted {
        let key = graph["nodes"][node]["attributes"]
            .as_array()
            .and_then(|a| a.iter().find(|a| a["name"] == "VARIABLE_VALUE"))
            .and_then(|a| a["checkpoint_key"].as_str())
            .ok_or_else(|| {
                corrupt(
                    dir,
                    format!("variable '{}' (node {node}) has no checkpoint value", saved.name),
                )
            })?;
        let value = reader.tensor(key)?;
        if value.dtype() as i32 != saved.dtype {
            return Err(corrupt(
                dir,
                format!("variable '{}' is stored with another dtype", saved.name),
            ));
        }
        let name = if saved.name.is_empty() { "Variable" } else { saved.name.as_str() };
        variables.insert(node, Variable::new(&value, name, saved.trainable, None, None)?);
    }
    Ok(variables)
}

fn signatures_of(
    dir: &Path,
    meta: &MetaGraphDef,
    objects: &SavedObjectGraph,
    library: &Library,
    captures: &Captures,
) -> Result<BTreeMap<String, Signature>> {
    let child = |node: usize, name: &str| -> Option<usize> {
        let found = objects.nodes.get(node)?.children.iter().find(|c| c.local_name == name)?;
        usize::try_from(found.node_id).ok().filter(|&id| id < objects.nodes.len())
    };
    let mut signatures = BTreeMap::new();
    let Some(map) = child(0, "signatures") else {
        return Ok(signatures);
    };
    for edge in &objects.nodes[map].children {
        let name = &edge.local_name;
        let Some(Kind::BareConcreteFunction(bare)) = usize::try_from(edge.node_id)
            .ok()
            .and_then(|id| objects.nodes.get(id))
            .and_then(|n| n.kind.as_ref())
        else {
            return Err(corrupt(dir, format!("signature '{name}' is not a concrete function")));
        };
        let function = bare.concrete_function_name.clone();
        let def = library.functions.get(&function).and_then(|f| f.signature.as_ref());
        let def = def.ok_or_else(|| corrupt(dir, format!("no function '{function}'")))?;
        let bound_ids = objects
            .concrete_functions
            .get(&function)
            .map(|c| c.bound_inputs.clone())
            .unwrap_or_default();
        let who = format!("signature '{name}'");
        let bound =
            bound_ids.iter().map(|&id| captures.bound(&who, id)).collect::<Result<Vec<_>>>()?;
        let users = def.input_arg.len().checked_sub(bound.len()).ok_or_else(|| {
            corrupt(dir, format!("signature '{name}' binds more inputs than it has"))
        })?;
        let signature_def = meta.signature_def.get(name).cloned().unwrap_or_default();
        let function_def = &library.functions[&function];
        let inputs = (0..users)
            .map(|i| {
                let arg = &def.input_arg[i];
                let specified = function_def
                    .arg_attr
                    .get(&(i as u32))
                    .and_then(|a| a.attr.get("_user_specified_name"))
                    .and_then(|v| match &v.value {
                        Some(crate::proto::tensorflow::attr_value::Value::S(s)) => {
                            Some(String::from_utf8_lossy(s).into_owned())
                        }
                        _ => None,
                    });
                let key = [Some(arg.name.clone()), specified]
                    .into_iter()
                    .flatten()
                    .find(|k| signature_def.inputs.contains_key(k))
                    .ok_or_else(|| {
                        corrupt(dir, format!("signature '{name}' has no input for '{}'", arg.name))
                    })?;
                spec_of(dir, &key, &signature_def.inputs[&key])
            })
            .collect::<Result<Vec<_>>>()?;
        // The wrapper returns the signature's dict flattened in sorted key order; its output
        // arguments are named after the keys or, in Keras exports, `identity`, `identity_1`...
        let by_name = def.output_arg.iter().all(|a| signature_def.outputs.contains_key(&a.name));
        if !by_name && def.output_arg.len() != signature_def.outputs.len() {
            return Err(corrupt(dir, format!("signature '{name}' does not fit its function")));
        }
        let outputs = def
            .output_arg
            .iter()
            .zip(signature_def.outputs.iter())
            .map(|(arg, (key, info))| match by_name {
                true => spec_of(dir, &arg.name, &signature_def.outputs[&arg.name]),
                false => spec_of(dir, key, info),
            })
            .collect::<Result<Vec<_>>>()?;
        let method = signature_def.method_name.clone();
        signatures.insert(name.clone(), Signature { function, inputs, outputs, bound, method });
    }
    Ok(signatures)
}

fn spec_of(dir: &Path, key: &str, info: &TensorInfo) -> Result<SignatureSpec> {
    let dtype = u32::try_from(info.dtype)
        .ok()
        .and_then(|d| DType::from_enum(d).ok())
        .ok_or_else(|| corrupt(dir, format!("'{key}' has dtype {}", info.dtype)))?;
    let dims = info
        .tensor_shape
        .as_ref()
        .filter(|s| !s.unknown_rank)
        .map(|shape| shape.dim.iter().map(|d| usize::try_from(d.size).ok()).collect());
    let tensor_name = match &info.encoding {
        Some(crate::proto::tensorflow::tensor_info::Encoding::Name(name)) => name.clone(),
        _ => String::new(),
    };
    Ok(SignatureSpec { key: key.to_string(), dtype, dims, tensor_name })
}
