//! The `SavedObjectGraph`: the saved objects in the checkpoint's node order (so a variable's
//! node is the checkpoint's), then a `function` node per `tf.function` attribute, then the
//! `signatures` map and a bare concrete function per signature; and each concrete function's
//! structures and bound inputs (the variable nodes its resource arguments stand for).

use super::structured::{self, Spec, Structure};
use crate::error::{Error, Result};
use crate::proto::tensorflow::saved_object::Kind;
use crate::proto::tensorflow::trackable_object_graph::trackable_object::ObjectReference;
use crate::proto::tensorflow::{
    FunctionSpec, SavedBareConcreteFunction, SavedConcreteFunction, SavedFunction, SavedObject,
    SavedObjectGraph, SavedUserObject, SavedVariable, StructuredValue, VersionDef,
};
use crate::saved_model::format::{ObjectKind, SavedModelFile};
use crate::variable::Variable;
use serde_json::Value;
use std::collections::BTreeMap;

/// A concrete function as written: its library name and the variables it takes, in order.
pub struct Concrete {
    pub name: String,
    pub resources: Vec<Variable>,
}

pub struct Parts<'a> {
    pub file: &'a SavedModelFile,
    pub variables: &'a [Variable],
    pub concretes: &'a [Concrete],
    /// Per concrete function: (canonicalized input signature, output signature) as JSON.
    pub concrete_structures: &'a [(Value, Value)],
    /// Per function: (FullArgSpec, input_signature) as JSON.
    pub function_structures: &'a [(Value, Value)],
    /// (key, wrapper function name, concrete function index).
    pub signatures: &'a [(String, String, usize)],
}

fn user_object(identifier: &str) -> Kind {
    Kind::UserObject(SavedUserObject {
        identifier: identifier.into(),
        version: Some(VersionDef { producer: 1, min_consumer: 1, bad_consumers: vec![] }),
        metadata: String::new(),
    })
}

fn child(name: &str, node: usize) -> ObjectReference {
    ObjectReference { node_id: node as i32, local_name: name.into() }
}

fn spec(value: &Value) -> Result<StructuredValue> {
    Ok(structured::encode(&structured::parse(value)?))
}

pub fn object_graph(parts: &Parts) -> Result<SavedObjectGraph> {
    let file = parts.file;
    let mut variable_node = BTreeMap::new();
    let mut nodes: Vec<SavedObject> = Vec::new();
    for (id, object) in file.objects.iter().enumerate() {
        let children: Vec<ObjectReference> =
            object.children.iter().map(|c| child(&c.name, c.node)).collect();
        let kind = match object.kind {
            ObjectKind::Variable => {
                let index = object.variable.ok_or_else(|| {
                    Error::InvalidArgument("a variable object names no variable".into())
                })?;
                let def = file.variables.get(index).ok_or_else(|| {
                    Error::InvalidArgument("a variable object names no variable".into())
                })?;
                variable_node.insert(index, id);
                Kind::Variable(SavedVariable {
                    dtype: def.dtype as i32,
                    shape: Some(super::attrs::shape(Some(
                        &def.dims.iter().map(|&d| Some(d)).collect::<Vec<_>>(),
                    ))),
                    trainable: def.trainable,
                    name: def.name.clone(),
                    ..Default::default()
                })
            }
            // TensorFlow's names for its list, dict and tuple wrappers.
            ObjectKind::List => user_object("trackable_list_wrapper"),
            ObjectKind::Dict => user_object("trackable_dict_wrapper"),
            ObjectKind::Tuple => user_object("trackable_tuple_wrapper"),
            ObjectKind::UserObject => user_object("_generic_user_object"),
        };
        nodes.push(SavedObject { children, kind: Some(kind), ..Default::default() });
    }
    let node_of = |v: &Variable| -> Result<i32> {
        let index = parts
            .variables
            .iter()
            .position(|k| k.same(v))
            .ok_or_else(|| Error::Internal(format!("variable {} is not saved", v.name())))?;
        variable_node
            .get(&index)
            .map(|&n| n as i32)
            .ok_or_else(|| Error::Internal(format!("variable {} has no object", v.name())))
    };

    // Functions, each a child of the object whose attribute it is.
    let mut function_node = BTreeMap::new();
    for (index, def) in file.functions.iter().enumerate() {
        let (argspec, input_signature) = &parts.function_structures[index];
        let names = def
            .concrete
            .iter()
            .map(|&c| parts.concretes.get(c).map(|c| c.name.clone()))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| Error::InvalidArgument("a function names no concrete one".into()))?;
        function_node.insert(index, nodes.len());
        nodes.push(SavedObject {
            kind: Some(Kind::Function(SavedFunction {
                concrete_functions: names,
                function_spec: Some(FunctionSpec {
                    fullargspec: Some(spec(argspec)?),
                    is_method: false,
                    input_signature: Some(spec(input_signature)?),
                    jit_compile: 0,
                }),
            })),
            ..Default::default()
        });
    }
    for (id, object) in file.objects.iter().enumerate() {
        for (attr, index) in &object.functions {
            let node = function_node
                .get(index)
                .ok_or_else(|| Error::InvalidArgument("an object names no function".into()))?;
            nodes[id].children.push(child(attr, *node));
        }
    }

    let mut concrete_functions = BTreeMap::new();
    for (k, concrete) in parts.concretes.iter().enumerate() {
        let (inputs, outputs) = &parts.concrete_structures[k];
        concrete_functions.insert(
            concrete.name.clone(),
            SavedConcreteFunction {
                bound_inputs: concrete.resources.iter().map(node_of).collect::<Result<_>>()?,
                canonicalized_input_signature: Some(spec(inputs)?),
                output_signature: Some(spec(outputs)?),
            },
        );
    }

    if !parts.signatures.is_empty() {
        let map = nodes.len();
        nodes.push(SavedObject { kind: Some(user_object("signature_map")), ..Default::default() });
        if let Some(root) = nodes.first_mut() {
            root.children.push(child("signatures", map));
        }
        for (key, wrapper, index) in parts.signatures {
            let sig = &file.signatures[key];
            let concrete = &file.concrete_functions[*index];
            let tensor = |name: &str, t: &crate::saved_model::format::TensorSpecDef| {
                Structure::TensorSpec(Spec {
                    name: Some(name.to_string()),
                    dtype: t.dtype,
                    dims: Some(t.dims.clone()),
                })
            };
            let inputs: BTreeMap<String, Structure> = sig
                .inputs
                .iter()
                .zip(&concrete.inputs)
                .map(|(n, t)| (n.clone(), tensor(n, t)))
                .collect();
            let mut outputs = BTreeMap::new();
            for (name, flat) in &sig.outputs {
                let t = concrete.outputs.get(*flat).ok_or_else(|| {
                    Error::InvalidArgument(format!("signature {key} names a missing output"))
                })?;
                outputs.insert(name.clone(), tensor(name, t));
            }
            let keywords: Vec<String> = inputs.keys().cloned().collect();
            let structure =
                Structure::Tuple(vec![Structure::Tuple(vec![]), Structure::Dict(inputs)]);
            concrete_functions.insert(
                wrapper.clone(),
                SavedConcreteFunction {
                    bound_inputs: parts.concretes[*index]
                        .resources
                        .iter()
                        .map(node_of)
                        .collect::<Result<_>>()?,
                    canonicalized_input_signature: Some(structured::encode(&structure)),
                    output_signature: Some(structured::encode(&Structure::Dict(outputs))),
                },
            );
            let node = nodes.len();
            nodes.push(SavedObject {
                kind: Some(Kind::BareConcreteFunction(SavedBareConcreteFunction {
                    concrete_function_name: wrapper.clone(),
                    argument_keywords: keywords.clone(),
                    // As TensorFlow: a signature of one input also takes it positionally.
                    allowed_positional_arguments: i64::from(keywords.len() == 1),
                    function_spec: Some(FunctionSpec {
                        fullargspec: Some(structured::full_arg_spec(&[], &keywords)),
                        is_method: false,
                        input_signature: Some(structured::encode(&Structure::None)),
                        jit_compile: 0,
                    }),
                })),
                ..Default::default()
            });
            nodes[map].children.push(child(key, node));
        }
    }
    Ok(SavedObjectGraph { nodes, concrete_functions })
}
