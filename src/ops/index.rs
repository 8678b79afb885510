//! Indexing primitives: gather, gather_nd, scatter_nd and `where` (indices of true elements).
//! Every index is bounds-checked; a bad one is an `InvalidArgument`, never a panic.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::element::{Element, Movable, Num};
use crate::error::{Error, Result};
use crate::kernels::parallel;
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use crate::{with_all, with_movable, with_numeric};

/// `GatherV2`: inputs params and int32/int64 indices; the first `batch_dims` axes of both are
/// batch axes, and `axis` of params is the one indexed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Gather {
    pub axis: usize,
    pub batch_dims: usize,
}

/// `GatherNd`: inputs params and indices whose last axis holds coordinates into params.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct GatherNd;

/// `ScatterNd`: inputs indices and updates, scattered (summed) into zeros of this shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct ScatterNd(pub Shape);

/// TensorFlow's one-input `Where`: the int64 coordinates of the non-zero elements.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct WhereIndices;

// Their `Primitive` declarations are in `index_decl.rs`.

/// Indices as i64, for int32 and int64 index tensors.
pub fn index_values(indices: &Tensor, op: &str) -> Result<Vec<i64>> {
    match indices.buffer() {
        Buffer::I32(v) => Ok(v.iter().map(|&i| i as i64).collect()),
        Buffer::I64(v) => Ok(v.clone()),
        _ => Err(Error::InvalidArgument(format!(
            "indices must be int32 or int64, got {} [Op:{op}]",
            indices.dtype()
        ))),
    }
}

fn check_index(i: i64, limit: usize, at: usize, op: &str) -> Result<usize> {
    if i < 0 || i as u64 >= limit as u64 {
        return Err(Error::InvalidArgument(format!(
            "indices[{at}] = {i} is not in [0, {limit}) [Op:{op}]"
        )));
    }
    Ok(i as usize)
}

/// The shape rule of `GatherV2` (shared with the GPU kernel); index values are checked apart.
pub fn gather_shape(
    params: &Tensor,
    indices: &Tensor,
    axis: usize,
    batch_dims: usize,
) -> Result<Shape> {
    let p = params.dims();
    let id = indices.dims();
    if axis >= p.len() {
        return Err(axis_out_of_range(axis, p.len()));
    }
    if batch_dims > axis || batch_dims > id.len() {
        return Err(Error::InvalidArgument(format!(
            "batch_dims ({batch_dims}) must be <= axis ({axis}) and <= rank(indices) ({}) [Op:GatherV2]",
            id.len()
        )));
    }
    if p[..batch_dims] != id[..batch_dims] {
        return Err(Error::InvalidArgument(format!(
            "params.shape[:{batch_dims}] {:?} and indices.shape[:{batch_dims}] {:?} must match [Op:GatherV2]",
            &p[..batch_dims],
            &id[..batch_dims]
        )));
    }
    let out_dims: Vec<usize> =
        p[..axis].iter().chain(&id[batch_dims..]).chain(&p[axis + 1..]).copied().collect();
    let total = out_dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    crate::shape::check_alloc(total.unwrap_or(usize::MAX), params.dtype())?;
    Ok(Shape(out_dims))
}

pub(crate) fn axis_out_of_range(axis: usize, rank: usize) -> Error {
    Error::InvalidArgument(format!(
        "Expected axis in the range [{}, {rank}), but got {axis} [Op:GatherV2]",
        -(rank as i64)
    ))
}

pub fn gather(params: &Tensor, indices: &Tensor, axis: usize, batch_dims: usize) -> Result<Tensor> {
    let out_shape = gather_shape(params, indices, axis, batch_dims)?;
    // One row of a loop's kept values is the tensor the loop kept: nothing to copy.
    if axis == 0 && indices.rank() == 0 && params.is_row_stack() {
        let i = index_values(indices, "GatherV2")?[0];
        if let Some(row) = usize::try_from(i).ok().and_then(|i| params.stacked_row(i)) {
            return Ok(row);
        }
    }
    let p = params.dims();
    let id = indices.dims();
    let idx = index_values(indices, "GatherV2")?;
    let b: usize = p[..batch_dims].iter().product();
    let po: usize = p[batch_dims..axis].iter().product();
    let d = p[axis];
    let inner: usize = p[axis + 1..].iter().product();
    let n: usize = id[batch_dims..].iter().product();
    for (at, &i) in idx.iter().enumerate() {
        check_index(i, d, at, "GatherV2")?;
    }
    // Output row r (of `inner` elements) is outer slice r / n of params at index k = r % n.
    let out = with_movable!(params.buffer(), v => pick_slices(v, b * po * n, inner, |row| {
        let (outer, k) = (row / n, row % n);
        let i = idx[(outer / po) * n + k] as usize;
        (outer * d + i) * inner
    }));
    Ok(Tensor::from_buffer_unchecked(out, out_shape))
}

/// `rows` slices of `len` contiguous elements of `v`, the r-th starting at `start(r)`: the
/// body of gathers that move whole rows. Each slice is one copy loop, where `pick` pays
/// divisions for every element.
pub fn pick_slices<T: Movable>(
    v: &[T],
    rows: usize,
    len: usize,
    start: impl Fn(usize) -> usize + Sync,
) -> Buffer {
    if len == 0 {
        return T::wrap_vec(Vec::new());
    }
    T::wrap_vec(parallel::build(rows * len, |offset, dst| {
        let (mut row, mut within) = (offset / len, offset % len);
        let mut done = 0;
        while done < dst.len() {
            let take = (len - within).min(dst.len() - done);
            let from = start(row) + within;
            for (o, x) in dst[done..done + take].iter_mut().zip(&v[from..from + take]) {
                o.write(x.clone());
            }
            done += take;
            row += 1;
            within = 0;
        }
    }))
}

/// Flat offsets of the slices that `indices` (last axis = coordinates) select in `shape`.
/// The flat offset of each index row into `shape`, the slice length and the leading dims of
/// `indices`; errors name the first row out of range.
pub fn nd_offsets(
    shape: &[usize],
    indices: &Tensor,
    op: &str,
) -> Result<(Vec<usize>, usize, Vec<usize>)> {
    let id = indices.dims();
    let k = *id
        .last()
        .ok_or_else(|| Error::InvalidArgument(format!("indices must be at least 1-D [Op:{op}]")))?;
    if k > shape.len() {
        return Err(Error::InvalidArgument(format!(
            "index innermost dimension length must be <= params rank; saw: {k} vs. {} [Op:{op}]",
            shape.len()
        )));
    }
    let idx = index_values(indices, op)?;
    let slice: usize = shape[k..].iter().product();
    let strides = Shape(shape.to_vec()).strides();
    let count = idx.len().checked_div(k).unwrap_or_else(|| id[..id.len() - 1].iter().product());
    let mut offsets = Vec::with_capacity(count);
    for row in 0..count {
        let mut off = 0;
        for j in 0..k {
            let i = idx[row * k + j];
            if i < 0 || i as u64 >= shape[j] as u64 {
                let coords: Vec<i64> = idx[row * k..row * k + k].to_vec();
                return Err(Error::InvalidArgument(format!(
                    "indices[{row}] = {coords:?} does not index into param shape {} [Op:{op}]",
                    Shape(shape.to_vec())
                )));
            }
            off += i as usize * strides[j];
        }
        offsets.push(off);
    }
    Ok((offsets, slice, id[..id.len() - 1].to_vec()))
}

pub fn gather_nd(params: &Tensor, indices: &Tensor) -> Result<Tensor> {
    let rows = indices.dims()[..indices.rank().saturating_sub(1)].iter().product::<usize>();
    crate::shape::check_alloc(rows, crate::dtype::DType::U64)?;
    let (offsets, slice, lead) = nd_offsets(params.dims(), indices, "GatherNd")?;
    let k = indices.dims()[indices.rank() - 1];
    let total = offsets.len().checked_mul(slice);
    crate::shape::check_alloc(total.unwrap_or(usize::MAX), params.dtype())?;
    let out_dims: Vec<usize> = lead.iter().chain(&params.dims()[k..]).copied().collect();
    let out = with_movable!(params.buffer(), v => pick_slices(v, offsets.len(), slice, |row| {
        offsets[row]
    }));
    Ok(Tensor::from_buffer_unchecked(out, Shape(out_dims)))
}

/// The shape `updates` must have for scatter_nd: the index rows, then the slice each one names.
pub fn check_scatter_updates(indices: &Shape, updates: &Shape, shape: &Shape) -> Result<()> {
    let id = indices.dims();
    let k = id.last().copied().unwrap_or(0).min(shape.rank());
    let lead = &id[..id.len().saturating_sub(1)];
    let expected: Vec<usize> = lead.iter().chain(&shape.dims()[k..]).copied().collect();
    if updates.dims() != expected.as_slice() {
        return Err(Error::InvalidArgument(format!(
            "updates has shape {updates} but must have shape {} for indices of shape {indices} and output shape {shape} [Op:ScatterNd]",
            Shape(expected),
        )));
    }
    Ok(())
}

/// Adds row r of `updates` (`slice` elements each) into `out` at `offsets[r]`, in order:
/// the sum of scatter_nd and of TensorScatterAdd. The offsets come from `nd_offsets`, which
/// bounds every row inside `out`; `updates` holds `offsets.len()` rows.
pub(crate) fn add_at<T: Num>(out: &mut [T], offsets: &[usize], slice: usize, updates: &[T]) {
    for (&off, src) in offsets.iter().zip(updates.chunks_exact(slice.max(1))) {
        for (d, &s) in out[off..off + slice].iter_mut().zip(src) {
            *d = Num::add(*d, s);
        }
    }
}

/// Scatters `updates` into zeros of `shape`; duplicate indices add up, as in TensorFlow.
pub fn scatter_nd(indices: &Tensor, updates: &Tensor, shape: &Shape) -> Result<Tensor> {
    check_scatter_updates(indices.shape(), updates.shape(), shape)?;
    let (offsets, slice, _) = nd_offsets(shape.dims(), indices, "ScatterNd")?;
    crate::shape::check_alloc(shape.num_elements(), updates.dtype())?;
    let out = with_numeric!(updates.buffer(), u => {
        let mut out = vec![Num::zero(); shape.num_elements()];
        add_at(&mut out, &offsets, slice, u);
        Element::wrap(out)
    }, else match updates.buffer() {
        Buffer::Bool(u) => {
            let mut out = vec![false; shape.num_elements()];
            for (row, &off) in offsets.iter().enumerate() {
                for e in 0..slice {
                    out[off + e] |= u[row * slice + e];
                }
            }
            Buffer::Bool(out)
        }
        // TensorFlow adds strings too: repeated indices concatenate in index order.
        Buffer::Str(u) => {
            let mut out = vec![Vec::new(); shape.num_elements()];
            for (row, &off) in offsets.iter().enumerate() {
                for e in 0..slice {
                    out[off + e].extend_from_slice(u[row * slice + e].as_bytes());
                }
            }
            Buffer::Str(out.into_iter().map(TfString::from_vec).collect())
        }
        _ => return Err(Error::unsupported_dtype("ScatterNd", updates.dtype())),
    });
    Ok(Tensor::from_buffer_unchecked(out, shape.clone()))
}

/// Coordinates of the non-zero (true) elements, as an int64 `[n, rank]` tensor in row-major order.
pub fn where_indices(cond: &Tensor) -> Result<Tensor> {
    let truth: Vec<bool> = with_all!(cond.buffer(), v => v.iter().map(|e| e.is_nonzero()).collect(), else {
        return Err(Error::unsupported_dtype("Where", cond.dtype()));
    });
    let rank = cond.rank();
    let strides = cond.shape().strides();
    let mut coords = Vec::new();
    for (flat, _) in truth.iter().enumerate().filter(|(_, &t)| t) {
        let mut rest = flat;
        for s in &strides {
            coords.push((rest / s) as i64);
            rest %= s;
        }
    }
    let n = coords.len() / rank.max(1);
    let n = if rank == 0 { truth.iter().filter(|t| **t).count() } else { n };
    Ok(Tensor::from_vec(coords, Shape(vec![n, rank])))
}

pub fn is_index_dtype(d: DType) -> bool {
    matches!(d, DType::I32 | DType::I64)
}

/// The registry test's table: one entry (at least) per TensorFlow name of this family.
#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;

    let params = || Tensor::from_slice(&[0.5f32, -1.0, 2.0, 3.5, -0.25, 4.0], &[2, 3]).unwrap();
    let i32s = |v: &[i32], dims: &[usize]| Tensor::from_slice(v, dims).unwrap();
    let gather = |axis, batch_dims| Op::Gather(Gather { axis, batch_dims });
    vec![
        (gather(1, 0), vec![params(), i32s(&[2, 0], &[2])]),
        (gather(1, 1), vec![params(), i32s(&[1, 2], &[2, 1])]),
        (gather(0, 0), vec![params(), Tensor::from_slice(&[1i64, 0, 1], &[1, 3]).unwrap()]),
        (Op::GatherNd(GatherNd), vec![params(), i32s(&[1, 0, 0, 2], &[2, 2])]),
        (Op::GatherNd(GatherNd), vec![params(), i32s(&[1], &[1, 1])]),
        (
            Op::ScatterNd(ScatterNd(Shape(vec![4]))),
            vec![i32s(&[1, 3, 1], &[3, 1]), Tensor::from_slice(&[1.0f32, 2.0, 5.0], &[3]).unwrap()],
        ),
        (
            Op::ScatterNd(ScatterNd(Shape(vec![2, 3]))),
            vec![i32s(&[1], &[1, 1]), Tensor::from_slice(&[1.0f32, 2.0, 5.0], &[1, 3]).unwrap()],
        ),
        (
            Op::WhereIndices(WhereIndices),
            vec![Tensor::from_slice(&[true, false, false, true], &[2, 2]).unwrap()],
        ),
        (Op::WhereIndices(WhereIndices), vec![params()]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_axis_and_batch_dims() {
        let p = Tensor::from_slice(&[0i32, 1, 2, 3, 4, 5], &[2, 3]).unwrap();
        let i = Tensor::from_slice(&[2i32, 0], &[2]).unwrap();
        let g = gather(&p, &i, 1, 0).unwrap();
        assert_eq!(g.dims(), &[2, 2]);
        assert_eq!(g.to_vec::<i32>().unwrap(), vec![2, 0, 5, 3]);
        let bi = Tensor::from_slice(&[1i32, 2], &[2, 1]).unwrap();
        let g = gather(&p, &bi, 1, 1).unwrap();
        assert_eq!(g.to_vec::<i32>().unwrap(), vec![1, 5]);
        let bad = Tensor::from_slice(&[3i32], &[1]).unwrap();
        assert!(gather(&p, &bad, 1, 0).is_err());
    }

    #[test]
    fn scatter_adds_duplicates() {
        let i = Tensor::from_slice(&[1i32, 1, 3], &[3, 1]).unwrap();
        let u = Tensor::from_slice(&[1.0f32, 2.0, 5.0], &[3]).unwrap();
        let s = scatter_nd(&i, &u, &Shape(vec![4])).unwrap();
        assert_eq!(s.to_vec::<f32>().unwrap(), vec![0.0, 3.0, 0.0, 5.0]);
    }
}
