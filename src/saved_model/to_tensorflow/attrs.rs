//! `AttrValue`s of the kinds exported nodes carry, and shapes in TensorFlow's proto form.

use crate::dtype::DType;
use crate::proto::tensorflow::attr_value::{ListValue, Value};
use crate::proto::tensorflow::tensor_shape_proto::Dim;
use crate::proto::tensorflow::{AttrValue, NameAttrList, TensorProto, TensorShapeProto};

pub fn value(v: Value) -> AttrValue {
    AttrValue { value: Some(v) }
}

/// TensorFlow's `DT_RESOURCE`, which ferroflow's `DType` does not name (handles stay in Rust).
pub const RESOURCE: i32 = 20;

/// A DataType enum value: `DType`'s discriminants are TensorFlow's.
pub fn enum_of(d: DType) -> i32 {
    d as i32
}

pub fn dtype(d: i32) -> AttrValue {
    value(Value::Type(d))
}

pub fn int(i: i64) -> AttrValue {
    value(Value::I(i))
}

pub fn float(f: f64) -> AttrValue {
    value(Value::F(f as f32))
}

pub fn boolean(b: bool) -> AttrValue {
    value(Value::B(b))
}

pub fn string(s: &str) -> AttrValue {
    value(Value::S(s.as_bytes().to_vec()))
}

pub fn tensor(t: TensorProto) -> AttrValue {
    value(Value::Tensor(t))
}

pub fn func(name: &str) -> AttrValue {
    value(Value::Func(NameAttrList { name: name.to_string(), attr: Default::default() }))
}

pub fn ints(v: impl IntoIterator<Item = i64>) -> AttrValue {
    value(Value::List(ListValue { i: v.into_iter().collect(), ..Default::default() }))
}

pub fn dtypes(v: impl IntoIterator<Item = i32>) -> AttrValue {
    value(Value::List(ListValue { r#type: v.into_iter().collect(), ..Default::default() }))
}

pub fn shapes(v: impl IntoIterator<Item = TensorShapeProto>) -> AttrValue {
    value(Value::List(ListValue { shape: v.into_iter().collect(), ..Default::default() }))
}

pub fn funcs(names: &[String]) -> AttrValue {
    value(Value::List(ListValue {
        func: names
            .iter()
            .map(|n| NameAttrList { name: n.clone(), attr: Default::default() })
            .collect(),
        ..Default::default()
    }))
}

/// A shape with `-1` for unknown sizes; `None` dims is an unknown rank.
pub fn shape(dims: Option<&[Option<usize>]>) -> TensorShapeProto {
    match dims {
        None => TensorShapeProto { dim: Vec::new(), unknown_rank: true },
        Some(dims) => TensorShapeProto {
            dim: dims
                .iter()
                .map(|d| Dim { size: d.map_or(-1, |d| d as i64), name: String::new() })
                .collect(),
            unknown_rank: false,
        },
    }
}
