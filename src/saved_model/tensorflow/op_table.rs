//! The op table: how each TensorFlow op a saved function uses runs in ferroflow. Elementwise
//! ops map onto ferroflow's unary and binary primitives by their TensorFlow names; the others
//! read their attributes (with TensorFlow's defaults) and call the matching ferroflow op.
//! Function calls run the callee (inlining at run time).

use super::node_attrs::NodeAttrs;
use super::run_function::{Library, Value};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::binary::BinaryOp;
use crate::ops::matmul::MatMulAttrs;
use crate::ops::primitive::{Attrs, Decode};
use crate::ops::unary::UnaryOp;
use crate::ops::{self, nn};
use crate::tensor::Tensor;

pub fn run(
    attrs: &NodeAttrs,
    inputs: Vec<Value>,
    library: &Library,
    depth: usize,
) -> Result<Vec<Value>> {
    let node = attrs.node;
    let op = node.op.as_str();
    let tensor = |i: usize| -> Result<&Tensor> {
        inputs
            .get(i)
            .ok_or_else(|| {
                Error::InvalidArgument(format!("node '{}' ({op}) lacks input {i}", node.name))
            })?
            .tensor(&node.name)
    };
    let one = |t: Tensor| Ok(vec![Value::Tensor(t)]);
    match op {
        "Identity" | "StopGradient" | "Snapshot" | "PreventGradient" => {
            Ok(vec![inputs.into_iter().next().ok_or_else(|| no_input(attrs))?])
        }
        "IdentityN" => Ok(inputs),
        "NoOp" => Ok(Vec::new()),
        "Const" => match attrs.value("value")? {
            crate::proto::tensorflow::attr_value::Value::Tensor(proto) => {
                one(crate::io::tensor_proto::from_proto(proto)?)
            }
            _ => Err(Error::InvalidArgument(format!("Const '{}' has no tensor", node.name))),
        },
        "ReadVariableOp" => match inputs.first() {
            Some(Value::Variable(v)) => one(v.read()),
            _ => Err(Error::InvalidArgument(format!(
                "ReadVariableOp '{}' reads something that is not a variable",
                node.name
            ))),
        },
        "StatefulPartitionedCall" | "PartitionedCall" => {
            library.call(attrs.function("f")?, inputs, depth + 1)
        }
        "MatMul" => one(ops::matmul(
            tensor(0)?,
            tensor(1)?,
            MatMulAttrs {
                transpose_a: attrs.bool("transpose_a")?,
                transpose_b: attrs.bool("transpose_b")?,
                adjoint_a: false,
                adjoint_b: false,
            },
        )?),
        "BiasAdd" => {
            let channels_first = attrs.string("data_format")? == "NCHW";
            one(nn::bias_add(tensor(0)?, tensor(1)?, channels_first)?)
        }
        "Relu" => one(nn::relu(tensor(0)?)?),
        "Relu6" => one(nn::relu6(tensor(0)?)?),
        "Softmax" => one(nn::softmax(tensor(0)?, -1)?),
        "Cast" => {
            let dtype = u32::try_from(attrs.dtype("DstT")?).map_err(|_| bad_type(attrs))?;
            one(ops::cast(tensor(0)?, DType::from_enum(dtype)?)?)
        }
        _ if <BinaryOp as Decode>::names().contains(&op) => {
            let binary = BinaryOp::decode(op, &Attrs::new())?;
            one(ops::binary(binary, tensor(0)?, tensor(1)?)?)
        }
        _ if <UnaryOp as Decode>::names().contains(&op) => {
            let unary = UnaryOp::decode(op, &Attrs::new())?;
            one(ops::unary(unary, tensor(0)?)?)
        }
        _ => Err(Error::Unimplemented(format!(
            "The SavedModel uses the TensorFlow op '{op}' (node '{}'), which ferroflow cannot \
             import yet",
            node.name
        ))),
    }
}

fn no_input(attrs: &NodeAttrs) -> Error {
    Error::InvalidArgument(format!("node '{}' ({}) has no input", attrs.node.name, attrs.node.op))
}

fn bad_type(attrs: &NodeAttrs) -> Error {
    Error::InvalidArgument(format!("node '{}' has a bad dtype attribute", attrs.node.name))
}
