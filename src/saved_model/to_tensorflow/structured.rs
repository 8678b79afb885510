//! TensorFlow's `StructuredValue` (its nested structure coder's message) from the JSON the
//! Python front end writes for each function: argument specs, results, `FullArgSpec`s.
//!
//! `"none"`, `{"tuple": [...]}`, `{"list": [...]}`, `{"dict": {...}}`,
//! `{"named_tuple": {"name": ..., "values": [[key, value], ...]}}`, `{"string": ...}`,
//! `{"int": ...}`, `{"float": ...}`, `{"bool": ...}`,
//! `{"tensor_spec": {"name": ..., "dtype": ..., "dims": [...] | null}}`.

use super::attrs;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::proto::tensorflow::structured_value::Kind;
use crate::proto::tensorflow::{
    DictValue, ListValue, NamedTupleValue, NoneValue, PairValue, StructuredValue, TensorSpecProto,
    TupleValue,
};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Structure {
    None,
    Tuple(Vec<Structure>),
    List(Vec<Structure>),
    Dict(BTreeMap<String, Structure>),
    NamedTuple { name: String, values: Vec<(String, Structure)> },
    String(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    TensorSpec(Spec),
}

#[derive(Clone, Debug, Deserialize)]
pub struct Spec {
    #[serde(default)]
    pub name: Option<String>,
    pub dtype: DType,
    pub dims: Option<Vec<Option<usize>>>,
}

impl Spec {
    pub fn proto(&self) -> TensorSpecProto {
        TensorSpecProto {
            name: self.name.clone().unwrap_or_default(),
            shape: Some(attrs::shape(self.dims.as_deref())),
            dtype: attrs::enum_of(self.dtype),
        }
    }
}

pub fn parse(value: &serde_json::Value) -> Result<Structure> {
    Structure::deserialize(value)
        .map_err(|e| Error::InvalidArgument(format!("a saved function's structure: {e}")))
}

fn wrap(kind: Kind) -> StructuredValue {
    StructuredValue { kind: Some(kind) }
}

pub fn tensor_spec(spec: &Spec) -> StructuredValue {
    wrap(Kind::TensorSpecValue(spec.proto()))
}

pub fn encode(s: &Structure) -> StructuredValue {
    let all = |v: &[Structure]| v.iter().map(encode).collect::<Vec<_>>();
    wrap(match s {
        Structure::None => Kind::NoneValue(NoneValue {}),
        Structure::Tuple(v) => Kind::TupleValue(TupleValue { values: all(v) }),
        Structure::List(v) => Kind::ListValue(ListValue { values: all(v) }),
        Structure::Dict(m) => Kind::DictValue(DictValue {
            fields: m.iter().map(|(k, v)| (k.clone(), encode(v))).collect(),
        }),
        Structure::NamedTuple { name, values } => Kind::NamedTupleValue(NamedTupleValue {
            name: name.clone(),
            values: values
                .iter()
                .map(|(k, v)| PairValue { key: k.clone(), value: Some(encode(v)) })
                .collect(),
        }),
        Structure::String(v) => Kind::StringValue(v.clone()),
        Structure::Int(v) => Kind::Int64Value(*v),
        Structure::Float(v) => Kind::Float64Value(*v),
        Structure::Bool(v) => Kind::BoolValue(*v),
        Structure::TensorSpec(spec) => return tensor_spec(spec),
    })
}

/// `FullArgSpec(args, varargs=None, varkw=None, defaults=None, kwonlyargs, kwonlydefaults=None,
/// annotations={})`, as TensorFlow stores a function's Python signature.
pub fn full_arg_spec(args: &[String], kwonly: &[String]) -> StructuredValue {
    let strings =
        |v: &[String]| Structure::List(v.iter().map(|s| Structure::String(s.clone())).collect());
    encode(&Structure::NamedTuple {
        name: "FullArgSpec".into(),
        values: vec![
            ("args".into(), strings(args)),
            ("varargs".into(), Structure::None),
            ("varkw".into(), Structure::None),
            ("defaults".into(), Structure::None),
            ("kwonlyargs".into(), strings(kwonly)),
            ("kwonlydefaults".into(), Structure::None),
            ("annotations".into(), Structure::Dict(BTreeMap::new())),
        ],
    })
}
