//! The CPU kernels of the `tf.linalg` decompositions: each matrix of the batch (the last two
//! axes, row-major) goes through `faer`, matrices in parallel with rayon. Inputs are already
//! checked by the shape rule; these functions only compute.

use crate::element::Element;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::traits::ComplexField;
use faer::{Mat, MatRef, Side};
use num_complex::Complex;
use rayon::prelude::*;

/// The element types the decompositions run on (TensorFlow's float, double, complex64,
/// complex128).
pub(crate) trait Scalar: ComplexField + Element + Copy + Send + Sync {}

impl Scalar for f32 {}
impl Scalar for f64 {}
impl Scalar for Complex<f32> {}
impl Scalar for Complex<f64> {}

/// Runs `$body` with `$d: &Vec<T>` for the four dtypes the decompositions take.
macro_rules! with_linalg {
    ($buf:expr, $d:ident => $body:expr, else $e:expr) => {
        $crate::match_buffer!($buf, $d, [F32, F64, C64, C128], $body, $e)
    };
}
pub(crate) use with_linalg;

/// A row-major matrix as a faer view.
pub(crate) fn view<T: Scalar>(data: &[T], rows: usize, cols: usize) -> MatRef<'_, T> {
    MatRef::from_column_major_slice(data, cols, rows).transpose()
}

/// Appends a faer matrix to `out` in row-major order.
pub(crate) fn push_rows<T: Scalar>(out: &mut Vec<T>, m: MatRef<'_, T>) {
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            out.push(m[(i, j)]);
        }
    }
}

/// The batch's matrices, each mapped by `f` to its outputs' row-major data (one `Vec` per
/// output), concatenated per output in batch order.
pub(crate) fn per_matrix<T, U, F>(
    data: &[T],
    (count, rows, cols): (usize, usize, usize),
    outputs: usize,
    f: F,
) -> Result<Vec<Vec<U>>>
where
    T: Scalar,
    U: Send,
    F: Fn(MatRef<'_, T>) -> Result<Vec<Vec<U>>> + Sync,
{
    let size = rows * cols;
    let parts: Vec<Vec<Vec<U>>> = if size == 0 {
        // Empty matrices still have outputs (an empty matrix's determinant is 1).
        (0..count).map(|_| f(view(data, rows, cols))).collect::<Result<_>>()?
    } else {
        data.par_chunks(size).map(|m| f(view(m, rows, cols))).collect::<Result<_>>()?
    };
    let mut outs: Vec<Vec<U>> = (0..outputs).map(|_| Vec::new()).collect();
    for part in parts {
        for (out, piece) in outs.iter_mut().zip(part) {
            out.extend(piece);
        }
    }
    Ok(outs)
}

pub(crate) fn tensor<T: Element>(data: Vec<T>, dims: Vec<usize>) -> Tensor {
    Tensor::from_buffer_unchecked(Element::wrap(data), Shape(dims))
}

fn row_major<T: Scalar>(m: MatRef<'_, T>) -> Vec<T> {
    let mut out = Vec::with_capacity(m.nrows() * m.ncols());
    push_rows(&mut out, m);
    out
}

/// Lower Cholesky factor; a matrix that is not positive definite gives NaN in its lower
/// triangle (TensorFlow's kernel logs and fills so rather than failing).
pub(crate) fn cholesky<T: Scalar>(m: MatRef<'_, T>) -> Result<Vec<Vec<T>>> {
    let n = m.nrows();
    let mut out = vec![T::zero_impl(); n * n];
    if n == 0 {
        return Ok(vec![out]);
    }
    match m.llt(Side::Lower) {
        Ok(llt) => {
            let l = llt.L();
            for i in 0..n {
                for j in 0..=i {
                    out[i * n + j] = l[(i, j)];
                }
            }
        }
        Err(_) => {
            let nan = T::from_f64_impl(f64::NAN);
            for i in 0..n {
                for j in 0..=i {
                    out[i * n + j] = nan;
                }
            }
        }
    }
    Ok(vec![out])
}

/// Whether every entry of `m` is finite (no NaN, no infinity).
fn all_finite<T: Scalar>(m: MatRef<'_, T>) -> bool {
    (0..m.nrows()).all(|i| (0..m.ncols()).all(|j| Element::to_c128(m[(i, j)]).is_finite()))
}

/// Whether the LU factorisation's U has a zero (or non-finite) pivot: the matrix is singular
/// for TensorFlow's solvers.
fn singular<T: Scalar>(u: MatRef<'_, T>) -> bool {
    (0..u.nrows()).any(|i| {
        let a = Element::to_c128(u[(i, i)]).norm();
        a == 0.0 || !a.is_finite()
    })
}

/// Inverse (of the adjoint when `adjoint`) through partially pivoted LU.
pub(crate) fn inverse<T: Scalar>(m: MatRef<'_, T>, adjoint: bool) -> Result<Vec<Vec<T>>> {
    if m.nrows() == 0 {
        return Ok(vec![Vec::new()]);
    }
    let lu = m.partial_piv_lu();
    if singular(lu.U()) {
        return Err(Error::InvalidArgument("Input is not invertible.".into()));
    }
    let inv = lu.inverse();
    let inv = if adjoint { inv.adjoint().to_owned() } else { inv };
    Ok(vec![row_major(inv.as_ref())])
}

/// Determinant by LU: the product of U's diagonal with the permutation's sign (a singular
/// matrix gives a signed zero, as TensorFlow's).
pub(crate) fn determinant<T: Scalar>(m: MatRef<'_, T>) -> Result<Vec<Vec<T>>> {
    let (phase, log_abs) = lu_phase(m);
    let det = phase * log_abs.exp();
    Ok(vec![vec![T::from_c128(det)]])
}

/// (sign, log |det|): the sign is the determinant's phase (a unit complex number for complex
/// input) and a signed 0 for a singular matrix, whose log |det| is -inf.
pub(crate) fn slogdet<T: Scalar>(m: MatRef<'_, T>) -> Result<Vec<Vec<T>>> {
    let (phase, log_abs) = lu_phase(m);
    Ok(vec![vec![T::from_c128(phase)], vec![T::from_c128(Complex::new(log_abs, 0.0))]])
}

/// The determinant as (phase, log |det|) from partially pivoted LU; the phase is zero (signed
/// as the permutation) when a pivot is zero.
fn lu_phase<T: Scalar>(m: MatRef<'_, T>) -> (Complex<f64>, f64) {
    let n = m.nrows();
    if n == 0 {
        return (Complex::new(1.0, 0.0), 0.0);
    }
    let lu = m.partial_piv_lu();
    let u = lu.U();
    let (forward, _) = lu.P().arrays();
    let mut phase = Complex::new(if permutation_parity(forward) { -1.0 } else { 1.0 }, 0.0);
    let mut log_abs = 0.0f64;
    let mut zero = false;
    for i in 0..n {
        let d = Element::to_c128(u[(i, i)]);
        let a = d.norm();
        if a == 0.0 {
            // A zero pivot: the determinant is a signed zero (later pivots may be NaN).
            zero = true;
            break;
        }
        log_abs += a.ln();
        if a.is_finite() {
            phase *= d / a;
        } else {
            phase *= d;
        }
    }
    if zero {
        return (phase * 0.0, f64::NEG_INFINITY);
    }
    (phase, log_abs)
}

/// Whether a permutation (as the images of 0..n) is odd.
fn permutation_parity(forward: &[usize]) -> bool {
    let mut seen = vec![false; forward.len()];
    let mut odd = false;
    for start in 0..forward.len() {
        let mut len = 0;
        let mut k = start;
        while !seen[k] {
            seen[k] = true;
            k = forward[k];
            len += 1;
        }
        if len > 0 && len % 2 == 0 {
            odd = !odd;
        }
    }
    odd
}

/// Solves `a x = b` (or `a^H x = b`) for one matrix and its right-hand sides.
pub(crate) fn solve<T: Scalar>(
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    adjoint: bool,
) -> Result<Vec<T>> {
    if a.nrows() == 0 {
        return Ok(Vec::new());
    }
    let lu = a.partial_piv_lu();
    if singular(lu.U()) {
        return Err(Error::InvalidArgument("Input matrix is not invertible.".into()));
    }
    let mut x = b.to_owned();
    if adjoint {
        lu.solve_adjoint_in_place(x.as_mut());
    } else {
        lu.solve_in_place(x.as_mut());
    }
    Ok(row_major(x.as_ref()))
}

/// Solves a triangular system by substitution; only the named triangle of `a` is read, and a
/// zero on its diagonal gives inf/NaN as TensorFlow's (no error).
pub(crate) fn triangular_solve<T: Scalar>(
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    lower: bool,
    adjoint: bool,
) -> Vec<T> {
    let n = a.nrows();
    let mut tri = Mat::<T>::zeros(n, n);
    for i in 0..n {
        for j in 0..n {
            if (lower && j <= i) || (!lower && j >= i) {
                tri[(i, j)] = a[(i, j)];
            }
        }
    }
    let tri = if adjoint { tri.adjoint().to_owned() } else { tri };
    let mut x = b.to_owned();
    let par = faer::get_global_parallelism();
    if lower != adjoint {
        faer::linalg::triangular_solve::solve_lower_triangular_in_place(
            tri.as_ref(),
            x.as_mut(),
            par,
        );
    } else {
        faer::linalg::triangular_solve::solve_upper_triangular_in_place(
            tri.as_ref(),
            x.as_mut(),
            par,
        );
    }
    row_major(x.as_ref())
}

/// (Q, R) by Householder reflections; `full` gives the square Q.
pub(crate) fn qr<T: Scalar>(m: MatRef<'_, T>, full: bool) -> Result<Vec<Vec<T>>> {
    let (rows, cols) = m.shape();
    let p = rows.min(cols);
    if p == 0 {
        // faer needs a non-empty matrix: Q is the identity's first columns, R is empty.
        let qc = if full { rows } else { p };
        let q =
            Mat::<T>::from_fn(rows, qc, |i, j| if i == j { T::one_impl() } else { T::zero_impl() });
        let rr = if full { rows } else { p };
        return Ok(vec![row_major(q.as_ref()), vec![T::zero_impl(); rr * cols]]);
    }
    // faer's Householder QR asserts on NaN/inf, and on finite entries whose norms overflow
    // (complex64 near 1e38). TensorFlow's (Eigen's) reflectors turn NaN from there on: Q all
    // NaN, R NaN on and above its diagonal. (When only later columns hold the NaN, Eigen keeps
    // the leading columns finite; not reproduced.)
    let nan_factors = || {
        let nan = T::from_f64_impl(f64::NAN);
        let (qc, rr) = if full { (rows, rows) } else { (p, p) };
        let r = Mat::<T>::from_fn(rr, cols, |i, j| if j >= i { nan } else { T::zero_impl() });
        vec![vec![nan; rows * qc], row_major(r.as_ref())]
    };
    if !all_finite(m) {
        return Ok(nan_factors());
    }
    let factored = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let qr = m.qr();
        let (q, r) = if full {
            (qr.compute_Q(), qr.R().to_owned())
        } else {
            (qr.compute_thin_Q(), qr.thin_R().to_owned())
        };
        // faer stores R's strictly lower part as zeros already; copy R explicitly so nothing
        // of the Householder vectors leaks. faer's R has min(M, N) rows; TensorFlow's full R
        // has M (zero rows below).
        let rr = if full { rows } else { p };
        let r = Mat::<T>::from_fn(rr, cols, |i, j| {
            if j >= i && i < r.nrows() {
                r[(i, j)]
            } else {
                T::zero_impl()
            }
        });
        vec![row_major(q.as_ref()), row_major(r.as_ref())]
    }));
    Ok(factored.unwrap_or_else(|_| nan_factors()))
}

/// Singular values (descending), and U, V when `compute_uv` (`full`: square U and V).
pub(crate) fn svd<T: Scalar>(
    m: MatRef<'_, T>,
    compute_uv: bool,
    full: bool,
) -> Result<Vec<Vec<T>>> {
    let (rows, cols) = m.shape();
    let p = rows.min(cols);
    let failed = || Error::InvalidArgument("SVD decomposition was not successful.".into());
    if !compute_uv {
        let s = if p == 0 { Vec::new() } else { m.singular_values().map_err(|_| failed())? };
        let s = s.into_iter().map(|x| T::from_real_impl(&x)).collect();
        return Ok(vec![s, Vec::new(), Vec::new()]);
    }
    let (uc, vc) = if full { (rows, cols) } else { (p, p) };
    if p == 0 {
        let eye = |n: usize, k: usize| {
            row_major(
                Mat::<T>::from_fn(n, k, |i, j| if i == j { T::one_impl() } else { T::zero_impl() })
                    .as_ref(),
            )
        };
        return Ok(vec![Vec::new(), eye(rows, uc), eye(cols, vc)]);
    }
    let svd = if full { m.svd() } else { m.thin_svd() }.map_err(|_| failed())?;
    let s =
        svd.S().column_vector().iter().map(|x| T::from_real_impl(&T::real_part_impl(x))).collect();
    Ok(vec![s, row_major(svd.U()), row_major(svd.V())])
}

/// Eigenvalues (ascending, real) and eigenvectors (columns) of a self-adjoint matrix, from
/// its lower triangle as TensorFlow's kernel reads it.
pub(crate) fn eigh<T: Scalar>(m: MatRef<'_, T>, compute_v: bool) -> Result<Vec<Vec<T>>> {
    let n = m.nrows();
    if n == 0 {
        return Ok(vec![Vec::new(), Vec::new()]);
    }
    let failed = || {
        Error::InvalidArgument(
            "Self-adjoint eigen decomposition was not successful. The input might not be valid."
                .into(),
        )
    };
    let finite = (0..n).all(|i| (0..=i).all(|j| Element::to_c128(m[(i, j)]).is_finite()));
    if !finite {
        return Err(failed());
    }
    let evd = m.self_adjoint_eigen(Side::Lower).map_err(|_| failed())?;
    let e =
        evd.S().column_vector().iter().map(|x| T::from_real_impl(&T::real_part_impl(x))).collect();
    let v = if compute_v { row_major(evd.U()) } else { Vec::new() };
    Ok(vec![e, v])
}

/// Eigenvalues and right eigenvectors (unit columns) of a general matrix, as complex128
/// (`single`: computed in complex64, as TensorFlow's for float32/complex64 input).
pub(crate) fn eig<T: Scalar>(
    m: MatRef<'_, T>,
    compute_v: bool,
    single: bool,
) -> Result<Vec<Vec<Complex<f64>>>> {
    let n = m.nrows();
    if n == 0 {
        return Ok(vec![Vec::new(), Vec::new()]);
    }
    let data: Vec<Complex<f64>> = (0..n * n).map(|k| Element::to_c128(m[(k / n, k % n)])).collect();
    let (e, v) = if single { eig_f32(n, &data, compute_v)? } else { eig_f64(n, &data, compute_v)? };
    Ok(vec![e, v])
}

macro_rules! eig_in {
    ($name:ident, $r:ty) => {
        fn $name(
            n: usize,
            data: &[Complex<f64>],
            compute_v: bool,
        ) -> Result<(Vec<Complex<f64>>, Vec<Complex<f64>>)> {
            let c = Mat::<Complex<$r>>::from_fn(n, n, |i, j| {
                let z = data[i * n + j];
                Complex::new(z.re as $r, z.im as $r)
            });
            let evd = faer::linalg::solvers::Eigen::<$r>::new(c.as_ref()).map_err(|_| {
                Error::InvalidArgument("Eigen decomposition was not successful.".into())
            })?;
            let widen = |z: &Complex<$r>| Complex::new(z.re as f64, z.im as f64);
            let e = evd.S().column_vector().iter().map(widen).collect();
            let mut v = Vec::new();
            if compute_v {
                let u = evd.U();
                for i in 0..n {
                    for j in 0..n {
                        v.push(widen(&u[(i, j)]));
                    }
                }
            }
            Ok((e, v))
        }
    };
}
eig_in!(eig_f32, f32);
eig_in!(eig_f64, f64);

/// Packed LU (unit lower below the diagonal, U on and above) and the row permutation, as
/// TensorFlow's `Lu` op returns them.
pub(crate) fn lu<T: Scalar>(m: MatRef<'_, T>) -> Result<(Vec<T>, Vec<i64>)> {
    let n = m.nrows();
    if n == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let lu = m.partial_piv_lu();
    if singular(lu.U()) {
        return Err(Error::InvalidArgument("Input is not invertible.".into()));
    }
    let (l, u) = (lu.L(), lu.U());
    let packed = Mat::<T>::from_fn(n, n, |i, j| if j >= i { u[(i, j)] } else { l[(i, j)] });
    let perm = lu.P().arrays().0.iter().map(|&k| k as i64).collect();
    Ok((row_major(packed.as_ref()), perm))
}

/// The batch's matrices of `x`: (count, rows, cols).
pub(crate) fn batch_of(x: &Tensor) -> (usize, usize, usize) {
    let d = x.dims();
    let r = d.len();
    let (rows, cols) = (d[r - 2], d[r - 1]);
    let count = d[..r - 2].iter().product();
    (count, rows, cols)
}
