//! Reductions (`Sum`, `Prod`, `Max`, `Min`, `All`, `Any`), arg-reductions and cumulative scans.
//!
//! Every reduction is viewed as `(outer, r, inner)`: the reduced axes, when adjacent, collapse to
//! `r`; otherwise the input is first transposed so that they are. Rows are summed with 16
//! independent lanes, which the compiler turns into SIMD, and split across threads.

use crate::buffer::Buffer;
use crate::dtype::{DType, DTypeSet};
use crate::element::{Element, Num, Real};
use crate::error::{Error, Result};
use crate::kernels::parallel::{self, GRAIN};
use crate::ops::shape_ops;
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::{match_buffer, with_numeric, with_real};
use half::{bf16, f16};
use rayon::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ReduceOp {
    Sum,
    Prod,
    Max,
    Min,
    All,
    Any,
}

impl ReduceOp {
    pub fn info(self) -> (&'static str, DTypeSet) {
        match self {
            ReduceOp::Sum => ("Sum", DTypeSet::NUMERIC),
            ReduceOp::Prod => ("Prod", DTypeSet::NUMERIC),
            ReduceOp::Max => ("Max", DTypeSet::REAL),
            ReduceOp::Min => ("Min", DTypeSet::REAL),
            ReduceOp::All => ("All", DTypeSet::BOOL),
            ReduceOp::Any => ("Any", DTypeSet::BOOL),
        }
    }
}

/// A reduction over sorted, distinct `axes` (declared in `reduce_decl.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Reduce {
    pub op: ReduceOp,
    pub axes: Vec<usize>,
    pub keepdims: bool,
}

/// The `(outer, r, inner)` view of a reduction over sorted, distinct `axes`, and the tensor to
/// read it from (the input itself, or a transposed copy when the axes are not adjacent).
/// How a reduction over `axes` (sorted) sees its input: as [outer, r, inner] with the reduced
/// axes in the middle, after the transpose `perm` when they are not adjacent. Shared by the CPU
/// and GPU kernels.
pub struct Plan {
    pub perm: Option<Vec<usize>>,
    pub outer: usize,
    pub r: usize,
    pub inner: usize,
}

pub fn plan(dims: &[usize], axes: &[usize]) -> Plan {
    if axes.windows(2).all(|w| w[1] == w[0] + 1) {
        let (first, last) = (axes[0], axes[axes.len() - 1]);
        return Plan {
            perm: None,
            outer: dims[..first].iter().product(),
            r: dims[first..=last].iter().product(),
            inner: dims[last + 1..].iter().product(),
        };
    }
    let kept: Vec<usize> = (0..dims.len()).filter(|a| !axes.contains(a)).collect();
    Plan {
        outer: kept.iter().map(|&a| dims[a]).product(),
        r: axes.iter().map(|&a| dims[a]).product(),
        inner: 1,
        perm: Some(kept.iter().chain(axes).copied().collect()),
    }
}

fn three_d(x: &Tensor, axes: &[usize]) -> Result<(Tensor, usize, usize, usize)> {
    let p = plan(x.dims(), axes);
    let src = match &p.perm {
        None => x.clone(),
        Some(perm) => shape_ops::transpose(x, perm)?,
    };
    Ok((src, p.outer, p.r, p.inner))
}

pub fn output_shape(input: &Shape, axes: &[usize], keepdims: bool) -> Shape {
    let dims = input
        .dims()
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| match (axes.contains(&i), keepdims) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    Shape(dims)
}

/// One reduction: accumulator type `A`, its identity, and how elements enter and leave it.
struct Reducer<T, A, L, C, F> {
    init: A,
    load: L,
    combine: C,
    finish: F,
    _t: std::marker::PhantomData<T>,
}

impl<T, A, L, C, F> Reducer<T, A, L, C, F>
where
    T: Copy + Send + Sync,
    A: Copy + Send + Sync,
    L: Fn(T) -> A + Sync,
    C: Fn(A, A) -> A + Sync,
    F: Fn(A) -> T + Sync,
{
    fn new(init: A, load: L, combine: C, finish: F) -> Self {
        Reducer { init, load, combine, finish, _t: std::marker::PhantomData }
    }

    /// Pairwise over blocks of 1024 (16 lanes inside a block): the rounding error grows with the
    /// log of the length, as with numpy's and Eigen's sums, not linearly.
    fn row(&self, row: &[T]) -> A {
        const LANES: usize = 16;
        const BLOCK: usize = 1024;
        if row.len() > BLOCK {
            let mid = (row.len() / 2).next_multiple_of(LANES);
            return (self.combine)(self.row(&row[..mid]), self.row(&row[mid..]));
        }
        let mut acc = [self.init; LANES];
        let chunks = row.chunks_exact(LANES);
        let rest = chunks.remainder();
        for c in chunks {
            for k in 0..LANES {
                acc[k] = (self.combine)(acc[k], (self.load)(c[k]));
            }
        }
        let mut width = LANES;
        while width > 1 {
            width /= 2;
            for k in 0..width {
                acc[k] = (self.combine)(acc[k], acc[k + width]);
            }
        }
        rest.iter().fold(acc[0], |a, &x| (self.combine)(a, (self.load)(x)))
    }

    fn long_row(&self, row: &[T]) -> A {
        if row.len() <= GRAIN * 2 {
            return self.row(row);
        }
        row.par_chunks(GRAIN * 2)
            .map(|c| self.row(c))
            .reduce(|| self.init, |a, b| (self.combine)(a, b))
    }

    /// Few outputs but a long reduced axis (e.g. summing [16M, 2] over axis 0): parallel over
    /// slabs of the reduced axis, whose partial columns are then combined.
    fn few_long_columns(&self, data: &[T], outer: usize, r: usize, inner: usize) -> Vec<T> {
        let rows = (GRAIN / inner).max(64);
        let mut out = Vec::with_capacity(outer * inner);
        for o in 0..outer {
            let totals = (0..r.div_ceil(rows))
                .into_par_iter()
                .map(|slab| {
                    let mut acc = vec![self.init; inner];
                    for j in slab * rows..((slab + 1) * rows).min(r) {
                        let row = &data[(o * r + j) * inner..(o * r + j + 1) * inner];
                        for (a, &x) in acc.iter_mut().zip(row) {
                            *a = (self.combine)(*a, (self.load)(x));
                        }
                    }
                    acc
                })
                .reduce(
                    || vec![self.init; inner],
                    |mut a, b| {
                        for (x, y) in a.iter_mut().zip(b) {
                            *x = (self.combine)(*x, y);
                        }
                        a
                    },
                );
            out.extend(totals.into_iter().map(|a| (self.finish)(a)));
        }
        out
    }

    fn run(&self, data: &[T], outer: usize, r: usize, inner: usize) -> Vec<T> {
        if inner == 1 {
            if outer < 4 {
                return (0..outer)
                    .map(|o| (self.finish)(self.long_row(&data[o * r..(o + 1) * r])))
                    .collect();
            }
            return parallel::generate(outer, |o| {
                (self.finish)(self.row(&data[o * r..(o + 1) * r]))
            });
        }
        if outer * inner < GRAIN && r * inner >= 4 * GRAIN {
            return self.few_long_columns(data, outer, r, inner);
        }
        parallel::build(outer * inner, |offset, dst| {
            // Rows are summed in blocks whose partial results are then combined, which bounds
            // the rounding error of long reductions.
            const ROWS_PER_BLOCK: usize = 256;
            let width = inner.min(dst.len());
            let (mut total, mut partial) = (vec![self.init; width], vec![self.init; width]);
            let mut done = 0;
            while done < dst.len() {
                let flat = offset + done;
                let (o, i0) = (flat / inner, flat % inner);
                let n = (inner - i0).min(dst.len() - done);
                let (total, partial) = (&mut total[..n], &mut partial[..n]);
                total.fill(self.init);
                for block in (0..r).step_by(ROWS_PER_BLOCK) {
                    partial.fill(self.init);
                    for j in block..(block + ROWS_PER_BLOCK).min(r) {
                        let base = (o * r + j) * inner + i0;
                        for (a, &x) in partial.iter_mut().zip(&data[base..base + n]) {
                            *a = (self.combine)(*a, (self.load)(x));
                        }
                    }
                    for (t, &p) in total.iter_mut().zip(partial.iter()) {
                        *t = (self.combine)(*t, p);
                    }
                }
                for (d, &a) in dst[done..done + n].iter_mut().zip(total.iter()) {
                    d.write((self.finish)(a));
                }
                done += n;
            }
        })
    }
}

fn same<T>(x: T) -> T {
    x
}

fn sum<T: Num + Send + Sync>(d: &[T], o: usize, r: usize, i: usize) -> Buffer {
    T::wrap(Reducer::new(T::zero(), same, Num::add, same).run(d, o, r, i))
}
fn prod<T: Num + Send + Sync>(d: &[T], o: usize, r: usize, i: usize) -> Buffer {
    T::wrap(Reducer::new(T::one(), same, Num::mul, same).run(d, o, r, i))
}
/// NaN propagates through max/min, as in TensorFlow.
fn max<T: Real + Send + Sync>(d: &[T], o: usize, r: usize, i: usize) -> Buffer {
    let pick = |a: T, b: T| if a.is_nan() || a > b { a } else { b };
    T::wrap(Reducer::new(T::lowest(), same, pick, same).run(d, o, r, i))
}
fn min<T: Real + Send + Sync>(d: &[T], o: usize, r: usize, i: usize) -> Buffer {
    let pick = |a: T, b: T| if a.is_nan() || a < b { a } else { b };
    T::wrap(Reducer::new(T::highest(), same, pick, same).run(d, o, r, i))
}
/// Half-precision sums accumulate in f32, as TensorFlow's CPU kernels do.
fn sum_half<T: Element + Send + Sync>(d: &[T], o: usize, r: usize, i: usize) -> Buffer {
    T::wrap(
        Reducer::new(0.0f32, |x: T| x.to_f64() as f32, |a, b| a + b, |a| T::from_f64(a as f64))
            .run(d, o, r, i),
    )
}

pub fn cpu(op: ReduceOp, x: &Tensor, axes: &[usize], keepdims: bool) -> Result<Tensor> {
    let (tf_name, dtypes) = op.info();
    let dtype = x.dtype();
    if !dtypes.contains(dtype) {
        return Err(Error::unsupported_dtype(tf_name, dtype));
    }
    let out_shape = output_shape(x.shape(), axes, keepdims);
    if axes.is_empty() {
        return Ok(x.with_shape(out_shape));
    }
    let (src, outer, r, inner) = three_d(x, axes)?;
    let b = src.buffer();
    let bad = || Error::unsupported_dtype(tf_name, dtype);
    let out = match op {
        ReduceOp::Sum => match b {
            Buffer::F16(v) => sum_half::<f16>(v, outer, r, inner),
            Buffer::BF16(v) => sum_half::<bf16>(v, outer, r, inner),
            _ => with_numeric!(b, v => sum(v, outer, r, inner), else return Err(bad())),
        },
        ReduceOp::Prod => with_numeric!(b, v => prod(v, outer, r, inner), else return Err(bad())),
        ReduceOp::Max => with_real!(b, v => max(v, outer, r, inner), else return Err(bad())),
        ReduceOp::Min => with_real!(b, v => min(v, outer, r, inner), else return Err(bad())),
        ReduceOp::All => match_buffer!(
            b,
            v,
            [Bool],
            Buffer::Bool(
                Reducer::new(true, same, |a: bool, b| a & b, same).run(v, outer, r, inner)
            ),
            return Err(bad())
        ),
        ReduceOp::Any => match_buffer!(
            b,
            v,
            [Bool],
            Buffer::Bool(
                Reducer::new(false, same, |a: bool, b| a | b, same).run(v, outer, r, inner)
            ),
            return Err(bad())
        ),
    };
    Ok(Tensor::from_buffer_unchecked(out, out_shape))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ArgOp {
    ArgMax,
    ArgMin,
}

/// The index of the largest (smallest) element along `axis`, as an `output` integer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ArgReduce {
    pub op: ArgOp,
    pub axis: usize,
    pub output: DType,
}

/// Index of the largest (smallest) element along `axis`; the first one on ties. NaN never
/// compares larger or smaller, so it is passed over (TensorFlow: argmax([1, nan, 3]) = 2).
pub fn arg_cpu(op: ArgOp, x: &Tensor, axis: usize, output: DType) -> Result<Tensor> {
    let name = if op == ArgOp::ArgMax { "ArgMax" } else { "ArgMin" };
    if !DTypeSet::REAL.contains(x.dtype()) {
        return Err(Error::unsupported_dtype(name, x.dtype()));
    }
    if x.dims()[axis] == 0 {
        return Err(Error::InvalidArgument(format!(
            "Reduction axis {axis} is empty in shape {} [Op:{name}]",
            x.shape()
        )));
    }
    let (_, outer, r, inner) = three_d(x, &[axis])?;
    let out_shape = output_shape(x.shape(), &[axis], false);
    let indices: Vec<i64> = with_real!(x.buffer(), v => arg_kernel(v, outer, r, inner, op == ArgOp::ArgMax), else unreachable_vec());
    let t = Tensor::from_vec(indices, out_shape);
    crate::ops::cast::cpu(&t, output)
}

fn unreachable_vec() -> Vec<i64> {
    Vec::new()
}

fn arg_kernel<T: Real + Sync>(
    v: &[T],
    outer: usize,
    r: usize,
    inner: usize,
    is_max: bool,
) -> Vec<i64> {
    parallel::generate(outer * inner, |flat| {
        let (o, i) = (flat / inner, flat % inner);
        let at = |j: usize| v[(o * r + j) * inner + i];
        let mut best = 0;
        let mut best_v = at(0);
        for j in 1..r {
            let e = at(j);
            let better = if is_max { e > best_v } else { e < best_v };
            if better || (best_v.is_nan() && !e.is_nan()) {
                best = j;
                best_v = e;
            }
        }
        best as i64
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum CumOp {
    Sum,
    Prod,
}

/// A running sum (product) along `axis`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Cumulative {
    pub op: CumOp,
    pub axis: usize,
    pub exclusive: bool,
    pub reverse: bool,
}

pub fn cumulative_cpu(
    op: CumOp,
    x: &Tensor,
    axis: usize,
    exclusive: bool,
    reverse: bool,
) -> Result<Tensor> {
    let name = if op == CumOp::Sum { "Cumsum" } else { "Cumprod" };
    if !DTypeSet::NUMERIC.contains(x.dtype()) {
        return Err(Error::unsupported_dtype(name, x.dtype()));
    }
    let (_, outer, r, inner) = three_d(x, &[axis])?;
    let out = with_numeric!(x.buffer(), v => {
        let (init, f) = if op == CumOp::Sum { (Num::zero(), Num::add as fn(_, _) -> _) } else { (Num::one(), Num::mul as fn(_, _) -> _) };
        Element::wrap(scan(v, outer, r, inner, init, f, exclusive, reverse))
    }, else return Err(Error::unsupported_dtype(name, x.dtype())));
    Ok(Tensor::from_buffer_unchecked(out, x.shape().clone()))
}

#[allow(clippy::too_many_arguments)]
fn scan<T: Copy + Send + Sync>(
    v: &[T],
    outer: usize,
    r: usize,
    inner: usize,
    init: T,
    f: fn(T, T) -> T,
    exclusive: bool,
    reverse: bool,
) -> Vec<T> {
    let mut out = vec![init; v.len()];
    let block = r * inner;
    if block == 0 {
        return out;
    }
    out.par_chunks_mut(block).zip(v.par_chunks(block)).for_each(|(dst, src)| {
        let mut acc = vec![init; inner];
        for step in 0..r {
            let j = if reverse { r - 1 - step } else { step };
            let row = &src[j * inner..(j + 1) * inner];
            let out_row = &mut dst[j * inner..(j + 1) * inner];
            for ((a, o), &x) in acc.iter_mut().zip(out_row.iter_mut()).zip(row) {
                if exclusive {
                    *o = *a;
                    *a = f(*a, x);
                } else {
                    *a = f(*a, x);
                    *o = *a;
                }
            }
        }
    });
    let _ = outer;
    out
}

/// The test table (the declarations live in `reduce_decl.rs`).
#[cfg(test)]
pub(crate) use super::reduce_decl::registry_examples;

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f32], d: &[usize]) -> Tensor {
        Tensor::from_slice(v, d).unwrap()
    }

    #[test]
    fn sums_over_any_axes() {
        let x = t(&(0..24).map(|i| i as f32).collect::<Vec<_>>(), &[2, 3, 4]);
        let all = cpu(ReduceOp::Sum, &x, &[0, 1, 2], false).unwrap();
        assert_eq!(all.to_vec::<f32>().unwrap(), vec![276.0]);
        let a1 = cpu(ReduceOp::Sum, &x, &[1], true).unwrap();
        assert_eq!(a1.dims(), &[2, 1, 4]);
        assert_eq!(
            a1.to_vec::<f32>().unwrap(),
            vec![12.0, 15.0, 18.0, 21.0, 48.0, 51.0, 54.0, 57.0]
        );
        let a02 = cpu(ReduceOp::Sum, &x, &[0, 2], false).unwrap();
        assert_eq!(a02.to_vec::<f32>().unwrap(), vec![60.0, 92.0, 124.0]);
    }

    #[test]
    fn long_columns_reduce_in_parallel_slabs() {
        let n = 200_000;
        let x = Tensor::from_slice(&vec![1.0f32; n * 2], &[n, 2]).unwrap();
        let s = cpu(ReduceOp::Sum, &x, &[0], false).unwrap();
        assert_eq!(s.to_vec::<f32>().unwrap(), vec![n as f32, n as f32]);
    }

    #[test]
    fn max_propagates_nan_and_argmax_takes_first_tie() {
        let x = t(&[1.0, f32::NAN, 3.0], &[3]);
        assert!(cpu(ReduceOp::Max, &x, &[0], false).unwrap().to_vec::<f32>().unwrap()[0].is_nan());
        let y = t(&[1.0, 5.0, 5.0], &[3]);
        let i = arg_cpu(ArgOp::ArgMax, &y, 0, DType::I64).unwrap();
        assert_eq!(i.to_vec::<i64>().unwrap(), vec![1]);
        let n = t(&[1.0, f32::NAN, 3.0], &[3]);
        assert_eq!(
            arg_cpu(ArgOp::ArgMax, &n, 0, DType::I64).unwrap().to_vec::<i64>().unwrap(),
            vec![2]
        );
    }

    #[test]
    fn cumulative_sums() {
        let x = t(&[1.0, 2.0, 3.0], &[3]);
        let c = |e, r| cumulative_cpu(CumOp::Sum, &x, 0, e, r).unwrap().to_vec::<f32>().unwrap();
        assert_eq!(c(false, false), vec![1.0, 3.0, 6.0]);
        assert_eq!(c(true, false), vec![0.0, 1.0, 3.0]);
        assert_eq!(c(false, true), vec![6.0, 5.0, 3.0]);
        assert_eq!(c(true, true), vec![5.0, 3.0, 0.0]);
    }
}
