//! The segment reductions' CPU kernels. Rows combine in their order, as TensorFlow's CPU
//! kernels do (`out = combine(out, row)`), so float sums round alike. Work above the parallel
//! grain splits the output's segments between threads; each thread scans every id and
//! combines the rows of its own segments.

use super::{Segment, SegmentKind};
use crate::buffer::Buffer;
use crate::element::{Num, Real};
use crate::error::{Error, Result};
use crate::kernels::parallel::GRAIN;
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::{match_buffer, with_numeric, with_real};
use half::{bf16, f16};
use rayon::prelude::*;

/// The ids as i64 (int16, int32 or int64 ids; the declaration checked the dtype).
#[allow(clippy::unnecessary_cast)] // one body for every id type, i64 included
pub(crate) fn ids_as_i64(ids: &Tensor) -> Result<Vec<i64>> {
    match_buffer!(
        ids.buffer(),
        v,
        [I16, I32, I64],
        Ok(v.iter().map(|&i| i as i64).collect()),
        Err(Error::unsupported_dtype("segment ids", ids.dtype()))
    )
}

/// num_segments' value (a scalar int32 or int64), never negative.
#[allow(clippy::unnecessary_cast)] // one body for int32 and int64
pub(crate) fn num_segments(num: &Tensor, op: &str) -> Result<usize> {
    let n = match_buffer!(num.buffer(), v, [I32, I64], v.first().map(|&n| n as i64), None)
        .ok_or_else(|| {
            Error::InvalidArgument(format!("num_segments must be a scalar [Op:{op}]"))
        })?;
    usize::try_from(n).map_err(|_| {
        Error::InvalidArgument(format!("Input num_segments == {n} must not be negative. [Op:{op}]"))
    })
}

/// TensorFlow's error for the first id at or past `n` (negative ids are dropped).
pub(crate) fn unsorted_check(ids: &[i64], shape: &Shape, n: usize, op: &str) -> Result<()> {
    let Some(k) = ids.iter().position(|&j| j >= 0 && j as u64 >= n as u64) else {
        return Ok(());
    };
    let mut coords = vec![0; shape.rank()];
    let mut rest = k;
    for (c, &d) in coords.iter_mut().zip(shape.dims()).rev() {
        *c = rest % d;
        rest /= d;
    }
    let at = match coords.is_empty() {
        true => String::new(),
        false => {
            format!("[{}]", coords.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(","))
        }
    };
    Err(Error::InvalidArgument(format!(
        "segment_ids{at} = {} is out of range [0, {n}) [Op:{op}]",
        ids[k]
    )))
}

/// Each segment's run of rows: `(segment, start, end)`.
pub(crate) type Runs = Vec<(usize, usize, usize)>;

/// The output's row count and each segment's run of rows of sorted ids, with TensorFlow's
/// checks in its order.
pub(crate) fn sorted_runs(ids: &[i64], op: &str) -> Result<(usize, Runs)> {
    let negative = || Error::InvalidArgument(format!("segment ids must be >= 0 [Op:{op}]"));
    let Some(&last) = ids.last() else { return Ok((0, Vec::new())) };
    let rows = last.checked_add(1).ok_or_else(negative)?;
    if rows <= 0 {
        return Err(negative());
    }
    let mut runs = Vec::new();
    let mut start = 0;
    while start < ids.len() {
        let id = ids[start];
        let mut end = start + 1;
        while end < ids.len() && ids[end] == id {
            end += 1;
        }
        if end < ids.len() && id > ids[end] {
            return Err(Error::InvalidArgument(format!(
                "segment ids are not increasing [Op:{op}]"
            )));
        }
        if id < 0 || id >= rows {
            return Err(Error::InvalidArgument(format!(
                "Segment id {id} out of range [0, {rows}), possibly because 'segment_ids' input \
                 is not sorted. [Op:{op}]"
            )));
        }
        runs.push((id as usize, start, end));
        start = end;
    }
    Ok((rows as usize, runs))
}

/// The dtype's finite extremes: TensorFlow's unsorted max (min) starts from the lowest
/// (highest) finite value, so an empty segment holds it and -inf (inf) never comes out.
trait Finite: Real {
    fn finite_min() -> Self;
    fn finite_max() -> Self;
}

macro_rules! finite {
    ($($t:ty),*) => {$(
        impl Finite for $t {
            fn finite_min() -> Self { <$t>::MIN }
            fn finite_max() -> Self { <$t>::MAX }
        }
    )*};
}
finite!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, f16, bf16);

/// TensorFlow's scalar max/min of a new row value `v` into `acc` (Eigen's `maxi(v, acc)`): a
/// NaN row value is taken, and a NaN accumulator gives way to the next number.
#[inline(always)]
fn max_of<T: Real>(acc: T, v: T) -> T {
    if v < acc {
        acc
    } else {
        v
    }
}

#[inline(always)]
fn min_of<T: Real>(acc: T, v: T) -> T {
    if acc < v {
        acc
    } else {
        v
    }
}

/// `out[ids[r]] = f(out[ids[r]], x[r])` over rows in order, from `init`; negative ids dropped
/// (ids checked against `n` before).
fn fold_unsorted<T: Copy + Send + Sync>(
    x: &[T],
    ids: &[i64],
    n: usize,
    inner: usize,
    init: T,
    f: impl Fn(T, T) -> T + Sync,
) -> Vec<T> {
    let mut out = vec![init; n * inner];
    if inner == 0 || n == 0 {
        return out;
    }
    let combine_into = |chunk: &mut [T], lo: i64| {
        let hi = lo + (chunk.len() / inner) as i64;
        for (r, &j) in ids.iter().enumerate() {
            if j < lo || j >= hi {
                continue;
            }
            let dst = &mut chunk[(j - lo) as usize * inner..][..inner];
            let src = &x[r * inner..][..inner];
            for (o, &v) in dst.iter_mut().zip(src) {
                *o = f(*o, v);
            }
        }
    };
    let threads = rayon::current_num_threads();
    if ids.len() * inner <= GRAIN || threads == 1 || n == 1 {
        combine_into(&mut out, 0);
        return out;
    }
    let per = n.div_ceil(threads);
    out.par_chunks_mut(per * inner)
        .enumerate()
        .for_each(|(c, chunk)| combine_into(chunk, (c * per) as i64));
    out
}

/// Each run of rows combined in order from its first row, then `finish(acc, count)`; segments
/// without rows hold `empty`.
fn fold_sorted<T: Copy + Send + Sync>(
    x: &[T],
    runs: &[(usize, usize, usize)],
    rows: usize,
    inner: usize,
    empty: T,
    f: impl Fn(T, T) -> T + Sync,
    finish: impl Fn(T, usize) -> T + Sync,
) -> Vec<T> {
    let mut out = vec![empty; rows * inner];
    if inner == 0 {
        return out;
    }
    let mut run_of: Vec<Option<(usize, usize)>> = vec![None; rows];
    for &(s, a, b) in runs {
        run_of[s] = Some((a, b));
    }
    let fill = |s: usize, dst: &mut [T]| {
        let Some((a, b)) = run_of[s] else { return };
        dst.copy_from_slice(&x[a * inner..][..inner]);
        for r in a + 1..b {
            for (o, &v) in dst.iter_mut().zip(&x[r * inner..][..inner]) {
                *o = f(*o, v);
            }
        }
        for o in dst.iter_mut() {
            *o = finish(*o, b - a);
        }
    };
    if x.len() <= GRAIN {
        out.chunks_mut(inner).enumerate().for_each(|(s, dst)| fill(s, dst));
    } else {
        let min_len = (GRAIN / inner).max(1);
        out.par_chunks_mut(inner).with_min_len(min_len).enumerate().for_each(|(s, d)| fill(s, d));
    }
    out
}

fn sum_like<T: Num + Send + Sync>(
    kind: SegmentKind,
    x: &[T],
    ids: &[i64],
    n: usize,
    inner: usize,
) -> Vec<T> {
    match kind {
        SegmentKind::Prod => fold_unsorted(x, ids, n, inner, T::one(), |a, v| a.mul(v)),
        _ => fold_unsorted(x, ids, n, inner, T::zero(), |a, v| a.add(v)),
    }
}

fn extreme<T: Finite + Send + Sync>(
    kind: SegmentKind,
    x: &[T],
    ids: &[i64],
    n: usize,
    inner: usize,
) -> Vec<T> {
    match kind {
        SegmentKind::Max => fold_unsorted(x, ids, n, inner, T::finite_min(), max_of),
        _ => fold_unsorted(x, ids, n, inner, T::finite_max(), min_of),
    }
}

/// The elements per row past the ids' dims, and the output's shape `[n, ...]` (checked: `n`
/// comes from a value).
pub(crate) fn layout(data: &Tensor, id_rank: usize, n: usize) -> Result<(usize, Shape)> {
    let tail = &data.dims()[id_rank..];
    let dims: Vec<i64> = std::iter::once(n).chain(tail.iter().copied()).map(|d| d as i64).collect();
    let shape = Shape::checked(&dims)?;
    crate::shape::check_alloc(shape.num_elements(), data.dtype())?;
    Ok((tail.iter().product(), shape))
}

pub(super) fn unsorted(op: Segment, data: &Tensor, ids: &Tensor, num: &Tensor) -> Result<Tensor> {
    let name = op.name();
    let n = num_segments(num, name)?;
    let (inner, shape) = layout(data, ids.rank(), n)?;
    let id_values = ids_as_i64(ids)?;
    // TensorFlow returns before reading the ids when there is no data.
    if data.num_elements() > 0 {
        unsorted_check(&id_values, ids.shape(), n, name)?;
    }
    let ids = &id_values;
    let kind = op.kind();
    let buffer = match kind {
        SegmentKind::Max | SegmentKind::Min => with_real!(
            data.buffer(),
            x => Some(crate::element::Element::wrap(extreme(kind, x, ids, n, inner))),
            else None
        ),
        _ => with_numeric!(
            data.buffer(),
            x => Some(crate::element::Element::wrap(sum_like(kind, x, ids, n, inner))),
            else None
        ),
    };
    let buffer: Buffer = buffer.ok_or_else(|| Error::unsupported_dtype(name, data.dtype()))?;
    Ok(Tensor::from_buffer_unchecked(buffer, shape))
}

fn sorted_sum_like<T: Num + Send + Sync>(
    kind: SegmentKind,
    x: &[T],
    runs: &[(usize, usize, usize)],
    rows: usize,
    inner: usize,
) -> Vec<T> {
    let keep = |a: T, _: usize| a;
    match kind {
        SegmentKind::Prod => fold_sorted(x, runs, rows, inner, T::one(), |a, v| a.mul(v), keep),
        SegmentKind::Mean => fold_sorted(
            x,
            runs,
            rows,
            inner,
            T::zero(),
            |a, v| a.add(v),
            |a, count| a.div(T::from_f64(count as f64)),
        ),
        _ => fold_sorted(x, runs, rows, inner, T::zero(), |a, v| a.add(v), keep),
    }
}

fn sorted_extreme<T: Real + Send + Sync>(
    kind: SegmentKind,
    x: &[T],
    runs: &[(usize, usize, usize)],
    rows: usize,
    inner: usize,
) -> Vec<T> {
    let keep = |a: T, _: usize| a;
    match kind {
        SegmentKind::Max => fold_sorted(x, runs, rows, inner, T::zero(), max_of, keep),
        _ => fold_sorted(x, runs, rows, inner, T::zero(), min_of, keep),
    }
}

pub(super) fn sorted(op: Segment, data: &Tensor, ids: &Tensor) -> Result<Tensor> {
    let name = op.name();
    let (rows, runs) = sorted_runs(&ids_as_i64(ids)?, name)?;
    let (inner, shape) = layout(data, 1, rows)?;
    let kind = op.kind();
    let runs = &runs;
    let buffer = match kind {
        SegmentKind::Max | SegmentKind::Min => with_real!(
            data.buffer(),
            x => Some(crate::element::Element::wrap(sorted_extreme(kind, x, runs, rows, inner))),
            else None
        ),
        _ => with_numeric!(
            data.buffer(),
            x => Some(crate::element::Element::wrap(sorted_sum_like(kind, x, runs, rows, inner))),
            else None
        ),
    };
    let buffer: Buffer = buffer.ok_or_else(|| Error::unsupported_dtype(name, data.dtype()))?;
    Ok(Tensor::from_buffer_unchecked(buffer, shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_split_agrees_with_one_pass() {
        let rows = 50_000;
        let x: Vec<f32> = (0..rows * 2).map(|i| (i % 97) as f32 * 0.5).collect();
        let ids: Vec<i64> = (0..rows).map(|i| ((i * 7919) % 1013) as i64 - 3).collect();
        let n = 1010;
        let whole = fold_unsorted(&x, &ids, n, 2, 0.0f32, |a, v| a + v);
        let mut seq = vec![0.0f32; n * 2];
        for (r, &j) in ids.iter().enumerate() {
            if j >= 0 {
                for k in 0..2 {
                    seq[j as usize * 2 + k] += x[r * 2 + k];
                }
            }
        }
        assert_eq!(whole, seq);
    }

    #[test]
    fn runs_follow_tensorflow_checks() {
        assert_eq!(sorted_runs(&[0, 0, 2], "S").unwrap(), (3, vec![(0, 0, 2), (2, 2, 3)]));
        assert!(sorted_runs(&[1, 1, -1], "S").unwrap_err().to_string().contains(">= 0"));
        assert_eq!(sorted_runs(&[], "S").unwrap(), (0, vec![]));
    }
}
