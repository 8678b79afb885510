//! The op table: how each TensorFlow op a saved function uses runs in ferroflow. The families
//! live one per file (`ops_array`, `ops_nn`, `ops_control`, `ops_tensor_list`, `ops_lookup`,
//! `ops_strings`, `ops_ragged`); this file
//! dispatches to them and holds the generic ops: identities, constants, variable reads, casts,
//! matmul, and the elementwise ops, which map onto ferroflow's unary and binary primitives by
//! their TensorFlow names.

use super::node_attrs::NodeAttrs;
use super::op_call::{one, OpCall};
use super::run_function::{Library, Value};
use super::{ops_array, ops_control, ops_lookup, ops_nn, ops_ragged, ops_strings, ops_tensor_list};
use crate::error::{Error, Result};
use crate::ops::binary::BinaryOp;
use crate::ops::matmul::MatMulAttrs;
use crate::ops::primitive::{Attrs, Decode};
use crate::ops::unary::UnaryOp;
use crate::ops::{self};

/// A family's runner: `Ok(None)` when the op is not one of its own.
type Family = fn(&OpCall) -> Result<Option<Vec<Value>>>;

const FAMILIES: [Family; 8] = [
    generic,
    ops_array::run,
    ops_nn::run,
    ops_control::run,
    ops_tensor_list::run,
    ops_lookup::run,
    ops_strings::run,
    ops_ragged::run,
];

pub fn run(
    attrs: &NodeAttrs,
    inputs: Vec<Value>,
    library: &Library,
    depth: usize,
) -> Result<Vec<Value>> {
    let call = OpCall { attrs, inputs, library, depth };
    for family in FAMILIES {
        if let Some(outputs) = family(&call)? {
            return Ok(outputs);
        }
    }
    Err(Error::Unimplemented(format!(
        "The SavedModel uses the TensorFlow op '{}' (node '{}'), which ferroflow cannot import yet",
        call.op(),
        call.name()
    )))
}

fn generic(c: &OpCall) -> Result<Option<Vec<Value>>> {
    let attrs = c.attrs;
    let op = c.op();
    match op {
        "Identity" | "StopGradient" | "Snapshot" | "PreventGradient" => {
            c.arity(1)?;
            Ok(Some(vec![c.value(0)?.clone()]))
        }
        "IdentityN" => Ok(Some(c.inputs.clone())),
        "NoOp" => Ok(Some(Vec::new())),
        "Const" => {
            c.arity(0)?;
            match attrs.value("value")? {
                crate::proto::tensorflow::attr_value::Value::Tensor(proto) => {
                    one(crate::io::tensor_proto::from_proto(proto)?)
                }
                _ => Err(c.invalid("has no tensor")),
            }
        }
        "ReadVariableOp" => {
            c.arity(1)?;
            match c.value(0)? {
                Value::Variable(v) => one(v.read()),
                _ => Err(c.invalid("reads something that is not a variable")),
            }
        }
        "MatMul" => {
            c.arity(2)?;
            let attrs = MatMulAttrs {
                transpose_a: attrs.bool("transpose_a")?,
                transpose_b: attrs.bool("transpose_b")?,
                adjoint_a: false,
                adjoint_b: false,
            };
            one(ops::matmul(c.tensor(0)?, c.tensor(1)?, attrs)?)
        }
        "BatchMatMul" | "BatchMatMulV2" | "BatchMatMulV3" => {
            c.arity(2)?;
            let (a, b) = (c.tensor(0)?, c.tensor(1)?);
            // V3 may multiply two dtypes into a third; ferroflow's matmul takes one dtype.
            let out = if op == "BatchMatMulV3" { Some(attrs.dtype("Tout")?) } else { None };
            if a.dtype() != b.dtype() || out.is_some_and(|t| t != a.dtype() as i32) {
                return Err(c.unsupported("Tout", (a.dtype(), b.dtype(), out)));
            }
            let attrs = MatMulAttrs {
                transpose_a: false,
                transpose_b: false,
                adjoint_a: attrs.bool("adj_x")?,
                adjoint_b: attrs.bool("adj_y")?,
            };
            one(ops::matmul(a, b, attrs)?)
        }
        "AddN" => one(ops::math::add_n(&c.tensors(0)?)?),
        "Cast" => {
            c.arity(1)?;
            // Truncate drops mantissa bits instead of rounding: a different result.
            if attrs.get("Truncate").is_some() && attrs.bool("Truncate")? {
                return Err(c.unsupported("Truncate", true));
            }
            one(ops::cast(c.tensor(0)?, attrs.dtype_of("DstT")?)?)
        }
        _ if <BinaryOp as Decode>::names().contains(&op) => {
            c.arity(2)?;
            let binary = BinaryOp::decode(op, &Attrs::new())?;
            one(ops::binary(binary, c.tensor(0)?, c.tensor(1)?)?)
        }
        _ if <UnaryOp as Decode>::names().contains(&op) => {
            c.arity(1)?;
            let unary = UnaryOp::decode(op, &Attrs::new())?;
            one(ops::unary(unary, c.tensor(0)?)?)
        }
        _ => Ok(None),
    }
}
