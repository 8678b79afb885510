//! Matrix helpers composed of other primitives (so they run on any device and differentiate):
//! adjoint, band part, diagonal part, diagonal matrices and setting a diagonal. The gradient
//! rules of the decompositions are written with them.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::static_shape::static_dims;
use crate::ops::unary::UnaryOp;
use crate::ops::{self, MatMulAttrs};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// The last two sizes of `x`, which the masks below need when the op is recorded.
fn matrix_dims(x: &Tensor) -> Result<(usize, usize)> {
    let d = static_dims(x);
    let r = d.len();
    if r < 2 {
        return Err(Error::InvalidArgument(format!(
            "input must be at least 2-dim, received shape: {}",
            x.shape()
        )));
    }
    match (d[r - 2], d[r - 1]) {
        (Some(m), Some(n)) => Ok((m, n)),
        _ => Err(Error::Unimplemented(
            "this linear-algebra step needs the matrix sizes known when the function is traced"
                .into(),
        )),
    }
}

/// A constant bool `[m, n]` mask from a predicate on (row, column).
fn mask(m: usize, n: usize, keep: impl Fn(i64, i64) -> bool) -> Tensor {
    let data: Vec<bool> =
        (0..m * n).map(|k| keep((k / n.max(1)) as i64, (k % n.max(1)) as i64)).collect();
    Tensor::from_vec(data, Shape(vec![m, n]))
}

/// `tf.linalg.adjoint`: the conjugate transpose of the last two axes.
pub fn adjoint(x: &Tensor) -> Result<Tensor> {
    let r = x.rank() as i64;
    let mut perm: Vec<i64> = (0..r).collect();
    perm.swap((r - 2) as usize, (r - 1) as usize);
    let t = ops::transpose(x, Some(perm.as_slice()))?;
    if x.dtype().is_complex() {
        ops::unary(UnaryOp::Conj, &t)
    } else {
        Ok(t)
    }
}

/// `tf.linalg.band_part`: keeps `lower` subdiagonals and `upper` superdiagonals (negative:
/// all), zeros elsewhere (NaN included).
pub fn band_part(x: &Tensor, lower: i64, upper: i64) -> Result<Tensor> {
    let (m, n) = matrix_dims(x)?;
    let keep = mask(m, n, |i, j| (lower < 0 || i - j <= lower) && (upper < 0 || j - i <= upper));
    ops::select(&keep, x, &ops::zeros_like(x)?)
}

/// `tf.linalg.diag_part` of the main diagonal: `[..., min(m, n)]`.
pub fn diag_part(x: &Tensor) -> Result<Tensor> {
    let (m, n) = matrix_dims(x)?;
    let eye = mask(m, n, |i, j| i == j);
    let on = ops::select(&eye, x, &ops::zeros_like(x)?)?;
    let rows = ops::reduce_sum(&on, Some(&[-1]), false)?;
    if m <= n {
        return Ok(rows);
    }
    let r = rows.rank();
    let begin = vec![0i64; r];
    let mut size: Vec<i64> = vec![-1; r];
    size[r - 1] = n as i64;
    ops::slice(&rows, &begin, &size)
}

/// `tf.linalg.diag` of a batch of vectors: square matrices with them on the diagonal.
pub fn diag(v: &Tensor) -> Result<Tensor> {
    let d = static_dims(v);
    let n = d.last().copied().flatten().ok_or_else(|| {
        Error::Unimplemented("diag needs the vector size known when the function is traced".into())
    })?;
    let eye = mask(n, n, |i, j| i == j);
    let col = ops::expand_dims(v, -1)?;
    // Select broadcasts the column along the last axis; the mask keeps the diagonal.
    ops::select(&eye, &col, &ops::zeros_like(&col)?)
}

/// `tf.linalg.set_diag` of the main diagonal of square or rectangular matrices.
pub fn set_diag(x: &Tensor, d: &Tensor) -> Result<Tensor> {
    let (m, n) = matrix_dims(x)?;
    let eye = mask(m, n, |i, j| i == j);
    // d is [..., min(m, n)]; pad it to [..., m] as the column to spread along each row.
    let p = m.min(n);
    let d = if m > p {
        let r = d.rank();
        let mut pads = vec![(0i64, 0i64); r];
        pads[r - 1] = (0, (m - p) as i64);
        ops::pad(d, &pads, crate::ops::shape_ops::PadMode::Constant, 0.0)?
    } else {
        d.clone()
    };
    let col = ops::expand_dims(&d, -1)?;
    ops::select(&eye, &col, x)
}

/// `x @ y` with adjoint flags.
pub fn mm(x: &Tensor, y: &Tensor, adjoint_a: bool, adjoint_b: bool) -> Result<Tensor> {
    ops::matmul(x, y, MatMulAttrs { adjoint_a, adjoint_b, ..Default::default() })
}

/// An identity of `x`'s dtype with its batch dims.
pub fn eye_like(x: &Tensor, n: usize) -> Result<Tensor> {
    let d = x.dims();
    let batch: Vec<i64> = d[..d.len() - 2].iter().map(|&k| k as i64).collect();
    crate::ops::math::eye(n, n, &batch, x.dtype())
}

/// TensorFlow's `_SafeReciprocal`: `x / (x^2 + 1e-20)`, finite where `x` is 0.
pub fn safe_reciprocal(x: &Tensor) -> Result<Tensor> {
    use crate::ops::binary::BinaryOp;
    let eps = ops::scalar_like(x, 1e-20);
    let den = ops::binary(BinaryOp::Add, &ops::binary(BinaryOp::Mul, x, x)?, &eps)?;
    ops::binary(BinaryOp::Mul, x, &ops::unary(UnaryOp::Reciprocal, &den)?)
}

/// The real part as `dtype` (a complex dtype keeps a zero imaginary part).
pub fn real_as(x: &Tensor, dtype: DType) -> Result<Tensor> {
    if !x.dtype().is_complex() {
        return ops::cast(x, dtype);
    }
    ops::cast(&ops::unary(UnaryOp::Real, x)?, dtype)
}
