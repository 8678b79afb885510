"""Elementwise math of `tf.experimental.numpy`: arithmetic with NumPy's promotion, unary
functions (integers promoted to the default float type), comparisons, logical and bitwise ops."""

import numbers

import numpy as np

import ferroflow as tf
from ferroflow.experimental.numpy import _dtypes
from ferroflow.experimental.numpy._arrays import (
    array,
    asarray,
    astype,
    is_inexact,
    is_ndarray,
    promote,
    promote_binary,
)

pi = np.pi
e = np.e
inf = np.inf


def _bin_op(fn, a, b):
    a, b = promote_binary(a, b)
    return fn(a, b)


def _float_type():
    return tf.as_dtype(_dtypes.result_type(float))


def _unary(fn, x, promote_to_float=False):
    x = asarray(x)
    if promote_to_float and not is_inexact(x.dtype):
        x = astype(x, _float_type())
    return fn(x)


def _bool_as(op_bool, op):
    def f(x1, x2):
        if x1.dtype == tf.bool:
            return op_bool(x1, x2)
        return op(x1, x2)

    return f


def _bool_as_int8(op):
    def f(x1, x2):
        if x1.dtype == tf.bool:
            x1, x2 = tf.cast(x1, tf.int8), tf.cast(x2, tf.int8)
        return op(x1, x2)

    return f


def add(x1, x2):
    """x1 + x2 with NumPy's promotion (logical or for bools)."""
    return _bin_op(_bool_as(tf.logical_or, tf.add), x1, x2)


def subtract(x1, x2):
    """x1 - x2 with NumPy's promotion."""
    return _bin_op(tf.subtract, x1, x2)


def multiply(x1, x2):
    """x1 * x2 with NumPy's promotion (logical and for bools)."""
    return _bin_op(_bool_as(tf.logical_and, tf.multiply), x1, x2)


def true_divide(x1, x2):
    """x1 / x2; integers divide to float as `tf.math.truediv` does (int32 and int64 give
    float64, narrower ones float32), bools in the default float type."""

    def f(x1, x2):
        if x1.dtype == tf.bool:
            x1, x2 = tf.cast(x1, _float_type()), tf.cast(x2, _float_type())
        return tf.math.truediv(x1, x2)

    return _bin_op(f, x1, x2)


divide = true_divide


def floor_divide(x1, x2):
    """x1 // x2 with NumPy's promotion."""
    return _bin_op(_bool_as_int8(tf.math.floordiv), x1, x2)


def mod(x1, x2):
    """The remainder of floor division, with the sign of x2."""
    return _bin_op(_bool_as_int8(tf.math.floormod), x1, x2)


remainder = mod


def divmod(x1, x2):  # noqa: A001 - NumPy's name
    """(floor_divide(x1, x2), mod(x1, x2))."""
    return floor_divide(x1, x2), mod(x1, x2)


def maximum(x1, x2):
    """Elementwise maximum (logical or for bools); `maximum(tensor, 0)` is `tf.nn.relu` as in
    TensorFlow."""
    if (
        isinstance(x2, numbers.Real)
        and not isinstance(x2, bool)
        and x2 == 0
        and is_ndarray(x1)
        and x1.dtype != tf.bool
    ):
        return tf.nn.relu(x1)
    return _bin_op(_bool_as(tf.logical_or, tf.maximum), x1, x2)


def minimum(x1, x2):
    """Elementwise minimum (logical and for bools)."""
    return _bin_op(_bool_as(tf.logical_and, tf.minimum), x1, x2)


def _broadcast(*args):
    shape = tf.shape(args[0])
    for arg in args[1:]:
        shape = tf.broadcast_dynamic_shape(shape, tf.shape(arg))
    return [tf.broadcast_to(arg, shape) for arg in args]


def clip(a, a_min, a_max):
    """`a` limited to [a_min, a_max]; one bound may be None."""
    if a_min is None and a_max is None:
        raise ValueError("Not more than one of `a_min` and `a_max` may be `None`.")
    if a_min is None:
        return minimum(a, a_max)
    if a_max is None:
        return maximum(a, a_min)
    a, a_min, a_max = promote(a, a_min, a_max)
    return tf.clip_by_value(*_broadcast(a, a_min, a_max))


def power(x1, x2):
    """x1 ** x2 with NumPy's promotion."""
    return _bin_op(tf.pow, x1, x2)


def float_power(x1, x2):
    """Same as `power` (TensorFlow does not promote to float64)."""
    return power(x1, x2)


def arctan2(x1, x2):
    """The angle of (x2, x1)."""
    return _bin_op(tf.atan2, x1, x2)


def _next_after(x1, x2):
    if not x1.dtype.is_floating or x1.dtype not in (tf.float32, tf.float64):
        raise TypeError(f"nextafter supports float32 and float64, got {x1.dtype}")
    bits = tf.int32 if x1.dtype == tf.float32 else tf.int64
    x1, x2 = _broadcast(x1, x2)
    i = tf.bitcast(x1, bits)
    up = tf.equal(tf.greater(x2, x1), tf.greater_equal(x1, tf.zeros_like(x1)))
    stepped = tf.bitcast(tf.where(up, i + 1, i - 1), x1.dtype)
    tiny = tf.bitcast(tf.ones_like(i), x1.dtype)
    from_zero = tf.where(tf.less(x2, x1), -tiny, tiny)
    out = tf.where(tf.equal(x1, tf.zeros_like(x1)), from_zero, stepped)
    out = tf.where(tf.equal(x1, x2), x2, out)
    nan = tf.fill(tf.shape(x1), tf.constant(np.nan, x1.dtype))
    return tf.where(tf.logical_or(tf.math.is_nan(x1), tf.math.is_nan(x2)), nan, out)


def nextafter(x1, x2):
    """The next representable float after x1 towards x2."""
    return _bin_op(_next_after, x1, x2)


def heaviside(x1, x2):
    """0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0."""

    def f(x1, x2):
        zero = tf.zeros_like(x2)
        one = tf.ones_like(x2)
        return tf.where(x1 < tf.zeros_like(x1), zero, tf.where(x1 > tf.zeros_like(x1), one, x2))

    y = _bin_op(f, x1, x2)
    if not is_inexact(y.dtype):
        y = astype(y, _float_type())
    return y


def hypot(x1, x2):
    """sqrt(x1**2 + x2**2). The squares are added with the Tensor operator, as in TensorFlow: it
    promotes only after `experimental_enable_numpy_behavior`."""
    return sqrt(square(x1) + square(x2))


def logaddexp(x1, x2):
    """log(exp(x1) + exp(x2)) without overflow. As in TensorFlow the inputs are subtracted and
    added with the Python operators (no promotion before `experimental_enable_numpy_behavior`,
    and none for two lists)."""
    from ferroflow.experimental.numpy._indexing import where

    amax = maximum(x1, x2)
    delta = x1 - x2
    return where(isnan(delta), x1 + x2, amax + log1p(exp(-abs(delta))))


def logaddexp2(x1, x2):
    """log2(2**x1 + 2**x2) without overflow (the operators as in `logaddexp`)."""
    from ferroflow.experimental.numpy._indexing import where

    amax = maximum(x1, x2)
    delta = x1 - x2
    return where(isnan(delta), x1 + x2, amax + log1p(exp2(-abs(delta))) / np.log(2))


def polyval(p, x):
    """The polynomial with coefficients p (highest power first) at x."""

    def f(p, x):
        if p.shape.rank == 0:
            p = tf.reshape(p, [1])
        coeffs = tf.unstack(p)
        if not coeffs:
            return tf.zeros_like(x)
        y = coeffs[0]
        for c in coeffs[1:]:
            y = c + y * x
        if len(coeffs) == 1:
            y = tf.broadcast_to(y, tf.shape(x))
        return y

    return _bin_op(f, p, x)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b| (exact equality for integers)."""

    def f(a, b):
        if is_inexact(a.dtype):
            real = a.dtype.real_dtype
            rtol_ = tf.convert_to_tensor(rtol, real)
            atol_ = tf.convert_to_tensor(atol, real)
            result = tf.less_equal(tf.abs(a - b), atol_ + rtol_ * tf.abs(b))
            if equal_nan:
                both = tf.logical_and(tf.math.is_nan(a), tf.math.is_nan(b))
                result = tf.logical_or(result, both)
            return result
        return tf.equal(a, b)

    return _bin_op(f, a, b)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is `isclose`."""
    return tf.reduce_all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _gcd(x1, x2):
    if not x1.dtype.is_integer or not x2.dtype.is_integer:
        raise ValueError("Arguments to gcd must be integers.")
    x1, x2 = _broadcast(x1, x2)
    zero = tf.zeros_like(x2)
    x1, x2 = tf.abs(x1), tf.abs(x2)
    for x in (x1, x2):
        # |most negative integer| overflows to itself, and Euclid's loop then never ends
        # (TensorFlow's hangs); refuse it where the values are known.
        if not tf.is_symbolic_tensor(x) and bool(tf.reduce_any(x < zero)):
            raise tf.errors.InvalidArgumentError(
                None, None, "gcd/lcm of the most negative integer of its dtype overflows"
            )

    def body(a, b):
        nonzero = tf.not_equal(b, zero)
        b_safe = tf.where(nonzero, b, tf.ones_like(b))
        a, b = tf.where(nonzero, b, a), tf.where(nonzero, tf.math.floormod(a, b_safe), zero)
        return tf.where(a < b, b, a), tf.where(a < b, a, b)

    value, _ = tf.while_loop(lambda _, b: tf.reduce_any(tf.not_equal(b, zero)), body, (x1, x2))
    return value


def gcd(x1, x2):
    """Greatest common divisor of |x1| and |x2| (integers)."""
    return _bin_op(_gcd, x1, x2)


def lcm(x1, x2):
    """Least common multiple of |x1| and |x2| (integers)."""

    def f(x1, x2):
        d = _gcd(x1, x2)
        zero = tf.zeros_like(d)
        d_safe = tf.where(tf.equal(d, zero), tf.ones_like(d), d)
        return tf.where(tf.equal(d, zero), zero, tf.abs(x1) * tf.math.floordiv(tf.abs(x2), d_safe))

    return _bin_op(f, x1, x2)


def _bitwise(op, x1, x2):
    def f(x1, x2):
        if x1.dtype == tf.bool:
            return tf.cast(op(tf.cast(x1, tf.int8), tf.cast(x2, tf.int8)), tf.bool)
        return op(x1, x2)

    return _bin_op(f, x1, x2)


def bitwise_and(x1, x2):
    """Bitwise and of integers or bools."""
    return _bitwise(tf.bitwise.bitwise_and, x1, x2)


def bitwise_or(x1, x2):
    """Bitwise or of integers or bools."""
    return _bitwise(tf.bitwise.bitwise_or, x1, x2)


def bitwise_xor(x1, x2):
    """Bitwise xor of integers or bools."""
    return _bitwise(tf.bitwise.bitwise_xor, x1, x2)


def bitwise_not(x):
    """Bitwise inversion of integers; logical not of bools."""
    return _unary(lambda x: tf.logical_not(x) if x.dtype == tf.bool else tf.bitwise.invert(x), x)


def _make_unary(name, fn, promote_to_float, doc):
    def f(x):
        return _unary(fn, x, promote_to_float)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


_FLOAT = "(integers and bools promoted to the default float type)"
log = _make_unary("log", tf.math.log, True, f"Natural logarithm {_FLOAT}.")
exp = _make_unary("exp", tf.exp, True, f"e ** x {_FLOAT}.")
sqrt = _make_unary("sqrt", tf.sqrt, True, f"Square root {_FLOAT}.")
abs = _make_unary("abs", tf.abs, False, "Absolute value.")  # noqa: A001 - NumPy's name
absolute = _make_unary("absolute", tf.abs, False, "Absolute value.")
fabs = _make_unary("fabs", tf.abs, False, "Absolute value.")
ceil = _make_unary("ceil", tf.math.ceil, True, f"Ceiling {_FLOAT}.")
floor = _make_unary("floor", tf.floor, True, f"Floor {_FLOAT}.")
conj = _make_unary("conj", tf.math.conj, False, "Complex conjugate.")
conjugate = _make_unary("conjugate", tf.math.conj, False, "Complex conjugate.")
negative = _make_unary("negative", tf.negative, False, "-x.")
reciprocal = _make_unary("reciprocal", tf.math.reciprocal, False, "1 / x.")
sin = _make_unary("sin", tf.sin, True, f"Sine {_FLOAT}.")
cos = _make_unary("cos", tf.cos, True, f"Cosine {_FLOAT}.")
tan = _make_unary("tan", tf.tan, True, f"Tangent {_FLOAT}.")
sinh = _make_unary("sinh", tf.sinh, True, f"Hyperbolic sine {_FLOAT}.")
cosh = _make_unary("cosh", tf.cosh, True, f"Hyperbolic cosine {_FLOAT}.")
tanh = _make_unary("tanh", tf.tanh, True, f"Hyperbolic tangent {_FLOAT}.")
arcsin = _make_unary("arcsin", tf.asin, True, f"Inverse sine {_FLOAT}.")
arccos = _make_unary("arccos", tf.acos, True, f"Inverse cosine {_FLOAT}.")
arctan = _make_unary("arctan", tf.atan, True, f"Inverse tangent {_FLOAT}.")
arcsinh = _make_unary("arcsinh", tf.asinh, True, f"Inverse hyperbolic sine {_FLOAT}.")
arccosh = _make_unary("arccosh", tf.acosh, True, f"Inverse hyperbolic cosine {_FLOAT}.")
arctanh = _make_unary("arctanh", tf.atanh, True, f"Inverse hyperbolic tangent {_FLOAT}.")
expm1 = _make_unary("expm1", tf.math.expm1, True, f"exp(x) - 1 {_FLOAT}.")
log1p = _make_unary("log1p", tf.math.log1p, True, f"log(1 + x) {_FLOAT}.")
isnan = _make_unary("isnan", tf.math.is_nan, True, f"Whether x is NaN {_FLOAT}.")
isfinite = _make_unary("isfinite", tf.math.is_finite, True, f"Whether x is finite {_FLOAT}.")
square = _make_unary("square", tf.square, False, "x * x.")
positive = _make_unary("positive", lambda x: x, False, "x itself (as a Tensor).")
deg2rad = _make_unary(
    "deg2rad", lambda x: x * (np.pi / 180.0), True, f"Degrees to radians {_FLOAT}."
)
exp2 = _make_unary("exp2", lambda x: 2**x, True, f"2 ** x {_FLOAT}.")
fix = _make_unary(
    "fix",
    lambda x: tf.where(x < 0, tf.math.ceil(x), tf.floor(x)),
    True,
    f"Round towards 0 {_FLOAT}.",
)


def sign(x, out=None, where=None, **kwargs):
    """-1, 0 or 1 by the sign of x (x / |x| for complex); `out`, `where` and other NumPy
    keywords raise ValueError as in TensorFlow."""
    if out:
        raise ValueError("tf.numpy doesnt support setting out.")
    if where:
        raise ValueError("tf.numpy doesnt support setting where.")
    if kwargs:
        raise ValueError(f"tf.numpy doesnt support setting {kwargs.keys()}")
    return tf.sign(asarray(x))


def _signbit(x):
    if x.dtype == tf.bool:
        return tf.fill(tf.shape(x), False)
    return x < tf.zeros_like(x)


signbit = _make_unary("signbit", _signbit, False, "Whether x < 0 (-0.0 and NaN are not).")


def _cbrt(x):
    rt = tf.abs(x) ** (1.0 / 3)
    return tf.where(x < 0, -rt, rt)


cbrt = _make_unary("cbrt", _cbrt, True, f"Cube root {_FLOAT}.")


def _sinc(x):
    pi_x = x * np.pi
    return tf.where(tf.equal(x, tf.zeros_like(x)), tf.ones_like(x), tf.sin(pi_x) / pi_x)


sinc = _make_unary("sinc", _sinc, True, f"sin(pi x) / (pi x), 1 at 0 {_FLOAT}.")


def rad2deg(x):
    """Radians to degrees (`x * (180 / pi)` with the operator's rules, as in TensorFlow)."""
    return x * (180.0 / np.pi)


def log2(x):
    """Base-2 logarithm."""
    return log(x) / np.log(2)


def log10(x):
    """Base-10 logarithm."""
    return log(x) / np.log(10)


def _angle(x):
    if x.dtype in (tf.bfloat16, tf.float16, tf.float32, tf.float64):
        return tf.where(x < 0, tf.constant(np.pi, x.dtype), tf.zeros_like(x))
    return tf.math.angle(x)


def angle(z, deg=False):
    """The argument of complex z (pi for negative reals, 0 otherwise)."""
    y = _unary(_angle, z, True)
    return rad2deg(y) if deg else y


def real(val):
    """The real part."""
    return tf.math.real(asarray(val))


def imag(val):
    """The imaginary part (zeros for real input)."""
    return tf.math.imag(asarray(val))


def iscomplex(x):
    """Whether the imaginary part is non-zero."""
    return imag(x) != 0


def isreal(x):
    """Whether the imaginary part is zero."""
    return imag(x) == 0


def iscomplexobj(x):
    """Whether x has a complex dtype."""
    return np.issubdtype(array(x).dtype.as_numpy_dtype, np.complexfloating)


def isrealobj(x):
    """Whether x does not have a complex dtype."""
    return not iscomplexobj(x)


def isinf(x):
    """Whether x is +-inf; False for non-float x (TensorFlow reads `x.dtype` first)."""
    if x.dtype.is_floating:
        return _unary(tf.math.is_inf, x, True)
    return False


def isneginf(x):
    """Whether x is -inf; False for non-float x."""
    if x.dtype.is_floating:
        return tf.equal(x, tf.fill(tf.shape(x), tf.constant(-np.inf, x.dtype)))
    return False


def isposinf(x):
    """Whether x is +inf; False for non-float x."""
    if x.dtype.is_floating:
        return tf.equal(x, tf.fill(tf.shape(x), tf.constant(np.inf, x.dtype)))
    return False


def _comparison(fn, x1, x2, cast_bool_to_int=False):
    dtype = _dtypes.result_type(x1, x2)
    x1 = array(x1, dtype=dtype)
    x2 = array(x2, dtype=dtype)
    if cast_bool_to_int and x1.dtype == tf.bool:
        x1, x2 = tf.cast(x1, tf.int32), tf.cast(x2, tf.int32)
    return fn(x1, x2)


def equal(x1, x2):
    """x1 == x2 after NumPy's promotion."""
    return _comparison(tf.equal, x1, x2)


def not_equal(x1, x2):
    """x1 != x2 after NumPy's promotion."""
    return _comparison(tf.not_equal, x1, x2)


def greater(x1, x2):
    """x1 > x2 after NumPy's promotion."""
    return _comparison(tf.greater, x1, x2, True)


def greater_equal(x1, x2):
    """x1 >= x2 after NumPy's promotion."""
    return _comparison(tf.greater_equal, x1, x2, True)


def less(x1, x2):
    """x1 < x2 after NumPy's promotion."""
    return _comparison(tf.less, x1, x2, True)


def less_equal(x1, x2):
    """x1 <= x2 after NumPy's promotion."""
    return _comparison(tf.less_equal, x1, x2, True)


def array_equal(a1, a2):
    """Whether the arrays have the same shape and elements."""

    def f(x1, x2):
        if x1.shape.rank != x2.shape.rank:
            return tf.constant(False)
        if not tf.reduce_all(tf.equal(tf.shape(x1), tf.shape(x2))):
            return tf.constant(False)
        return tf.reduce_all(tf.equal(x1, x2))

    return _comparison(f, a1, a2)


def _logical(fn, x1, x2):
    return fn(array(x1, dtype=np.bool_), array(x2, dtype=np.bool_))


def logical_and(x1, x2):
    """Elementwise and of the truth values."""
    return _logical(tf.logical_and, x1, x2)


def logical_or(x1, x2):
    """Elementwise or of the truth values."""
    return _logical(tf.logical_or, x1, x2)


def logical_xor(x1, x2):
    """Elementwise xor of the truth values."""
    return _logical(tf.math.logical_xor, x1, x2)


def logical_not(x):
    """Elementwise not of the truth values."""
    return tf.logical_not(array(x, dtype=np.bool_))


def diff(a, n=1, axis=-1):
    """The n-th discrete difference along `axis` (`!=` for bools)."""

    def f(a):
        nd = a.shape.rank
        if (axis + nd if axis < 0 else axis) >= nd:
            raise ValueError(
                f"Argument `axis` (received axis={axis}) is out of bounds for input {a} of "
                f"rank {nd}."
            )
        if n < 0:
            raise ValueError(f"Argument `order` must be a non-negative integer. Received: axis={n}")
        head = [slice(None)] * nd
        tail = [slice(None)] * nd
        head[axis] = slice(1, None)
        tail[axis] = slice(None, -1)
        op = tf.not_equal if a.dtype == tf.bool else tf.subtract
        # After `size` differences the axis is empty and stays so: stop there (TensorFlow
        # keeps looping n times, to the same result).
        size = a.shape[axis]
        for _ in range(n if size is None else min(n, size + 1)):
            a = op(a[tuple(head)], a[tuple(tail)])
        return a

    return _unary(f, a)
