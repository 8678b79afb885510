//! Joining strings: elementwise across tensors (`StringJoin`) and along axes (`ReduceJoin`).

use super::{string_tensor, strs};
use crate::error::{Error, Result};
use crate::ops::primitive::{describe_dims, TensorType};
use crate::tensor::Tensor;
use crate::tstring::TfString;

/// Inputs are scalars or all of one shape (TensorFlow's StringJoin does not broadcast more).
pub fn joined_dims(inputs: &[TensorType]) -> Result<Vec<Option<usize>>> {
    let mut dims: Option<&Vec<Option<usize>>> = None;
    for i in inputs.iter().filter(|i| i.rank() > 0) {
        match dims {
            None => dims = Some(&i.dims),
            Some(d) => {
                let differ = d.len() != i.dims.len()
                    || d.iter()
                        .zip(&i.dims)
                        .any(|(a, b)| matches!((a, b), (Some(a), Some(b)) if a != b));
                if differ {
                    return Err(Error::InvalidArgument(format!(
                        "Input shapes do not match: {} vs. {} [Op:StringJoin]",
                        describe_dims(d),
                        describe_dims(&i.dims)
                    )));
                }
            }
        }
    }
    Ok(dims.cloned().unwrap_or_default())
}

pub fn string_join(inputs: &[&Tensor], separator: &str) -> Result<Tensor> {
    let lists: Vec<&[TfString]> = inputs.iter().map(|t| strs(t)).collect::<Result<_>>()?;
    let shaped = inputs.iter().find(|t| t.rank() > 0).unwrap_or(&inputs[0]);
    let n = shaped.num_elements();
    let out = (0..n)
        .map(|k| {
            let mut s = Vec::new();
            for (j, l) in lists.iter().enumerate() {
                if j > 0 {
                    s.extend_from_slice(separator.as_bytes());
                }
                s.extend_from_slice(l[if l.len() == 1 { 0 } else { k }].as_bytes());
            }
            TfString::from_vec(s)
        })
        .collect();
    Ok(string_tensor(out, shaped.dims()))
}

/// The axes to reduce, each in `[0, rank)`, in the order given (all, last first, when None):
/// TensorFlow joins along them one after another, so the first varies fastest.
pub fn reduced_axes(axes: Option<&[i64]>, rank: usize) -> Result<Vec<usize>> {
    let Some(axes) = axes else { return Ok((0..rank).rev().collect()) };
    let mut out: Vec<usize> = Vec::with_capacity(axes.len());
    for &a in axes {
        let k = if a < 0 { a + rank as i64 } else { a };
        if k < 0 || k >= rank as i64 {
            return Err(Error::OutOfRange(format!(
                "Invalid reduction dimension {a} for input with {rank} dimension(s) [Op:ReduceJoin]"
            )));
        }
        if out.contains(&(k as usize)) {
            return Err(Error::InvalidArgument(format!(
                "Duplicate reduction dimension {a} [Op:ReduceJoin]"
            )));
        }
        out.push(k as usize);
    }
    Ok(out)
}

/// Joins the elements along `axes` in row-major order of the reduced positions.
pub fn reduce_join(
    x: &Tensor,
    axes: Option<&[i64]>,
    keep_dims: bool,
    separator: &str,
) -> Result<Tensor> {
    let dims = x.dims().to_vec();
    let rank = dims.len();
    let reduced = reduced_axes(axes, rank)?;
    let kept: Vec<usize> = (0..rank).filter(|k| !reduced.contains(k)).collect();
    // Row-major over the reduced axes with the first given varying fastest.
    let order: Vec<usize> = reduced.iter().rev().copied().collect();
    let strides = x.shape().strides();
    let count = |axes: &[usize]| axes.iter().map(|&k| dims[k]).product::<usize>();
    // The flat offset of each combination of positions along `axes` (row-major).
    let offsets = |axes: &[usize]| -> Vec<usize> {
        let mut offs = vec![0usize];
        for &k in axes {
            let (n, stride) = (dims[k], strides[k]);
            offs = offs.iter().flat_map(|&o| (0..n).map(move |i| o + i * stride)).collect();
        }
        offs
    };
    let (outer, inner) = (offsets(&kept), offsets(&order));
    debug_assert_eq!(outer.len(), count(&kept));
    let v = strs(x)?;
    let out: Vec<TfString> = outer
        .iter()
        .map(|&o| {
            let parts: Vec<&[u8]> = inner.iter().map(|&i| v[o + i].as_bytes()).collect();
            TfString::from_vec(parts.join(separator.as_bytes()))
        })
        .collect();
    let out_dims: Vec<usize> = (0..rank)
        .filter_map(|k| match (reduced.contains(&k), keep_dims) {
            (false, _) => Some(dims[k]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    Ok(string_tensor(out, &out_dims))
}
