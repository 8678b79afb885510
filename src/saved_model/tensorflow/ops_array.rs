//! Shape, movement, indexing and reduction ops. Shapes, axes, paddings and slice bounds arrive
//! as int32/int64 input tensors (TensorFlow's graph form), read here into plain integers.

use super::op_call::{many, one, OpCall};
use super::run_function::Value;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::reduce::ReduceOp;
use crate::ops::registry::Op;
use crate::ops::shape_ops::ShapeOf;
use crate::ops::{self, math, slicing, PadMode};
use crate::tensor::Tensor;

pub fn run(c: &OpCall) -> Result<Option<Vec<Value>>> {
    let attrs = c.attrs;
    match c.op() {
        "Shape" => {
            c.arity(1)?;
            let dtype = attrs.dtype_of("out_type")?;
            if !matches!(dtype, DType::I32 | DType::I64) {
                return Err(c.unsupported("out_type", dtype));
            }
            // The primitive, so that a traced call keeps the shape dynamic (a batch of any size).
            one(crate::dispatch::apply1(&Op::Shape(ShapeOf(dtype)), &[c.tensor(0)?])?)
        }
        "Reshape" => {
            c.arity(2)?;
            one(ops::reshape(c.tensor(0)?, &c.ints(1)?)?)
        }
        "ExpandDims" => {
            c.arity(2)?;
            one(ops::expand_dims(c.tensor(0)?, c.int(1)?)?)
        }
        "Squeeze" => {
            c.arity(1)?;
            let dims = attrs.ints("squeeze_dims")?;
            one(ops::squeeze(c.tensor(0)?, (!dims.is_empty()).then_some(dims.as_slice()))?)
        }
        "StridedSlice" => {
            c.arity(4)?;
            let mask = |name: &str| attrs.int(name);
            let items = slicing::items_from_masks(
                &c.ints(1)?,
                &c.ints(2)?,
                &c.ints(3)?,
                mask("begin_mask")?,
                mask("end_mask")?,
                mask("ellipsis_mask")?,
                mask("new_axis_mask")?,
                mask("shrink_axis_mask")?,
            )?;
            one(ops::strided_slice(c.tensor(0)?, &items)?)
        }
        "Pack" => {
            c.arity(usize::try_from(attrs.int("N")?).map_err(|_| c.invalid("N < 0"))?)?;
            one(ops::stack(&c.tensors(0)?, attrs.int("axis")?)?)
        }
        "ConcatV2" => {
            let n = c.inputs.len().checked_sub(1).ok_or_else(|| c.invalid("has no axis"))?;
            let values = c.tensors(0)?;
            one(ops::concat(&values[..n], c.int(n)?)?)
        }
        "SquaredDifference" => {
            c.arity(2)?;
            one(math::squared_difference(c.tensor(0)?, c.tensor(1)?)?)
        }
        // MultiHeadAttention's EinsumDense layers, among others.
        "Einsum" => one(ops::einsum::einsum(&attrs.string("equation")?, &c.tensors(0)?)?),
        "Split" => {
            c.arity(2)?;
            let num =
                usize::try_from(attrs.int("num_split")?).map_err(|_| c.invalid("num_split < 0"))?;
            many(ops::split_even(c.tensor(1)?, num, c.int(0)?)?)
        }
        "SplitV" => {
            c.arity(3)?;
            many(ops::split(c.tensor(0)?, &c.ints(1)?, c.int(2)?)?)
        }
        "Transpose" => {
            c.arity(2)?;
            one(ops::transpose(c.tensor(0)?, Some(&c.ints(1)?))?)
        }
        "Fill" => {
            c.arity(2)?;
            one(ops::fill(&c.ints(0)?, c.tensor(1)?)?)
        }
        "Range" => {
            c.arity(3)?;
            one(ops::range(c.tensor(0)?, c.tensor(1)?, c.tensor(2)?)?)
        }
        "GatherV2" => {
            c.arity(3)?;
            let batch_dims = attrs.int("batch_dims")?;
            one(ops::gather(c.tensor(0)?, c.tensor(1)?, c.int(2)?, batch_dims)?)
        }
        "SelectV2" => {
            c.arity(3)?;
            one(ops::select(c.tensor(0)?, c.tensor(1)?, c.tensor(2)?)?)
        }
        "Select" => {
            c.arity(3)?;
            one(select_v1(c)?)
        }
        "Pad" | "PadV2" | "MirrorPad" => one(pad(c)?),
        "Mean" | "Sum" | "Prod" | "Max" | "Min" | "All" | "Any" => {
            c.arity(2)?;
            let (x, axes) = (c.tensor(0)?, c.ints(1)?);
            let keep_dims = attrs.bool("keep_dims")?;
            let reduced = match c.op() {
                "Mean" => math::reduce_mean(x, Some(&axes), keep_dims)?,
                name => {
                    let op = [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min]
                        .into_iter()
                        .chain([ReduceOp::All, ReduceOp::Any])
                        .find(|r| r.info().0 == name)
                        .ok_or_else(|| c.invalid("is not a reduction"))?;
                    ops::reduce(op, x, Some(&axes), keep_dims)?
                }
            };
            one(reduced)
        }
        "LogicalAnd" | "LogicalOr" => {
            c.arity(2)?;
            let (x, y) = (bool_input(c, 0)?, bool_input(c, 1)?);
            one(if c.op() == "LogicalAnd" {
                ops::logical_and(x, y)?
            } else {
                ops::logical_or(x, y)?
            })
        }
        _ => Ok(None),
    }
}

fn bool_input<'a>(c: &'a OpCall, i: usize) -> Result<&'a Tensor> {
    let t = c.tensor(i)?;
    if t.dtype() != DType::Bool {
        return Err(c.invalid(format!("input {i} must be bool, got {}", t.dtype())));
    }
    Ok(t)
}

/// TensorFlow's first `Select`: no broadcasting, except that a vector condition picks whole
/// rows of higher-rank operands.
fn select_v1(c: &OpCall) -> Result<Tensor> {
    let (cond, x, y) = (c.tensor(0)?, c.tensor(1)?, c.tensor(2)?);
    if x.shape() != y.shape() {
        return Err(c.invalid(format!("'then' {} and 'else' {} differ", x.shape(), y.shape())));
    }
    if cond.shape() == x.shape() {
        return ops::select(cond, x, y);
    }
    if cond.rank() == 1 && x.rank() > 1 && cond.dims()[0] == x.dims()[0] {
        let mut rows = vec![1i64; x.rank()];
        rows[0] = cond.dims()[0] as i64;
        return ops::select(&ops::reshape(cond, &rows)?, x, y);
    }
    Err(c.invalid(format!("condition {} does not match {}", cond.shape(), x.shape())))
}

fn pad(c: &OpCall) -> Result<Tensor> {
    let attrs = c.attrs;
    let x = c.tensor(0)?;
    let flat = c.ints(1)?;
    if c.tensor(1)?.dims() != [x.rank(), 2] {
        return Err(c.invalid(format!(
            "paddings must be a matrix of shape [{}, 2], got {}",
            x.rank(),
            c.tensor(1)?.shape()
        )));
    }
    let paddings: Vec<(i64, i64)> = flat.chunks(2).map(|p| (p[0], p[1])).collect();
    match c.op() {
        "Pad" => {
            c.arity(2)?;
            ops::pad(x, &paddings, PadMode::Constant, 0.0)
        }
        "PadV2" => {
            c.arity(3)?;
            ops::pad_with(x, &paddings, PadMode::Constant, c.tensor(2)?)
        }
        _ => {
            c.arity(2)?;
            let mode = match attrs.string("mode")?.as_str() {
                "REFLECT" => PadMode::Reflect,
                "SYMMETRIC" => PadMode::Symmetric,
                other => return Err(c.unsupported("mode", other)),
            };
            ops::pad(x, &paddings, mode, 0.0)
        }
    }
}
