//! Gradient rules of the special-function rows (`unary.rs`, `binary.rs`), written with ops as
//! TensorFlow registers them in `math_grad.py`: each takes (x, y, upstream g) for unary ops.

use crate::error::Result;
use crate::ops::{self, scalar_like, BinaryOp, UnaryOp};
use crate::tensor::Tensor;
use std::f64::consts::PI;

fn c(like: &Tensor, v: f64) -> Tensor {
    scalar_like(like, v)
}

fn u(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    ops::unary(op, x)
}

/// `where(x == at, value, otherwise)`: TensorFlow's fixed values where a formula divides by 0.
fn at(x: &Tensor, point: f64, value: f64, otherwise: &Tensor) -> Result<Tensor> {
    ops::select(&ops::equal(x, &c(x, point))?, &c(otherwise, value), otherwise)
}

pub fn lgamma(x: &Tensor, _: &Tensor, g: &Tensor) -> Result<Tensor> {
    ops::mul(g, &u(UnaryOp::Digamma, x)?)
}

pub fn digamma(x: &Tensor, _: &Tensor, g: &Tensor) -> Result<Tensor> {
    ops::mul(g, &ops::binary(BinaryOp::Polygamma, &c(x, 1.0), x)?)
}

pub fn erfc(x: &Tensor, _: &Tensor, g: &Tensor) -> Result<Tensor> {
    let d = ops::mul(&c(x, -2.0 / PI.sqrt()), &ops::exp(&ops::neg(&ops::square(x)?)?)?)?;
    ops::mul(g, &d)
}

pub fn erfinv(_: &Tensor, y: &Tensor, g: &Tensor) -> Result<Tensor> {
    ops::mul(g, &ops::mul(&c(y, PI.sqrt() / 2.0), &ops::exp(&ops::square(y)?)?)?)
}

pub fn ndtri(_: &Tensor, y: &Tensor, g: &Tensor) -> Result<Tensor> {
    let half_square = ops::mul(&ops::square(y)?, &c(y, 0.5))?;
    ops::mul(g, &ops::mul(&c(y, (2.0 * PI).sqrt()), &ops::exp(&half_square)?)?)
}

pub fn bessel_i0(x: &Tensor, _: &Tensor, g: &Tensor) -> Result<Tensor> {
    ops::mul(g, &u(UnaryOp::BesselI1, x)?)
}

pub fn bessel_i0e(x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Tensor> {
    let d = ops::sub(&u(UnaryOp::BesselI1e, x)?, &ops::mul(&u(UnaryOp::Sign, x)?, y)?)?;
    ops::mul(g, &d)
}

/// I0(x) - I1(x) / x, and 1 at x = 0 (TensorFlow's value there).
pub fn bessel_i1(x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Tensor> {
    let d = ops::sub(&u(UnaryOp::BesselI0, x)?, &ops::div(y, x)?)?;
    ops::mul(g, &at(x, 0.0, 1.0, &d)?)
}

pub fn bessel_i1e(x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Tensor> {
    let k = ops::add(&u(UnaryOp::Sign, x)?, &u(UnaryOp::Reciprocal, x)?)?;
    let d = ops::sub(&u(UnaryOp::BesselI0e, x)?, &ops::mul(y, &k)?)?;
    ops::mul(g, &at(x, 0.0, 0.5, &d)?)
}

pub fn bessel_k0(x: &Tensor, _: &Tensor, g: &Tensor) -> Result<Tensor> {
    ops::mul(g, &ops::neg(&u(UnaryOp::BesselK1, x)?)?)
}

pub fn bessel_k0e(x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Tensor> {
    ops::mul(g, &ops::sub(y, &u(UnaryOp::BesselK1e, x)?)?)
}

pub fn bessel_k1(x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Tensor> {
    let d = ops::sub(&ops::neg(&u(UnaryOp::BesselK0, x)?)?, &ops::div(y, x)?)?;
    ops::mul(g, &d)
}

pub fn bessel_k1e(x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Tensor> {
    let one_minus = ops::sub(&c(x, 1.0), &u(UnaryOp::Reciprocal, x)?)?;
    let d = ops::sub(&ops::mul(y, &one_minus)?, &u(UnaryOp::BesselK0e, x)?)?;
    ops::mul(g, &d)
}

pub fn bessel_j0(x: &Tensor, _: &Tensor, g: &Tensor) -> Result<Tensor> {
    ops::mul(g, &ops::neg(&u(UnaryOp::BesselJ1, x)?)?)
}

pub fn bessel_j1(x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Tensor> {
    let d = ops::sub(&u(UnaryOp::BesselJ0, x)?, &ops::div(y, x)?)?;
    ops::mul(g, &at(x, 0.0, 0.5, &d)?)
}

pub fn bessel_y0(x: &Tensor, _: &Tensor, g: &Tensor) -> Result<Tensor> {
    ops::mul(g, &ops::neg(&u(UnaryOp::BesselY1, x)?)?)
}

pub fn bessel_y1(x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Tensor> {
    ops::mul(g, &ops::sub(&u(UnaryOp::BesselY0, x)?, &ops::div(y, x)?)?)
}

pub fn dawsn(x: &Tensor, y: &Tensor, g: &Tensor) -> Result<Tensor> {
    let d = ops::sub(&c(x, 1.0), &ops::mul(&c(x, 2.0), &ops::mul(x, y)?)?)?;
    ops::mul(g, &d)
}

pub fn expint(x: &Tensor, _: &Tensor, g: &Tensor) -> Result<Tensor> {
    ops::mul(g, &ops::div(&ops::exp(x)?, x)?)
}

fn half_pi_square(x: &Tensor) -> Result<Tensor> {
    ops::mul(&c(x, PI / 2.0), &ops::square(x)?)
}

pub fn fresnel_cos(x: &Tensor, _: &Tensor, g: &Tensor) -> Result<Tensor> {
    ops::mul(g, &u(UnaryOp::Cos, &half_pi_square(x)?)?)
}

pub fn fresnel_sin(x: &Tensor, _: &Tensor, g: &Tensor) -> Result<Tensor> {
    ops::mul(g, &u(UnaryOp::Sin, &half_pi_square(x)?)?)
}

/// log(x) / (1 - x), and -1 at x = 1.
pub fn spence(x: &Tensor, _: &Tensor, g: &Tensor) -> Result<Tensor> {
    let d = ops::div(&ops::log(x)?, &ops::sub(&c(x, 1.0), x)?)?;
    ops::mul(g, &at(x, 1.0, -1.0, &d)?)
}

/// Gradients of the two-argument special functions (before un-broadcasting), as
/// TensorFlow's: `None` for an argument TensorFlow gives no gradient.
pub fn binary(
    op: BinaryOp,
    x: &Tensor,
    y: &Tensor,
    g: &Tensor,
) -> Result<(Option<Tensor>, Option<Tensor>)> {
    use BinaryOp::*;
    let not_zero = |t: &Tensor| ops::cast(&ops::not_equal(t, &c(t, 0.0))?, t.dtype());
    Ok(match op {
        Igamma | Igammac => {
            // d/dx P(a, x) = exp(-x + (a - 1) log x - lgamma(a)); Q's is its negation.
            let a_minus_1_log_x = ops::mul(&ops::sub(x, &c(x, 1.0))?, &ops::log(y)?)?;
            let log_d = ops::sub(&ops::sub(&a_minus_1_log_x, y)?, &u(UnaryOp::Lgamma, x)?)?;
            let (da, dx) = (ops::binary(IgammaGradA, x, y)?, ops::exp(&log_d)?);
            let (da, dx) = if op == Igamma { (da, dx) } else { (ops::neg(&da)?, ops::neg(&dx)?) };
            (Some(ops::mul(g, &da)?), Some(ops::mul(g, &dx)?))
        }
        // Zeta(x, q): only q has a gradient, -x zeta(x + 1, q).
        Zeta => {
            let d = ops::mul(&ops::neg(x)?, &ops::binary(Zeta, &ops::add(x, &c(x, 1.0))?, y)?)?;
            (None, Some(ops::mul(g, &d)?))
        }
        Polygamma => {
            let d = ops::binary(Polygamma, &ops::add(x, &c(x, 1.0))?, y)?;
            (None, Some(ops::mul(g, &d)?))
        }
        Xlogy => (
            Some(ops::mul(g, &ops::binary(Xlogy, &not_zero(x)?, y)?)?),
            Some(ops::mul(g, &ops::binary(Xdivy, x, y)?)?),
        ),
        Xlog1py => (
            Some(ops::mul(g, &ops::binary(Xlog1py, &not_zero(x)?, y)?)?),
            Some(ops::mul(g, &ops::binary(Xdivy, x, &ops::add(y, &c(y, 1.0))?)?)?),
        ),
        Xdivy => (
            Some(ops::mul(g, &ops::binary(Xdivy, &not_zero(x)?, y)?)?),
            Some(ops::mul(g, &ops::binary(Xdivy, &ops::neg(x)?, &ops::square(y)?)?)?),
        ),
        // TensorFlow's NextAfterGrad: the upstream for x1, zeros for x2.
        NextAfter => (Some(g.clone()), Some(ops::zeros_like(y)?)),
        _ => (None, None),
    })
}
