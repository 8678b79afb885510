//! What a trace knows of small integer vectors' elements: TensorFlow's shape functions read a
//! shape input's constant elements, and see through `Shape`, slices, packs and concats of
//! shapes (`[tf.shape(x)[0], 3]` is known to be `[None, 3]`). The tracer asks here for the
//! inputs of ops that read such values and keeps what each result is known to hold.

use crate::dispatch::Op;
use crate::dtype::DType;
use crate::ops::primitive::TensorType;
use crate::tensor::Tensor;

/// Elements known in part; `None` where an element is known only when the graph runs.
pub type KnownInts = Vec<Option<i64>>;

/// Vectors longer than this are data, not shapes: nobody asks for their elements.
const MAX_LEN: usize = 64;

/// Whether `op` reads its inputs' known elements (its `infer_with_values`) or passes them on.
pub fn wanted(op: &Op) -> bool {
    matches!(
        op,
        Op::ShapeFromInput(_)
            | Op::Shape(_)
            | Op::Cast(_)
            | Op::Reshape(_)
            | Op::StridedSlice(_)
            | Op::Concat(_)
            | Op::Segment(_)
            | Op::EditDistance(_)
            | Op::Nms(_)
            | Op::SobolSample(_)
    )
}

fn is_int(dtype: DType) -> bool {
    matches!(dtype, DType::I32 | DType::I64)
}

/// The elements of a constant: its example is its value.
pub fn of_constant(t: &Tensor) -> Option<KnownInts> {
    if !is_int(t.dtype()) || t.rank() > 1 || t.shape().num_elements() > MAX_LEN {
        return None;
    }
    let values: Vec<i64> = match t.dtype() {
        DType::I32 => t.to_vec::<i32>().ok()?.into_iter().map(i64::from).collect(),
        _ => t.to_vec::<i64>().ok()?,
    };
    Some(values.into_iter().map(Some).collect())
}

/// What `op`'s (first) output is known to hold, from its inputs' types and known elements.
pub fn propagate(
    op: &Op,
    inputs: &[&Tensor],
    types: &[TensorType],
    known: &[Option<KnownInts>],
) -> Option<KnownInts> {
    match op {
        Op::Shape(_) => {
            let x = types.first()?;
            Some(x.dims.iter().map(|d| d.map(|d| d as i64)).collect())
        }
        Op::Cast(cast) if is_int(cast.0) => known.first()?.clone(),
        Op::Reshape(_) | Op::StridedSlice(_) | Op::Concat(_) => moved(op, inputs, types, known),
        _ => None,
    }
}

/// A movement op moves elements without changing them: run it on the elements' positions
/// (a proxy of each input numbering its elements) and read where each output came from. An
/// input whose elements are all unknown but whose static shape is known (the `tf.size(m)` of
/// `[tf.size(m), 2]`) fills its slots with `None`, as TensorFlow's `constant_value_as_shape`
/// reads each packed item on its own.
fn moved(
    op: &Op,
    inputs: &[&Tensor],
    types: &[TensorType],
    known: &[Option<KnownInts>],
) -> Option<KnownInts> {
    let mut slots: KnownInts = Vec::new();
    let mut proxies = Vec::with_capacity(inputs.len());
    for ((t, ty), k) in inputs.iter().zip(types).zip(known) {
        let static_dims: Option<Vec<usize>> = ty.dims.iter().copied().collect();
        let dims: Vec<usize> = match static_dims {
            Some(dims) => dims,
            // Its shape would run its kernel while the trace's frames are held.
            None if t.is_lazy() => return None,
            None => t.shape().dims().to_vec(),
        };
        let count: usize = dims.iter().product();
        let k = match k {
            Some(k) => k.clone(),
            None if is_int(ty.dtype) && count <= MAX_LEN => vec![None; count],
            None => return None,
        };
        if k.len() != count {
            return None;
        }
        let positions: Vec<i64> = (slots.len() as i64..(slots.len() + k.len()) as i64).collect();
        proxies.push(Tensor::from_slice(&positions, &dims).ok()?);
        slots.extend_from_slice(&k);
    }
    let refs: Vec<&Tensor> = proxies.iter().collect();
    let _quiet = super::trace::suspend();
    let out = op.primitive().cpu(&refs).ok()?.into_iter().next()?;
    if out.rank() > 1 {
        return None;
    }
    let positions = out.to_vec::<i64>().ok()?;
    let found: KnownInts = positions
        .iter()
        .map(|&p| slots.get(usize::try_from(p).ok()?).copied())
        .collect::<Option<_>>()?;
    // Nothing known is the same as no knowledge (and keeps the result's readers' fast path).
    found.iter().any(Option::is_some).then_some(found)
}
