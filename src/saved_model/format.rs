//! `saved_model.json`: what a SavedModel directory holds besides tensor data, as serde types.
//! The layout is described in `docs/saved-model-format.md`.

use crate::device::DeviceSpec;
use crate::dtype::DType;
use crate::graph::fused::FusedChain;
use crate::graph::print::Piece;
use crate::graph::{TensorType, ValueRef};
use crate::ops::primitive::Attrs;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub const FORMAT: &str = "ferroflow.saved_model";
/// Version 2 names ops (`{"op": "Conv2D", "attrs": {...}}`); version 1 held Rust enum values
/// and still loads.
pub const VERSION: u32 = 2;
/// The oldest version this one reads.
pub const OLDEST_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SavedModelFile {
    pub format: String,
    pub version: u32,
    /// The object tree; node 0 is the saved root.
    pub objects: Vec<ObjectDef>,
    pub variables: Vec<VariableDef>,
    pub functions: Vec<FunctionDef>,
    pub concrete_functions: Vec<ConcreteDef>,
    #[serde(default)]
    pub signatures: BTreeMap<String, SignatureDef>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectKind {
    /// A `tf.Module` or other object whose attributes were saved.
    UserObject,
    Variable,
    List,
    Tuple,
    Dict,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ChildDef {
    pub name: String,
    pub node: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ObjectDef {
    pub kind: ObjectKind,
    #[serde(default)]
    pub children: Vec<ChildDef>,
    /// For a variable object: its index in `variables`.
    #[serde(default)]
    pub variable: Option<usize>,
    /// Attribute name → index in `functions`.
    #[serde(default)]
    pub functions: BTreeMap<String, usize>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VariableDef {
    /// The variable's name without `:0`.
    pub name: String,
    /// Its entry in `variables/variables`.
    pub checkpoint_key: String,
    pub dtype: DType,
    pub dims: Vec<usize>,
    /// The declared shape (`None` for an unknown rank, `None` dims for unknown sizes).
    pub declared: Option<Vec<Option<usize>>>,
    pub trainable: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FunctionDef {
    pub name: String,
    /// Indices in `concrete_functions`, tried in order when a call picks one.
    pub concrete: Vec<usize>,
    /// The Python front end's own description (parameters, defaults); opaque to Rust.
    #[serde(default)]
    pub python: Value,
}

/// A tensor input or output: its name, dtype and dims (`None` where any size is accepted).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TensorSpecDef {
    pub name: String,
    pub dtype: DType,
    pub dims: Vec<Option<usize>>,
}

impl TensorSpecDef {
    pub fn admits(&self, dtype: DType, dims: &[usize]) -> bool {
        self.dtype == dtype
            && self.dims.len() == dims.len()
            && self.dims.iter().zip(dims).all(|(s, &d)| s.is_none_or(|s| s == d))
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ConcreteDef {
    pub name: String,
    /// The flat tensor inputs, in the graph's placeholder order.
    pub inputs: Vec<TensorSpecDef>,
    /// The flat tensor outputs.
    pub outputs: Vec<TensorSpecDef>,
    pub graph: GraphDef,
    /// The Python structure of arguments and results; opaque to Rust.
    #[serde(default)]
    pub python: Value,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SignatureDef {
    pub concrete: usize,
    /// Input names, one per flat input of the concrete function, in its order.
    pub inputs: Vec<String>,
    /// (name, index of the flat output) pairs, sorted by name.
    pub outputs: Vec<(String, usize)>,
}

/// A traced graph (as traced, before optimisation: loading runs the passes again).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GraphDef {
    pub num_inputs: usize,
    pub nodes: Vec<NodeDef>,
    pub outputs: Vec<ValueRef>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NodeDef {
    pub name: String,
    pub kind: KindDef,
    #[serde(default)]
    pub inputs: Vec<ValueRef>,
    #[serde(default)]
    pub outputs: Vec<TensorType>,
    /// Per output, whether its rank is unknown (a host call's result); absent when none is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown_rank: Vec<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceSpec>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KindDef {
    Placeholder(usize),
    /// Index of the tensor in the `constants` checkpoint.
    Const(usize),
    /// A primitive by TensorFlow name, with its attributes by name (read through the registry).
    Primitive {
        op: String,
        #[serde(default)]
        attrs: Attrs,
    },
    /// Version 1: a primitive as the serde form of ferroflow's `Op` enum (read only).
    Op(Value),
    /// Version 1: a fused chain (graphs are saved as traced, before fusion; read only).
    Fused(FusedChain),
    /// Index in `SavedModelFile::variables`.
    ReadVariable(usize),
    AssignVariable(usize),
    Print {
        pieces: Vec<Piece>,
        summarize: usize,
        stream: String,
    },
    Cond(Vec<GraphDef>),
    While {
        cond: Box<GraphDef>,
        body: Box<GraphDef>,
        loop_vars: usize,
        /// Values kept from every iteration for a gradient (`graph::loop_saves`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        saved: Vec<crate::graph::loop_saves::Saved>,
    },
}
