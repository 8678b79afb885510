//! Broadcasting element-wise iteration (numpy rules) for two and three inputs, with fast paths
//! for equal shapes and scalars; the general case walks ndarray broadcast views in parallel.

use super::parallel::{self, GRAIN};
use crate::error::{Error, Result};
use crate::shape::Shape;
use ndarray::{ArrayD, ArrayViewD, IxDyn, Zip};
use std::mem::MaybeUninit;

fn base<'a, T>(data: &'a [T], shape: &Shape) -> Result<ArrayViewD<'a, T>> {
    ArrayViewD::from_shape(IxDyn(shape.dims()), data)
        .map_err(|e| Error::Internal(format!("bad buffer for shape {shape}: {e}")))
}

fn incompatible(shape: &Shape, out: &Shape) -> Error {
    Error::InvalidArgument(format!("Incompatible shapes: {shape} vs. {out}"))
}

/// Broadcasts `$data` (of shape `$shape`) to `$out` as a local view.
macro_rules! broadcast_view {
    ($base:ident, $data:expr, $shape:expr, $out:expr) => {
        let $base = base($data, $shape)?;
        let $base =
            $base.broadcast(IxDyn($out.dims())).ok_or_else(|| incompatible($shape, $out))?;
    };
}

fn into_vec<U>(a: ArrayD<U>) -> Vec<U> {
    let (v, offset) = a.into_raw_vec_and_offset();
    debug_assert!(offset.unwrap_or(0) == 0);
    v
}

pub fn zip2<A: Copy + Sync, B: Copy + Sync, U: Copy + Send + Sync>(
    a: &[A],
    a_shape: &Shape,
    b: &[B],
    b_shape: &Shape,
    out: &Shape,
    f: impl Fn(A, B) -> U + Sync + Send,
) -> Result<Vec<U>> {
    let n = out.num_elements();
    if a.len() == n && b.len() == n {
        return Ok(parallel::zip_map(a, b, f));
    }
    if a.len() == 1 && b.len() == n {
        // `move`: the scalar lives in the closure itself, where the compiler can keep it in a
        // register; captured by reference it was reloaded per element and the loop stayed
        // scalar (a scalar multiply ran at a third of an elementwise add's speed).
        let (x, f) = (a[0], &f);
        return Ok(parallel::map(b, move |y| f(x, y)));
    }
    if b.len() == 1 && a.len() == n {
        let (y, f) = (b[0], &f);
        return Ok(parallel::map(a, move |x| f(x, y)));
    }
    // One operand repeats along the leading axes (a bias row): contiguous runs, no strides.
    if a.len() == n && is_trailing(b_shape, out) {
        return Ok(rows(a, b, &f));
    }
    if b.len() == n && is_trailing(a_shape, out) {
        return Ok(rows(b, a, |y, x| f(x, y)));
    }
    broadcast_view!(av, a, a_shape, out);
    broadcast_view!(bv, b, b_shape, out);
    let mut o = ArrayD::<U>::uninit(IxDyn(out.dims()));
    let zip = Zip::from(&mut o).and(&av).and(&bv);
    if n > GRAIN {
        zip.par_for_each(|o, &x, &y| {
            o.write(f(x, y));
        });
    } else {
        zip.for_each(|o, &x, &y| {
            o.write(f(x, y));
        });
    }
    // SAFETY: the zip visited and wrote every element of `o`.
    Ok(into_vec(unsafe { o.assume_init() }))
}

#[allow(clippy::too_many_arguments)]
pub fn zip3<A: Copy + Sync, B: Copy + Sync, C: Copy + Sync, U: Copy + Send + Sync>(
    a: &[A],
    a_shape: &Shape,
    b: &[B],
    b_shape: &Shape,
    c: &[C],
    c_shape: &Shape,
    out: &Shape,
    f: impl Fn(A, B, C) -> U + Sync + Send,
) -> Result<Vec<U>> {
    let n = out.num_elements();
    if a.len() == n && b.len() == n && c.len() == n {
        return Ok(parallel::generate(n, |i| f(a[i], b[i], c[i])));
    }
    // A full first operand (a select's condition) with full or scalar others.
    if a.len() == n {
        match (b.len() == 1, c.len() == 1) {
            (false, true) if b.len() == n => {
                let (z, f) = (c[0], &f);
                return Ok(parallel::zip_map(a, b, move |x, y| f(x, y, z)));
            }
            (true, false) if c.len() == n => {
                let (y, f) = (b[0], &f);
                return Ok(parallel::zip_map(a, c, move |x, z| f(x, y, z)));
            }
            (true, true) => {
                let (y, z, f) = (b[0], c[0], &f);
                return Ok(parallel::map(a, move |x| f(x, y, z)));
            }
            _ => {}
        }
    }
    broadcast_view!(av, a, a_shape, out);
    broadcast_view!(bv, b, b_shape, out);
    broadcast_view!(cv, c, c_shape, out);
    let mut o = ArrayD::<U>::uninit(IxDyn(out.dims()));
    let zip = Zip::from(&mut o).and(&av).and(&bv).and(&cv);
    if n > GRAIN {
        zip.par_for_each(|o, &x, &y, &z| {
            o.write(f(x, y, z));
        });
    } else {
        zip.for_each(|o, &x, &y, &z| {
            o.write(f(x, y, z));
        });
    }
    // SAFETY: the zip visited and wrote every element of `o`.
    Ok(into_vec(unsafe { o.assume_init() }))
}

/// Whether `small` is `out`'s trailing dims (leading ones of `small` aside): it repeats whole
/// along `out`'s leading axes.
fn is_trailing(small: &Shape, out: &Shape) -> bool {
    let dims = small.dims();
    let first = dims.iter().position(|&d| d != 1).unwrap_or(dims.len());
    let tail = &dims[first..];
    !tail.is_empty() && out.dims().ends_with(tail)
}

/// `f(full[i], rep[i % m])` for every i, in contiguous runs of `rep` (`m` = its length).
fn rows<A: Copy + Sync, B: Copy + Sync, U: Send>(
    full: &[A],
    rep: &[B],
    f: impl Fn(A, B) -> U + Sync,
) -> Vec<U> {
    let m = rep.len();
    parallel::build(full.len(), |offset, dst| {
        let mut done = 0;
        while done < dst.len() {
            let at = offset + done;
            let j = at % m;
            let len = (m - j).min(dst.len() - done);
            let run =
                dst[done..done + len].iter_mut().zip(&full[at..at + len]).zip(&rep[j..j + len]);
            for ((o, &x), &y) in run {
                o.write(f(x, y));
            }
            done += len;
        }
    })
}

/// `data` (of shape `shape`) broadcast as `view` shows it (`data` seen with its broadcast
/// strides), as a new vector. One value, and a row repeated along leading axes (a bias's
/// gradient, a reduction's), are written as contiguous runs in parallel; other shapes walk
/// the view, whose stride-0 axes ndarray steps element by element (4x TensorFlow's time for
/// a scalar broadcast to 2.8M elements).
pub fn broadcast_copy<T: Clone + Send + Sync>(
    data: &[T],
    shape: &Shape,
    view: &ndarray::ArrayViewD<'_, T>,
) -> Vec<T> {
    let out = Shape(view.shape().to_vec());
    let n = out.num_elements();
    if data.len() == 1 {
        let value = &data[0];
        return parallel::build(n, |_, dst| {
            for o in dst {
                o.write(value.clone());
            }
        });
    }
    if !data.is_empty() && is_trailing(shape, &out) {
        return parallel::build(n, |offset, dst| repeat_row(data, offset, dst));
    }
    materialize(view)
}

/// `out[j] = row[(at + j) % row.len()]`: a row repeated along leading axes, for the elements
/// from `at` on, in contiguous runs (nothing for an empty row).
pub fn repeat_row<T: Clone>(row: &[T], at: usize, out: &mut [MaybeUninit<T>]) {
    if row.is_empty() {
        return;
    }
    let mut from = at % row.len();
    let mut filled = 0;
    while filled < out.len() {
        let take = (row.len() - from).min(out.len() - filled);
        for (o, v) in out[filled..filled + take].iter_mut().zip(&row[from..from + take]) {
            o.write(v.clone());
        }
        filled += take;
        from = 0;
    }
}

/// Copies any strided view (a transpose, a strided slice, a broadcast) into a new row-major vector.
/// Strings are cloned; everything else is copied.
pub fn materialize<T: Clone + Send + Sync>(v: &ndarray::ArrayViewD<'_, T>) -> Vec<T> {
    let mut o = ArrayD::<T>::uninit(v.raw_dim());
    let zip = Zip::from(&mut o).and(v);
    if v.len() > GRAIN {
        zip.par_for_each(|o, x| {
            o.write(x.clone());
        });
    } else {
        zip.for_each(|o, x| {
            o.write(x.clone());
        });
    }
    // SAFETY: the zip wrote every element.
    into_vec(unsafe { o.assume_init() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The contiguous paths give what walking the broadcast view gives: one value, rows of
    /// several lengths (some not dividing a parallel chunk) and a general broadcast, over more
    /// elements than one chunk.
    #[test]
    fn broadcast_copies_match_the_view() {
        let cases: [(&[usize], &[usize]); 6] = [
            (&[1], &[3, 40_000]),
            (&[], &[70_001]),
            (&[7], &[3, 11_000, 7]),
            (&[1, 1, 37], &[5, 900, 37]),
            (&[2, 1, 3], &[2, 20_000, 3]),
            (&[4, 1], &[4, 9_000]),
        ];
        for (small, big) in cases {
            let (shape, out) = (Shape(small.to_vec()), Shape(big.to_vec()));
            let data: Vec<f32> = (0..shape.num_elements()).map(|i| i as f32 * 1.5 - 2.0).collect();
            let view = base(&data, &shape).unwrap();
            let view = view.broadcast(IxDyn(out.dims())).unwrap();
            assert_eq!(
                broadcast_copy(&data, &shape, &view),
                materialize(&view),
                "{shape} -> {out}"
            );
        }
    }
}
