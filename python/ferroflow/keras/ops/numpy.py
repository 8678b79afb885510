"""`keras.ops.numpy`: NumPy-style ops with Keras 3's dtype rules (`_dtypes.result_type`: Python
scalars are weak, integer inputs of float functions give floatx, int64 ones mostly float32),
written over ferroflow's ops as Keras's TensorFlow backend composes TensorFlow's."""

import builtins
import collections
import math as pymath

import numpy as np

import ferroflow as tf
from ferroflow.keras._backend_config import floatx
from ferroflow.keras.ops._dtypes import INT_TYPES, dtype_of, result_type
from ferroflow.keras.ops._dtypes import lazy_op as _op
from ferroflow.keras.ops._dtypes import standardize_dtype as _std
from ferroflow.keras.ops._unique import unique  # noqa: F401 - `ops.numpy.unique`
from ferroflow.keras.ops._vectorize import vectorize  # noqa: F401 - `ops.numpy.vectorize`
from ferroflow.keras.ops.core import cast, convert_to_tensor

_t = convert_to_tensor


def _canon(axis, ndim):
    a = axis + ndim if axis < 0 else axis
    if not 0 <= a < ndim:
        raise ValueError(f"axis {axis} is out of bounds for an array of dimension {ndim}")
    return a


def _as_list(axis):
    if axis is None or isinstance(axis, list | tuple):
        return axis
    return [axis]


def _float_of(x):
    # The float dtype of Keras's unary float functions: int64 -> floatx, else the promotion
    # of the dtype with a weak float (ints and bool -> floatx, floats keep theirs).
    name = _std(x.dtype)
    return floatx() if name == "int64" else result_type(x.dtype, float)


def _unary_float(op):
    def fn(x):
        x = _t(x)
        return op(tf.cast(x, _float_of(x)))

    return fn


def _promote(x1, x2, *extra):
    """Both operands converted to Keras's result dtype (Python scalars stay weak)."""
    if not isinstance(x1, int | float):
        x1 = _t(x1)
    if not isinstance(x2, int | float):
        x2 = _t(x2)
    dtype = result_type(dtype_of(x1), dtype_of(x2), *extra)
    return _t(x1, dtype), _t(x2, dtype)


def _promote_tensors(x1, x2, *extra):
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype, *extra)
    return tf.cast(x1, dtype), tf.cast(x2, dtype)


def _binary(op, *extra, scalars=True):
    def fn(x1, x2):
        return op(*(_promote if scalars else _promote_tensors)(x1, x2, *extra))

    return fn


# Elementwise arithmetic -----------------------------------------------------------------
subtract = _binary(_op("subtract"))
multiply = _binary(_op("multiply"))
divide = _binary(_op("divide"), float)
divide_no_nan = _binary(_op("math.divide_no_nan"), float)
floor_divide = _binary(_op("math.floordiv"))
maximum = _binary(_op("maximum"))
minimum = _binary(_op("minimum"))
equal = _binary(_op("equal"), scalars=False)
not_equal = _binary(_op("not_equal"), scalars=False)
greater = _binary(_op("greater"), scalars=False)
greater_equal = _binary(_op("greater_equal"), scalars=False)
less = _binary(_op("less"), scalars=False)
less_equal = _binary(_op("less_equal"), scalars=False)
arctan2 = _binary(_op("math.atan2"), float, scalars=False)
bitwise_and = _binary(_op("bitwise.bitwise_and"), scalars=False)
bitwise_or = _binary(_op("bitwise.bitwise_or"), scalars=False)
bitwise_xor = _binary(_op("bitwise.bitwise_xor"), scalars=False)


def add(x1, x2):
    """Elementwise ``x1 + x2`` with Keras's dtype promotion."""
    return tf.add(*_promote(x1, x2))


def true_divide(x1, x2):
    """Same as `divide`."""
    return divide(x1, x2)


def power(x1, x2):
    """Elementwise ``x1 ** x2``; unsigned results are computed in int32."""
    if not isinstance(x1, int | float):
        x1 = _t(x1)
    if not isinstance(x2, int | float):
        x2 = _t(x2)
    dtype = result_type(dtype_of(x1), dtype_of(x2))
    if "uint" in dtype:
        return tf.cast(tf.pow(_t(x1, "int32"), _t(x2, "int32")), dtype)
    return tf.pow(_t(x1, dtype), _t(x2, dtype))


def _fminmax(op):
    def fn(x1, x2):
        x1, x2 = _promote(x1, x2)
        res = op(x1, x2)
        if "float" not in _std(x1.dtype):
            return res
        n1, n2 = tf.math.is_nan(x1), tf.math.is_nan(x2)
        res = tf.where(n1 & ~n2, x2, res)
        return tf.where(n2 & ~n1, x1, res)

    return fn


fmax = _fminmax(_op("maximum"))
fmin = _fminmax(_op("minimum"))


def mod(x1, x2):
    """Elementwise floor modulo (bool operands computed as int32)."""
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    dtype = "int32" if dtype == "bool" else dtype
    return tf.math.mod(tf.cast(x1, dtype), tf.cast(x2, dtype))


def fmod(x1, x2):
    """Elementwise C-style remainder, with the sign of ``x1``."""
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    dtype = "int32" if dtype == "bool" else dtype
    compute = "int32" if dtype in ("uint8", "uint16", "uint32") else dtype
    x1, x2 = tf.cast(x1, compute), tf.cast(x2, compute)
    return tf.cast(tf.sign(x1) * tf.math.floormod(tf.abs(x1), tf.abs(x2)), dtype)


def _float_by_width(name):
    # Keras's rule for these ops: int64 computes in float64, narrower ints in floatx.
    if name in ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32"):
        return floatx()
    return "float64" if name == "int64" else name


def _promote_to_float(x1, x2):
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    dtype = dtype if dtype == "bool" else _float_by_width(dtype)
    return tf.cast(x1, dtype), tf.cast(x2, dtype)


def heaviside(x1, x2):
    """0 where ``x1 < 0``, 1 where ``x1 > 0``, ``x2`` where ``x1 == 0``."""
    x1, x2 = _promote_to_float(x1, x2)
    return tf.where(x1 < 0, tf.zeros_like(x1), tf.where(x1 > 0, tf.ones_like(x1), x2))


def hypot(x1, x2):
    """Elementwise ``sqrt(x1**2 + x2**2)`` without overflow."""
    a1, a2 = (tf.abs(x) for x in _promote_to_float(x1, x2))
    hi, lo = tf.maximum(a1, a2), tf.minimum(a1, a2)
    return hi * tf.sqrt(1.0 + tf.square(tf.math.divide_no_nan(lo, hi)))


def logaddexp(x1, x2):
    """Elementwise ``log(exp(x1) + exp(x2))``."""
    x1, x2 = _promote_tensors(x1, x2, float)
    delta = x1 - x2
    return tf.where(
        tf.math.is_nan(delta),
        x1 + x2,
        tf.maximum(x1, x2) + tf.math.log1p(tf.math.exp(-tf.abs(delta))),
    )


def logaddexp2(x1, x2):
    """Elementwise ``log2(2**x1 + 2**x2)``."""
    x1, x2 = _promote_tensors(x1, x2, float)
    delta = x1 - x2
    ln2 = tf.cast(tf.math.log(2.0), x1.dtype)
    return tf.where(
        tf.math.is_nan(delta),
        x1 + x2,
        tf.maximum(x1, x2) + tf.math.log1p(tf.math.exp(-tf.abs(delta) * ln2)) / ln2,
    )


def nextafter(x1, x2):
    """The next float after ``x1`` towards ``x2`` (computed in float64, as Keras does)."""
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype, float)
    return tf.cast(tf.math.nextafter(tf.cast(x1, "float64"), tf.cast(x2, "float64")), dtype)


def ldexp(x1, x2):
    """``x1 * 2**x2`` for an integer ``x2``."""
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype, float)
    if _std(x2.dtype) not in INT_TYPES:
        raise TypeError(f"ldexp exponent must be an integer type. Received: x2 dtype={x2.dtype}")
    x1 = tf.cast(x1, dtype)
    res = x1 * tf.pow(tf.constant(2.0, dtype=dtype), tf.cast(x2, dtype))
    return tf.where(tf.math.is_inf(x1) | (x1 == 0), x1, res)


def _gcd_loop(x1, x2):
    shape = tf.broadcast_static_shape(x1.shape, x2.shape)
    x1, x2 = tf.broadcast_to(x1, shape), tf.broadcast_to(x2, shape)

    def body(a, b):
        safe = tf.where(tf.equal(b, 0), tf.ones_like(b), b)
        return tf.where(b != 0, b, a), tf.where(b != 0, tf.math.floormod(a, safe), tf.zeros_like(b))

    return tf.while_loop(lambda a, b: tf.reduce_any(b != 0), body, [x1, x2])[0]


def gcd(x1, x2):
    """Elementwise greatest common divisor of integers."""
    x1, x2 = _promote_tensors(x1, x2)
    if not x1.dtype.is_integer:
        raise TypeError("Arguments to gcd must be integers.")
    if "uint" not in _std(x1.dtype):
        x1, x2 = tf.abs(x1), tf.abs(x2)
    return _gcd_loop(x1, x2)


def lcm(x1, x2):
    """Elementwise least common multiple of integers."""
    x1, x2 = _t(x1), _t(x2)
    if not (x1.dtype.is_integer and x2.dtype.is_integer):
        raise TypeError(
            "Arguments to lcm must be integers. Received: "
            f"x1.dtype={x1.dtype.name}, x2.dtype={x2.dtype.name}"
        )
    x1, x2 = _promote_tensors(x1, x2)
    if "uint" not in _std(x1.dtype):
        x1, x2 = tf.abs(x1), tf.abs(x2)
    d = gcd(x1, x2)
    res = x1 * (x2 // tf.where(d == 0, tf.ones_like(d), d))
    return tf.where(d == 0, tf.zeros_like(res), res)


def bitwise_invert(x):
    """Elementwise bitwise NOT."""
    return tf.bitwise.invert(_t(x))


bitwise_not = bitwise_invert


def _shift(op):
    def fn(x, y):
        x = _t(x)
        if not isinstance(y, int):
            x, y = _promote_tensors(x, y)
        return op(x, y)

    return fn


bitwise_left_shift = left_shift = _shift(_op("bitwise.left_shift"))
bitwise_right_shift = right_shift = _shift(_op("bitwise.right_shift"))


def _logical(op):
    def fn(x1, x2):
        return op(tf.cast(x1, "bool"), tf.cast(x2, "bool"))

    return fn


logical_and = _logical(_op("logical_and"))
logical_or = _logical(_op("logical_or"))
logical_xor = _logical(_op("math.logical_xor"))


def logical_not(x):
    """Elementwise NOT of ``x`` as bool."""
    return tf.logical_not(tf.cast(x, "bool"))


# Elementwise unary ---------------------------------------------------------------------
arccos = _unary_float(_op("math.acos"))
arccosh = _unary_float(_op("math.acosh"))
arcsin = _unary_float(_op("math.asin"))
arcsinh = _unary_float(_op("math.asinh"))
arctan = _unary_float(_op("math.atan"))
arctanh = _unary_float(_op("math.atanh"))
cos = _unary_float(_op("math.cos"))
cosh = _unary_float(_op("math.cosh"))
sin = _unary_float(_op("math.sin"))
sinh = _unary_float(_op("math.sinh"))
tan = _unary_float(_op("math.tan"))
tanh = _unary_float(_op("math.tanh"))
ceil = _unary_float(_op("math.ceil"))
floor = _unary_float(_op("math.floor"))
log = _unary_float(_op("math.log"))
log1p = _unary_float(_op("math.log1p"))
angle = _unary_float(_op("math.angle"))
log10 = _unary_float(lambda x: tf.math.log(x) / tf.math.log(tf.constant(10, x.dtype)))
log2 = _unary_float(lambda x: tf.math.log(x) / tf.math.log(tf.constant(2, x.dtype)))


def sqrt(x):
    """Elementwise square root (integers give floatx)."""
    return _unary_float(tf.math.sqrt)(x)


def _int_to_floatx(op):
    def fn(x):
        x = _t(x)
        name = _std(x.dtype)
        if "int" in name or name == "bool":
            x = tf.cast(x, floatx())
        return op(x)

    return fn


exp = _int_to_floatx(_op("exp"))
expm1 = _int_to_floatx(_op("math.expm1"))
exp2 = _int_to_floatx(lambda x: tf.math.pow(tf.constant(2.0, x.dtype), x))


def sinc(x):
    """Elementwise ``sin(pi x) / (pi x)``, 1 at 0."""
    x = _t(x)
    x = tf.cast(x, _float_of(x))
    pix = x * tf.constant(np.pi, dtype=x.dtype)
    return tf.where(tf.equal(x, 0), tf.ones_like(x), tf.math.sin(pix) / pix)


def absolute(x):
    """Elementwise absolute value (unsigned and bool returned unchanged)."""
    x = _t(x)
    name = _std(x.dtype)
    return x if "uint" in name or name == "bool" else tf.abs(x)


def abs(x):
    """Same as `absolute`."""
    return absolute(x)


def fabs(x):
    """Elementwise absolute value as floats."""
    x = _t(x)
    name = _std(x.dtype)
    if "complex" in name:
        raise TypeError(f"fabs does not support complex inputs. Received: x.dtype={x.dtype}")
    if "int" in name or name == "bool":
        x = tf.cast(x, floatx())
    return tf.abs(x)


def cbrt(x):
    """Elementwise real cube root."""
    x = _t(x)
    name = _std(x.dtype)
    if name == "int64":
        x = tf.cast(x, "float64")
    elif name not in ("bfloat16", "float16", "float64"):
        x = tf.cast(x, floatx())
    return tf.sign(x) * tf.pow(tf.abs(x), 1.0 / 3.0)


def _degrees(scale):
    def fn(x):
        x = _t(x)
        name = _float_by_width(_std(x.dtype))
        x = tf.cast(x, name)
        return x * scale(tf.constant(pymath.pi, name), tf.constant(180.0, name))

    return fn


deg2rad = _degrees(lambda pi, d: pi / d)
rad2deg = _degrees(lambda pi, d: d / pi)


def _numeric(x, what):
    # `tf.math.conj`/`real` return non-complex numeric tensors unchanged and raise TypeError
    # for the others (bool, string).
    x = _t(x)
    if not (x.dtype.is_complex or x.dtype.is_floating or x.dtype.is_integer):
        raise TypeError(f"{what} expects a numeric tensor. Received: dtype={_std(x.dtype)}")
    return x


def conjugate(x):
    """Elementwise complex conjugate."""
    x = _numeric(x, "conj")
    return tf.math.conj(x) if x.dtype.is_complex else x


conj = conjugate


def copy(x):
    """A copy of ``x``."""
    return tf.identity(_t(x))


def imag(x):
    """The imaginary part of ``x`` (zeros for real dtypes, as `tf.math.imag`)."""
    return tf.math.imag(_t(x))


def real(x):
    """The real part of ``x``."""
    x = _numeric(x, "real")
    return tf.math.real(x) if x.dtype.is_complex else x


def i0(x):
    """Modified Bessel function of the first kind, order 0."""
    x = _t(x)
    name = _std(x.dtype)
    if name in ("int64", "float64"):
        name = "float64"
    elif name not in ("bfloat16", "float16"):
        name = floatx()
    return tf.math.bessel_i0(tf.cast(x, name))


def negative(x):
    """Elementwise ``-x``."""
    return tf.negative(x)


def reciprocal(x):
    """Elementwise ``1 / x``."""
    return tf.math.reciprocal(_t(x))


def square(x):
    """Elementwise ``x * x`` (bool computed as int32)."""
    x = _t(x)
    if _std(x.dtype) == "bool":
        x = tf.cast(x, "int32")
    return tf.square(x)


def sign(x):
    """Elementwise sign."""
    x = _t(x)
    name = _std(x.dtype)
    if name in ("uint8", "uint16", "uint32"):
        return tf.cast(tf.sign(tf.cast(x, "int32")), name)
    return tf.sign(x)


def signbit(x):
    """Whether the sign bit is set (true for -0.0)."""
    x = _t(x)
    name = _std(x.dtype)
    if name == "bool":
        return tf.fill(tf.shape(x), False)
    if "int" in name:
        return x < 0
    bits = tf.bitcast(tf.cast(x, "float32"), tf.int32)
    return tf.less(tf.bitwise.bitwise_and(bits, tf.constant(-(2**31), tf.int32)), 0)


def trunc(x):
    """Rounds towards zero."""
    x = _t(x)
    name = _std(x.dtype)
    if name == "bool" or "int" in name:
        return x
    return tf.where(x < 0, tf.math.ceil(x), tf.math.floor(x))


def round(x, decimals=0):
    """Rounds half to even, to ``decimals`` places."""
    if decimals == 0:
        return tf.round(x)
    x = _t(x)
    x_dtype = x.dtype
    if x_dtype.is_integer:
        if decimals > 0:
            return x
        factor = tf.cast(pymath.pow(10, decimals), floatx())
        x = tf.cast(x, floatx())
    else:
        factor = tf.cast(pymath.pow(10, decimals), x_dtype)
    return tf.cast(tf.divide(tf.round(tf.multiply(x, factor)), factor), x_dtype)


def _no_int(test, fill):
    def fn(x):
        x = _t(x)
        if x.dtype.is_integer or not (x.dtype.is_floating or x.dtype.is_complex):
            return fill(x)
        return test(x)

    return fn


isfinite = _no_int(_op("math.is_finite"), lambda x: tf.ones(x.shape, tf.bool))
isinf = _no_int(_op("math.is_inf"), lambda x: tf.zeros(x.shape, tf.bool))
isnan = _no_int(_op("math.is_nan"), lambda x: tf.zeros(x.shape, tf.bool))
isneginf = _no_int(
    lambda x: tf.equal(x, -tf.constant(float("inf"), x.dtype)),
    lambda x: tf.zeros_like(x, dtype=tf.bool),
)
isposinf = _no_int(
    lambda x: tf.equal(x, tf.constant(float("inf"), x.dtype)),
    lambda x: tf.zeros_like(x, dtype=tf.bool),
)


def isreal(x):
    """Whether each element has zero imaginary part."""
    x = _t(x)
    if x.dtype.is_complex:
        return tf.equal(tf.math.imag(x), 0)
    return tf.ones_like(x, dtype=tf.bool)


def isclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|x1 - x2| <= atol + rtol * |x2|`` (exact equality for non-floats)."""
    x1, x2 = _promote_tensors(x1, x2)
    if "float" not in _std(x1.dtype):
        return tf.equal(x1, x2)
    res = tf.abs(x1 - x2) <= atol + rtol * tf.abs(x2)
    if equal_nan:
        res = res | (tf.math.is_nan(x1) & tf.math.is_nan(x2))
    return res


def allclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether all elements are close (infinities must be equal)."""
    x1, x2 = _promote_tensors(x1, x2)
    if "float" not in _std(x1.dtype):
        return tf.reduce_all(tf.equal(x1, x2))
    finite = tf.math.is_finite(x1) & tf.math.is_finite(x2)
    res = (finite & (tf.abs(x1 - x2) <= atol + rtol * tf.abs(x2))) | tf.equal(x1, x2)
    if equal_nan:
        res = res | (tf.math.is_nan(x1) & tf.math.is_nan(x2))
    return tf.reduce_all(res)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """Replaces NaN and infinities with finite numbers (the dtype's extremes by default)."""
    x = _t(x)
    dtype = x.dtype
    if dtype.is_integer or not (dtype.is_floating or dtype.is_complex):
        return x
    x = tf.where(tf.math.is_nan(x), tf.constant(nan, dtype), x)
    posinf = dtype.max if posinf is None else posinf
    neginf = dtype.min if neginf is None else neginf
    x = tf.where(tf.math.is_inf(x) & (x > 0), tf.constant(posinf, dtype), x)
    return tf.where(tf.math.is_inf(x) & (x < 0), tf.constant(neginf, dtype), x)


def clip(x, x_min, x_max):
    """Clips values to ``[x_min, x_max]`` (bool computed as int32)."""
    x = _t(x)
    if _std(x.dtype) == "bool":
        x = tf.cast(x, "int32")
    return tf.clip_by_value(x, x_min, x_max)


def where(condition, x1=None, x2=None):
    """``x1`` where ``condition`` else ``x2``; with neither, the indices of true elements."""
    if (x1 is None) != (x2 is None):
        raise ValueError(
            "`x1` and `x2` either both should be `None` or both should have non-None value."
        )
    condition = tf.cast(condition, "bool")
    if x1 is None:
        return nonzero(condition)
    x1, x2 = _promote(x1, x2)
    return tf.where(condition, x1, x2)


def select(condlist, choicelist, default=0):
    """The element of the first choice whose condition holds, else ``default``."""
    if not isinstance(condlist, list | tuple) or not isinstance(choicelist, list | tuple):
        raise ValueError(
            "condlist and choicelist must be lists. Received: "
            f"type(condlist) = {type(condlist)}, type(choicelist) = {type(choicelist)}"
        )
    if not condlist or not choicelist:
        raise ValueError(
            "condlist and choicelist must not be empty. Received: "
            f"condlist = {condlist}, choicelist = {choicelist}"
        )
    return tf.experimental.numpy.select(list(condlist), list(choicelist), default=default)


# Reductions -----------------------------------------------------------------------------
def _widen_small_ints(name):
    if name in ("bool", "int8", "int16"):
        return "int32"
    if name in ("uint8", "uint16"):
        return "uint32"
    return name


def sum(x, axis=None, keepdims=False):
    """Sum over ``axis``; bool and small ints accumulate in (u)int32."""
    x = _t(x)
    return tf.reduce_sum(cast(x, _widen_small_ints(_std(x.dtype))), axis=axis, keepdims=keepdims)


def prod(x, axis=None, keepdims=False, dtype=None):
    """Product over ``axis``; bool and small ints accumulate in (u)int32."""
    x = _t(x)
    if dtype is None:
        x = tf.cast(x, _widen_small_ints(result_type(x.dtype)))
    return tf.reduce_prod(x, axis=axis, keepdims=keepdims)


def mean(x, axis=None, keepdims=False):
    """Mean over ``axis``; integer and bool inputs give float32."""
    x = _t(x)
    name = _std(x.dtype)
    compute = result_type(x.dtype, "float32")
    out_dtype = compute if "int" in name or name == "bool" else name
    return tf.cast(tf.reduce_mean(tf.cast(x, compute), axis=axis, keepdims=keepdims), out_dtype)


def var(x, axis=None, keepdims=False):
    """Variance over ``axis``."""
    x = _t(x)
    compute = result_type(x.dtype, "float32")
    out_dtype = result_type(x.dtype, float)
    return tf.cast(
        tf.math.reduce_variance(tf.cast(x, compute), axis=axis, keepdims=keepdims), out_dtype
    )


def std(x, axis=None, keepdims=False):
    """Standard deviation over ``axis``."""
    x = _t(x)
    name = _std(x.dtype)
    if "int" in name or name == "bool":
        x = tf.cast(x, floatx())
    return tf.math.reduce_std(x, axis=axis, keepdims=keepdims)


def _extreme(reduce, bool_reduce, combine, word):
    def fn(x, axis=None, keepdims=False, initial=None):
        x = _t(x)
        is_bool = _std(x.dtype) == "bool"
        if initial is not None:
            if is_bool:
                r = bool_reduce(x, axis=axis, keepdims=keepdims)
                return tf.cast(combine(tf.cast(r, "int32"), tf.cast(initial, "int32")), "bool")
            return combine(reduce(x, axis=axis, keepdims=keepdims), initial)
        if tf.executing_eagerly() and int(tf.size(x)) == 0:
            raise tf.errors.InvalidArgumentError(
                None, None, f"Cannot compute the {word} of an empty tensor."
            )
        return (bool_reduce if is_bool else reduce)(x, axis=axis, keepdims=keepdims)

    return fn


max = _extreme(_op("reduce_max"), _op("reduce_any"), _op("math.maximum"), "max")
min = _extreme(_op("reduce_min"), _op("reduce_all"), _op("math.minimum"), "min")


def amax(x, axis=None, keepdims=False):
    """Same as `max`."""
    return max(x, axis=axis, keepdims=keepdims)


def amin(x, axis=None, keepdims=False):
    """Same as `min`."""
    return min(x, axis=axis, keepdims=keepdims)


def all(x, axis=None, keepdims=False):
    """Whether all elements (as bool) are true."""
    return tf.reduce_all(tf.cast(x, "bool"), axis=axis, keepdims=keepdims)


def any(x, axis=None, keepdims=False):
    """Whether any element (as bool) is true."""
    return tf.reduce_any(tf.cast(x, "bool"), axis=axis, keepdims=keepdims)


def ptp(x, axis=None, keepdims=False):
    """``max - min`` over ``axis``."""
    x = _t(x)
    return tf.reduce_max(x, axis=axis, keepdims=keepdims) - tf.reduce_min(
        x, axis=axis, keepdims=keepdims
    )


def count_nonzero(x, axis=None):
    """The number of non-zero elements over ``axis``, as int32."""
    return tf.math.count_nonzero(x, axis=axis, dtype="int32")


def _arg_extreme(op):
    def fn(x, axis=None, keepdims=False):
        x = _t(x)
        name = _std(x.dtype)
        if "float" in name and x.shape.rank != 0:
            # -0.0 sorts below +0.0, as in NumPy.
            x = cast(x, result_type(name, "float32"))
            neg_zero = tf.logical_and(tf.equal(x, 0.0), signbit(x))
            tiny = np.finfo(_std(x.dtype) if _std(x.dtype) != "bfloat16" else "float32").tiny
            x = tf.where(neg_zero, tf.constant(-tiny, x.dtype), x)
        flat = tf.reshape(x, [-1]) if axis is None else x
        y = op(flat, axis=0 if axis is None else axis, output_type="int32")
        if keepdims:
            if axis is None:
                shape = [1] * x.shape.rank
            else:
                shape = list(tf.shape(x).numpy() if tf.executing_eagerly() else x.shape)
                shape[axis] = 1
            y = tf.reshape(y, shape)
        return y

    return fn


argmax = _arg_extreme(_op("argmax"))
argmin = _arg_extreme(_op("argmin"))


def _nan_arg(arg, fill):
    def fn(x, axis=None, keepdims=False):
        x = _t(x)
        if not x.dtype.is_floating:
            return arg(x, axis=axis, keepdims=keepdims)
        nan = tf.math.is_nan(x)
        return tf.where(
            tf.reduce_all(nan, axis=axis, keepdims=keepdims),
            tf.constant(-1, tf.int32),
            arg(tf.where(nan, tf.constant(fill, x.dtype), x), axis=axis, keepdims=keepdims),
        )

    return fn


nanargmax = _nan_arg(argmax, float("-inf"))
nanargmin = _nan_arg(argmin, float("inf"))


def _nan_extreme(reduce, bool_reduce, fill):
    def fn(x, axis=None, keepdims=False):
        x = _t(x)
        if not x.dtype.is_floating:
            return (bool_reduce if _std(x.dtype) == "bool" else reduce)(
                x, axis=axis, keepdims=keepdims
            )
        nan = tf.math.is_nan(x)
        clean = tf.where(nan, tf.constant(fill, x.dtype), x)
        return tf.where(
            tf.reduce_all(nan, axis=axis, keepdims=keepdims),
            tf.constant(float("nan"), x.dtype),
            reduce(clean, axis=axis, keepdims=keepdims),
        )

    return fn


nanmax = _nan_extreme(_op("reduce_max"), _op("reduce_any"), float("-inf"))
nanmin = _nan_extreme(_op("reduce_min"), _op("reduce_all"), float("inf"))


def nansum(x, axis=None, keepdims=False):
    """Sum ignoring NaNs."""
    x = _t(x)
    name = _std(x.dtype)
    clean = tf.where(tf.math.is_nan(cast(x, floatx())), tf.zeros((), dtype=name), x)
    return tf.reduce_sum(cast(clean, _widen_small_ints(name)), axis=axis, keepdims=keepdims)


def nanprod(x, axis=None, keepdims=False):
    """Product ignoring NaNs."""
    x = _t(x)
    if not x.dtype.is_floating:
        return prod(x, axis=axis, keepdims=keepdims)
    return prod(tf.where(tf.math.is_nan(x), tf.ones((), x.dtype), x), axis=axis, keepdims=keepdims)


def nanmean(x, axis=None, keepdims=False):
    """Mean ignoring NaNs."""
    x = _t(x)
    if axis == () or axis == []:
        return x
    if not x.dtype.is_floating:
        return tf.reduce_mean(tf.cast(x, "float32"), axis=axis, keepdims=keepdims)
    dtype = result_type(_std(x.dtype), float)
    total = cast(nansum(x, axis=axis, keepdims=keepdims), dtype)
    count = tf.reduce_sum(cast(~tf.math.is_nan(x), dtype), axis=axis, keepdims=keepdims)
    return tf.divide(total, count)


def nanvar(x, axis=None, keepdims=False):
    """Variance ignoring NaNs."""
    x = _t(x)
    x = tf.cast(x, result_type(x.dtype, float))
    centre = nanmean(x, axis=axis, keepdims=True)
    valid = ~tf.math.is_nan(x)
    centred = tf.where(valid, x - centre, tf.zeros_like(x))
    if centred.dtype.is_complex:
        centred = tf.math.real(centred * tf.math.conj(centred))
    else:
        centred = tf.square(centred)
    count = tf.reduce_sum(tf.cast(valid, centred.dtype), axis=axis, keepdims=keepdims)
    return tf.reduce_sum(centred, axis=axis, keepdims=keepdims) / count


def nanstd(x, axis=None, keepdims=False):
    """Standard deviation ignoring NaNs."""
    return tf.sqrt(nanvar(x, axis=axis, keepdims=keepdims))


def nancumsum(x, axis=None, dtype=None):
    """Cumulative sum treating NaNs as 0."""
    return cumsum(nan_to_num(x), axis=axis, dtype=dtype)


def nancumprod(x, axis=None, dtype=None):
    """Cumulative product treating NaNs as 1."""
    return cumprod(nan_to_num(x, nan=1.0), axis=axis, dtype=dtype)


def _cumulative(op):
    def fn(x, axis=None, dtype=None):
        x = _t(x, dtype=None if dtype is None else _std(dtype))
        if _std(x.dtype) == "bool":
            x = tf.cast(x, "int32")
        if axis is None:
            x, axis = tf.reshape(x, [-1]), 0
        return op(x, axis=axis)

    return fn


cumsum = _cumulative(_op("math.cumsum"))
cumprod = _cumulative(_op("math.cumprod"))


def average(x, axis=None, weights=None):
    """Weighted mean over ``axis`` (``weights`` matching ``x`` or 1-D along ``axis``)."""
    x = _t(x)
    if weights is None:
        return tf.reduce_mean(tf.cast(x, result_type(x.dtype, float)), axis=axis)
    weights = _t(weights)
    dtype = result_type(x.dtype, weights.dtype, float)
    x, weights = tf.cast(x, dtype), tf.cast(weights, dtype)
    if axis is None or len(x.shape) == len(weights.shape):
        return tf.reduce_sum(x * weights, axis=axis) / tf.reduce_sum(weights, axis=axis)
    return tf.tensordot(x, weights, [[axis], [0]]) / tf.reduce_sum(weights)


def _quantile(x, q, axis, method, keepdims):
    q = tf.cast(q, "float64")
    rank = len(x.shape)
    if axis is None:
        y = tf.reshape(x, [-1])
    else:
        axis = [_canon(a, rank) for a in axis]
        others = sorted(set(range(rank)).difference(axis))
        permuted = tf.transpose(x, others + list(axis))
        if None not in x.shape:
            shape = [x.shape[i] for i in others] + [pymath.prod(x.shape[i] for i in axis)]
        else:
            shape = tf.concat([tf.gather(tf.shape(x), others), [-1]], axis=0)
        y = tf.reshape(permuted, shape)
    ys = tf.sort(y, axis=-1)
    n = tf.shape(y)[-1]
    d = tf.cast(n, "float64")

    def index(kind):
        raw = {"lower": tf.math.floor, "higher": tf.math.ceil, "nearest": tf.round}[kind](
            (d - 1) * q
        )
        return tf.clip_by_value(tf.cast(raw, "int32"), 0, n - 1)

    if method in ("nearest", "lower", "higher"):
        out = tf.gather(ys, index(method), axis=-1)
    elif method == "midpoint":
        out = 0.5 * (
            tf.gather(ys, index("lower"), axis=-1) + tf.gather(ys, index("higher"), axis=-1)
        )
    elif method == "linear":
        hi = index("higher")
        lo = tf.maximum(hi - 1, 0)
        hi = tf.minimum(lo + 1, n - 1)
        frac = tf.cast(tf.cast(hi, tf.float64) - (d - 1) * q, y.dtype)
        out = tf.gather(ys, hi, axis=-1) * (1 - frac) + tf.gather(ys, lo, axis=-1) * frac
    else:
        raise ValueError(
            "`method` must be one of 'linear', 'lower', 'higher', 'midpoint', 'nearest'. "
            f"Received: method={method}"
        )
    if x.dtype.is_floating:
        nans = tf.reduce_any(tf.math.is_nan(x), axis=axis)
        nans = tf.reshape(nans, tf.concat([tf.shape(nans), tf.ones([q.shape.rank], "int32")], 0))
        out = tf.where(nans, tf.constant(float("nan"), x.dtype), out)
    if keepdims:
        if axis is None:
            out = out * tf.ones([1] * (rank + q.shape.rank), out.dtype)
        else:
            for i in sorted(axis):
                out = tf.expand_dims(out, i)
    ndims = out.shape.rank
    shift = q.shape.rank
    if ndims < 2 or shift % ndims == 0:
        return out
    perm = collections.deque(range(ndims))
    perm.rotate(shift % ndims)
    return tf.transpose(out, list(perm))


def quantile(x, q, axis=None, method="linear", keepdims=False):
    """The ``q``-th quantile(s) over ``axis`` (NumPy's methods)."""
    x = _t(x)
    q = _t(q)
    x = tf.cast(x, result_type(x.dtype, float))
    return _quantile(x, q, _as_list(axis), method, keepdims)


def percentile(x, q, axis=None, method="linear", keepdims=False):
    """The ``q``-th percentile(s) over ``axis``."""
    q = _t(q, floatx()) / 100.0
    return quantile(x, q, axis=axis, method=method, keepdims=keepdims)


def median(x, axis=None, keepdims=False):
    """The median over ``axis``."""
    return quantile(x, 0.5, axis=axis, keepdims=keepdims)


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """`quantile` ignoring NaNs."""
    x = _t(x)
    q = _t(q, floatx())
    if axis is not None and result_type(x.dtype, float) != _std(x.dtype):
        # Keras maps the rows with an output signature of x's dtype, which the float quantile
        # does not have.
        raise tf.errors.InvalidArgumentError(
            None,
            None,
            f"TensorArray dtype is {_std(x.dtype)} but Op is trying to write dtype "
            f"{result_type(x.dtype, float)}",
        )

    def one(v):
        valid = tf.boolean_mask(v, ~tf.math.is_nan(cast(v, floatx())))
        if int(tf.size(valid)) == 0:
            return tf.fill(tf.shape(q), tf.constant(float("nan"), x.dtype))
        return quantile(valid, q, method=method)

    if axis is None:
        out = one(tf.reshape(x, [-1]))
        if keepdims:
            out = tf.reshape(out, tf.concat([tf.shape(out), tf.ones([x.shape.rank], "int32")], 0))
        return out
    axis = [_canon(a, x.shape.rank) for a in _as_list(axis)]
    others = [i for i in range(x.shape.rank) if i not in axis]
    xt = tf.transpose(x, others + axis)
    other_shape = [x.shape[i] for i in others]
    flat = tf.reshape(xt, [pymath.prod(other_shape), -1])
    rows = [one(flat[i]) for i in range(flat.shape[0])]
    out = tf.stack(rows) if rows else tf.zeros([0] + list(q.shape), x.dtype)
    if q.shape.rank > 0:
        out = tf.reshape(tf.transpose(out), list(q.shape) + other_shape)
    else:
        out = tf.reshape(out, other_shape)
    if keepdims:
        for a in sorted(axis):
            out = tf.expand_dims(out, a + q.shape.rank)
    return out


def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """`percentile` ignoring NaNs."""
    return nanquantile(x, _t(q, floatx()) / 100.0, axis=axis, method=method, keepdims=keepdims)


def nanmedian(x, axis=None, keepdims=False):
    """The median ignoring NaNs."""
    x = _t(x)
    if axis == () or axis == []:
        return x
    return nanquantile(x, 0.5, axis=axis, keepdims=keepdims)


# Construction ---------------------------------------------------------------------------
def array(x, dtype=None):
    """``x`` as a tensor of ``dtype``."""
    return _t(x, dtype=dtype)


def zeros(shape, dtype=None):
    """Zeros of ``shape`` (floatx by default)."""
    return tf.zeros(shape, dtype=_std(dtype or floatx()))


def ones(shape, dtype=None):
    """Ones of ``shape`` (floatx by default)."""
    return tf.ones(shape, dtype=_std(dtype or floatx()))


def empty(shape, dtype=None):
    """A tensor of ``shape`` (zeros, as Keras's TensorFlow backend gives)."""
    return zeros(shape, dtype)


def zeros_like(x, dtype=None):
    """Zeros shaped like ``x``."""
    return tf.zeros_like(x, dtype=None if dtype is None else _std(dtype))


def ones_like(x, dtype=None):
    """Ones shaped like ``x``."""
    return tf.ones_like(x, dtype=None if dtype is None else _std(dtype))


empty_like = zeros_like


def full(shape, fill_value, dtype=None):
    """``fill_value`` broadcast to ``shape``."""
    return tf.broadcast_to(_t(fill_value, _std(dtype or floatx())), shape)


def full_like(x, fill_value, dtype=None):
    """``fill_value`` broadcast to the shape of ``x``."""
    x = _t(x)
    dtype = result_type(dtype or x.dtype)
    return tf.broadcast_to(_t(fill_value, dtype), tf.shape(x))


def eye(N, M=None, k=0, dtype=None):
    """A 2-D tensor with ones on the ``k``-th diagonal."""

    def floating(v):
        return isinstance(v, float) or getattr(v, "dtype", None) in (
            "bfloat16",
            "float16",
            "float32",
            "float64",
        )

    if floating(N):
        raise TypeError("Argument `N` must be an integer or an integer tensor.")
    if floating(M):
        raise TypeError("Argument `M` must be an integer, an integer tensor, or `None`.")
    dtype = _std(dtype or floatx())
    M = N if M is None else M
    if isinstance(k, int) and k == 0:
        return tf.eye(N, M, dtype=dtype)
    return tf.pad(
        tf.eye(tf.minimum(M - k, N + k), dtype=dtype),
        (
            (tf.maximum(-k, 0), tf.maximum(N - M + k, 0)),
            (tf.maximum(k, 0), tf.maximum(M - N - k, 0)),
        ),
    )


def identity(n, dtype=None):
    """The ``n x n`` identity matrix."""
    return eye(N=n, M=n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the ``k``-th diagonal."""
    M = N if M is None else M
    dtype = _std(dtype or floatx())
    if k < 0:
        lower = -k - 1
        if lower > N:
            return tf.zeros([N, M], dtype=dtype)
        ones_ = tf.ones([N, M], dtype="bool")
        return tf.cast(tf.logical_not(tf.linalg.band_part(ones_, lower, -1)), dtype)
    ones_ = tf.ones([N, M], dtype=dtype)
    return ones_ if k > M else tf.linalg.band_part(ones_, -1, k)


def _band_mask(x, k, keep_lower):
    shape = tf.shape(x)
    i, j = tf.meshgrid(tf.range(shape[-2]), tf.range(shape[-1]), indexing="ij")
    mask = (i >= j - k) if keep_lower else (i <= j - k)
    return tf.where(tf.broadcast_to(mask, shape), x, tf.zeros_like(x))


def tril(x, k=0):
    """The lower triangle of the last two axes."""
    x = _t(x)
    if isinstance(k, int) and k >= 0:
        return tf.linalg.band_part(x, -1, k)
    return _band_mask(x, k, True)


def triu(x, k=0):
    """The upper triangle of the last two axes."""
    x = _t(x)
    if isinstance(k, int) and k <= 0:
        return tf.linalg.band_part(x, -k, -1)
    return _band_mask(x, k, False)


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)``."""
    if dtype is None:
        parts = [dtype_of(start)] + [dtype_of(v) for v in (stop, step) if v is not None]
        dtype = result_type(*parts)
    dtype = _std(dtype)
    step = 1 if step is None else step
    try:
        return tf.range(start, stop, delta=step, dtype=dtype)
    except (tf.errors.NotFoundError, TypeError, ValueError):
        return tf.cast(tf.range(start, stop, delta=step, dtype="float32"), dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    if num < 0:
        raise ValueError(f"`num` must be a non-negative integer. Received: num={num}")
    if dtype is None:
        dtype = result_type(dtype_of(start), dtype_of(stop), float)
    else:
        dtype = _std(dtype)
    start, stop = _t(start, dtype=dtype), _t(stop, dtype=dtype)
    step = _t(np.nan)
    if endpoint:
        out = _tf_linspace(start, stop, num, axis)
        if num > 1:
            step = (stop - start) / (tf.cast(num, dtype) - 1)
    else:
        if num > 0:
            step = (stop - start) / tf.cast(num, dtype)
        if num > 1:
            new_stop = tf.cast(stop, step.dtype) - step
            out = _tf_linspace(tf.cast(start, new_stop.dtype), new_stop, num, axis)
        else:
            out = _tf_linspace(start, stop, num, axis)
    if "int" in dtype:
        out = tf.floor(out)
    out = tf.cast(out, dtype)
    return (out, step) if retstep else out


def _tf_linspace(start, stop, num, axis):
    """`tf.linspace`; ferroflow's takes scalar ends only, so batched ends are computed with
    TensorFlow's formula (``start + i * (stop - start) / (num - 1)``, ends kept exact)."""
    if start.shape.rank == 0 and stop.shape.rank == 0:
        return tf.linspace(start, stop, num, axis=axis)
    shape = tf.broadcast_static_shape(start.shape, stop.shape)
    rank = shape.rank + 1
    axis = axis + rank if axis < 0 else axis
    first = tf.expand_dims(tf.broadcast_to(start, shape), axis)
    last = tf.expand_dims(tf.broadcast_to(stop, shape), axis)
    steps = builtins.max(num - 1, 1)
    delta = (last - first) / tf.cast(steps, start.dtype)
    index_shape = [1] * rank
    index_shape[axis] = -1
    index = tf.reshape(tf.cast(tf.range(1, steps, dtype=tf.int64), start.dtype), index_shape)
    full_ = tf.concat([first, first + index * delta, last], axis=axis)
    size = list(full_.shape)
    size[axis] = num
    return tf.slice(full_, [0] * rank, size)


def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """``base ** linspace(start, stop)``."""
    out = linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    return tf.pow(tf.cast(base, out.dtype), out)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Values spaced evenly on a log scale from ``start`` to ``stop``."""
    start, stop = _t(start), _t(stop)
    fdtype = _std(dtype or floatx())
    log_start = tf.math.log(tf.cast(tf.abs(start), fdtype))
    log_stop = tf.math.log(tf.cast(tf.abs(stop), fdtype))
    ln10 = tf.math.log(tf.constant(10.0, dtype=log_start.dtype))
    out = logspace(
        log_start / ln10,
        log_stop / ln10,
        num=num,
        endpoint=endpoint,
        base=10,
        dtype=dtype,
        axis=axis,
    )
    return out * tf.cast(tf.sign(tf.cast(start, log_start.dtype)), out.dtype)


def meshgrid(*x, indexing="xy"):
    """Coordinate grids from 1-D vectors."""
    return tf.meshgrid(*x, indexing=indexing)


def _window(fn):
    def make(x):
        return fn(_t(x, dtype=tf.int32), periodic=False)

    return make


hamming = _window(_op("signal.hamming_window"))
hanning = _window(_op("signal.hann_window"))


def kaiser(x, beta):
    """The Kaiser window of length ``x``."""
    return tf.signal.kaiser_window(_t(x, dtype=tf.int32), beta=beta)


def bartlett(x):
    """The Bartlett (triangular) window of length ``x``."""
    n = int(x)
    if n == 0:
        return tf.constant([], dtype=floatx())
    if n == 1:
        return tf.ones([1])
    x = _t(x, dtype=floatx())
    i = tf.range(x)
    half = (x - 1) / 2
    return tf.where(i <= half, 2.0 * i / (x - 1), 2.0 - 2.0 * i / (x - 1))


def blackman(x):
    """The Blackman window of length ``x``."""
    x = tf.cast(x, floatx())
    n = tf.range(x, dtype=floatx())
    m = x - 1
    safe = tf.where(tf.equal(m, 0), tf.ones_like(m), m)
    w = 0.42 - 0.5 * tf.cos(2 * np.pi * n / safe) + 0.08 * tf.cos(4 * np.pi * n / safe)
    return tf.where(tf.equal(m, 0), tf.ones_like(w), w)


# Shapes and layout ----------------------------------------------------------------------
def ndim(x):
    """The rank of ``x``."""
    return _t(x).shape.rank


def size(x):
    """The number of elements of ``x``, as a scalar tensor."""
    return tf.size(_t(x))


def shape_equal(shape1, shape2, axis=None, allow_none=True):
    """Whether two shapes match, ignoring ``axis`` and (with ``allow_none``) unknown dims."""
    if len(shape1) != len(shape2):
        return False
    shape1, shape2 = list(shape1), list(shape2)
    for ax in [] if axis is None else _as_list(axis):
        shape1[ax] = shape2[ax] = -1
    if allow_none:
        for i in range(len(shape1)):
            shape1[i] = shape2[i] if shape1[i] is None else shape1[i]
            shape2[i] = shape1[i] if shape2[i] is None else shape2[i]
    return shape1 == shape2


def reshape(x, newshape):
    """``x`` with shape ``newshape`` (one -1 allowed)."""
    if not tf.is_tensor(newshape):
        try:
            newshape = tuple(newshape)
        except TypeError:
            newshape = (newshape,)
        if builtins.sum(1 for d in newshape if d == -1) > 1:
            raise ValueError(
                "There must be at most one unknown dimension (-1) in newshape. "
                f"Received: newshape={newshape}"
            )
    return tf.reshape(x, newshape)


def ravel(x):
    """``x`` flattened."""
    return tf.reshape(_t(x), [-1])


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape``."""
    return tf.broadcast_to(x, shape)


def expand_dims(x, axis):
    """``x`` with new unit axes at ``axis`` (an int or a tuple)."""
    x = _t(x)
    axis = _as_list(axis)
    out_ndim = len(x.shape) + len(axis)
    for a in sorted(_canon(a, out_ndim) for a in axis):
        x = tf.expand_dims(x, a)
    return x


def squeeze(x, axis=None):
    """``x`` without unit axes (only those in ``axis`` when given)."""
    x = _t(x)
    axis = _as_list(axis)
    if axis is not None:
        for a in axis:
            if x.shape[a] != 1:
                raise ValueError(f"Cannot squeeze axis={a}, because the dimension is not 1.")
        axis = sorted(_canon(a, len(x.shape)) for a in axis)
    # An empty ``axis`` squeezes every unit dimension, as `tf.squeeze(x, axis=[])` does in
    # TensorFlow (ferroflow's `tf.squeeze` keeps them all for an empty list).
    return tf.squeeze(x, axis=axis or None)


def transpose(x, axes=None):
    """``x`` with axes permuted (reversed by default)."""
    x = _t(x)
    if axes:
        axes = tuple(_canon(a, len(x.shape)) for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError(
                "`axes` must be a valid permutation of the input dimensions (no duplicates). "
                f"Received: axes={list(axes)} for input of rank {len(x.shape)}."
            )
    return tf.transpose(x, perm=axes)


def moveaxis(x, source, destination):
    """``x`` with axes ``source`` moved to ``destination``."""
    x = _t(x)
    src = tuple(_canon(i, x.shape.rank) for i in _as_list(source))
    dst = tuple(_canon(i, x.shape.rank) for i in _as_list(destination))
    if len(src) != len(dst):
        raise ValueError(
            "Inconsistent number of `source` and `destination`. "
            f"Received: source={source}, destination={destination}"
        )
    if src == dst:
        return x
    perm = [i for i in range(x.shape.rank) if i not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        perm.insert(d, s)
    return tf.transpose(x, perm)


def swapaxes(x, axis1, axis2):
    """``x`` with two axes exchanged."""
    x = _t(x)
    a1, a2 = _canon(axis1, x.shape.rank), _canon(axis2, x.shape.rank)
    if a1 == a2:
        return x
    perm = list(range(x.shape.rank))
    perm[a1], perm[a2] = a2, a1
    return tf.transpose(x, perm)


def _concat_promoted(xs, axis):
    xs = [_t(x) for x in xs]
    kinds = {x.dtype for x in xs}
    if len(kinds) > 1:
        dtype = result_type(*kinds)
        xs = [tf.cast(x, dtype) for x in xs]
    return tf.concat(xs, axis=axis)


def concatenate(xs, axis=0):
    """Joins tensors along ``axis``, promoting their dtypes."""
    return _concat_promoted(xs, axis)


def append(x1, x2, axis=None):
    """``x2`` appended to ``x1`` (both flattened when ``axis`` is None)."""
    x1, x2 = _promote_tensors(x1, x2)
    if axis is None:
        return tf.concat([tf.reshape(x1, [-1]), tf.reshape(x2, [-1])], axis=0)
    return tf.concat([x1, x2], axis=axis)


def _stack_promoted(xs):
    kinds = {dtype_of(x) for x in xs}
    if len(kinds) > 1:
        dtype = result_type(*kinds)
        return [_t(x, dtype) for x in xs]
    return xs


def stack(x, axis=0):
    """Stacks tensors along a new ``axis``, promoting their dtypes."""
    return tf.stack(_stack_promoted(x), axis=axis)


def hstack(xs):
    """Concatenates along axis 1 (axis 0 for 1-D inputs)."""
    xs = _stack_promoted(xs)
    return tf.concat(xs, axis=0 if len(xs[0].shape) == 1 else 1)


def vstack(xs):
    """Concatenates along axis 0."""
    return tf.concat(_stack_promoted(xs), axis=0)


def dstack(xs):
    """Concatenates along axis 2, lifting inputs to at least 3-D."""
    xs = [_t(x) for x in xs]
    if len({x.dtype for x in xs}) > 1:
        dtype = result_type(*[x.dtype for x in xs])
        xs = [cast(x, dtype) for x in xs]
    lifted = []
    for x in xs:
        if len(x.shape) == 0:
            x = tf.reshape(x, (1, 1, 1))
        elif len(x.shape) == 1:
            x = x[None, :, None]
        elif len(x.shape) == 2:
            x = x[:, :, None]
        lifted.append(x)
    return tf.concat(lifted, axis=2)


def split(x, indices_or_sections, axis=0):
    """Splits into equal sections, or at the given indices."""
    if isinstance(indices_or_sections, int):
        return tf.split(x, indices_or_sections, axis=axis)
    x = _t(x)
    bounds = [0, *list(indices_or_sections), x.shape[axis]]
    sizes = [bounds[i + 1] - bounds[i] for i in range(len(bounds) - 1)]
    return tf.split(x, sizes, axis=axis)


def array_split(x, indices_or_sections, axis=0):
    """Splits into ``indices_or_sections`` nearly equal parts (the first ones one larger)."""
    if not isinstance(indices_or_sections, int):
        raise TypeError(
            "Argument `indices_or_sections` must be of type `int`. "
            f"Received: indices_or_sections={indices_or_sections}"
        )
    if indices_or_sections <= 0:
        raise ValueError(
            "Argument `indices_or_sections` must be a positive integer. "
            f"Received: indices_or_sections={indices_or_sections}"
        )
    if not isinstance(axis, int):
        raise TypeError(f"Argument `axis` must be of type `int`. Received: {axis}")
    x = _t(x)
    total = x.shape[axis]
    avg, rem = divmod(total, indices_or_sections)
    return tf.split(x, [avg + 1] * rem + [avg] * (indices_or_sections - rem), axis=axis)


def hsplit(x, indices_or_sections):
    """`split` along axis 1 (axis 0 for 1-D)."""
    x = _t(x)
    return split(x, indices_or_sections, axis=0 if x.shape.rank == 1 else 1)


def vsplit(x, indices_or_sections):
    """`split` along axis 0."""
    return split(x, indices_or_sections, axis=0)


def dsplit(x, indices_or_sections):
    """`split` along axis 2."""
    return split(x, indices_or_sections, axis=2)


def flip(x, axis=None):
    """``x`` reversed along ``axis`` (all axes by default)."""
    x = _t(x)
    rank = x.shape.rank
    axes = list(range(rank)) if axis is None else [_canon(a, rank) for a in _as_list(axis)]
    return tf.reverse(x, axes)


def fliplr(x):
    """``x`` reversed along axis 1."""
    return tf.reverse(_t(x), [1])


def flipud(x):
    """``x`` reversed along axis 0."""
    return tf.reverse(_t(x), [0])


def rot90(array, k=1, axes=(0, 1)):
    """``array`` rotated by 90 degrees ``k`` times in the plane of ``axes``."""
    array = _t(array)
    rank = array.shape.rank
    if rank < 2:
        raise ValueError(
            f"Input array must have at least 2 dimensions. Received: array.ndim={rank}"
        )
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError(f"Invalid axes: {axes}. Axes must be a tuple of two different dimensions.")
    k %= 4
    if k == 0:
        return array
    axes = tuple(a + rank if a < 0 else a for a in axes)
    perm = [i for i in range(rank) if i not in axes] + list(axes)
    array = tf.transpose(array, perm)
    lead = list(array.shape[:-2])
    h, w = array.shape[-2], array.shape[-1]
    array = tf.reshape(array, [-1, h, w])
    # A quarter turn reverses the columns, then swaps rows and columns. As Keras does, further
    # turns start from the turned array reshaped to the final (h, w): for k == 2 on a
    # non-square plane this differs from NumPy, and Keras's result is what is matched.
    array = tf.transpose(tf.reverse(array, [2]), [0, 2, 1])
    final = (w, h) if k % 2 else (h, w)
    if k > 1:
        array = tf.reshape(array, [-1, *final])
        for _ in range(k - 1):
            array = tf.transpose(tf.reverse(array, [2]), [0, 2, 1])
    array = tf.reshape(array, lead + list(final))
    inverse = [0] * rank
    for i, p in enumerate(perm):
        inverse[p] = i
    return tf.transpose(array, inverse)


def roll(x, shift, axis=None):
    """``x`` rolled by ``shift`` along ``axis`` (flattened when None)."""
    x = _t(x)
    if axis is not None:
        return tf.roll(x, shift=shift, axis=axis)
    return tf.reshape(tf.roll(tf.reshape(x, [-1]), shift, 0), tf.shape(x))


def repeat(x, repeats, axis=None):
    """Repeats each element ``repeats`` times along ``axis`` (flattened when None)."""
    x = _t(x)
    if _std(x.dtype) == "uint16":
        return tf.cast(tf.repeat(tf.cast(x, "uint32"), repeats, axis=axis), "uint16")
    return tf.repeat(x, repeats, axis=axis)


def tile(x, repeats):
    """``x`` tiled ``repeats`` times per axis (``repeats`` may be longer than the rank)."""
    x = _t(x)
    repeats = (
        [repeats]
        if isinstance(repeats, int)
        else [int(r) if tf.is_tensor(r) and r.shape == () else r for r in repeats]
    )
    if len(repeats) < x.shape.rank:
        repeats = [1] * (x.shape.rank - len(repeats)) + repeats
    while len(repeats) > x.shape.rank:
        x = tf.expand_dims(x, 0)
    return tf.tile(x, repeats)


def pad(x, pad_width, mode="constant", constant_values=None):
    """Pads ``x`` by ``pad_width`` (an int, one pair for every axis, or a pair per axis) in
    `tf.pad`'s modes ("constant", "reflect", "symmetric")."""
    if isinstance(pad_width, int):
        pad_width = ((pad_width, pad_width),)
    elif isinstance(pad_width, tuple | list) and isinstance(pad_width[0], int):
        pad_width = (pad_width,)
    else:
        pad_width = list(pad_width)
        first = len(pad_width[0])
        for i, pw in enumerate(pad_width):
            if len(pw) != first:
                raise ValueError(
                    "`pad_width` should be a list of tuples of length 1 or 2. "
                    f"Received: pad_width={pad_width}"
                )
            if len(pw) == 1:
                pad_width[i] = (pw[0], pw[0])
    x = _t(x)
    if len(pad_width) > 1 and len(pad_width) != len(x.shape):
        raise ValueError(
            "`pad_width` must have the same length as `x.shape`. "
            f"Received: pad_width={pad_width} (of length {len(pad_width)}) and "
            f"x.shape={x.shape} (of length {len(x.shape)})"
        )
    kwargs = {}
    if constant_values is not None:
        if mode != "constant":
            raise ValueError(
                "Argument `constant_values` can only be provided when `mode == 'constant'`. "
                f"Received: mode={mode}"
            )
        kwargs["constant_values"] = constant_values
    return tf.pad(x, _t(pad_width, "int32"), mode.upper(), **kwargs)


def diag(x, k=0):
    """A diagonal matrix from a vector, or the ``k``-th diagonal of a matrix."""
    x = _t(x)
    if len(x.shape) == 1:
        return tf.linalg.diag(x, k=k)
    if len(x.shape) == 2:
        return diagonal(x, offset=k)
    raise ValueError(f"`x` must be 1d or 2d. Received: x.shape={x.shape}")


def diagflat(x, k=0):
    """The diagonal matrix of ``x`` flattened."""
    return diag(tf.reshape(_t(x), [-1]), k)


def diagonal(x, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the plane ``(axis1, axis2)``, as the last axis."""
    x = _t(x)
    rank = len(x.shape)
    if _canon(axis1, rank) == _canon(axis2, rank):
        raise ValueError(
            f"`axis1` and `axis2` cannot be the same. Received: axis1={axis1}, axis2={axis2}"
        )
    if offset == 0 and axis1 in (rank - 2, -2) and axis2 in (rank - 1, -1):
        return tf.linalg.diag_part(x)
    x = moveaxis(x, (axis1, axis2), (-2, -1))
    rows, cols = x.shape[-2], x.shape[-1]
    if offset <= -rows or offset >= cols:
        return tf.zeros(list(x.shape[:-2]) + [0], dtype=x.dtype)
    return tf.linalg.diag_part(x, k=offset)


def trace(x, offset=0, axis1=0, axis2=1):
    """The sum along a diagonal."""
    x = _t(x)
    x = tf.cast(x, _widen_small_ints(_std(x.dtype)))
    n, m = x.shape[axis1], x.shape[axis2]
    x = moveaxis(x, (axis1, axis2), (-2, -1))
    x = tf.where(eye(n, m, k=offset, dtype="bool"), x, tf.zeros_like(x))
    return tf.reduce_sum(x, axis=(-2, -1))


def diff(a, n=1, axis=-1):
    """The ``n``-th discrete difference along ``axis``."""
    a = _t(a)
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"Order `n` must be non-negative. Received n={n}")
    if a.shape.rank == 0:
        raise ValueError(f"`diff` requires input that is at least one dimensional. Received: a={a}")
    axis = _canon(axis, a.shape.rank)
    hi = [builtins.slice(None)] * a.shape.rank
    lo = list(hi)
    hi[axis], lo[axis] = builtins.slice(1, None), builtins.slice(None, -1)
    for _ in range(n):
        if _std(a.dtype) == "bool":
            a = tf.not_equal(a[tuple(hi)], a[tuple(lo)])
        else:
            a = tf.subtract(a[tuple(hi)], a[tuple(lo)])
    return a


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` by the trapezoidal rule."""
    y = _t(y)
    dtype = result_type(y.dtype, float)
    y = moveaxis(tf.cast(y, dtype), axis, -1)
    if x is None:
        step = tf.cast(dx, dtype)
    else:
        step = moveaxis(diff(_t(x, dtype=dtype), axis=axis), axis, -1)
    return tf.reduce_sum(0.5 * (y[..., 1:] + y[..., :-1]) * step, axis=-1)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D ``x``."""
    if len(x.shape) != 1:
        raise ValueError(f"Input tensor must be 1-dimensional. Received: input.shape={x.shape}")
    if N is not None:
        if not isinstance(N, int):
            raise TypeError(
                f"Argument `N` must be of type `int`. Received: N={N} of type {type(N)}"
            )
        if N < 0:
            raise ValueError(f"Argument 'N' must be nonnegative. Received: N={N}")
    if not isinstance(increasing, bool):
        raise TypeError(
            "Argument `increasing` must be of type `bool`. "
            f"Received: increasing={increasing} of type {type(increasing)}"
        )
    x = _t(x)
    N = x.shape[0] if N is None else N
    powers = tf.range(N) if increasing else tf.range(N - 1, -1, -1)
    compute = result_type(x.dtype, "float32")
    out = tf.math.pow(tf.cast(tf.expand_dims(x, -1), compute), tf.cast(powers, compute))
    return tf.cast(out, result_type(x.dtype))


# Indexing and sorting -------------------------------------------------------------------
def get_item(x, key):
    """``x[key]``."""
    return x[key]


def take(x, indices, axis=None):
    """Elements of ``x`` at ``indices`` along ``axis`` (negative indices count from the end)."""
    x = _t(x)
    if axis is None:
        x, axis = tf.reshape(x, (-1,)), 0
    indices = _t(indices)
    indices = tf.where(indices < 0, indices + tf.cast(tf.shape(x)[axis], indices.dtype), indices)
    return tf.gather(x, indices, axis=axis)


def take_along_axis(x, indices, axis=None):
    """Elements of ``x`` picked along ``axis`` by ``indices`` (broadcast against ``x``)."""
    x = _t(x)
    indices = _t(indices, "int64")
    if axis is None:
        if indices.shape.rank != 1:
            raise ValueError(
                f"`indices` must be 1D if axis=None. Received: indices.shape={indices.shape}"
            )
        return take_along_axis(tf.reshape(x, [-1]), indices, 0)
    rank = x.shape.rank
    a = axis + rank if axis < 0 else axis
    if a >= rank:
        raise ValueError(f"Invalid axis: {axis} for input rank: {rank}")
    xs, ix = list(x.shape), list(indices.shape)
    xs[a] = ix[a] = 1
    common = list(tf.broadcast_static_shape(tf.TensorShape(xs), tf.TensorShape(ix)))
    x_shape, i_shape = list(common), list(common)
    x_shape[a], i_shape[a] = x.shape[a], indices.shape[a]
    x = tf.broadcast_to(x, x_shape)
    indices = tf.broadcast_to(indices, i_shape)
    indices = tf.where(indices < 0, indices + x_shape[a], indices)
    x, indices = swapaxes(x, a, -1), swapaxes(indices, a, -1)
    moved_shape = tf.shape(indices)
    flat = tf.gather(
        tf.reshape(x, [-1, x.shape[-1]]), tf.reshape(indices, [-1, indices.shape[-1]]), batch_dims=1
    )
    return swapaxes(tf.reshape(flat, moved_shape), a, -1)


def sort(x, axis=-1):
    """``x`` sorted along ``axis`` (flattened when None)."""
    x = _t(x)
    name = _std(x.dtype)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    if name == "bool":
        return tf.cast(tf.sort(tf.cast(x, "int8"), axis=axis), name)
    return tf.sort(x, axis=axis)


def argsort(x, axis=-1):
    """The indices that sort ``x`` along ``axis``."""
    x = _t(x)
    if _std(x.dtype) == "bool":
        x = tf.cast(x, "uint8")
    if x.shape.rank == 0:
        return tf.cast([0], "int32")
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    return tf.argsort(x, axis=axis)


def argpartition(x, kth, axis=-1):
    """Indices partitioning ``x`` so the ``kth`` element is in its sorted place."""
    x = _t(x, tf.int32)
    original = axis
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    x = swapaxes(x, axis, -1)
    n = tf.shape(x)[-1]
    kth = tf.clip_by_value(tf.cast(kth, tf.int32), 0, n - 1)
    bottom = tf.math.top_k(-x, kth + 1).indices
    mask = tf.reduce_sum(tf.one_hot(bottom, n, dtype=tf.int32), axis=0)
    where_ = tf.where(mask)
    masked = tf.tensor_scatter_nd_update(x, where_, tf.zeros(tf.shape(where_)[0], dtype=tf.int32))
    top = tf.math.top_k(masked, n - kth - 1).indices
    out = tf.concat([bottom, top], axis=-1)
    return out if original is None else swapaxes(out, -1, axis)


def searchsorted(sorted_sequence, values, side="left"):
    """Insertion indices of ``values`` into the 1-D ``sorted_sequence``."""
    sorted_sequence, values = _t(sorted_sequence), _t(values)
    if sorted_sequence.shape.rank != 1:
        raise ValueError(
            "`searchsorted` only supports 1-D sorted sequences. You can use "
            "`keras.ops.vectorized_map` to extend it to N-D sequences. Received: "
            f"sorted_sequence.shape={sorted_sequence.shape}"
        )
    n = sorted_sequence.shape[0]
    out_type = "int32" if n is not None and n <= np.iinfo(np.int32).max else "int64"
    return tf.searchsorted(sorted_sequence, values, side=side, out_type=out_type)


def digitize(x, bins):
    """The index of the bin each value falls in (``bins[i-1] <= x < bins[i]``), as int32."""
    x = _t(x)
    bins = [float(b) for b in list(bins)]
    name = _std(x.dtype)
    if name in ("bool", "int8", "int16", "uint8", "uint16"):
        x = cast(x, "int32")
    elif name == "uint32":
        x = cast(x, "int64")
    elif name in ("bfloat16", "float16"):
        x = cast(x, "float32")
    boundaries = tf.constant(bins, dtype=x.dtype if x.dtype.is_floating else tf.float64)
    values = x if x.dtype.is_floating else tf.cast(x, tf.float64)
    flat = tf.searchsorted(boundaries, tf.reshape(values, [-1]), side="right", out_type="int32")
    return tf.reshape(flat, tf.shape(x))


def nonzero(x):
    """The indices of non-zero elements, one int32 vector per axis."""
    x = _t(x)
    found = tf.where(tf.cast(x, "bool"))
    return tuple(tf.cast(i, "int32") for i in tf.unstack(found, x.shape.rank, axis=1))


def unravel_index(indices, shape):
    """The coordinates in ``shape`` of flat ``indices``."""
    indices = tf.convert_to_tensor(indices)
    dtype = indices.dtype
    if None in shape:
        raise ValueError(f"`shape` argument cannot contain `None`. Received: shape={shape}")
    coords = []
    if indices.shape.rank == 1:
        for dim in reversed(shape):
            coords.append(tf.cast(indices % dim, dtype))
            indices = indices // dim
        return tuple(reversed(coords))
    original = indices.shape
    for dim in shape:
        coords.append(tf.reshape(tf.cast(indices % dim, dtype), original))
        indices = indices // dim
    return tuple(reversed(coords))


def isin(x1, x2, assume_unique=False, invert=False):
    """Whether each element of ``x1`` occurs in ``x2``."""
    x1, x2 = _promote_tensors(x1, x2)
    shape = tf.shape(x1)
    x1, x2 = tf.reshape(x1, [-1]), tf.reshape(x2, [-1])
    if int(tf.size(x1)) == 0 or int(tf.size(x2)) == 0:
        return tf.zeros(shape, dtype=tf.bool)
    found = tf.reduce_any(tf.equal(x1[:, None], x2[None, :]), axis=1)
    return tf.reshape(tf.logical_not(found) if invert else found, shape)


def bincount(x, weights=None, minlength=0, sparse=False):
    """Counts of each non-negative integer (weighted sums with ``weights``); a `SparseTensor`
    of the nonzero counts with ``sparse=True`` or a sparse ``x``."""
    x = _t(x)
    dtypes_ = [x.dtype]
    if _std(x.dtype) not in ("int32", "int64"):
        x = cast(x, "int32")
    if weights is not None:
        weights = _t(weights)
        dtypes_.append(weights.dtype)
        dtype = result_type(*dtypes_)
        wname = _std(weights.dtype)
        if wname not in ("int32", "int64", "float32", "float64"):
            weights = tf.cast(weights, tf.int32 if "int" in wname else tf.float32)
    else:
        dtype = "int32"
    if sparse or isinstance(x, tf.SparseTensor):
        return _sparse_bincount(x, weights, minlength, dtype)
    return tf.cast(tf.math.bincount(x, weights=weights, minlength=minlength, axis=-1), dtype)


def _sparse_bincount(x, weights, minlength, dtype):
    # Keras's TensorFlow backend: `tf.sparse.bincount` per row, the counts cast to ``dtype``
    # and the dense shape rebuilt from the batch size and the counts' length.
    counts = tf.sparse.bincount(x, weights=weights, minlength=minlength, axis=-1)
    length = counts.shape[-1]
    if length is None:
        length = counts.dense_shape[-1]
    values = tf.cast(counts.values, dtype)
    dims = [length]
    if x.shape.rank != 1:
        dims.insert(0, counts.dense_shape[0] if counts.shape[0] is None else counts.shape[0])
    if builtins.any(tf.is_tensor(d) for d in dims):
        dims = tf.stack([tf.cast(d, tf.int64) for d in dims])
    return tf.SparseTensor(counts.indices, values, dims)


def histogram(x, bins=10, range=None):
    """Counts of ``x`` in ``bins`` equal bins over ``range``, and the bin edges."""
    if not isinstance(bins, int):
        raise TypeError(f"Argument `bins` must be of type `int`. Received: bins={bins}")
    if bins < 0:
        raise ValueError(f"Argument `bins` should be a non-negative integer. Received: bins={bins}")
    if range:
        if len(range) < 2 or not isinstance(range, tuple):
            raise ValueError(
                f"Argument `range` must be a tuple of two elements. Received: range={range}"
            )
        if range[1] < range[0]:
            raise ValueError(
                "The second element of `range` must be greater than the first. "
                f"Received: range={range}"
            )
    x = _t(x)
    if len(x.shape) > 1:
        raise ValueError(f"Input tensor must be 1-dimensional. Received: input.shape={x.shape}")
    lo, hi = (tf.reduce_min(x), tf.reduce_max(x)) if range is None else range
    x = tf.boolean_mask(x, (x >= lo) & (x <= hi))
    edges = tf.cast(tf.linspace(lo, hi, bins + 1), x.dtype)
    idx = tf.searchsorted(edges[1:-1], x, side="right")
    counts = tf.scatter_nd(idx[:, None], tf.ones_like(idx, dtype=x.dtype), shape=(bins,))
    return counts, edges


# Products and contractions --------------------------------------------------------------
def matmul(x1, x2):
    """Matrix product with NumPy's broadcasting (int8 x int8 gives int32); a rank-2 sparse
    operand times a dense matrix gives a dense product."""
    x1, x2 = _t(x1), _t(x2)
    if isinstance(x1, tf.SparseTensor) or isinstance(x2, tf.SparseTensor):
        return _sparse_matmul(x1, x2)
    r1, r2 = x1.shape.rank, x2.shape.rank
    if _std(x1.dtype) == "int8" and _std(x2.dtype) == "int8" and r1 != 1 and r2 != 1:
        compute, out_dtype = "int32", "int32"
    else:
        compute = result_type(x1.dtype, x2.dtype, float)
        out_dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = tf.cast(x1, compute), tf.cast(x2, compute)
    if r2 == 1:
        out = tf.tensordot(x1, x2, axes=1)
    elif r1 == 1:
        out = tf.tensordot(x1, x2, axes=[[0], [-2]])
    elif r2 == 2 and r1 > 2:
        out = tf.tensordot(x1, x2, axes=[[-1], [0]])
    else:
        out = tf.matmul(x1, x2)
    return tf.cast(out, out_dtype)


def _sparse_matmul(x1, x2):
    # Keras's TensorFlow backend multiplies in the float promotion and casts the dense
    # product back; ranks above 2 and sparse x sparse take other TensorFlow kernels.
    if isinstance(x1, tf.SparseTensor) and isinstance(x2, tf.SparseTensor):
        raise NotImplementedError("ferroflow's `ops.matmul` does not multiply two sparse tensors.")
    if x1.shape.rank != 2 or x2.shape.rank != 2:
        raise NotImplementedError(
            "ferroflow's `ops.matmul` multiplies sparse tensors of rank 2 only. Received: "
            f"x1.shape={x1.shape}, x2.shape={x2.shape}"
        )
    compute = result_type(x1.dtype, x2.dtype, float)
    out = tf.sparse.sparse_dense_matmul(cast(x1, compute), cast(x2, compute))
    out = tf.cast(out, result_type(x1.dtype, x2.dtype))
    return tf.ensure_shape(out, [x1.shape[0], x2.shape[1]])


def _in_float(x1, x2):
    # Contractions compute in the float promotion of the result dtype, then cast back.
    x1, x2 = _t(x1), _t(x2)
    out_dtype = result_type(x1.dtype, x2.dtype)
    compute = result_type(out_dtype, float)
    return tf.cast(x1, compute), tf.cast(x2, compute), out_dtype


def dot(x1, x2):
    """NumPy's dot product."""
    x1, x2, out_dtype = _in_float(x1, x2)
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        out = x1 * x2
    elif x2.shape.rank == 1:
        out = tf.tensordot(x1, x2, axes=[[-1], [-1]])
    else:
        out = tf.tensordot(x1, x2, axes=[[-1], [-2]])
    return tf.cast(out, out_dtype)


def vdot(x1, x2):
    """The dot product of the flattened inputs."""
    x1, x2, out_dtype = _in_float(x1, x2)
    return tf.cast(dot(tf.reshape(x1, [-1]), tf.reshape(x2, [-1])), out_dtype)


def inner(x1, x2):
    """Inner product over the last axes."""
    x1, x2, out_dtype = _in_float(x1, x2)
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        out = x1 * x2
    else:
        out = tf.tensordot(x1, x2, axes=[[-1], [-1]])
    return tf.cast(out, out_dtype)


def outer(x1, x2):
    """The outer product of the flattened inputs."""
    x1, x2 = _promote_tensors(x1, x2)
    return _times(tf.reshape(x1, [-1, 1]), tf.reshape(x2, [-1]))


def _times(a, b):
    # TensorFlow's `*` on bool tensors is logical AND.
    return tf.logical_and(a, b) if a.dtype == tf.bool else a * b


def tensordot(x1, x2, axes=2):
    """Contraction over ``axes``."""
    x1, x2 = _t(x1), _t(x2)
    out_dtype = result_type(x1.dtype, x2.dtype)
    direct = (
        "int32",
        "int64",
        "float16",
        "float32",
        "float64",
        "bfloat16",
        "complex64",
        "complex128",
    )
    compute = out_dtype if out_dtype in direct else result_type(out_dtype, float)
    out = tf.tensordot(tf.cast(x1, compute), tf.cast(x2, compute), axes=axes)
    return tf.cast(out, out_dtype)


def einsum(subscripts, *operands, **kwargs):
    """Einstein summation; integer operands are computed in floatx (all-int8 gives int32)."""
    operands = [_t(o) for o in operands]
    kinds = list({_std(o.dtype) for o in operands})
    if len(kinds) == 1 and kinds[0] == "int8":
        compute, out_dtype = "int32", "int32"
    else:
        out_dtype = result_type(*kinds)
        compute = floatx() if "int" in out_dtype else out_dtype
    out = tf.einsum(subscripts, *[tf.cast(o, compute) for o in operands], **kwargs)
    return tf.cast(out, out_dtype)


def kron(x1, x2):
    """The Kronecker product."""
    x1, x2 = _promote_tensors(x1, x2)
    while x1.shape.rank < x2.shape.rank:
        x1 = tf.expand_dims(x1, 0)
    while x2.shape.rank < x1.shape.rank:
        x2 = tf.expand_dims(x2, 0)
    s1, s2 = tf.shape(x1), tf.shape(x2)
    a = tf.reshape(x1, tf.reshape(tf.stack([s1, tf.ones_like(s1)], axis=1), [-1]))
    b = tf.reshape(x2, tf.reshape(tf.stack([tf.ones_like(s2), s2], axis=1), [-1]))
    return tf.reshape(_times(a, b), s1 * s2)


def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 2- or 3-vectors."""
    x1, x2 = _promote_tensors(x1, x2)
    if axis is not None:
        axisa = axisb = axisc = axis
    x1, x2 = moveaxis(x1, axisa, -1), moveaxis(x2, axisb, -1)
    d1, d2 = x1.shape[-1], x2.shape[-1]
    for d in (d1, d2):
        if d not in (2, 3):
            raise ValueError(
                "Dimension of vectors for cross product should be 2 or 3. "
                f"Received: x1.shape={x1.shape}, x2.shape={x2.shape}"
            )

    def pad3(x):
        return tf.pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, 1]]) if x.shape[-1] == 2 else x

    x1, x2 = pad3(x1), pad3(x2)
    shape = tf.broadcast_static_shape(x1.shape, x2.shape)
    c = tf.linalg.cross(tf.broadcast_to(x1, shape), tf.broadcast_to(x2, shape))
    if d1 == 2 and d2 == 2:
        return c[..., 2]
    return moveaxis(c, -1, axisc)


def correlate(x1, x2, mode="valid"):
    """The cross-correlation of two 1-D sequences."""
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    if dtype == "int64":
        dtype = "float64"
    elif dtype not in ("bfloat16", "float16", "float64"):
        dtype = "float32"
    x1, x2 = tf.cast(x1, dtype), tf.cast(x2, dtype)
    n, m = x1.shape[0], x2.shape[0]

    def corr(a):
        out = tf.nn.conv1d(tf.reshape(a, (1, -1, 1)), tf.reshape(x2, (m, 1, 1)), 1, "VALID")
        return tf.squeeze(out, axis=[0, 2])

    if mode == "valid":
        return corr(x1)
    if mode not in ("full", "same"):
        raise ValueError(f"Invalid mode: '{mode}'. Mode must be one of: 'full', 'same', 'valid'.")
    p = builtins.max(m - 1, 0)
    full_ = corr(tf.pad(x1, [[p, p]]))
    if mode == "full":
        return full_
    out_len = builtins.max(n, m)
    start = (n + m - 1 - out_len) // 2
    return full_[start : start + out_len]


def corrcoef(x):
    """Pearson correlation coefficients of the rows of ``x``."""
    x = _t(x)
    name = _std(x.dtype)
    if name in ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32"):
        x = tf.cast(x, floatx())
    if x.shape.rank == 0:
        return tf.constant(float("nan"), dtype=floatx())
    centred = x - tf.reduce_mean(x, axis=-1, keepdims=True)
    n = tf.cast(tf.shape(x)[-1], x.dtype)
    cov = tf.matmul(centred, centred, adjoint_b=True) / (n - 1)
    sd = tf.sqrt(tf.math.real(tf.linalg.diag_part(cov)))
    corr = cov / tf.cast(tf.tensordot(sd, sd, axes=0), cov.dtype)
    clipped = tf.clip_by_value(tf.math.real(corr), -1.0, 1.0)
    if corr.dtype.is_complex:
        return tf.complex(clipped, tf.clip_by_value(tf.math.imag(corr), -1.0, 1.0))
    return clipped


def slogdet(x):
    """The sign and log of the absolute determinant."""
    return tuple(tf.linalg.slogdet(_t(x)))


def view(x, dtype=None):
    """``x``'s bytes reinterpreted as ``dtype`` (the last axis rescaled)."""
    x = _t(x)
    old = tf.as_dtype(_std(x.dtype))
    new = tf.as_dtype(_std(dtype if dtype else x.dtype))
    shape = list(x.shape)
    last = shape[-1] if shape else -1
    if (last == -1 and old.size != new.size) or last * old.size % new.size != 0:
        raise ValueError(
            f"Cannot view array of shape {x.shape} and dtype {old} as dtype {new} because the "
            "total number of bytes is not divisible by the new itemsize."
        )
    if old.size == new.size:
        return tf.bitcast(x, new)
    if old.size > new.size:
        shape[-1] *= old.size // new.size
        return tf.reshape(tf.bitcast(tf.reshape(x, [-1]), new), shape)
    ratio = new.size // old.size
    if last % ratio != 0:
        raise ValueError(
            f"Cannot view dtype. Last dimension size ({last}) must be divisible by the ratio "
            f"of new/old item sizes ({ratio})."
        )
    return tf.bitcast(tf.reshape(x, shape[:-1] + [last // ratio, ratio]), new)


__all__ = sorted(
    n
    for n, v in dict(globals()).items()
    if not n.startswith("_")
    and callable(v)
    and getattr(v, "__module__", __name__) == __name__
    and n not in ("cast", "convert_to_tensor", "shape_equal")
)
# Ops written in their own modules.
__all__ = sorted([*__all__, "unique", "vectorize"])
