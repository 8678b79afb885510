//! `tf.math` functions composed from primitives.

use super::*;
use crate::ops::static_shape::{reshape_to_axes_of, reshape_to_matrix, static_dims};

/// `reduce_mean`: the sum divided by the count (integer means truncate, as in TensorFlow).
pub fn reduce_mean(x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> Result<Tensor> {
    if let Some(flat) = super::host_call::flat_for_full_reduction(x, axes, keepdims)? {
        return reduce_mean(&flat, Some(&[0]), false);
    }
    let axes_v = axes_or_all(x, axes, "Mean")?;
    let count = static_shape::count_over(x, &axes_v, x.dtype())?;
    let s = apply1(
        &Op::Reduce(super::reduce::Reduce { op: ReduceOp::Sum, axes: axes_v, keepdims }),
        &[x],
    )?;
    div(&s, &count)
}

pub fn reduce_variance(x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> Result<Tensor> {
    if !x.dtype().is_floating() && !x.dtype().is_complex() {
        return Err(Error::Type(format!(
            "Input must be either real or complex. Received integer input of dtype {}",
            x.dtype()
        )));
    }
    let mean = reduce_mean(x, axes, true)?;
    let centered = sub(x, &mean)?;
    let sq = if x.dtype().is_complex() {
        mul(&centered, &unary(UnaryOp::Conj, &centered)?).and_then(|t| unary(UnaryOp::Real, &t))?
    } else {
        square(&centered)?
    };
    reduce_mean(&sq, axes, keepdims)
}

pub fn reduce_std(x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> Result<Tensor> {
    sqrt(&reduce_variance(x, axes, keepdims)?)
}

/// log(sum(exp(x))) computed stably around the maximum (infinite maxima are replaced by 0).
pub fn reduce_logsumexp(x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> Result<Tensor> {
    // The maxima twice (kept for the shift, reduced for the result) rather than a reshape to
    // the example's reduced dims, which would bake a traced size into the graph.
    let finite_or_zero = |m: Tensor| -> Result<Tensor> {
        select(&unary(UnaryOp::IsFinite, &m)?, &m, &scalar_like(x, 0.0))
    };
    let shift = finite_or_zero(reduce(ReduceOp::Max, x, axes, true)?)?;
    let s = reduce_sum(&exp(&sub(x, &shift)?)?, axes, keepdims)?;
    let m = match keepdims {
        true => shift,
        false => finite_or_zero(reduce(ReduceOp::Max, x, axes, false)?)?,
    };
    add(&log(&s)?, &m)
}

pub fn count_nonzero(
    x: &Tensor,
    axes: Option<&[i64]>,
    keepdims: bool,
    dtype: DType,
) -> Result<Tensor> {
    let nz = not_equal(x, &scalar_like(x, 0.0))?;
    reduce_sum(&cast(&nz, dtype)?, axes, keepdims)
}

pub fn squared_difference(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let d = sub(x, y)?;
    if d.dtype().is_complex() {
        mul(&d, &unary(UnaryOp::Conj, &d)?)
    } else {
        square(&d)
    }
}

pub fn add_n(xs: &[&Tensor]) -> Result<Tensor> {
    let first = xs.first().ok_or_else(|| Error::Value("inputs must be a non-empty list".into()))?;
    // AddN sums numbers only, though AddV2 also concatenates strings.
    if !crate::dtype::DTypeSet::NUMERIC.contains(first.dtype()) {
        return Err(Error::unsupported_dtype("AddN", first.dtype()));
    }
    for t in xs {
        if t.shape() != first.shape() {
            return Err(Error::InvalidArgument(format!(
                "Shapes must be equal: {} vs. {} [Op:AddN]",
                first.shape(),
                t.shape()
            )));
        }
    }
    xs[1..].iter().try_fold((*first).clone(), |acc, t| add(&acc, t))
}

pub fn clip_by_value(x: &Tensor, lo: &Tensor, hi: &Tensor) -> Result<Tensor> {
    minimum(&maximum(x, lo)?, hi)
}

/// `tf.math.truediv`: integers are converted to floats first (int8/16 and uint8/16 to float32,
/// wider ones to float64), as in TensorFlow.
pub fn truediv(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    // TensorFlow's truediv checks the dtypes in Python: a TypeError.
    if x.dtype() != y.dtype() {
        return Err(Error::Type(format!(
            "x and y must have the same dtype, got {} != {}",
            x.dtype(),
            y.dtype()
        )));
    }
    let target = match x.dtype() {
        DType::I8 | DType::I16 | DType::U8 | DType::U16 => Some(DType::F32),
        DType::I32 | DType::I64 | DType::U32 | DType::U64 => Some(DType::F64),
        DType::Bool => return Err(Error::Type("x and y must not be bool for truediv".into())),
        _ => None,
    };
    match target {
        Some(t) => div(&cast(x, t)?, &cast(y, t)?),
        None => div(x, y),
    }
}

/// The `ord` argument of `tf.norm`: 'euclidean' (Frobenius for matrices) or a number, where
/// 2 over two axes is the spectral norm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrd {
    Euclidean,
    P(f64),
}

/// `tf.norm` / `tf.linalg.norm` over `axes` (None: the whole tensor as a vector). Complex inputs
/// give a complex result with zero imaginary part, as in TensorFlow.
pub fn norm(x: &Tensor, ord: NormOrd, axes: Option<&[i64]>, keepdims: bool) -> Result<Tensor> {
    if !(x.dtype().is_floating() || x.dtype().is_complex()) {
        return Err(Error::unsupported_dtype("Norm", x.dtype()));
    }
    let real = match axes {
        Some(a) if a.len() == 2 => matrix_norm(x, ord, a, keepdims)?,
        Some(a) if a.len() != 1 => {
            return Err(Error::Value(format!(
                "'axis' must be None, an integer, or a pair of integers, got {a:?}"
            )));
        }
        _ => vector_norm(x, ord, axes, keepdims)?,
    };
    cast(&real, x.dtype())
}

fn vector_norm(x: &Tensor, ord: NormOrd, axes: Option<&[i64]>, keepdims: bool) -> Result<Tensor> {
    let mag = abs(x)?;
    match ord {
        NormOrd::Euclidean | NormOrd::P(2.0) => sqrt(&reduce_sum(&square(&mag)?, axes, keepdims)?),
        NormOrd::P(p) if p == f64::INFINITY => reduce(ReduceOp::Max, &mag, axes, keepdims),
        NormOrd::P(1.0) => reduce_sum(&mag, axes, keepdims),
        NormOrd::P(p) if p > 0.0 => {
            let s = reduce_sum(&pow(&mag, &scalar_like(&mag, p))?, axes, keepdims)?;
            pow(&s, &scalar_like(&mag, 1.0 / p))
        }
        NormOrd::P(p) => {
            Err(Error::Value(format!("'ord' must be a supported vector norm, got {p}")))
        }
    }
}

/// Frobenius ('euclidean'), 1 (max column sum), inf (max row sum) and 2 (largest singular
/// value) matrix norms.
fn matrix_norm(x: &Tensor, ord: NormOrd, axes: &[i64], keepdims: bool) -> Result<Tensor> {
    let mag = abs(x)?;
    let (r, c) = (normalize_axis(axes[0], x.rank())?, normalize_axis(axes[1], x.rank())?);
    if r == c {
        return Err(Error::Value(format!("the two norm axes must differ, got {axes:?}")));
    }
    let (inner, outer) = match ord {
        NormOrd::Euclidean => return sqrt(&reduce_sum(&square(&mag)?, Some(axes), keepdims)?),
        NormOrd::P(2.0) => {
            // Computed from the data outside the op funnel: say so under a tape rather than
            // returning a silently missing gradient.
            return crate::autodiff::custom(
                &[x],
                || spectral_norm(x, r, c, keepdims),
                |_, _, _| {
                    Err(Error::Unimplemented(
                        "the gradient of the spectral norm (tf.norm with ord=2 over two axes) is \
                     not implemented"
                            .into(),
                    ))
                },
            );
        }
        NormOrd::P(1.0) => (r, c),
        NormOrd::P(p) if p == f64::INFINITY => (c, r),
        NormOrd::P(p) => {
            return Err(Error::Value(format!("'ord' must be a supported matrix norm, got {p}")))
        }
    };
    let sums = reduce_sum(&mag, Some(&[inner as i64]), true)?;
    reduce(ReduceOp::Max, &sums, Some(&[inner as i64, outer as i64]), keepdims)
}

/// Largest singular value of each matrix over axes (r, c): the square root of the largest
/// eigenvalue of AᵀA, found by cyclic Jacobi rotations in float64.
fn spectral_norm(x: &Tensor, r: usize, c: usize, keepdims: bool) -> Result<Tensor> {
    if x.dtype().is_complex() {
        return Err(Error::Unimplemented(
            "the spectral norm of complex matrices is not implemented".into(),
        ));
    }
    let kept: Vec<usize> = (0..x.rank()).filter(|&a| a != r && a != c).collect();
    let perm: Vec<i64> = kept.iter().chain(&[r, c]).map(|&a| a as i64).collect();
    let (m, n) = (x.dims()[r], x.dims()[c]);
    let batch: usize = kept.iter().map(|&a| x.dims()[a]).product();
    let moved = cast(&transpose(x, Some(&perm))?, DType::F64)?;
    let data = moved.to_vec::<f64>()?;
    let values: Vec<f64> = (0..batch)
        .map(|b| largest_singular_value(&data[b * m * n..(b + 1) * m * n], m, n))
        .collect();
    let out_dims: Vec<usize> = (0..x.rank())
        .filter_map(|a| if a == r || a == c { keepdims.then_some(1) } else { Some(x.dims()[a]) })
        .collect();
    let t = Tensor::from_slice(&values, &[values.len()])?;
    cast(&reshape(&t, &out_dims.iter().map(|&d| d as i64).collect::<Vec<_>>())?, x.dtype())
}

fn largest_singular_value(a: &[f64], m: usize, n: usize) -> f64 {
    // Gram matrix of the smaller side: its eigenvalues are the squared singular values.
    let (k, gram) = if n <= m {
        (
            n,
            (0..n * n)
                .map(|ij| (0..m).map(|t| a[t * n + ij / n] * a[t * n + ij % n]).sum())
                .collect::<Vec<f64>>(),
        )
    } else {
        (
            m,
            (0..m * m)
                .map(|ij| (0..n).map(|t| a[(ij / m) * n + t] * a[(ij % m) * n + t]).sum())
                .collect::<Vec<f64>>(),
        )
    };
    let mut g = gram;
    for _sweep in 0..64 {
        let off: f64 = (0..k)
            .flat_map(|p| (0..k).filter(move |&q| q != p).map(move |q| (p, q)))
            .map(|(p, q)| g[p * k + q].powi(2))
            .sum();
        if off <= 1e-30 * (0..k).map(|i| g[i * k + i].powi(2)).sum::<f64>().max(1e-300) {
            break;
        }
        for p in 0..k {
            for q in p + 1..k {
                let apq = g[p * k + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (g[q * k + q] - g[p * k + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let (cs, sn) = (1.0 / (t * t + 1.0).sqrt(), t / (t * t + 1.0).sqrt());
                for i in 0..k {
                    let (gip, giq) = (g[i * k + p], g[i * k + q]);
                    g[i * k + p] = cs * gip - sn * giq;
                    g[i * k + q] = sn * gip + cs * giq;
                }
                for i in 0..k {
                    let (gpi, gqi) = (g[p * k + i], g[q * k + i]);
                    g[p * k + i] = cs * gpi - sn * gqi;
                    g[q * k + i] = sn * gpi + cs * gqi;
                }
            }
        }
    }
    (0..k).map(|i| g[i * k + i]).fold(0.0f64, f64::max).max(0.0).sqrt()
}

/// `tf.tensordot(a, b, axes)` by transposing the contracted axes together and one matmul.
pub fn tensordot(a: &Tensor, b: &Tensor, a_axes: &[i64], b_axes: &[i64]) -> Result<Tensor> {
    if a_axes.len() != b_axes.len() {
        return Err(Error::InvalidArgument(
            "tensordot axes must have the same length for both tensors".into(),
        ));
    }
    let ca = normalize_axes_unsorted(a_axes, a.rank())?;
    let cb = normalize_axes_unsorted(b_axes, b.rank())?;
    // Static dims only: a size unknown while tracing is checked by the matmul when it runs.
    let (sa, sb) = (static_dims(a), static_dims(b));
    for (&i, &j) in ca.iter().zip(&cb) {
        if let (Some(da), Some(db)) = (sa[i], sb[j]) {
            if da != db {
                return Err(Error::InvalidArgument(format!(
                    "tensordot: dimension {i} of a ({da}) does not match dimension {j} of b ({db})"
                )));
            }
        }
    }
    let free_a: Vec<usize> = (0..a.rank()).filter(|x| !ca.contains(x)).collect();
    let free_b: Vec<usize> = (0..b.rank()).filter(|x| !cb.contains(x)).collect();
    let pa: Vec<i64> = free_a.iter().chain(&ca).map(|&x| x as i64).collect();
    let pb: Vec<i64> = cb.iter().chain(&free_b).map(|&x| x as i64).collect();
    let a2 = reshape_to_matrix(&transpose(a, Some(&pa))?, free_a.len())?;
    let b2 = reshape_to_matrix(&transpose(b, Some(&pb))?, cb.len())?;
    let prod = matmul(&a2, &b2, MatMulAttrs::default())?;
    let axes: Vec<(&Tensor, usize)> =
        free_a.iter().map(|&x| (a, x)).chain(free_b.iter().map(|&x| (b, x))).collect();
    reshape_to_axes_of(&prod, &axes)
}

fn normalize_axes_unsorted(axes: &[i64], rank: usize) -> Result<Vec<usize>> {
    let v: Vec<usize> = axes.iter().map(|&a| normalize_axis(a, rank)).collect::<Result<_>>()?;
    normalize_axes(axes, rank)?; // rejects repeats
    Ok(v)
}

/// `tf.linspace(start, stop, num)` for scalars, following TensorFlow's formula: integer inputs
/// give float64, interior points are `start + i * (stop - start) / (num - 1)` and the last point
/// is exactly `stop`.
pub fn linspace(start: &Tensor, stop: &Tensor, num: i64) -> Result<Tensor> {
    if num < 0 {
        return Err(Error::InvalidArgument(format!("Requires num >= 0: {num} [Op:LinSpace]")));
    }
    let start = cast_for_division(start)?;
    let stop = cast(stop, start.dtype())?;
    let steps = (num - 1).max(1);
    let delta = div(&sub(&stop, &start)?, &scalar_like(&start, steps as f64))?;
    let i = cast(
        &creation::range(
            &Tensor::scalar(1i64),
            &Tensor::scalar(steps.max(1)),
            &Tensor::scalar(1i64),
        )?,
        start.dtype(),
    )?;
    let interior = add(&start, &mul(&delta, &i)?)?;
    let all = concat(&[&reshape(&start, &[1])?, &interior, &reshape(&stop, &[1])?], 0)?;
    slice(&all, &[0], &[num])
}

fn cast_for_division(t: &Tensor) -> Result<Tensor> {
    match t.dtype() {
        d if d.is_floating() || d.is_complex() => Ok(t.clone()),
        DType::I8 | DType::I16 | DType::U8 | DType::U16 => cast(t, DType::F32),
        _ => cast(t, DType::F64),
    }
}

/// `tf.eye(num_rows, num_columns)` with optional leading batch dimensions.
pub fn eye(rows: usize, cols: usize, batch: &[i64], dtype: DType) -> Result<Tensor> {
    let r = creation::range(
        &Tensor::scalar(0i64),
        &Tensor::scalar(rows as i64),
        &Tensor::scalar(1i64),
    )?;
    let c = creation::range(
        &Tensor::scalar(0i64),
        &Tensor::scalar(cols as i64),
        &Tensor::scalar(1i64),
    )?;
    let hit = equal(&reshape(&r, &[rows as i64, 1])?, &reshape(&c, &[1, cols as i64])?)?;
    let m = cast(&hit, dtype)?;
    if batch.is_empty() {
        return Ok(m);
    }
    let dims: Vec<i64> = batch.iter().copied().chain([rows as i64, cols as i64]).collect();
    broadcast_to(&m, &dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_mean_truncates_and_float_mean_divides() {
        let i = Tensor::from_slice(&[1i32, 2, 2], &[3]).unwrap();
        assert_eq!(reduce_mean(&i, None, false).unwrap().to_vec::<i32>().unwrap(), vec![1]);
        let f = Tensor::from_slice(&[1.0f32, 2.0, 2.0, 3.0], &[2, 2]).unwrap();
        assert_eq!(
            reduce_mean(&f, Some(&[1]), false).unwrap().to_vec::<f32>().unwrap(),
            vec![1.5, 2.5]
        );
    }

    #[test]
    fn linspace_matches_tensorflow() {
        let l = linspace(&Tensor::scalar(-2i32), &Tensor::scalar(2i32), 5).unwrap();
        assert_eq!(l.dtype(), DType::F64);
        assert_eq!(l.to_vec::<f64>().unwrap(), vec![-2.0, -1.0, 0.0, 1.0, 2.0]);
        let one = linspace(&Tensor::scalar(3.0f32), &Tensor::scalar(5.0f32), 1).unwrap();
        assert_eq!(one.to_vec::<f32>().unwrap(), vec![3.0]);
    }

    #[test]
    fn spectral_norm_is_the_largest_singular_value() {
        let a = Tensor::from_slice(&[1.0f32, -2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let n = norm(&a, NormOrd::P(2.0), Some(&[0, 1]), false).unwrap().to_vec::<f32>().unwrap();
        assert!((n[0] - 5.116_673_5).abs() < 1e-5, "{n:?}");
        let f =
            norm(&a, NormOrd::Euclidean, Some(&[0, 1]), false).unwrap().to_vec::<f32>().unwrap();
        assert!((f[0] - 30f32.sqrt()).abs() < 1e-5);
    }

    #[test]
    fn tensordot_contracts() {
        let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        let r = tensordot(&a, &a, &[1], &[1]).unwrap();
        assert_eq!(r.to_vec::<f32>().unwrap(), vec![14.0, 32.0, 32.0, 77.0]);
    }
}
