//! The export op table: each ferroflow primitive node as TensorFlow nodes. Attributes that
//! TensorFlow passes as tensors (axes, shapes, permutations, paddings) become `Const` inputs.
//! A primitive without attributes whose TensorFlow op takes the same inputs and gives the
//! same outputs is written as that op; any other primitive needs a row here, so no attribute
//! is ever dropped silently: a primitive with neither is an `UnimplementedError` naming it.

use super::attrs::{self, enum_of};
use super::body::{unimplemented, Body, TensorRef, Typed};
use super::export_nn;
use super::op_signatures::{self, ArgKind};
use crate::dispatch::Op;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::primitive::TensorType;
use crate::ops::reduce::{ArgOp, CumOp, ReduceOp};
use crate::ops::shape_ops::{PadMode, SliceSpec};
use crate::ops::split::Pieces;

pub fn emit(
    b: &mut Body,
    op: &Op,
    ins: &[Typed],
    outs: &[TensorType],
    name: &str,
) -> Result<Vec<TensorRef>> {
    let out: Vec<i32> = outs.iter().map(|t| enum_of(t.dtype)).collect();
    let one = |k: usize| vec![ins[k].clone()];
    let ints = |v: &[usize]| v.iter().map(|&d| d as i64).collect::<Vec<i64>>();
    match op {
        Op::Cast(_) => b.op("Cast", name, &[one(0)], &out, vec![]),
        Op::Reduce(r) => {
            let axes = b.ints(&ints(&r.axes), false, &format!("{name}/reduction_indices"))?;
            let tf = reduce_name(r.op);
            b.op(
                tf,
                name,
                &[one(0), vec![axes]],
                &out,
                vec![("keep_dims", attrs::boolean(r.keepdims))],
            )
        }
        Op::ArgReduce(a) => {
            let axis = b.ints(&[a.axis as i64], true, &format!("{name}/dimension"))?;
            let tf = if a.op == ArgOp::ArgMax { "ArgMax" } else { "ArgMin" };
            b.op(tf, name, &[one(0), vec![axis]], &out, vec![])
        }
        Op::Cumulative(c) => {
            let axis = b.ints(&[c.axis as i64], true, &format!("{name}/axis"))?;
            let tf = if c.op == CumOp::Sum { "Cumsum" } else { "Cumprod" };
            let flags = vec![
                ("exclusive", attrs::boolean(c.exclusive)),
                ("reverse", attrs::boolean(c.reverse)),
            ];
            b.op(tf, name, &[one(0), vec![axis]], &out, flags)
        }
        Op::MatMul(m) => {
            let complex = outs.first().is_some_and(|t| t.dtype.is_complex());
            if complex && (m.transpose_a || m.transpose_b) {
                // Transposing without conjugating has no BatchMatMulV2 attribute.
                return Err(unimplemented("MatMul of complex matrices with transpose_a/_b"));
            }
            let flags = vec![
                ("adj_x", attrs::boolean(m.transpose_a || m.adjoint_a)),
                ("adj_y", attrs::boolean(m.transpose_b || m.adjoint_b)),
            ];
            b.op("BatchMatMulV2", name, &[one(0), one(1)], &out, flags)
        }
        Op::Reshape(r) => {
            let shape = b.ints(&r.0, false, &format!("{name}/shape"))?;
            b.op("Reshape", name, &[one(0), vec![shape]], &out, vec![])
        }
        Op::Transpose(p) => {
            let perm = b.ints(&ints(&p.0), false, &format!("{name}/perm"))?;
            b.op("Transpose", name, &[one(0), vec![perm]], &out, vec![])
        }
        Op::BroadcastTo(s) => {
            let shape = b.ints(&ints(s.0.dims()), false, &format!("{name}/shape"))?;
            b.op("BroadcastTo", name, &[one(0), vec![shape]], &out, vec![])
        }
        Op::Tile(m) => {
            let multiples = b.ints(&ints(&m.0), false, &format!("{name}/multiples"))?;
            b.op("Tile", name, &[one(0), vec![multiples]], &out, vec![])
        }
        Op::Concat(axis) => {
            let axis = b.ints(&[axis.0 as i64], true, &format!("{name}/axis"))?;
            b.op("ConcatV2", name, &[ins.to_vec(), vec![axis]], &out, vec![])
        }
        Op::StridedSlice(spec) => strided_slice(b, spec, &ins[0], &out, name),
        Op::Pad(p) => {
            let flat: Vec<i64> =
                p.paddings.iter().flat_map(|&(a, z)| [a as i64, z as i64]).collect();
            let paddings = b.ints(&flat, false, &format!("{name}/paddings"))?;
            // A [rank, 2] matrix, as TensorFlow's paddings are.
            let rows = b.ints(&[p.paddings.len() as i64, 2], false, &format!("{name}/rows"))?;
            let i32_ = enum_of(DType::I32);
            let matrix = b.op(
                "Reshape",
                &format!("{name}/paddings_matrix"),
                &[vec![paddings], vec![rows]],
                &[i32_],
                vec![],
            )?;
            let paddings = (matrix[0].clone(), i32_);
            match p.mode {
                PadMode::Constant => {
                    b.op("PadV2", name, &[one(0), vec![paddings], one(1)], &out, vec![])
                }
                mode => {
                    let mode = if mode == PadMode::Reflect { "REFLECT" } else { "SYMMETRIC" };
                    b.op(
                        "MirrorPad",
                        name,
                        &[one(0), vec![paddings]],
                        &out,
                        vec![("mode", attrs::string(mode))],
                    )
                }
            }
        }
        Op::Gather(g) => {
            let axis = b.ints(&[g.axis as i64], true, &format!("{name}/axis"))?;
            let batch = vec![("batch_dims", attrs::int(g.batch_dims as i64))];
            b.op("GatherV2", name, &[one(0), one(1), vec![axis]], &out, batch)
        }
        Op::ScatterNd(shape) => {
            let shape = b.ints(&ints(shape.0.dims()), false, &format!("{name}/shape"))?;
            let shape = cast_like(b, shape, ins[0].1, name)?;
            b.op("ScatterNd", name, &[one(0), one(1), vec![shape]], &out, vec![])
        }
        Op::Fill(shape) => {
            let dims = b.ints(&ints(shape.0.dims()), false, &format!("{name}/dims"))?;
            b.op("Fill", name, &[vec![dims], one(0)], &out, vec![])
        }
        Op::Softmax(_) => b.op(op.tf_name(), name, &[one(0)], &out, vec![]),
        Op::Shape(_) => b.op("Shape", name, &[one(0)], &out, vec![]),
        Op::Split(s) => {
            let axis = b.ints(&[s.axis as i64], true, &format!("{name}/split_dim"))?;
            let count = vec![("num_split", attrs::int(out.len() as i64))];
            match &s.pieces {
                Pieces::Even(_) => b.op("Split", name, &[vec![axis], one(0)], &out, count),
                Pieces::Sizes(sizes) => {
                    let sizes = b.ints(sizes, false, &format!("{name}/size_splits"))?;
                    b.op("SplitV", name, &[one(0), vec![sizes], vec![axis]], &out, count)
                }
            }
        }
        Op::EnsureShape(e) => {
            let shape = attrs::value(crate::proto::tensorflow::attr_value::Value::Shape(
                attrs::shape(Some(&e.shape)),
            ));
            b.op("EnsureShape", name, &[one(0)], &out, vec![("shape", shape)])
        }
        Op::ShapeFromInput(inner) => shape_from_input(b, &inner.0, ins, &out, name),
        Op::Composite(c) => export_nn::composite(b, c, ins, &out, name),
        _ if op.primitive().attrs().is_empty() => same_op(b, op.tf_name(), ins, &out, name),
        _ => Err(unimplemented(op.tf_name())),
    }
}

fn reduce_name(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "Sum",
        ReduceOp::Prod => "Prod",
        ReduceOp::Max => "Max",
        ReduceOp::Min => "Min",
        ReduceOp::All => "All",
        ReduceOp::Any => "Any",
    }
}

/// A constant cast to `dtype` where an op needs its shape in the indices' integer type.
fn cast_like(b: &mut Body, t: Typed, dtype: i32, name: &str) -> Result<Typed> {
    if t.1 == dtype {
        return Ok(t);
    }
    let out = b.op("Cast", &format!("{name}/cast"), &[vec![t]], &[dtype], vec![])?;
    Ok((out[0].clone(), dtype))
}

/// The primitive as the TensorFlow op of its name, when that op takes one tensor per input
/// and gives one per output, as the primitive does.
pub fn same_op(
    b: &mut Body,
    tf_name: &str,
    ins: &[Typed],
    out: &[i32],
    name: &str,
) -> Result<Vec<TensorRef>> {
    let sig = op_signatures::lookup(tf_name).ok_or_else(|| unimplemented(tf_name))?;
    let single = |a: &op_signatures::Arg| matches!(a.kind, ArgKind::Typed(_) | ArgKind::Fixed(_));
    if sig.inputs.len() == 1 && !single(&sig.inputs[0]) && sig.outputs.len() == out.len().min(1) {
        // AddN's kind: every input in one list argument.
        return b.op(tf_name, name, &[ins.to_vec()], out, vec![]);
    }
    let fits = sig.inputs.len() == ins.len()
        && sig.outputs.len() == out.len()
        && sig.inputs.iter().chain(&sig.outputs).all(single);
    if !fits {
        return Err(unimplemented(tf_name));
    }
    let args: Vec<Vec<Typed>> = ins.iter().map(|t| vec![t.clone()]).collect();
    b.op(tf_name, name, &args, out, vec![])
}

/// A static slice: TensorFlow's StridedSlice over each axis's range, then a reshape to the
/// result's shape where indices removed axes or new axes were added.
fn strided_slice(
    b: &mut Body,
    spec: &SliceSpec,
    x: &Typed,
    out: &[i32],
    name: &str,
) -> Result<Vec<TensorRef>> {
    let (mut begin, mut end, mut strides, mut end_mask) = (vec![], vec![], vec![], 0i64);
    let mut sliced_dims = Vec::new();
    for (axis, &(start, len, step)) in spec.ranges.iter().enumerate() {
        let (start, len, step) = (start as i64, len as i64, step as i64);
        let stop = start + len * step;
        begin.push(start);
        strides.push(step);
        if step < 0 && stop < 0 {
            // A negative end would count from the back: run to the front instead.
            end.push(0);
            end_mask |= 1 << axis;
        } else {
            end.push(if len == 0 { start } else { stop });
        }
        sliced_dims.push(len);
    }
    let begin = b.ints(&begin, false, &format!("{name}/begin"))?;
    let end = b.ints(&end, false, &format!("{name}/end"))?;
    let strides = b.ints(&strides, false, &format!("{name}/strides"))?;
    let wanted: Vec<i64> = spec.out_shape.dims().iter().map(|&d| d as i64).collect();
    let reshape = wanted != sliced_dims;
    let hint = if reshape { format!("{name}/slice") } else { name.to_string() };
    let sliced = b.op(
        "StridedSlice",
        &hint,
        &[vec![x.clone()], vec![begin], vec![end], vec![strides]],
        out,
        vec![("end_mask", attrs::int(end_mask))],
    )?;
    if !reshape {
        return Ok(sliced);
    }
    let shape = b.ints(&wanted, false, &format!("{name}/shape"))?;
    b.op("Reshape", name, &[vec![(sliced[0].clone(), x.1)], vec![shape]], out, vec![])
}

/// A primitive whose shape (or axes) arrives as its last input.
fn shape_from_input(
    b: &mut Body,
    inner: &Op,
    ins: &[Typed],
    out: &[i32],
    name: &str,
) -> Result<Vec<TensorRef>> {
    let one = |k: usize| vec![ins[k].clone()];
    match inner {
        Op::Reshape(_) => b.op("Reshape", name, &[one(0), one(1)], out, vec![]),
        Op::BroadcastTo(_) => b.op("BroadcastTo", name, &[one(0), one(1)], out, vec![]),
        Op::Fill(_) => b.op("Fill", name, &[one(1), one(0)], out, vec![]),
        Op::Reduce(r) => b.op(
            reduce_name(r.op),
            name,
            &[one(0), one(1)],
            out,
            vec![("keep_dims", attrs::boolean(r.keepdims))],
        ),
        Op::ScatterNd(_) => b.op("ScatterNd", name, &[one(0), one(1), one(2)], out, vec![]),
        other => Err(unimplemented(&format!("{} with a shape from a tensor", other.tf_name()))),
    }
}
