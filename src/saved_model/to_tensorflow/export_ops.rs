//! The export op table: each ferroflow primitive node as TensorFlow nodes. Attributes that
//! TensorFlow passes as tensors (axes, shapes, permutations, paddings) become `Const` inputs.
//! A primitive without attributes whose TensorFlow op takes the same inputs and gives the
//! same outputs is written as that op; any other primitive needs a row here, so no attribute
//! is ever dropped silently: a primitive with neither is an `UnimplementedError` naming it.

use super::attrs::{self, enum_of};
use super::body::{unimplemented, Body, TensorRef, Typed};
use super::op_signatures::{self, ArgKind};
use super::{export_nn, export_random};
use crate::buffer::Buffer;
use crate::dispatch::Op;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::assert::AssertPart;
use crate::ops::primitive::TensorType;
use crate::ops::reduce::{ArgOp, CumOp, ReduceOp};
use crate::ops::shape_ops::{PadMode, SliceSpec};
use crate::ops::slicing::SliceItem;
use crate::ops::sort::Sort;
use crate::ops::split::Pieces;
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;

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
        Op::Sort(s) => sort(b, s, &ins[0], outs, &out, name),
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
        Op::Assert(a) => {
            let mut data = Vec::with_capacity(a.parts.len());
            let mut tensors = ins[1..].iter();
            for (k, part) in a.parts.iter().enumerate() {
                match part {
                    AssertPart::Text(text) => {
                        let text = vec![TfString::from(text.as_str())];
                        let t = Tensor::from_buffer(Buffer::Str(text), Shape(vec![]))?;
                        let string = enum_of(DType::String);
                        data.push((b.constant(&t, &format!("{name}/data_{k}"))?, string));
                    }
                    AssertPart::Tensor => {
                        data.push(tensors.next().cloned().ok_or_else(|| unimplemented("Assert"))?)
                    }
                }
            }
            // TensorFlow shows every element for a negative summarize.
            let summarize = a.summarize.map_or(-1, |s| s as i64);
            b.op("Assert", name, &[one(0), data], &out, vec![("summarize", attrs::int(summarize))])
        }
        Op::ShapeFromInput(inner) => shape_from_input(b, &inner.0, ins, &out, name),
        Op::Composite(c) => export_nn::composite(b, c, ins, &out, name),
        Op::Random(spec) => export_random::random(b, spec, None, name),
        _ if op.primitive().attrs().is_empty() => {
            same_op(b, logical_name(op.tf_name(), ins), ins, &out, name)
        }
        _ => Err(unimplemented(op.tf_name())),
    }
}

/// ferroflow's bitwise primitives also take bools (`&`, `|`, `^`, `~` on bool tensors);
/// TensorFlow's bitwise ops take only integers and its logical ops the bools.
fn logical_name<'a>(tf_name: &'a str, ins: &[Typed]) -> &'a str {
    if !ins.iter().all(|(_, d)| *d == enum_of(DType::Bool)) {
        return tf_name;
    }
    match tf_name {
        "BitwiseAnd" => "LogicalAnd",
        "BitwiseOr" => "LogicalOr",
        "BitwiseXor" => "NotEqual",
        "Invert" => "LogicalNot",
        other => other,
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

/// A slice as TensorFlow's StridedSlice of the items it was written with (Python's
/// `x[...]`), so that it resolves against whatever shape it meets, as the traced node does.
fn strided_slice(
    b: &mut Body,
    spec: &SliceSpec,
    x: &Typed,
    out: &[i32],
    name: &str,
) -> Result<Vec<TensorRef>> {
    // TensorFlow's masks are 64-bit: one bit per item.
    if spec.items.len() > 63 {
        return Err(unimplemented("StridedSlice of more than 63 items"));
    }
    // The items are what is written: they must be what the node's ranges came from.
    let resolved = crate::ops::slicing::resolve(&spec.input, &spec.items)?;
    if resolved.ranges != spec.ranges || resolved.out_shape != spec.out_shape {
        return Err(unimplemented("StridedSlice without the items it was resolved from"));
    }
    let (mut begin, mut end, mut strides) = (vec![], vec![], vec![]);
    let mut masks = [0i64; 5]; // begin, end, ellipsis, new axis, shrink axis
    for (k, item) in spec.items.iter().enumerate() {
        let bit = 1i64 << k;
        let (b0, e0, s0) = match *item {
            SliceItem::Index(i) => {
                masks[4] |= bit;
                (i, i.wrapping_add(1), 1)
            }
            SliceItem::Range { start, stop, step } => {
                if start.is_none() {
                    masks[0] |= bit;
                }
                if stop.is_none() {
                    masks[1] |= bit;
                }
                (start.unwrap_or(0), stop.unwrap_or(0), step)
            }
            SliceItem::NewAxis => {
                masks[3] |= bit;
                (0, 0, 1)
            }
            SliceItem::Ellipsis => {
                masks[2] |= bit;
                (0, 0, 1)
            }
        };
        begin.push(b0);
        end.push(e0);
        strides.push(s0);
    }
    let begin = b.int64s(&begin, &format!("{name}/begin"))?;
    let end = b.int64s(&end, &format!("{name}/end"))?;
    let strides = b.int64s(&strides, &format!("{name}/strides"))?;
    let names = ["begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"];
    let flags = names.iter().zip(masks).map(|(n, m)| (*n, attrs::int(m))).collect();
    b.op(
        "StridedSlice",
        name,
        &[vec![x.clone()], vec![begin], vec![end], vec![strides]],
        out,
        flags,
    )
}

/// `tf.sort`, `argsort` and `top_k`: TopKV2 over the last axis, which sorts descending with
/// ties in index order, as ferroflow's sort does. An ascending sort takes the top of the
/// order-reversed values (negated floats; inverted integers, since `~x` reverses the order of
/// every integer without the overflow `-x` has at the type's minimum) and reverses them back.
/// NaNs have no place in TopKV2's order: TensorFlow's own sorts of them differ from ferroflow's.
fn sort(
    b: &mut Body,
    s: &Sort,
    x: &Typed,
    outs: &[TensorType],
    out: &[i32],
    name: &str,
) -> Result<Vec<TensorRef>> {
    let dtype = outs.first().map(|t| t.dtype).ok_or_else(|| unimplemented("TopKV2"))?;
    let known = s.k.or_else(|| outs[0].dims.last().copied().flatten());
    let k = match known {
        Some(k) => b.ints(&[k as i64], true, &format!("{name}/k"))?,
        None => last_dim(b, x, name)?,
    };
    let sorted = || vec![("sorted", attrs::boolean(true))];
    if s.descending {
        return b.op("TopKV2", name, &[vec![x.clone()], vec![k]], out, sorted());
    }
    let flip = match dtype {
        d if d.is_floating() => "Neg",
        d if d.is_integer() => "Invert",
        d => return Err(unimplemented(&format!("an ascending sort of {}", d.name()))),
    };
    let reversed = b.op(flip, &format!("{name}/reversed"), &[vec![x.clone()]], &[x.1], vec![])?;
    let top = b.op(
        "TopKV2",
        &format!("{name}/top_k"),
        &[vec![(reversed[0].clone(), x.1)], vec![k]],
        out,
        sorted(),
    )?;
    let values = b.op(flip, name, &[vec![(top[0].clone(), x.1)]], &[x.1], vec![])?;
    Ok(vec![values[0].clone(), top[1].clone()])
}

/// The length of `x`'s last axis, as an int32 scalar computed when the function runs.
fn last_dim(b: &mut Body, x: &Typed, name: &str) -> Result<Typed> {
    let i32_ = enum_of(DType::I32);
    let shape = b.op("Shape", &format!("{name}/shape"), &[vec![x.clone()]], &[i32_], vec![])?;
    let begin = b.int64s(&[-1], &format!("{name}/last"))?;
    let end = b.int64s(&[0], &format!("{name}/end"))?;
    let strides = b.int64s(&[1], &format!("{name}/stride"))?;
    let masks = vec![("end_mask", attrs::int(1)), ("shrink_axis_mask", attrs::int(1))];
    let args = [vec![(shape[0].clone(), i32_)], vec![begin], vec![end], vec![strides]];
    let row = b.op("StridedSlice", &format!("{name}/k"), &args, &[i32_], masks)?;
    Ok((row[0].clone(), i32_))
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
        Op::Random(spec) => export_random::random(b, spec, ins.last(), name),
        other => Err(unimplemented(&format!("{} with a shape from a tensor", other.tf_name()))),
    }
}
