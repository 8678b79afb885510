"""`tf.math.special` and the special functions of `tf.math`: one element-wise primitive each
(`src/ops/unary.rs`, `src/ops/binary.rs`, `src/ops/betainc.rs`), computed in float64."""

import json

from ferroflow import _core
from ferroflow.array_ops import convert_to_tensor
from ferroflow.math import _binary, _unary

lgamma = _unary("lgamma", "log|Gamma(x)| element-wise (+inf at the poles).")
digamma = _unary("digamma", "The digamma function psi(x) (NaN at 0, -1, -2, ...).")
erfc = _unary("erfc", "The complementary error function 1 - erf(x).")
erfinv = _unary("erfinv", "The inverse error function (NaN outside [-1, 1]).")
ndtri = _unary("ndtri", "The inverse of the standard normal CDF (NaN outside [0, 1]).")
bessel_i0 = _unary("bessel_i0", "The modified Bessel function I0(x).")
bessel_i0e = _unary("bessel_i0e", "exp(-|x|) * I0(x).")
bessel_i1 = _unary("bessel_i1", "The modified Bessel function I1(x).")
bessel_i1e = _unary("bessel_i1e", "exp(-|x|) * I1(x).")
bessel_k0 = _unary("bessel_k0", "The modified Bessel function K0(x) (+inf for x <= 0).")
bessel_k0e = _unary("bessel_k0e", "exp(x) * K0(x).")
bessel_k1 = _unary("bessel_k1", "The modified Bessel function K1(x) (+inf for x <= 0).")
bessel_k1e = _unary("bessel_k1e", "exp(x) * K1(x).")
bessel_j0 = _unary("bessel_j0", "The Bessel function of the first kind J0(x).")
bessel_j1 = _unary("bessel_j1", "The Bessel function of the first kind J1(x).")
bessel_y0 = _unary("bessel_y0", "The Bessel function of the second kind Y0(x) (-inf for x <= 0).")
bessel_y1 = _unary("bessel_y1", "The Bessel function of the second kind Y1(x) (-inf for x <= 0).")
dawsn = _unary("dawsn", "Dawson's integral exp(-x^2) * integral_0^x exp(t^2) dt.")
expint = _unary("expint", "The exponential integral Ei(x) (NaN for x < 0).")
fresnel_cos = _unary("fresnel_cos", "The Fresnel cosine integral of cos(pi t^2 / 2).")
fresnel_sin = _unary("fresnel_sin", "The Fresnel sine integral of sin(pi t^2 / 2).")
spence = _unary("spence", "Spence's function integral_1^x log(t) / (1 - t) dt (NaN for x < 0).")

igamma = _binary("igamma", "The regularized lower incomplete gamma function P(a, x).")
igammac = _binary("igammac", "The regularized upper incomplete gamma function Q(a, x).")
zeta = _binary("zeta", "The Hurwitz zeta function sum_k (q + k)^-x.")
polygamma = _binary("polygamma", "The polygamma function psi^(a)(x) (a a non-negative integer).")
xlogy = _binary("xlogy", "x * log(y), and 0 where x is 0.")
xlog1py = _binary("xlog1py", "x * log1p(y), and 0 where x is 0.")
xdivy = _binary("xdivy", "x / y, and 0 where x is 0.")
nextafter = _binary("nextafter", "The next representable value after x1 towards x2.")


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b) (float32/float64; the non-scalar
    arguments share one shape). Only ``x`` has a gradient, as in TensorFlow."""
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype_hint=a.dtype)
    x = convert_to_tensor(x, dtype_hint=a.dtype)
    return _core.raw_op("Betainc", [a, b, x], json.dumps({}))[0]


def erfcinv(x, name=None):
    """The inverse complementary error function, ``-ndtri(x / 2) / sqrt(2)`` as TensorFlow."""
    x = convert_to_tensor(x)
    return -ndtri(0.5 * x) * 0.7071067811865476
