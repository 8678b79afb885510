"""`tf.math`: element-wise math, reductions, scans and comparisons."""

import types as _types

from ferroflow import _core, _dispatch
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import cast, convert_to_tensor, top_k  # noqa: F401 - tf.math API
from ferroflow.dtypes import enum_of as _enum


# The elementwise and reduction factories catch their own errors for `_dispatch` (a ragged or
# other composite argument raises on conversion): no wrapper frame on the tensor path.
def _unary(op, doc):
    def fn(x, name=None):
        try:
            return _core.unary(op, x)
        except Exception:
            return _dispatch.dispatch_on_error(fn, (x,), {})

    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = doc
    return _dispatch.declare(fn, "unary")


def _binary(op, doc):
    def fn(x, y, name=None):
        try:
            return _core.binary(op, x, y)
        except Exception:
            return _dispatch.dispatch_on_error(fn, (x, y), {})

    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = doc
    return _dispatch.declare(fn, "binary")


negative = _unary("negative", "-x element-wise.")
abs = _unary("abs", "|x| element-wise; complex inputs give their magnitude.")  # noqa: A001
sign = _unary("sign", "-1, 0 or 1 by the sign of x (x/|x| for complex).")
square = _unary("square", "x * x element-wise.")
sqrt = _unary("sqrt", "Square root element-wise.")
rsqrt = _unary("rsqrt", "1 / sqrt(x) element-wise.")
exp = _unary("exp", "e**x element-wise.")
expm1 = _unary("expm1", "e**x - 1 element-wise, accurate near 0.")
log = _unary("log", "Natural logarithm element-wise.")
log1p = _unary("log1p", "log(1 + x) element-wise, accurate near 0.")
sin = _unary("sin", "Sine element-wise.")
cos = _unary("cos", "Cosine element-wise.")
tan = _unary("tan", "Tangent element-wise.")
asin = _unary("asin", "Inverse sine element-wise (NaN outside [-1, 1]).")
acos = _unary("acos", "Inverse cosine element-wise (NaN outside [-1, 1]).")
atan = _unary("atan", "Inverse tangent element-wise.")
sinh = _unary("sinh", "Hyperbolic sine element-wise.")
cosh = _unary("cosh", "Hyperbolic cosine element-wise.")
asinh = _unary("asinh", "Inverse hyperbolic sine element-wise.")
acosh = _unary("acosh", "Inverse hyperbolic cosine element-wise (NaN below 1).")
atanh = _unary("atanh", "Inverse hyperbolic tangent element-wise (+-inf at +-1).")
tanh = _unary("tanh", "Hyperbolic tangent element-wise.")
sigmoid = _unary("sigmoid", "1 / (1 + exp(-x)) element-wise.")
erf = _unary("erf", "The Gauss error function element-wise.")
floor = _unary("floor", "Largest integer not greater than x.")
ceil = _unary("ceil", "Smallest integer not less than x.")
round = _unary("round", "Rounds half to even, element-wise.")  # noqa: A001
reciprocal = _unary("reciprocal", "1 / x element-wise.")
logical_not = _unary("logical_not", "NOT of a bool tensor.")
is_nan = _unary("is_nan", "True where x is NaN.")
is_inf = _unary("is_inf", "True where x is infinite.")
is_finite = _unary("is_finite", "True where x is finite.")
_real = _unary("real", "Real part of a complex tensor.")
_imag = _unary("imag", "Imaginary part of a complex tensor.")
_conj = _unary("conj", "Complex conjugate.")


def _plain_tensor(x):
    """`x` as a tensor, or None for a composite (its dispatch serves it) or a misfit."""
    from ferroflow.type_spec import CompositeTensor

    if isinstance(x, CompositeTensor):
        return None
    try:
        return convert_to_tensor(x)
    except (TypeError, ValueError):
        return None


def _composite_call(api, value, fallback):
    """`api` on a composite `value`: its registered handler (a ragged tensor's applies `api`
    to its flat values), else `fallback` (the op itself, which reports the misfit)."""
    handler = _dispatch.find(api, (value,), {})
    return handler() if handler is not None else fallback(value)


def _is_numeric(dtype):
    return dtype.is_floating or dtype.is_integer or dtype.is_complex or dtype.is_quantized


def real(input, name=None):  # noqa: A002
    """Real part of a complex tensor; a real tensor itself (its gradient passes through), as
    TensorFlow's; TypeError for bool and strings."""
    x = _plain_tensor(input)
    if x is None:
        return _composite_call(real, input, _real)
    if x.dtype.is_complex:
        return _real(input)
    if not _is_numeric(x.dtype):
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {x.dtype!r}")
    return x


def imag(input, name=None):  # noqa: A002
    """Imaginary part of a complex tensor; zeros like any other tensor (bool and strings too),
    which no gradient reaches, as TensorFlow's."""
    x = _plain_tensor(input)
    if x is None:
        return _composite_call(imag, input, _imag)
    if x.dtype.is_complex:
        return _imag(input)
    from ferroflow.array_ops import zeros_like

    return zeros_like(x)


def conj(x, name=None):
    """Complex conjugate; a real tensor itself, as TensorFlow's; TypeError for bool and
    strings."""
    t = _plain_tensor(x)
    if t is None:
        return _composite_call(conj, x, _conj)
    if t.dtype.is_complex:
        return _conj(x)
    if not _is_numeric(t.dtype):
        raise TypeError(f"Expected numeric or variant tensor, got dtype {t.dtype!r}.")
    return t


real = _dispatch.declare(real, "unary")
imag = _dispatch.declare(imag, "unary")
conj = _dispatch.declare(conj, "unary")

angle = _unary("angle", "Argument of a complex number (0 or pi for reals).")

add = _binary("add", "x + y with broadcasting.")
subtract = _binary("subtract", "x - y with broadcasting.")
multiply = _binary("multiply", "x * y with broadcasting.")
truediv = _binary("truediv", "x / y; integers are divided as floats (int32 -> float64).")
divide = truediv
floordiv = _binary("floordiv", "x // y, rounding toward negative infinity.")
floormod = _binary("floormod", "Remainder of floor division; takes the sign of y.")
mod = floormod
pow = _binary("pow", "x ** y element-wise.")  # noqa: A001
maximum = _binary("maximum", "Element-wise maximum (NaN propagates).")
minimum = _binary("minimum", "Element-wise minimum (NaN propagates).")
atan2 = _binary("atan2", "Element-wise arctangent of y / x, called as atan2(y, x).")
squared_difference = _binary("squared_difference", "(x - y)**2 element-wise.")
equal = _binary("equal", "x == y element-wise.")
not_equal = _binary("not_equal", "x != y element-wise.")
less = _binary("less", "x < y element-wise.")
less_equal = _binary("less_equal", "x <= y element-wise.")
greater = _binary("greater", "x > y element-wise.")
greater_equal = _binary("greater_equal", "x >= y element-wise.")
logical_and = _binary("logical_and", "AND of bool tensors.")
logical_or = _binary("logical_or", "OR of bool tensors.")
logical_xor = _binary("logical_xor", "XOR of bool tensors.")


@_dispatch.add_dispatch_support(kind="binary")
def divide_no_nan(x, y, name=None):
    """x / y, and 0 where y is 0 (integers divide as floats, as in truediv)."""
    y = convert_to_tensor(y, dtype_hint=convert_to_tensor(x).dtype)
    is_zero = _core.binary("equal", y, _core.zeros([], y._dtype_enum))
    safe = _core.where_(is_zero, _core.ones([], y._dtype_enum), y)
    quotient = truediv(x, safe)
    return _core.where_(is_zero, _core.zeros([], quotient._dtype_enum), quotient)


def _reduction(op, doc):
    def fn(input_tensor, axis=None, keepdims=False, name=None):
        try:
            return _core.reduce(op, input_tensor, axis, bool(keepdims))
        except Exception:
            return _dispatch.dispatch_on_error(fn, (input_tensor, axis, keepdims), {})

    fn.__name__ = fn.__qualname__ = f"reduce_{op}"
    fn.__doc__ = doc
    return _dispatch.declare(fn)


reduce_sum = _reduction("sum", "Sum over ``axis`` (all axes when None).")
reduce_prod = _reduction("prod", "Product over ``axis``.")
reduce_max = _reduction("max", "Maximum over ``axis`` (NaN propagates).")
reduce_min = _reduction("min", "Minimum over ``axis``.")
reduce_all = _reduction("all", "Logical AND over ``axis``.")
reduce_any = _reduction("any", "Logical OR over ``axis``.")
reduce_mean = _reduction("mean", "Mean over ``axis``; integer means truncate.")
reduce_variance = _reduction("variance", "Population variance over ``axis``.")
reduce_std = _reduction("std", "Population standard deviation over ``axis``.")
reduce_logsumexp = _reduction("logsumexp", "log(sum(exp(x))) over ``axis``, computed stably.")


def count_nonzero(input, axis=None, keepdims=None, dtype=_dtypes.int64, name=None):  # noqa: A002
    return _core.count_nonzero(input, axis, bool(keepdims), _enum(dtype))


def argmax(input, axis=None, output_type=_dtypes.int64, name=None):  # noqa: A002
    return _core.arg_reduce("argmax", input, 0 if axis is None else axis, _enum(output_type))


def argmin(input, axis=None, output_type=_dtypes.int64, name=None):  # noqa: A002
    return _core.arg_reduce("argmin", input, 0 if axis is None else axis, _enum(output_type))


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    return _core.cumulative("cumsum", x, axis, exclusive, reverse)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    return _core.cumulative("cumprod", x, axis, exclusive, reverse)


@_dispatch.add_dispatch_support
def add_n(inputs, name=None):
    return _core.add_n(inputs)


@_dispatch.add_dispatch_support(kind="unary")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``maximum(minimum(t, max), min)``, as TensorFlow composes it: where the minimum is
    above the maximum, the result is the minimum (the kernel alone would give the maximum)."""
    clipped = _core.clip_by_value(t, clip_value_min, clip_value_max)
    clipped = maximum(clipped, cast(clip_value_min, clipped.dtype))
    if hasattr(t, "shape"):
        # TensorFlow refuses bounds that broadcast `t` to a larger shape.
        clipped.shape.merge_with(t.shape)
    return clipped


@_dispatch.add_dispatch_support(kind="binary")
def complex(real, imag, name=None):  # noqa: A001
    return _core.binary("complex", real, imag)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x**2, axis), epsilon))``, as TensorFlow computes it."""
    axis = dim if axis is None and dim is not None else axis
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        # TensorFlow normalizes the real and imaginary parts by the modulus norm.
        re, im = real(x), imag(x)
        square_sum = reduce_sum(square(re) + square(im), axis, keepdims=True)
        inv_norm = rsqrt(maximum(square_sum, cast(epsilon, re.dtype)))
        return complex(re * inv_norm, im * inv_norm)
    square_sum = reduce_sum(square(x), axis, keepdims=True)
    return x * rsqrt(maximum(square_sum, cast(epsilon, x.dtype)))


def _monotonic(x, test):
    from ferroflow.array_ops import reshape

    flat = reshape(convert_to_tensor(x), [-1])
    return reduce_all(test(flat[1:], flat[:-1]))


def is_non_decreasing(x, name=None):
    """True when every element is >= the one before (row-major order)."""
    return _monotonic(x, greater_equal)


def is_strictly_increasing(x, name=None):
    """True when every element is > the one before (row-major order)."""
    return _monotonic(x, greater)


# Composed in their own module, which builds on this one.
# The special functions and the compositions of issue 19's tf.math family.
from ferroflow import math_special as _math_special  # noqa: E402
from ferroflow.math_compositions import (  # noqa: E402, F401
    accumulate_n,
    bincount,
    confusion_matrix,
    cumulative_logsumexp,
    in_top_k,
    invert_permutation,
    lbeta,
    log_sigmoid,
    multiply_no_nan,
    polyval,
    reciprocal_no_nan,
    reduce_euclidean_norm,
    rint,
    softsign,
    zero_fraction,
)
from ferroflow.math_extra_ops import scalar_mul  # noqa: E402, F401
from ferroflow.math_sobol import sobol_sample  # noqa: E402, F401
from ferroflow.math_special import (  # noqa: E402, F401
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    betainc,
    digamma,
    erfc,
    erfcinv,
    erfinv,
    igamma,
    igammac,
    lgamma,
    ndtri,
    nextafter,
    polygamma,
    xdivy,
    xlog1py,
    xlogy,
    zeta,
)
from ferroflow.nn import log_softmax, softmax, softplus  # noqa: E402, F401
from ferroflow.segment_ops import (  # noqa: E402, F401
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    unsorted_segment_max,
    unsorted_segment_mean,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sqrt_n,
    unsorted_segment_sum,
)
from ferroflow.top_level_more import approx_max_k, approx_min_k  # noqa: E402, F401

# tf.math.special: exactly TensorFlow's seventeen names.
special = _types.ModuleType("ferroflow.math.special", "Special functions: Bessel, Dawson, ...")
for _name in (
    "bessel_i0 bessel_i0e bessel_i1 bessel_i1e bessel_j0 bessel_j1 bessel_k0 bessel_k0e "
    "bessel_k1 bessel_k1e bessel_y0 bessel_y1 dawsn expint fresnel_cos fresnel_sin spence"
).split():
    setattr(special, _name, getattr(_math_special, _name))
