//! Sorting along the last axis (values and int32 indices, stable), and `unique` of a vector.

use crate::buffer::Buffer;
use crate::dtype::{DType, DTypeSet};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    attrs_of, describe_dims, from_attrs, input, Arity, Attrs, Decisions, Decode, GpuKernel,
    Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use crate::with_all;
use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::HashMap;

/// Sorting along the last axis, keeping the first `k` of each row (all when `None`).
/// Outputs: the values and their int32 indices.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Sort {
    pub descending: bool,
    pub k: Option<usize>,
}

/// The distinct values of a vector. Outputs: the values and each element's index among them
/// (int64 when `index_i64`, else int32).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Unique {
    pub index_i64: bool,
}

impl Primitive for Sort {
    fn tf_name(&self) -> &'static str {
        "TopKV2"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        let Some(last) = x.rank().checked_sub(1) else {
            return Err(Error::InvalidArgument("input must be at least rank 1 [Op:TopKV2]".into()));
        };
        if !DTypeSet::REAL.contains(x.dtype) {
            return Err(Error::unsupported_dtype("TopKV2", x.dtype));
        }
        let row = x.dims[last];
        if let (Some(k), Some(row)) = (self.k, row) {
            if k > row {
                return Err(Error::InvalidArgument(format!(
                    "input must have at least k columns. Had {row}, needed {k} [Op:TopKV2]"
                )));
            }
        }
        let mut dims = x.dims.clone();
        dims[last] = self.k.or(row);
        let values = TensorType { dtype: x.dtype, dims: dims.clone() };
        Ok(vec![values, TensorType { dtype: DType::I32, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        // In a graph the row's size may be known only now.
        self.infer(&[TensorType::of(inputs[0])])?;
        let (values, indices) = sort(inputs[0], self.descending, self.k)?;
        Ok(vec![values, indices])
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![Some(crate::autodiff::rules::select::sort(&inputs[0], &outputs[1], g)?)])
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

impl Decode for Sort {
    fn names() -> Vec<&'static str> {
        vec!["TopKV2"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        from_attrs(name, attrs)
    }
}

impl Primitive for Unique {
    fn tf_name(&self) -> &'static str {
        "Unique"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    /// How many values are distinct depends on the values: that length stays unknown.
    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        if x.rank() != 1 {
            return Err(Error::InvalidArgument(format!(
                "unique expects a 1D vector, got shape {} [Op:Unique]",
                describe_dims(&x.dims)
            )));
        }
        let index = if self.index_i64 { DType::I64 } else { DType::I32 };
        Ok(vec![TensorType { dtype: x.dtype, dims: vec![None] }, x.with_dtype(index)])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let (values, indices) = unique(inputs[0], self.index_i64)?;
        Ok(vec![values, indices])
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: false, fusable: false }
    }
}

impl Decode for Unique {
    fn names() -> Vec<&'static str> {
        vec!["Unique"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        from_attrs(name, attrs)
    }
}

/// NaN sorts above every number, so ascending order puts it last and descending first.
fn order<T: PartialOrd>(a: &T, b: &T) -> Ordering {
    match a.partial_cmp(b) {
        Some(o) => o,
        None => {
            let a_nan = a.partial_cmp(a).is_none();
            let b_nan = b.partial_cmp(b).is_none();
            a_nan.cmp(&b_nan)
        }
    }
}

/// Sorts every row of the last axis, keeping the first `k` of each (all when `None`); returns
/// (values, int32 indices). Equal values keep their original order (lower index first), as
/// TensorFlow's sort and top_k do.
pub fn sort(x: &Tensor, descending: bool, k: Option<usize>) -> Result<(Tensor, Tensor)> {
    if x.rank() == 0 {
        return Err(Error::InvalidArgument("input must be at least rank 1 [Op:TopKV2]".into()));
    }
    if x.dtype().is_complex() || x.dtype().is_bool() {
        return Err(Error::unsupported_dtype("TopKV2", x.dtype()));
    }
    let row = x.dims()[x.rank() - 1];
    let k = k.unwrap_or(row);
    if k > row {
        return Err(Error::InvalidArgument(format!(
            "input must have at least k columns. Had {row}, needed {k} [Op:TopKV2]"
        )));
    }
    let mut dims = x.dims().to_vec();
    dims[x.rank() - 1] = k;
    let (values, indices) = crate::with_real!(x.buffer(), v => {
        let (vals, idx) = sort_rows(v, row, k, descending);
        (Element::wrap(vals), idx)
    }, else return Err(Error::unsupported_dtype("TopKV2", x.dtype())));
    Ok((
        Tensor::from_buffer_unchecked(values, Shape(dims.clone())),
        Tensor::from_vec(indices, Shape(dims)),
    ))
}

fn sort_rows<T: Element + PartialOrd>(
    v: &[T],
    row: usize,
    k: usize,
    descending: bool,
) -> (Vec<T>, Vec<i32>) {
    let rows = v.len().checked_div(row).unwrap_or(0);
    let mut idx: Vec<i32> = vec![0; rows * k];
    if k > 0 {
        idx.par_chunks_mut(k).zip(v.par_chunks(row)).for_each(|(out, vals)| {
            // A total order (value, then position) makes the unstable algorithms deterministic
            // and gives TensorFlow's tie rule.
            let cmp = |a: &i32, b: &i32| {
                let o = order(&vals[*a as usize], &vals[*b as usize]);
                let o = if descending { o.reverse() } else { o };
                o.then(a.cmp(b))
            };
            let mut all: Vec<i32> = (0..row as i32).collect();
            if k < row {
                all.select_nth_unstable_by(k - 1, cmp);
                all.truncate(k);
            }
            all.sort_unstable_by(cmp);
            out.copy_from_slice(&all);
        });
    }
    let values =
        idx.iter().enumerate().map(|(flat, &i)| v[(flat / k) * row + i as usize]).collect();
    (values, idx)
}

/// `tf.unique`: the distinct values of a vector in order of first appearance, and for each
/// input element the index of its value in that list.
pub fn unique(x: &Tensor, out_idx_i64: bool) -> Result<(Tensor, Tensor)> {
    if x.rank() != 1 {
        return Err(Error::InvalidArgument(format!(
            "unique expects a 1D vector, got shape {} [Op:Unique]",
            x.shape()
        )));
    }
    let (values, idx) = with_all!(x.buffer(), v => {
        let mut seen: HashMap<Vec<u8>, i64> = HashMap::new();
        let mut values = Vec::new();
        let mut idx = Vec::with_capacity(v.len());
        for (position, &e) in v.iter().enumerate() {
            let key = unique_key(e, position);
            let next = values.len() as i64;
            let id = *seen.entry(key).or_insert(next);
            if id == next {
                values.push(e);
            }
            idx.push(id);
        }
        (Element::wrap(values), idx)
    }, else match x.buffer() {
        Buffer::Str(v) => unique_strings(v),
        other => return Err(Error::unsupported_dtype("Unique", other.dtype())),
    });
    let n = values.len();
    let idx_t = Tensor::from_vec(idx, x.shape().clone());
    let idx_t =
        if out_idx_i64 { idx_t } else { crate::ops::cast::cpu(&idx_t, crate::dtype::DType::I32)? };
    Ok((Tensor::from_buffer_unchecked(values, Shape(vec![n])), idx_t))
}

/// `unique` on strings: byte equality, in order of first appearance.
fn unique_strings(v: &[TfString]) -> (Buffer, Vec<i64>) {
    let mut seen: HashMap<&TfString, i64> = HashMap::new();
    let mut values = Vec::new();
    let idx = v
        .iter()
        .map(|s| {
            *seen.entry(s).or_insert_with(|| {
                values.push(s.clone());
                values.len() as i64 - 1
            })
        })
        .collect();
    (Buffer::Str(values), idx)
}

/// Hash key of a value: its bytes, except that every zero is the same key (-0.0 == 0.0) and
/// every NaN its own (NaN != NaN), as equality-based uniqueness requires.
#[allow(clippy::eq_op)] // NaN is the only value unequal to itself
fn unique_key<T: Element>(e: T, position: usize) -> Vec<u8> {
    if e != e {
        let mut key = vec![0xff; 1];
        key.extend_from_slice(&position.to_le_bytes());
        return key;
    }
    if !e.is_nonzero() {
        return bytes_of(&T::default());
    }
    bytes_of(&e)
}

fn bytes_of<T: Element>(e: &T) -> Vec<u8> {
    // SAFETY: element types are plain old data without padding.
    unsafe {
        std::slice::from_raw_parts(e as *const T as *const u8, std::mem::size_of::<T>()).to_vec()
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let x = Tensor::from_slice(&[3.0f32, -1.0, 2.5, 0.5, 4.0, -2.0], &[2, 3]).unwrap();
    let ids = Tensor::from_slice(&[4i32, 1, 4, 7, 1], &[5]).unwrap();
    let floats = Tensor::from_slice(&[0.5f32, -1.0, 0.5, 2.0], &[4]).unwrap();
    vec![
        (Op::Sort(Sort { descending: false, k: None }), vec![x.clone()]),
        (Op::Sort(Sort { descending: true, k: Some(2) }), vec![x]),
        (Op::Unique(Unique { index_i64: false }), vec![ids]),
        (Op::Unique(Unique { index_i64: true }), vec![floats]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_rows_stably() {
        let x = Tensor::from_slice(&[3.0f32, 1.0, 2.0, 1.0, 0.0, 5.0], &[2, 3]).unwrap();
        let (v, i) = sort(&x, false, None).unwrap();
        assert_eq!(v.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 0.0, 1.0, 5.0]);
        assert_eq!(i.to_vec::<i32>().unwrap(), vec![1, 2, 0, 1, 0, 2]);
        let (v, _) = sort(&x, true, None).unwrap();
        assert_eq!(v.to_vec::<f32>().unwrap(), vec![3.0, 2.0, 1.0, 5.0, 1.0, 0.0]);
        let ties = Tensor::from_slice(&[1.0f32, 3.0, 3.0, 0.0, 3.0], &[5]).unwrap();
        let (v, i) = sort(&ties, true, Some(2)).unwrap();
        assert_eq!(v.to_vec::<f32>().unwrap(), vec![3.0, 3.0]);
        assert_eq!(i.to_vec::<i32>().unwrap(), vec![1, 2]);
        let (v, _) = sort(&x, true, None).unwrap();
        assert_eq!(v.to_vec::<f32>().unwrap(), vec![3.0, 2.0, 1.0, 5.0, 1.0, 0.0]);
    }

    #[test]
    fn unique_keeps_first_appearance() {
        let x = Tensor::from_slice(&[1i32, 1, 2, 4, 4, 4, 7, 8, 8], &[9]).unwrap();
        let (y, idx) = unique(&x, false).unwrap();
        assert_eq!(y.to_vec::<i32>().unwrap(), vec![1, 2, 4, 7, 8]);
        assert_eq!(idx.to_vec::<i32>().unwrap(), vec![0, 0, 1, 2, 2, 2, 3, 4, 4]);
    }
}
