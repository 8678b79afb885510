//! TensorFlow's gradient rules for the decompositions (`tensorflow/python/ops/linalg_grad.py`),
//! written with ops so they run on any device and differentiate again.

use super::matrix::{
    adjoint, band_part, diag, diag_part, eye_like, mm, real_as, safe_reciprocal, set_diag,
};
use super::LinalgOp;
use crate::dispatch::apply;
use crate::error::{Error, Result};
use crate::ops::binary::BinaryOp;
use crate::ops::registry::Op;
use crate::ops::static_shape::static_dims;
use crate::ops::unary::UnaryOp;
use crate::ops::{self};
use crate::tensor::Tensor;

fn add(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    ops::binary(BinaryOp::Add, x, y)
}

fn sub(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    ops::binary(BinaryOp::Sub, x, y)
}

fn mul(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    ops::binary(BinaryOp::Mul, x, y)
}

fn neg(x: &Tensor) -> Result<Tensor> {
    ops::unary(UnaryOp::Neg, x)
}

fn half(x: &Tensor) -> Result<Tensor> {
    mul(x, &ops::scalar_like(x, 0.5))
}

/// Runs a linalg op (recorded on tapes, so the rule differentiates again).
fn run(op: LinalgOp, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
    apply(&Op::Linalg(op), inputs)
}

fn triangular_solve(a: &Tensor, b: &Tensor, lower: bool, adjoint: bool) -> Result<Tensor> {
    Ok(run(LinalgOp::MatrixTriangularSolve { lower, adjoint }, &[a, b])?.remove(0))
}

fn inverse_adjoint(a: &Tensor) -> Result<Tensor> {
    Ok(run(LinalgOp::MatrixInverse { adjoint: true }, &[a])?.remove(0))
}

/// `x[..., :, start:start+len]`.
fn columns(x: &Tensor, start: usize, len: usize) -> Result<Tensor> {
    let r = x.rank();
    let mut begin = vec![0i64; r];
    let mut size = vec![-1i64; r];
    begin[r - 1] = start as i64;
    size[r - 1] = len as i64;
    ops::slice(x, &begin, &size)
}

/// `x` with two trailing unit axes (a per-matrix multiplier).
fn per_matrix(x: &Tensor) -> Result<Tensor> {
    ops::expand_dims(&ops::expand_dims(x, -1)?, -1)
}

fn known(x: &Tensor, axis_from_end: usize, what: &str) -> Result<usize> {
    let d = static_dims(x);
    d[d.len() - axis_from_end].ok_or_else(|| {
        Error::Unimplemented(format!(
            "{what} gradient has not been implemented for input with unknown inner matrix shape."
        ))
    })
}

/// The inputs' gradients of `op` from its outputs' gradients (None where none flows).
pub(super) fn gradient(
    op: &LinalgOp,
    inputs: &[Tensor],
    outputs: &[Tensor],
    upstream: &[Option<Tensor>],
) -> Result<Vec<Option<Tensor>>> {
    if upstream.iter().all(Option::is_none) {
        return Ok(vec![None; inputs.len()]);
    }
    // Missing output gradients are zeros, as TensorFlow's tapes fill them.
    let grad = |k: usize| -> Result<Tensor> {
        match upstream.get(k).cloned().flatten() {
            Some(g) => Ok(g),
            None => ops::zeros_like(&outputs[k]),
        }
    };
    let a = &inputs[0];
    match op {
        LinalgOp::Cholesky => {
            let l = &outputs[0];
            let n = known(l, 1, "Cholesky")?;
            let l_inverse = triangular_solve(l, &eye_like(l, n)?, true, false)?;
            let middle = mm(l, &grad(0)?, true, false)?;
            let middle = set_diag(&middle, &half(&diag_part(&middle)?)?)?;
            let middle = band_part(&middle, -1, 0)?;
            let g = mm(&mm(&l_inverse, &middle, true, false)?, &l_inverse, false, false)?;
            let g = add(&g, &adjoint(&g)?)?;
            Ok(vec![Some(half(&g)?)])
        }
        LinalgOp::MatrixInverse { adjoint: adj } => {
            let ainv = &outputs[0];
            let inner = mm(&grad(0)?, ainv, *adj, !*adj)?;
            Ok(vec![Some(neg(&mm(ainv, &inner, !*adj, false)?)?)])
        }
        LinalgOp::MatrixDeterminant => {
            let multipliers = per_matrix(&mul(&grad(0)?, &outputs[0])?)?;
            Ok(vec![Some(mul(&multipliers, &inverse_adjoint(a)?)?)])
        }
        LinalgOp::LogMatrixDeterminant => match upstream.get(1).cloned().flatten() {
            None => Ok(vec![None]),
            Some(g) => Ok(vec![Some(mul(&per_matrix(&g)?, &inverse_adjoint(a)?)?)]),
        },
        LinalgOp::MatrixSolve { adjoint: adj } => {
            let c = &outputs[0];
            let grad_b = run(LinalgOp::MatrixSolve { adjoint: !*adj }, &[a, &grad(0)?])?.remove(0);
            let grad_a = if *adj {
                neg(&mm(c, &grad_b, false, true)?)?
            } else {
                neg(&mm(&grad_b, c, false, true)?)?
            };
            Ok(vec![Some(grad_a), Some(grad_b)])
        }
        LinalgOp::MatrixTriangularSolve { lower, adjoint: adj } => {
            let b = &inputs[1];
            let c = &outputs[0];
            let grad_b = triangular_solve(a, &grad(0)?, *lower, !*adj)?;
            let grad_a = if *adj {
                neg(&mm(c, &grad_b, false, true)?)?
            } else {
                neg(&mm(&grad_b, c, false, true)?)?
            };
            let grad_a =
                if *lower { band_part(&grad_a, -1, 0)? } else { band_part(&grad_a, 0, -1)? };
            // Sum over the batch dims each operand was broadcast along.
            let batch = |t: &Tensor| {
                let mut d = static_dims(t);
                let n = d.len();
                d[n - 2..].fill(Some(1));
                d
            };
            let grad_a = crate::autodiff::rules::unbroadcast(&grad_a, a, &[batch(b)])?;
            let grad_b = crate::autodiff::rules::unbroadcast(&grad_b, b, &[batch(a)])?;
            Ok(vec![Some(grad_a), Some(grad_b)])
        }
        LinalgOp::SelfAdjointEigV2 { compute_v } => {
            let e = &outputs[0];
            let grad_e = grad(0)?;
            let g = if *compute_v {
                let v = &outputs[1];
                let f = eigen_gaps(e)?;
                let inner = add(&diag(&grad_e)?, &mul(&f, &mm(v, &grad(1)?, true, false)?)?)?;
                mm(v, &mm(&inner, v, false, true)?, false, false)?
            } else {
                let v = run(LinalgOp::SelfAdjointEigV2 { compute_v: true }, &[a])?.remove(1);
                mm(&v, &mm(&diag(&grad_e)?, &v, false, true)?, false, false)?
            };
            let g = band_part(&add(&g, &adjoint(&g)?)?, -1, 0)?;
            Ok(vec![Some(set_diag(&g, &half(&diag_part(&g)?)?)?)])
        }
        LinalgOp::Eig { compute_v } => {
            let e = &outputs[0];
            let grad_e = grad(0)?;
            let g = if *compute_v {
                let v = &outputs[1];
                let vt = adjoint(v)?;
                let f = ops::unary(UnaryOp::Conj, &eigen_gaps(e)?)?;
                let vgv = mm(&vt, &grad(1)?, false, false)?;
                let diag_grad_part = diag(&diag_part(&real_as(&vgv, vgv.dtype())?)?)?;
                let mid = add(
                    &diag(&grad_e)?,
                    &mul(
                        &f,
                        &sub(
                            &vgv,
                            &mm(&mm(&vt, v, false, false)?, &diag_grad_part, false, false)?,
                        )?,
                    )?,
                )?;
                run(
                    LinalgOp::MatrixSolve { adjoint: false },
                    &[&vt, &mm(&mid, &vt, false, false)?],
                )?
                .remove(0)
            } else {
                let v = run(LinalgOp::Eig { compute_v: true }, &[a])?.remove(1);
                let vt = adjoint(&v)?;
                run(
                    LinalgOp::MatrixSolve { adjoint: false },
                    &[&vt, &mm(&diag(&grad_e)?, &vt, false, false)?],
                )?
                .remove(0)
            };
            Ok(vec![Some(real_as(&g, a.dtype())?)])
        }
        LinalgOp::Qr { .. } => {
            Ok(vec![Some(qr_grad(a, &outputs[0], &outputs[1], &grad(0)?, &grad(1)?)?)])
        }
        LinalgOp::Svd { compute_uv, full_matrices } => {
            Ok(vec![Some(svd_grad(a, outputs, &grad(0)?, upstream, *compute_uv, *full_matrices)?)])
        }
        LinalgOp::Lu { .. } => Err(Error::Internal("Lu has no gradient".into())),
    }
}

/// `f[i, j] = 1 / (e[j] - e[i])` off the diagonal (TensorFlow's safe reciprocal), 0 on it.
fn eigen_gaps(e: &Tensor) -> Result<Tensor> {
    let gaps = sub(&ops::expand_dims(e, -2)?, &ops::expand_dims(e, -1)?)?;
    set_diag(&safe_reciprocal(&gaps)?, &ops::zeros_like(e)?)
}

/// `x @ inv(r)^H` for an upper triangular `r`.
fn right_solve(x: &Tensor, r: &Tensor) -> Result<Tensor> {
    adjoint(&triangular_solve(r, &adjoint(x)?, false, false)?)
}

fn qr_square_and_deep(q: &Tensor, r: &Tensor, dq: &Tensor, dr: &Tensor) -> Result<Tensor> {
    let qdq = mm(q, dq, true, false)?;
    let qdq_ = sub(&qdq, &adjoint(&qdq)?)?;
    let rdr = mm(r, dr, false, true)?;
    let rdr_ = sub(&rdr, &adjoint(&rdr)?)?;
    let tril = band_part(&add(&qdq_, &rdr_)?, -1, 0)?;
    let grad_a = mm(q, &add(dr, &right_solve(&tril, r)?)?, false, false)?;
    let grad_b = right_solve(&sub(dq, &mm(q, &qdq, false, false)?)?, r)?;
    let mut ret = add(&grad_a, &grad_b)?;
    if q.dtype().is_complex() {
        let m = sub(&rdr, &adjoint(&qdq)?)?;
        let eyem = set_diag(&ops::zeros_like(&m)?, &diag_part(&m)?)?;
        let correction = sub(&eyem, &real_as(&eyem, q.dtype())?)?;
        ret = add(&ret, &right_solve(&mm(q, &adjoint(&correction)?, false, false)?, r)?)?;
    }
    Ok(ret)
}

fn qr_grad(a: &Tensor, q: &Tensor, r: &Tensor, dq: &Tensor, dr: &Tensor) -> Result<Tensor> {
    let (r_rows, r_cols) = (known(r, 2, "Qr")?, known(r, 1, "Qr")?);
    let (q_rows, q_cols) = (known(q, 2, "Qr")?, known(q, 1, "Qr")?);
    if r_rows > r_cols && q_rows == q_cols {
        return Err(Error::Unimplemented(format!(
            "QrGrad not implemented when nrows > ncols and full_matrices is true. Received \
             r.shape={:?} with nrows={r_rows}and ncols={r_cols}.",
            r.dims()
        )));
    }
    let (m, n) = (q_rows, r_cols);
    if m >= n {
        return qr_square_and_deep(q, r, dq, dr);
    }
    let y = columns(a, m, n - m)?;
    let u = columns(r, 0, m)?;
    let dv = columns(dr, m, n - m)?;
    let du = columns(dr, 0, m)?;
    let dy = mm(q, &dv, false, false)?;
    let dx = qr_square_and_deep(q, &u, &add(dq, &mm(&y, &dv, false, true)?)?, &du)?;
    ops::concat(&[&dx, &dy], -1)
}

fn svd_grad(
    a: &Tensor,
    outputs: &[Tensor],
    grad_s: &Tensor,
    upstream: &[Option<Tensor>],
    compute_uv: bool,
    full_matrices: bool,
) -> Result<Tensor> {
    let grad_s_mat = diag(grad_s)?;
    if !compute_uv {
        let outs = run(LinalgOp::Svd { compute_uv: true, full_matrices: false }, &[a])?;
        let (u, v) = (&outs[1], &outs[2]);
        return mm(u, &mm(&grad_s_mat, v, false, true)?, false, false);
    }
    let (mut m, mut n) = (known(a, 2, "SVD")?, known(a, 1, "SVD")?);
    let s = &outputs[0];
    let (mut u, mut v) = (outputs[1].clone(), outputs[2].clone());
    let zeros_or = |k: usize| -> Result<Tensor> {
        match upstream.get(k).cloned().flatten() {
            Some(g) => Ok(g),
            None => ops::zeros_like(&outputs[k]),
        }
    };
    let (mut grad_u, mut grad_v) = (zeros_or(1)?, zeros_or(2)?);
    let use_adjoint = m > n;
    if use_adjoint {
        std::mem::swap(&mut m, &mut n);
        std::mem::swap(&mut u, &mut v);
        std::mem::swap(&mut grad_u, &mut grad_v);
    }
    if full_matrices && n - m > 1 {
        return Err(Error::Unimplemented(format!(
            "svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. \
             Received: m={m} and n={n}."
        )));
    }
    let s_mat = diag(s)?;
    let s2 = mul(s, s)?;
    let f = eigen_gaps(&s2)?;
    let s_inv_mat = diag(&safe_reciprocal(s)?)?;
    let v1 = columns(&v, 0, m)?;
    let grad_v1 = columns(&grad_v, 0, m)?;
    let u_gu = mm(&u, &grad_u, true, false)?;
    let v_gv = mm(&v1, &grad_v1, true, false)?;
    let f_u = mul(&f, &u_gu)?;
    let f_v = mul(&f, &v_gv)?;
    let term1_nouv = add(
        &add(&grad_s_mat, &mm(&add(&f_u, &adjoint(&f_u)?)?, &s_mat, false, false)?)?,
        &mm(&s_mat, &add(&f_v, &adjoint(&f_v)?)?, false, false)?,
    )?;
    let term1 = mm(&u, &mm(&term1_nouv, &v1, false, true)?, false, false)?;
    let mut g = if m == n {
        term1
    } else {
        let gv1t = adjoint(&grad_v1)?;
        let gv1t_v1 = mm(&gv1t, &v1, false, false)?;
        let mut term2_nous = sub(&gv1t, &mm(&gv1t_v1, &v1, false, true)?)?;
        if full_matrices {
            let v2 = columns(&v, m, n - m)?;
            let grad_v2 = columns(&grad_v, m, n - m)?;
            let v1t_gv2 = mm(&v1, &grad_v2, true, false)?;
            term2_nous = sub(&term2_nous, &mm(&v1t_gv2, &v2, false, true)?)?;
        }
        let u_s_inv = mm(&u, &s_inv_mat, false, false)?;
        add(&term1, &mm(&u_s_inv, &term2_nous, false, false)?)?
    };
    if a.dtype().is_complex() {
        let l = set_diag(&ops::zeros_like(&v_gv)?, &diag_part(&v_gv)?)?;
        let term3_nouv = mm(&s_inv_mat, &sub(&adjoint(&l)?, &l)?, false, false)?;
        let term3 = half(&mm(&u, &mm(&term3_nouv, &v1, false, true)?, false, false)?)?;
        g = add(&g, &term3)?;
    }
    if use_adjoint {
        adjoint(&g)
    } else {
        Ok(g)
    }
}
