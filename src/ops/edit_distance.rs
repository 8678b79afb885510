//! `EditDistance` (`tf.edit_distance`): the Levenshtein distance between the sequences of two
//! sparse tensors, each sequence running along the last dimension, as TensorFlow's CPU kernel
//! computes it. Inputs: hypothesis indices (int64 `[n, rank]`), values (`[n]`), dense shape
//! (int64 `[rank]`), then the truth's three. Entries are grouped by their leading coordinates in
//! the order given (TensorFlow assumes row-major sorted indices and merges the two group
//! sequences); a group without a partner counts as TensorFlow's does (a missing truth gives
//! the hypothesis length, infinite when normalized; a missing hypothesis the truth's length,
//! 1 when normalized). The output (float32) has the larger of the two batch shapes.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::element::Movable;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    attrs_of, describe_dims, expect_name, from_attrs, input, Arity, Attrs, Decisions, Decode,
    GpuKernel, Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;

const NAME: &str = "EditDistance";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct EditDistance {
    pub normalize: bool,
}

fn invalid(message: String) -> Error {
    Error::InvalidArgument(format!("{message} [Op:{NAME}]"))
}

fn int64s(t: &Tensor) -> Result<&[i64]> {
    match t.buffer() {
        Buffer::I64(v) => Ok(v),
        _ => Err(Error::Internal(format!("{NAME} expects int64 indices and shapes"))),
    }
}

/// Consecutive runs of entries with equal leading coordinates: (group, first, end).
fn groups(indices: &[i64], rank: usize, n: usize) -> Vec<(&[i64], usize, usize)> {
    let lead = rank - 1;
    let key = |i: usize| &indices[i * rank..i * rank + lead];
    let mut out = Vec::new();
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && key(end) == key(start) {
            end += 1;
        }
        out.push((key(start), start, end));
        start = end;
    }
    out
}

/// The Levenshtein distance of two sequences (one row of the table at a time).
fn levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(x != y);
            current[j + 1] = substitute.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

impl EditDistance {
    fn distances<T: Movable>(&self, inputs: &[&Tensor], hv: &[T], tv: &[T]) -> Result<Tensor> {
        let (hi, hs, ti, ts) =
            (int64s(inputs[0])?, int64s(inputs[2])?, int64s(inputs[3])?, int64s(inputs[5])?);
        let rank = ts.len();
        let mut dims = Vec::with_capacity(rank - 1);
        for d in 0..rank - 1 {
            let size = hs[d].max(ts[d]);
            dims.push(usize::try_from(size).map_err(|_| {
                invalid(format!("Dimension -1 must be >= 0 (shape {})", describe_i64(hs)))
            })?);
        }
        let shape = Shape::checked(&dims.iter().map(|&d| d as i64).collect::<Vec<_>>())?;
        let total = shape.num_elements();
        crate::shape::check_alloc(total, DType::F32)?;
        let mut strides = vec![1i64; rank - 1];
        for d in (0..rank.saturating_sub(2)).rev() {
            strides[d] = strides[d + 1] * dims[d + 1] as i64;
        }
        let mut out = vec![0.0f32; total];
        let mut write = |group: &[i64], value: f32| -> Result<()> {
            let loc = group
                .iter()
                .zip(&strides)
                .fold(0i128, |a, (&g, &s)| a.saturating_add(g as i128 * s as i128));
            if loc < 0 || loc >= total as i128 {
                return Err(Error::Internal(format!(
                    "Got an inner product {loc} which would require writing to outside of the \
                     buffer for the output tensor (max elements {total}) [Op:{NAME}]"
                )));
            }
            out[loc as usize] = value;
            Ok(())
        };
        let hyp = groups(hi, rank, hv.len());
        let truth = groups(ti, rank, tv.len());
        let (mut h, mut t) = (0, 0);
        let missing_truth = |len: usize| if self.normalize { len as f32 / 0.0 } else { len as f32 };
        let missing_hyp = |len: usize| if self.normalize { 1.0 } else { len as f32 };
        while h < hyp.len() && t < truth.len() {
            let ((gh, h0, h1), (gt, t0, t1)) = (hyp[h], truth[t]);
            match gt.cmp(gh) {
                std::cmp::Ordering::Equal => {
                    let d = levenshtein(&tv[t0..t1], &hv[h0..h1]) as f32;
                    write(gt, if self.normalize { d / (t1 - t0) as f32 } else { d })?;
                    h += 1;
                    t += 1;
                }
                std::cmp::Ordering::Greater => {
                    write(gh, missing_truth(h1 - h0))?;
                    h += 1;
                }
                std::cmp::Ordering::Less => {
                    write(gt, missing_hyp(t1 - t0))?;
                    t += 1;
                }
            }
        }
        for &(gh, h0, h1) in &hyp[h..] {
            write(gh, missing_truth(h1 - h0))?;
        }
        for &(gt, t0, t1) in &truth[t..] {
            write(gt, missing_hyp(t1 - t0))?;
        }
        Ok(Tensor::from_vec(out, shape))
    }
}

fn describe_i64(v: &[i64]) -> String {
    format!("[{}]", v.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(","))
}

/// TensorFlow's checks of the six inputs' shapes, on static dims.
fn check_shapes(inputs: &[TensorType]) -> Result<()> {
    let names = [
        "hypothesis_indices",
        "hypothesis_values",
        "hypothesis_shape",
        "truth_indices",
        "truth_values",
        "truth_shape",
    ];
    for (k, want) in [(0, 2), (3, 2), (1, 1), (4, 1), (2, 1), (5, 1)] {
        let t = &inputs[k];
        if t.rank() != want {
            let what = if want == 2 { "a matrix" } else { "a vector" };
            return Err(invalid(format!(
                "{} should be {what}, but got shape: {}",
                names[k],
                describe_dims(&t.dims)
            )));
        }
    }
    let (hi, hs, ti, ts) = (&inputs[0], &inputs[2], &inputs[3], &inputs[5]);
    let differ = |a: Option<usize>, b: Option<usize>| a.zip(b).is_some_and(|(a, b)| a != b);
    if differ(hs.dims[0], hi.dims[1]) {
        return Err(invalid(format!(
            "Expected hypothesis_shape.NumElements == #cols(hypothesis_indices), their shapes \
             are: {} and {}",
            describe_dims(&hs.dims),
            describe_dims(&hi.dims)
        )));
    }
    if let Some(r) = ts.dims[0] {
        if r < 2 {
            return Err(invalid(format!(
                "Input SparseTensors must have rank at least 2, but truth_shape rank is: {r}"
            )));
        }
    }
    if differ(ts.dims[0], ti.dims[1]) {
        return Err(invalid(format!(
            "Expected truth_shape.NumElements == #cols(truth_indices), their shapes are: {} \
             and {}",
            describe_dims(&ts.dims),
            describe_dims(&ti.dims)
        )));
    }
    if differ(ts.dims[0], hs.dims[0]) {
        return Err(invalid(format!(
            "Expected truth and hypothesis to have matching ranks, but their shapes are: {} \
             and {}",
            describe_dims(&ts.dims),
            describe_dims(&hs.dims)
        )));
    }
    let values_differ = differ(inputs[0].dims[0], inputs[1].dims[0])
        || differ(inputs[3].dims[0], inputs[4].dims[0]);
    if values_differ {
        return Err(invalid("indices and values disagree in their number of entries".into()));
    }
    Ok(())
}

impl Primitive for EditDistance {
    fn tf_name(&self) -> &'static str {
        NAME
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(6)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        self.infer_with_values(inputs, &[])
    }

    /// The batch dims are the larger of the two dense shapes' values: known where both are.
    fn infer_with_values(
        &self,
        inputs: &[TensorType],
        values: &[Option<Vec<Option<i64>>>],
    ) -> Result<Vec<TensorType>> {
        for k in [0, 2, 3, 5] {
            if input(inputs, k)?.dtype != DType::I64 {
                return Err(invalid(format!(
                    "input {k} must be int64, got {}",
                    inputs[k].dtype.name()
                )));
            }
        }
        let (hv, tv) = (input(inputs, 1)?, input(inputs, 4)?);
        if hv.dtype != tv.dtype {
            return Err(Error::Type(format!(
                "cannot compute {NAME} as input #4(zero-based) was expected to be a {} tensor \
                 but is a {} tensor [Op:{NAME}]",
                hv.dtype.name(),
                tv.dtype.name()
            )));
        }
        check_shapes(inputs)?;
        let rank = inputs[5].dims[0].or(inputs[2].dims[0]).ok_or_else(|| {
            Error::Unimplemented(format!(
                "the length of {NAME}'s dense shapes must be known: it sets the output's rank \
                 [Op:{NAME}]"
            ))
        })?;
        if rank < 2 {
            return Err(invalid(format!(
                "Input SparseTensors must have rank at least 2, but truth_shape rank is: {rank}"
            )));
        }
        let known = |k: usize, d: usize| match values.get(k) {
            Some(Some(v)) => v.get(d).copied().flatten(),
            _ => None,
        };
        let dims = (0..rank - 1)
            .map(|d| match (known(2, d), known(5, d)) {
                (Some(a), Some(b)) => usize::try_from(a.max(b)).ok(),
                _ => None,
            })
            .collect();
        Ok(vec![TensorType { dtype: DType::F32, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
        self.infer(&types).map_err(crate::ops::segment::eager_error)?;
        let (hv, tv) = (inputs[1].buffer(), inputs[4].buffer());
        let out = crate::with_movable!(hv, h => {
            let t = <_ as Movable>::unwrap_vec(tv)
                .ok_or_else(|| Error::Internal(format!("{NAME}: values of two dtypes")))?;
            self.distances(inputs, h, t)?
        });
        Ok(vec![out])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly(
                "TensorFlow has a CPU kernel only (a dynamic program per pair)",
            ),
            differentiable: false,
            fusable: false,
        }
    }
}

impl Decode for EditDistance {
    fn names() -> Vec<&'static str> {
        vec![NAME]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        expect_name(name, NAME)?;
        from_attrs(name, attrs)
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let i64s = |v: &[i64], d: &[usize]| Tensor::from_slice(v, d).unwrap();
    let inputs = vec![
        i64s(&[0, 0, 0, 1, 1, 0], &[3, 2]),
        Tensor::from_slice(&[1i32, 2, 3], &[3]).unwrap(),
        i64s(&[2, 2], &[2]),
        i64s(&[0, 0, 1, 0, 1, 1], &[3, 2]),
        Tensor::from_slice(&[1i32, 3, 4], &[3]).unwrap(),
        i64s(&[2, 3], &[2]),
    ];
    vec![
        (Op::EditDistance(EditDistance { normalize: true }), inputs.clone()),
        (Op::EditDistance(EditDistance { normalize: false }), inputs),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_match_tensorflow() {
        let (op, inputs) = registry_examples().remove(0);
        let refs: Vec<&Tensor> = inputs.iter().collect();
        let out = op.primitive().cpu(&refs).unwrap().remove(0);
        assert_eq!(out.to_vec::<f32>().unwrap(), [1.0, 0.5]);
        assert_eq!(levenshtein(b"kitten", b"sitting"), 3);
    }
}
