//! Static dims of a traced op's outputs: the example run gives every size; this marks which of
//! them may change between calls because an input dimension is unknown (or sizes depend on
//! values), and which ops bake an example size into their attributes.

use super::ir::ValueInfo;
use crate::dispatch::Op;
use crate::tensor::Tensor;

type Dims = Vec<Option<usize>>;

/// Static dims per output; `symbolic` says whether some input's value is known only at run time.
pub fn infer(op: &Op, inputs: &[&ValueInfo], outputs: &[Tensor], symbolic: bool) -> Vec<Dims> {
    let known = |t: &Tensor| t.dims().iter().map(|&d| Some(d)).collect::<Dims>();
    if inputs.iter().all(|i| i.fully_known()) && !(symbolic && sized_by_values(op)) {
        return outputs.iter().map(known).collect();
    }
    let unknown = |t: &Tensor| vec![None; t.rank()];
    let x = inputs.first().map(|i| i.dims.clone()).unwrap_or_default();
    let same = |d: Dims| vec![d; outputs.len()];
    match op {
        Op::Unary(_) | Op::Cast(_) | Op::Softmax { .. } | Op::Cumulative { .. } => same(x),
        Op::Sort { k: None, .. } => same(x),
        Op::Binary(_) | Op::Select => same(broadcast(inputs)),
        Op::Reduce { axes, keepdims, .. } => same(
            x.iter()
                .enumerate()
                .filter_map(|(a, &d)| match axes.contains(&a) {
                    true => keepdims.then_some(Some(1)),
                    false => Some(d),
                })
                .collect(),
        ),
        Op::ArgReduce { axis, .. } => {
            same(x.iter().enumerate().filter(|(a, _)| a != axis).map(|(_, &d)| d).collect())
        }
        Op::Transpose(perm) => same(perm.iter().map(|&p| x[p]).collect()),
        Op::Tile(_) | Op::Pad { .. } => {
            let out = known(&outputs[0]);
            same(out.iter().zip(&x).map(|(&o, i)| i.and(o)).collect())
        }
        Op::MatMul(attrs) => {
            let mut out = known(&outputs[0]);
            let (a, b) = (&inputs[0].dims, &inputs[1].dims);
            let n = out.len();
            let rows =
                if attrs.transpose_a || attrs.adjoint_a { a[a.len() - 1] } else { a[a.len() - 2] };
            let cols =
                if attrs.transpose_b || attrs.adjoint_b { b[b.len() - 2] } else { b[b.len() - 1] };
            out[n - 2] = out[n - 2].and(rows);
            out[n - 1] = out[n - 1].and(cols);
            let batch = broadcast(&[
                &ValueInfo { dtype: inputs[0].dtype, dims: a[..a.len() - 2].to_vec() },
                &ValueInfo { dtype: inputs[1].dtype, dims: b[..b.len() - 2].to_vec() },
            ]);
            out[..n - 2].copy_from_slice(&batch);
            same(out)
        }
        Op::Reshape(dims) => {
            let out = known(&outputs[0]);
            same(dims.iter().zip(out).map(|(&d, o)| if d < 0 { None } else { o }).collect())
        }
        Op::Concat(axis) => {
            let mut out = known(&outputs[0]);
            for (a, o) in out.iter_mut().enumerate() {
                if inputs.iter().any(|i| i.dims[a].is_none())
                    && (a == *axis || inputs.iter().all(|i| i.dims[a].is_none()))
                {
                    *o = None;
                }
            }
            same(out)
        }
        Op::Gather { axis, batch_dims } => {
            let (p, i) = (&inputs[0].dims, &inputs[1].dims);
            let out =
                p[..*axis].iter().chain(&i[*batch_dims..]).chain(&p[axis + 1..]).copied().collect();
            same(out)
        }
        // Composites keep their input's rank; a dimension is known when the input's is (the
        // activations keep every size, poolings derive theirs from the input's).
        Op::Composite(_) => {
            let out = known(&outputs[0]);
            same(out.iter().zip(&x).map(|(&o, i)| i.and(o)).collect())
        }
        Op::BroadcastTo(_) | Op::Fill(_) | Op::ScatterNd(_) | Op::Random(_) | Op::Shape(_) => {
            outputs.iter().map(known).collect()
        }
        // Categorical samples one row per logits row; the other samplers' shapes are attributes.
        Op::StatelessRandom(spec) if !spec.has_shape() => {
            same(vec![inputs[1].dims.first().copied().flatten(), known(&outputs[0])[1]])
        }
        Op::RngState | Op::RngSkip(_) | Op::StatelessRandom(_) => {
            outputs.iter().map(known).collect()
        }
        _ => outputs.iter().map(unknown).collect(),
    }
}

/// Ops whose attributes hold a full output shape. Traced where some size is unknown, that shape
/// may have come from an example size, so the graph is kept only for the traced shapes.
pub fn bakes_shape(op: &Op) -> bool {
    match op {
        Op::StatelessRandom(spec) => spec.has_shape(),
        _ => matches!(
            op,
            Op::BroadcastTo(_)
                | Op::Fill(_)
                | Op::ScatterNd(_)
                | Op::Random(_)
                | Op::Patches(_)
                | Op::PatchesGrad { .. }
        ),
    }
}

/// Ops whose output sizes depend on input values, not shapes.
fn sized_by_values(op: &Op) -> bool {
    matches!(op, Op::Range | Op::WhereIndices | Op::Unique { .. })
}

/// Broadcast of static dims: a dimension is known when some operand has it above 1.
fn broadcast(inputs: &[&ValueInfo]) -> Dims {
    let rank = inputs.iter().map(|i| i.dims.len()).max().unwrap_or(0);
    (0..rank)
        .map(|k| {
            let dims: Vec<Option<usize>> = inputs
                .iter()
                .filter_map(|i| (k + i.dims.len()).checked_sub(rank).map(|a| i.dims[a]))
                .collect();
            match dims.iter().flatten().find(|&&d| d != 1) {
                Some(&d) => Some(d),
                None if dims.iter().all(Option::is_some) => Some(1),
                None => None,
            }
        })
        .collect()
}
