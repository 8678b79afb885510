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

/// `UnsortedSegmentJoin`'s checks on the static shapes: ids of rank at least one whose shape
/// begins the input's. Returns the output's dims after the segment count.
pub fn segment_dims(x: &TensorType, ids: &TensorType) -> Result<Vec<Option<usize>>> {
    let op = "[Op:UnsortedSegmentJoin]";
    if ids.rank() == 0 {
        return Err(Error::InvalidArgument(format!("Segment_id cannot have rank 0 {op}")));
    }
    if ids.rank() > x.rank() {
        return Err(Error::OutOfRange(format!(
            "Invalid segment_id rank {} for input with {} dimension(s) {op}",
            ids.rank(),
            x.rank()
        )));
    }
    for (k, (a, b)) in ids.dims.iter().zip(&x.dims).enumerate() {
        if let (Some(a), Some(_)) = (a, b) {
            if Some(a) != b.as_ref() {
                // TensorFlow's message names the input's rank where it means its dimension.
                return Err(Error::InvalidArgument(format!(
                    "Segment dimension is {a} while input dimension is {} in rank {k} {op}",
                    x.rank()
                )));
            }
        }
    }
    Ok(x.dims[ids.rank()..].to_vec())
}

/// Joins the strings of each segment in order of their position; a separator goes before a
/// piece only when the segment's text so far is not empty (TensorFlow's kernel).
pub fn unsorted_segment_join(
    x: &Tensor,
    ids: &Tensor,
    num_segments: &Tensor,
    separator: &str,
) -> Result<Tensor> {
    let op = "[Op:UnsortedSegmentJoin]";
    let count: Vec<i64> = match num_segments.buffer() {
        crate::buffer::Buffer::I32(v) => v.iter().map(|&x| x as i64).collect(),
        crate::buffer::Buffer::I64(v) => v.clone(),
        _ => return Err(Error::unsupported_dtype("UnsortedSegmentJoin", num_segments.dtype())),
    };
    if count.is_empty() {
        return Err(Error::InvalidArgument(format!("Number of segments cannot be empty. {op}")));
    }
    if num_segments.rank() > 0 {
        return Err(Error::InvalidArgument(format!("Number of segments must be a scalar {op}")));
    }
    let segments = count.first().copied().unwrap_or(0);
    if segments < 0 {
        return Err(Error::InvalidArgument(format!(
            "Number of segments must be non-negative but got {segments} {op}"
        )));
    }
    let rank = ids.rank();
    let ids: Vec<i64> = match ids.buffer() {
        crate::buffer::Buffer::I32(v) => v.iter().map(|&x| x as i64).collect(),
        crate::buffer::Buffer::I64(v) => v.clone(),
        _ => return Err(Error::unsupported_dtype("UnsortedSegmentJoin", ids.dtype())),
    };
    if ids.iter().any(|&i| i < 0 || i >= segments) {
        return Err(Error::InvalidArgument(format!(
            "segment_ids are not allowed to exceed num_segments or to have negative values. {op}"
        )));
    }
    let v = strs(x)?;
    let tail = x.dims().get(rank..).unwrap_or(&[]);
    let inner: usize = tail.iter().product();
    let segments = segments as usize;
    let mut out: Vec<Vec<u8>> = vec![Vec::new(); segments.saturating_mul(inner)];
    for (i, &id) in ids.iter().enumerate() {
        for j in 0..inner {
            let (Some(piece), Some(slot)) =
                (v.get(i * inner + j), out.get_mut(id as usize * inner + j))
            else {
                continue;
            };
            if !slot.is_empty() {
                slot.extend_from_slice(separator.as_bytes());
            }
            slot.extend_from_slice(piece.as_bytes());
        }
    }
    let mut dims = vec![segments];
    dims.extend_from_slice(tail);
    let out: Vec<TfString> = out.into_iter().map(TfString::from_vec).collect();
    Ok(string_tensor(out, &dims))
}
