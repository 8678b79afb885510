//! Gradients of element-wise primitives: unary math, binary arithmetic (summed back over
//! broadcast axes), casts and `where`.

use super::{conj, operand_dims, unbroadcast};
use crate::error::Result;
use crate::ops::binary::BinaryOp;
use crate::ops::unary::{UnaryGrad, UnaryOp};
use crate::ops::zeros_like;
use crate::ops::{self, scalar_like};
use crate::tensor::Tensor;

/// `g` times the (conjugated) local derivative `d`.
fn chain(g: &Tensor, d: &Tensor) -> Result<Tensor> {
    ops::mul(g, &conj(d)?)
}

fn c(like: &Tensor, v: f64) -> Tensor {
    scalar_like(like, v)
}

/// The declared rule (`ops/unary.rs`).
pub(crate) fn unary(op: UnaryOp, x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Option<Tensor>> {
    match op.decl().grad {
        UnaryGrad::Rule(rule) => rule(x, y, g).map(Some),
        UnaryGrad::NotDifferentiable => Ok(None),
    }
}

pub(crate) fn binary(
    op: BinaryOp,
    x: &Tensor,
    y: &Tensor,
    z: &Tensor,
    g: &Tensor,
) -> Result<Vec<Option<Tensor>>> {
    use BinaryOp::*;
    let (gx, gy) = match op {
        Add => (g.clone(), g.clone()),
        Sub => (g.clone(), ops::neg(g)?),
        Mul => (chain(g, y)?, chain(g, x)?),
        Div => {
            let gx = ops::div(g, &conj(y)?)?;
            // d/dy (x / y) = -x / y^2, computed as TensorFlow does: (-x / y) / y.
            let d = ops::div(&ops::div(&ops::neg(x)?, y)?, y)?;
            (gx, chain(g, &d)?)
        }
        Pow => {
            let gx = chain(g, &ops::mul(y, &ops::pow(x, &ops::sub(y, &c(y, 1.0))?)?)?)?;
            // log(x) where x > 0, else 0 (TensorFlow's choice for real inputs).
            let log_x = if x.dtype().is_complex() {
                ops::log(x)?
            } else {
                let positive = ops::greater(x, &c(x, 0.0))?;
                let safe = ops::select(&positive, x, &ops::ones_like(x)?)?;
                ops::select(&positive, &ops::log(&safe)?, &zeros_like(x)?)?
            };
            (gx, chain(g, &ops::mul(z, &log_x)?)?)
        }
        Maximum | Minimum => {
            // Ties send the gradient to x, as TensorFlow's MaximumGrad/MinimumGrad do.
            let x_wins = match op {
                Maximum => ops::greater_equal(x, y)?,
                _ => ops::less_equal(x, y)?,
            };
            let zeros = zeros_like(g)?;
            (ops::select(&x_wins, g, &zeros)?, ops::select(&x_wins, &zeros, g)?)
        }
        Atan2 => {
            // z = atan2(x, y): dz/dx = y / (x^2 + y^2), dz/dy = -x / (x^2 + y^2).
            let inv = ops::div(g, &ops::add(&ops::square(x)?, &ops::square(y)?)?)?;
            (ops::mul(&inv, y)?, ops::mul(&inv, &ops::neg(x)?)?)
        }
        FloorMod => {
            let q = ops::binary(FloorDiv, x, y)?;
            (g.clone(), ops::mul(g, &ops::neg(&q)?)?)
        }
        Complex => (ops::unary(UnaryOp::Real, g)?, ops::unary(UnaryOp::Imag, g)?),
        _ if op.is_special() => {
            let (gx, gy) = crate::ops::special_grads::binary(op, x, y, g)?;
            let (x_dims, y_dims) = (operand_dims(x), operand_dims(y));
            let gx = gx.map(|gx| unbroadcast(&gx, x, &[y_dims])).transpose()?;
            let gy = gy.map(|gy| unbroadcast(&gy, y, &[x_dims])).transpose()?;
            return Ok(vec![gx, gy]);
        }
        _ => return Ok(vec![None, None]),
    };
    let (x_dims, y_dims) = (operand_dims(x), operand_dims(y));
    Ok(vec![Some(unbroadcast(&gx, x, &[y_dims])?), Some(unbroadcast(&gy, y, &[x_dims])?)])
}

/// Cast passes the gradient back between inexact dtypes only (complex to real keeps the real
/// part), as TensorFlow's CastGrad.
pub(crate) fn cast(x: &Tensor, g: &Tensor) -> Result<Option<Tensor>> {
    let inexact = |d: crate::dtype::DType| d.is_floating() || d.is_complex();
    if !inexact(x.dtype()) || !inexact(g.dtype()) {
        return Ok(None);
    }
    let g = if g.dtype().is_complex() && !x.dtype().is_complex() {
        ops::unary(UnaryOp::Real, g)?
    } else {
        g.clone()
    };
    Ok(Some(ops::cast(&g, x.dtype())?))
}

/// `where(cond, x, y)`: the gradient goes to whichever side was chosen.
pub(crate) fn select(inputs: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    let (cond, x, y) = (&inputs[0], &inputs[1], &inputs[2]);
    let zeros = zeros_like(g)?;
    let gx = ops::select(cond, g, &zeros)?;
    let gy = ops::select(cond, &zeros, g)?;
    let (c_dims, x_dims, y_dims) = (operand_dims(cond), operand_dims(x), operand_dims(y));
    Ok(vec![
        None,
        Some(unbroadcast(&gx, x, &[c_dims.clone(), y_dims])?),
        Some(unbroadcast(&gy, y, &[c_dims, x_dims])?),
    ])
}
