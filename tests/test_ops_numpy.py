"""Every op against numpy, on the CPU and on GPU:0: values, result dtype and result shape.

The expected values come from numpy (or from a formula written with numpy); where TensorFlow's
semantics differ from numpy's (integer truediv, floormod of floats, integer means, ...) the
reference follows TensorFlow, as checked against a reference TensorFlow installation.
"""

import math

import ferroflow as tf
import ml_dtypes
import numpy as np
import pytest

# Every test runs once per device (see conftest.py): numpy is the oracle for both.
pytestmark = pytest.mark.usefixtures("device")

FLOATS = ["float16", "float32", "float64"]
INTS = ["int32", "int64"]
COMPLEX = ["complex64", "complex128"]

# Shapes every element-wise op runs on: scalar, empty, small, and one above the parallel grain
# (32768 elements) so that the multi-threaded path runs too.
SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 4), (70001,)]
LARGE = 70001


def rng(seed=0):
    return np.random.default_rng(seed)


def tolerance(dtype):
    """(rtol, atol) for comparing a result of ``dtype`` with a float64 reference."""
    name = np.dtype(dtype).name
    if name == "float16":
        return 2e-3, 2e-3
    if name == "bfloat16":
        return 1.6e-2, 1.6e-2
    if name in ("float32", "complex64"):
        return 2e-5, 2e-6
    if name in ("float64", "complex128"):
        return 1e-12, 1e-13
    return 0, 0


def check(actual, expected, dtype=None, rtol=None, atol=None):
    """Asserts ``actual`` is a tensor of ``expected``'s dtype (or ``dtype``), shape and values."""
    assert isinstance(actual, tf.Tensor), type(actual)
    dtype = np.dtype(
        np.asarray(expected).dtype if dtype is None else tf.as_dtype(dtype).as_numpy_dtype
    )
    expected = np.asarray(expected).astype(dtype)
    assert actual.dtype == tf.as_dtype(dtype), (actual.dtype, dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    got = actual.numpy()
    assert np.asarray(got).dtype == dtype
    if dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected)
        return
    r, a = tolerance(dtype)
    r = r if rtol is None else rtol
    a = a if atol is None else atol
    wide = np.complex128 if dtype.kind == "c" else np.float64
    np.testing.assert_allclose(
        np.asarray(got).astype(wide), expected.astype(wide), rtol=r, atol=a, equal_nan=True
    )


def values(shape, dtype, domain="any", seed=0):
    """Random values of ``dtype`` in the op's domain."""
    g = rng(seed)
    n = int(np.prod(shape))
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return (g.random(shape) < 0.5).astype(np.bool_)
    if dtype.kind in "iu":
        lo = 0 if dtype.kind == "u" or domain == "pos" else -20
        v = g.integers(lo, 21, size=shape)
        if domain == "nonzero":
            v = np.where(v == 0, 7, v)
        return v.astype(dtype)
    ranges = {
        "any": (-3.0, 3.0),
        "pos": (0.1, 4.0),
        "gt_m1": (-0.9, 3.0),
        "tan": (-1.2, 1.2),
        "nonzero": (0.5, 3.0),
        "zeros": (-3.0, 3.0),
        "special": (-3.0, 3.0),
        "quarters": (-5.0, 5.0),
        "unit": (-0.99, 0.99),
        "wide": (-50.0, 50.0),
        "ge1": (1.0, 40.0),
    }
    lo, hi = ranges[domain]
    v = g.uniform(lo, hi, size=n)
    if domain == "nonzero":
        v *= g.choice([-1.0, 1.0], size=n)
    elif domain == "zeros":
        v[::3] = 0.0
    elif domain == "special":
        v[::4] = np.nan
        v[1::4] = np.inf
        v[2::8] = -np.inf
    elif domain == "quarters":
        v = np.round(v * 4) / 4  # many exact halves: round-half-to-even matters
    if dtype.kind == "c":
        v = v + 1j * g.uniform(-1.0, 1.0, size=n)
    return np.asarray(v.reshape(shape).astype(dtype))


def as_wide(x):
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return x.astype(np.complex128)
    if x.dtype.kind == "f" or x.dtype == ml_dtypes.bfloat16:
        return x.astype(np.float64)
    return x


# ---------------------------------------------------------------------------------------------
# Unary math


def np_sign(x):
    if x.dtype.kind == "c":
        mag = np.abs(x)
        return np.where(mag == 0, 0, x / np.where(mag == 0, 1, mag))
    return np.sign(x)


np_erf = np.vectorize(math.erf, otypes=[np.float64])

# name: (ferroflow function, numpy reference on widened values, input domain, dtypes)
UNARY = {
    "negative": (tf.math.negative, np.negative, "any", FLOATS + INTS + ["int8", "int16"] + COMPLEX),
    "abs": (tf.math.abs, np.abs, "any", FLOATS + INTS + ["int8", "int16"] + COMPLEX),
    "sign": (tf.math.sign, np_sign, "zeros", FLOATS + INTS + COMPLEX),
    "square": (tf.math.square, np.square, "any", FLOATS + INTS + ["uint8"] + COMPLEX),
    "sqrt": (tf.math.sqrt, np.sqrt, "pos", FLOATS + COMPLEX),
    "rsqrt": (tf.math.rsqrt, lambda x: 1 / np.sqrt(x), "pos", FLOATS + COMPLEX),
    "exp": (tf.math.exp, np.exp, "any", FLOATS + COMPLEX),
    "expm1": (tf.math.expm1, np.expm1, "any", FLOATS + COMPLEX),
    "log": (tf.math.log, np.log, "pos", FLOATS + COMPLEX),
    "log1p": (tf.math.log1p, np.log1p, "gt_m1", FLOATS + COMPLEX),
    "sin": (tf.math.sin, np.sin, "any", FLOATS + COMPLEX),
    "cos": (tf.math.cos, np.cos, "any", FLOATS + COMPLEX),
    "tan": (tf.math.tan, np.tan, "tan", FLOATS + COMPLEX),
    "asin": (tf.math.asin, np.arcsin, "unit", FLOATS + COMPLEX),
    "acos": (tf.math.acos, np.arccos, "unit", FLOATS + COMPLEX),
    "atan": (tf.math.atan, np.arctan, "wide", FLOATS + COMPLEX),
    "sinh": (tf.math.sinh, np.sinh, "any", FLOATS + COMPLEX),
    "cosh": (tf.math.cosh, np.cosh, "any", FLOATS + COMPLEX),
    "asinh": (tf.math.asinh, np.arcsinh, "wide", FLOATS + COMPLEX),
    "acosh": (tf.math.acosh, np.arccosh, "ge1", FLOATS + COMPLEX),
    "atanh": (tf.math.atanh, np.arctanh, "unit", FLOATS + COMPLEX),
    "tanh": (tf.math.tanh, np.tanh, "any", FLOATS + COMPLEX),
    "sigmoid": (tf.math.sigmoid, lambda x: 1 / (1 + np.exp(-x)), "any", FLOATS + COMPLEX),
    "erf": (tf.math.erf, np_erf, "any", FLOATS),
    "lgamma": (tf.math.lgamma, np.vectorize(math.lgamma, otypes=[np.float64]), "pos", FLOATS),
    "erfc": (tf.math.erfc, np.vectorize(math.erfc, otypes=[np.float64]), "any", FLOATS),
    "floor": (tf.math.floor, np.floor, "quarters", FLOATS),
    "ceil": (tf.math.ceil, np.ceil, "quarters", FLOATS),
    "round": (tf.math.round, np.round, "quarters", FLOATS + INTS),
    "reciprocal": (tf.math.reciprocal, lambda x: 1 / x, "nonzero", FLOATS + COMPLEX),
    "is_nan": (tf.math.is_nan, np.isnan, "special", FLOATS),
    "is_inf": (tf.math.is_inf, np.isinf, "special", FLOATS),
    "is_finite": (tf.math.is_finite, np.isfinite, "special", FLOATS),
    "logical_not": (tf.math.logical_not, np.logical_not, "any", ["bool"]),
    "stop_gradient": (tf.stop_gradient, lambda x: x, "any", FLOATS + INTS + COMPLEX + ["bool"]),
    "identity": (tf.identity, lambda x: x, "any", FLOATS + INTS + COMPLEX + ["bool"]),
    "zeros_like": (tf.zeros_like, np.zeros_like, "any", FLOATS + INTS + COMPLEX + ["bool"]),
    "ones_like": (tf.ones_like, np.ones_like, "any", FLOATS + INTS + COMPLEX + ["bool"]),
}

UNARY_CASES = [(name, d) for name, spec in UNARY.items() for d in spec[3]]


def unary_expected(name, x):
    ref = UNARY[name][1]
    with np.errstate(all="ignore"):
        out = ref(as_wide(x))
    if name in ("is_nan", "is_inf", "is_finite", "logical_not"):
        return out.astype(np.bool_)
    if name == "abs" and x.dtype.kind == "c":
        return out.astype(np.float32 if x.dtype == np.complex64 else np.float64)
    return out.astype(x.dtype)


def unary_tolerance(name, dtype):
    rtol, atol = tolerance(dtype)
    if np.dtype(dtype).kind == "c" and name in ("tan", "expm1", "log1p", "sigmoid", "rsqrt"):
        rtol, atol = max(rtol, 1e-5), max(atol, 1e-5)
    return rtol, atol


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name,dtype", UNARY_CASES)
def test_unary(name, dtype, shape):
    fn, _, domain, _ = UNARY[name]
    x = values(shape, dtype, domain)
    rtol, atol = unary_tolerance(name, dtype)
    check(fn(tf.constant(x)), unary_expected(name, x), rtol=rtol, atol=atol)


def noncontiguous(dtype, domain, which):
    base = values((400, 350) if which == "large" else (6, 8), dtype, domain, seed=3)
    view = {"transposed": base.T, "strided": base[::2, 1::3], "large": base[:, ::2]}[which]
    assert not view.flags.c_contiguous
    return view


@pytest.mark.parametrize("which", ["transposed", "strided", "large"])
@pytest.mark.parametrize(
    "name,dtype",
    [c for c in UNARY_CASES if c[1] in ("float32", "int32", "complex128", "bool")],
)
def test_unary_noncontiguous_numpy_input(name, dtype, which):
    fn, _, domain, _ = UNARY[name]
    x = noncontiguous(dtype, domain, which)
    rtol, atol = unary_tolerance(name, dtype)
    check(fn(tf.constant(x)), unary_expected(name, x), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["negative", "abs", "sqrt", "exp", "tanh", "floor", "round"])
def test_unary_bfloat16(name):
    fn, _, domain, _ = UNARY[name]
    x = values((7, 5), ml_dtypes.bfloat16, domain)
    check(fn(tf.constant(x)), unary_expected(name, x))


def test_round_is_half_to_even():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49999997, -3.7], np.float32)
    check(tf.math.round(x), np.array([-2, -2, -0, 0, 2, 2, 4, 0, -4], np.float32))
    assert np.signbit(tf.math.round(tf.constant(-0.5)).numpy())


def test_unary_special_values():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], np.float32)
    with np.errstate(all="ignore"):
        for fn, ref in [
            (tf.math.exp, np.exp),
            (tf.math.log, np.log),
            (tf.math.sqrt, np.sqrt),
            (tf.math.tanh, np.tanh),
            (tf.math.sigmoid, lambda v: 1 / (1 + np.exp(-v))),
            (tf.math.abs, np.abs),
            (tf.math.sign, np.sign),
            (tf.math.floor, np.floor),
            (tf.math.reciprocal, lambda v: 1 / v),
        ]:
            check(fn(x), ref(x).astype(np.float32))


def test_sigmoid_and_softplus_do_not_overflow():
    x = np.array([-100.0, -30.0, 0.0, 30.0, 100.0], np.float32)
    check(tf.math.sigmoid(x), (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32))
    check(tf.nn.softplus(x), np.logaddexp(0, x.astype(np.float64)).astype(np.float32))


def test_tensor_operators_unary():
    x = values((3, 4), "float32")
    check(-tf.constant(x), -x)
    check(abs(tf.constant(x)), np.abs(x))
    i = values((3, 4), "int32")
    check(~tf.constant(i), ~i)
    b = values((3, 4), "bool")
    check(~tf.constant(b), ~b)


# ---------------------------------------------------------------------------------------------
# Binary math


def tf_floormod(x, y):
    """TensorFlow's FloorMod of floats: fmod, then moved to the sign of y."""
    r = np.fmod(x, y)
    return np.where((r != 0) & ((y < 0) != (r < 0)), r + y, r)


def tf_floordiv(x, y):
    if np.dtype(x.dtype).kind == "f":
        return np.floor(x / y)  # TensorFlow's FloorDiv of floats: floor(x / y)
    return np.floor_divide(x, y)


def squared_difference(x, y):
    d = x - y
    return d * np.conj(d) if np.iscomplexobj(d) else d * d


ARITH = FLOATS + INTS
BINARY = {
    "add": (tf.math.add, np.add, "any", ARITH + COMPLEX + ["uint8", "int8"]),
    "subtract": (tf.math.subtract, np.subtract, "any", ARITH + COMPLEX),
    "multiply": (tf.math.multiply, np.multiply, "any", ARITH + COMPLEX),
    "truediv": (tf.math.truediv, np.true_divide, "nonzero", FLOATS + COMPLEX),
    "divide": (tf.math.divide, np.true_divide, "nonzero", FLOATS),
    "floordiv": (tf.math.floordiv, tf_floordiv, "nonzero", ARITH),
    "floormod": (tf.math.floormod, None, "nonzero", ARITH),
    "pow": (tf.math.pow, np.power, "pow", ARITH + COMPLEX),
    "maximum": (tf.math.maximum, np.maximum, "any", ARITH),
    "minimum": (tf.math.minimum, np.minimum, "any", ARITH),
    "squared_difference": (tf.math.squared_difference, squared_difference, "any", ARITH + COMPLEX),
    "equal": (tf.math.equal, np.equal, "cmp", ARITH + COMPLEX + ["bool"]),
    "not_equal": (tf.math.not_equal, np.not_equal, "cmp", ARITH + COMPLEX + ["bool"]),
    "less": (tf.math.less, np.less, "cmp", ARITH),
    "less_equal": (tf.math.less_equal, np.less_equal, "cmp", ARITH),
    "greater": (tf.math.greater, np.greater, "cmp", ARITH),
    "greater_equal": (tf.math.greater_equal, np.greater_equal, "cmp", ARITH),
    "logical_and": (tf.math.logical_and, np.logical_and, "any", ["bool"]),
    "logical_or": (tf.math.logical_or, np.logical_or, "any", ["bool"]),
    "logical_xor": (tf.math.logical_xor, np.logical_xor, "any", ["bool"]),
}
BINARY_CASES = [(name, d) for name, spec in BINARY.items() for d in spec[3]]
BROADCAST_PAIRS = [
    ((5,), (5,)),
    ((3, 1), (1, 4)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 3, 4)),
    ((), (5,)),
    ((5,), ()),
    ((), ()),
    ((0, 3), (1, 3)),
    ((2, 1, 4), (3, 1)),
    ((LARGE,), (LARGE,)),
    ((300, 250), (250,)),
    ((300, 1), (1, 250)),
]


def binary_operands(name, dtype, xshape, yshape):
    x, y = _binary_operands(name, dtype, xshape, yshape)
    return np.asarray(x, dtype), np.asarray(y, dtype)  # 0-d arrays, not numpy scalars


def _binary_operands(name, dtype, xshape, yshape):
    domain = BINARY[name][2]
    if domain == "pow":
        if np.dtype(dtype).kind in "iu":
            return values(xshape, dtype, "any", 1) % 5 - 2, values(yshape, dtype, "pos", 2) % 4
        if np.dtype(dtype).kind == "c":
            return values(xshape, dtype, "pos", 1), values(yshape, dtype, "any", 2) / 2
        return values(xshape, dtype, "pos", 1) / 2, values(yshape, dtype, "any", 2) / 1.5
    if domain == "cmp":
        # Small integers: plenty of equal pairs for the comparisons to tell apart.
        if dtype == "bool":
            return values(xshape, dtype, seed=1), values(yshape, dtype, seed=2)
        x = (values(xshape, "int32", seed=1) % 4).astype(dtype)
        y = (values(yshape, "int32", seed=2) % 4).astype(dtype)
        return x, y
    return values(xshape, dtype, "any", 1), values(yshape, dtype, domain, 2)


def binary_expected(name, x, y):
    ref = BINARY[name][1]
    out_dtype = np.result_type(x, y)
    with np.errstate(all="ignore"):
        if name == "floormod":
            out = tf_floormod(x, y) if out_dtype.kind == "f" else np.mod(x, y)
        elif out_dtype.kind == "f":
            out = ref(as_wide(x), as_wide(y))
            if name == "floordiv":
                out = tf_floordiv(x, y)
        else:
            out = ref(x, y)
    if out.dtype == np.bool_:
        return out
    return out.astype(out_dtype)


def binary_tolerance(name, dtype):
    rtol, atol = tolerance(dtype)
    if name == "pow" and dtype == "float16":
        rtol, atol = 4e-3, 4e-3
    return rtol, atol


@pytest.mark.parametrize("xshape,yshape", BROADCAST_PAIRS, ids=str)
@pytest.mark.parametrize("name,dtype", BINARY_CASES)
def test_binary_broadcasting(name, dtype, xshape, yshape):
    fn = BINARY[name][0]
    x, y = binary_operands(name, dtype, xshape, yshape)
    rtol, atol = binary_tolerance(name, dtype)
    check(fn(tf.constant(x), tf.constant(y)), binary_expected(name, x, y), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "truediv", "maximum", "less"])
def test_binary_noncontiguous_numpy_inputs(name):
    fn = BINARY[name][0]
    x = noncontiguous("float32", "any", "large")
    y = noncontiguous("float32", "nonzero", "large")[::-1]
    check(fn(tf.constant(x), tf.constant(y)), binary_expected(name, x, y))
    xs, ys = (
        noncontiguous("float32", "any", "strided"),
        noncontiguous("float32", "any", "transposed"),
    )
    check(fn(tf.constant(xs), tf.constant(ys[:3, :3])), binary_expected(name, xs, ys[:3, :3]))
    v = values((6,), "float32", "nonzero")
    check(fn(tf.constant(ys), tf.constant(v)), binary_expected(name, ys, v))  # Fortran order


OPERATORS = {
    "+": (lambda a, b: a + b, np.add),
    "-": (lambda a, b: a - b, np.subtract),
    "*": (lambda a, b: a * b, np.multiply),
    "/": (lambda a, b: a / b, np.true_divide),
    "//": (lambda a, b: a // b, np.floor_divide),
    "%": (lambda a, b: a % b, np.mod),
    "**": (lambda a, b: a**b, np.power),
    "<": (lambda a, b: a < b, np.less),
    "<=": (lambda a, b: a <= b, np.less_equal),
    ">": (lambda a, b: a > b, np.greater),
    ">=": (lambda a, b: a >= b, np.greater_equal),
    "==": (lambda a, b: a == b, np.equal),
    "!=": (lambda a, b: a != b, np.not_equal),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("op", list(OPERATORS))
def test_operators_between_tensors(op, dtype):
    f, ref = OPERATORS[op]
    x = values((3, 4), dtype, "pos", 1)
    y = values((4,), dtype, "pos", 2)
    if op == "**" and dtype.startswith("int"):
        x, y = x % 4, y % 3
    expected = ref(x, y)
    if op == "/" and dtype.startswith("int"):
        expected = expected.astype(np.float64)  # TensorFlow: int32 / int32 -> float64
    elif expected.dtype != np.bool_:
        expected = expected.astype(dtype)
    check(f(tf.constant(x), tf.constant(y)), expected)


X_F32 = np.array([[-2.5, -1.0, 0.5], [1.0, 2.0, 4.0]], np.float32)
X_I32 = np.array([[-7, -1, 0], [3, 5, 8]], np.int32)

SCALAR_OPERANDS = [
    # (label, tensor value, function, expected)
    ("f32 + 1", X_F32, lambda t: t + 1, X_F32 + 1),
    ("1 + f32", X_F32, lambda t: 1 + t, 1 + X_F32),
    ("f32 + 1.5", X_F32, lambda t: t + 1.5, X_F32 + np.float32(1.5)),
    ("2 - f32", X_F32, lambda t: 2 - t, 2 - X_F32),
    ("f32 - 2", X_F32, lambda t: t - 2, X_F32 - 2),
    ("3 * f32", X_F32, lambda t: 3 * t, 3 * X_F32),
    ("f32 / 4", X_F32, lambda t: t / 4, X_F32 / np.float32(4)),
    ("1 / f32", X_F32, lambda t: 1 / t, np.float32(1) / X_F32),
    ("f32 ** 2", X_F32, lambda t: t**2, X_F32**2),
    ("3 ** f32", X_F32, lambda t: 3**t, np.float32(3) ** X_F32),
    ("f32 ** 0.5", np.abs(X_F32), lambda t: t**0.5, np.sqrt(np.abs(X_F32))),
    ("f32 // 2", X_F32, lambda t: t // 2, np.floor(X_F32 / 2)),
    ("f32 % 2", X_F32, lambda t: t % 2, tf_floormod(X_F32, np.float32(2))),
    ("-5 % f32", X_F32[:, 1:], lambda t: -5 % t, tf_floormod(np.float32(-5), X_F32[:, 1:])),
    ("f32 > 0", X_F32, lambda t: t > 0, X_F32 > 0),
    ("0 >= f32", X_F32, lambda t: 0 >= t, X_F32 <= 0),
    ("f32 == 1", X_F32, lambda t: t == 1, X_F32 == 1),
    ("f32 != 1", X_F32, lambda t: t != 1, X_F32 != 1),
    ("i32 + 1", X_I32, lambda t: t + 1, X_I32 + np.int32(1)),
    ("2 - i32", X_I32, lambda t: 2 - t, np.int32(2) - X_I32),
    ("i32 * -3", X_I32, lambda t: t * -3, X_I32 * np.int32(-3)),
    ("i32 ** 2", X_I32, lambda t: t**2, X_I32 ** np.int32(2)),
    ("2 ** abs(i32)", np.abs(X_I32), lambda t: 2**t, np.int32(2) ** np.abs(X_I32)),
    ("i32 / 2", X_I32, lambda t: t / 2, X_I32 / 2.0),
    ("i32 // 3", X_I32, lambda t: t // 3, X_I32 // np.int32(3)),
    ("i32 // -3", X_I32, lambda t: t // -3, X_I32 // np.int32(-3)),
    ("i32 % 3", X_I32, lambda t: t % 3, X_I32 % np.int32(3)),
    ("i32 % -3", X_I32, lambda t: t % -3, X_I32 % np.int32(-3)),
    ("-7 // i32", X_I32[1:], lambda t: -7 // t, np.int32(-7) // X_I32[1:]),
    ("i32 & 6", X_I32, lambda t: t & 6, X_I32 & np.int32(6)),
    ("5 | i32", X_I32, lambda t: 5 | t, np.int32(5) | X_I32),
    ("i32 ^ 3", X_I32, lambda t: t ^ 3, X_I32 ^ np.int32(3)),
    ("i32 < 2", X_I32, lambda t: t < 2, X_I32 < 2),
    ("f16 + 1.5", X_F32.astype(np.float16), lambda t: t + 1.5, X_F32.astype(np.float16) + 1.5),
    ("f64 * 0.1", X_F32.astype(np.float64), lambda t: t * 0.1, X_F32.astype(np.float64) * 0.1),
    ("i64 + 2**40", X_I32.astype(np.int64), lambda t: t + 2**40, X_I32.astype(np.int64) + 2**40),
    ("u8 + 3", np.array([1, 250], np.uint8), lambda t: t + 3, np.array([4, 253], np.uint8)),
    ("c128 * 2", np.array([1 + 2j]), lambda t: t * 2, np.array([2 + 4j])),
    ("c128 + 1j", np.array([1 + 2j]), lambda t: t + 1j, np.array([1 + 3j])),
    ("bool & True", np.array([True, False]), lambda t: t & True, np.array([True, False])),
    ("bool | False", np.array([True, False]), lambda t: t | False, np.array([True, False])),
    ("bool ^ True", np.array([True, False]), lambda t: t ^ True, np.array([False, True])),
]


@pytest.mark.parametrize(
    "value,fn,expected", [c[1:] for c in SCALAR_OPERANDS], ids=[c[0] for c in SCALAR_OPERANDS]
)
def test_python_scalar_operands_keep_the_tensor_dtype(value, fn, expected):
    check(fn(tf.constant(value)), expected)


def test_nan_and_inf_in_binary_ops():
    x = np.array([np.nan, np.inf, -np.inf, 1.0, 0.0, -1.0, np.inf, np.nan], np.float32)
    y = np.array([1.0, np.inf, np.inf, 0.0, 0.0, 0.0, 2.0, np.nan], np.float32)
    tx, ty = tf.constant(x), tf.constant(y)
    with np.errstate(all="ignore"):
        check(tx + ty, x + y)
        check(tx - ty, x - y)
        check(tx * ty, x * y)
        check(tx / ty, x / y)
        check(tf.math.maximum(tx, ty), np.maximum(x, y))
        check(tf.math.minimum(tx, ty), np.minimum(x, y))
        check(tf.math.pow(tx, ty), np.power(x, y))
        check(tf.math.squared_difference(tx, ty), (x - y) ** 2)
        for name in ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]:
            check(BINARY[name][0](tx, ty), getattr(np, name)(x, y))


def test_maximum_and_minimum_propagate_nan_from_either_side():
    x = tf.constant([np.nan, 1.0, np.nan])
    y = tf.constant([1.0, np.nan, np.nan])
    assert np.isnan(tf.math.maximum(x, y).numpy()).all()
    assert np.isnan(tf.math.minimum(x, y).numpy()).all()


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_integer_floordiv_floormod_follow_python_semantics(dtype):
    x = np.array([-7, -7, 7, 7, -1, 0, 6, -6, 1, -9], dtype)
    y = np.array([2, -2, 2, -2, 3, 5, -3, 3, -4, 4], dtype)
    check(tf.math.floordiv(x, y), np.array([a // b for a, b in zip(x.tolist(), y.tolist())], dtype))
    check(tf.math.floormod(x, y), np.array([a % b for a, b in zip(x.tolist(), y.tolist())], dtype))
    check(tf.constant(x) // tf.constant(y), np.floor_divide(x, y))
    check(tf.constant(x) % tf.constant(y), np.mod(x, y))


def test_float_floordiv_floormod_with_negative_values():
    x = np.array([-7.5, 7.5, -7.5, 7.5, -0.25, 5.0], np.float64)
    y = np.array([2.0, -2.0, -2.0, 2.0, 1.0, 2.5], np.float64)
    check(tf.math.floordiv(x, y), np.floor(x / y))
    check(tf.math.floormod(x, y), np.array([0.5, -0.5, -1.5, 1.5, 0.75, 0.0]))


def test_float_division_by_zero():
    x = tf.constant([1.0, -1.0, 0.0])
    with np.errstate(all="ignore"):
        check(x / 0.0, np.array([np.inf, -np.inf, np.nan], np.float32))
        check(tf.math.floordiv(x, 0.0), np.array([np.inf, -np.inf, np.nan], np.float32))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint32"])
@pytest.mark.parametrize("op", ["&", "|", "^"])
def test_bitwise_operators_on_integers(op, dtype):
    f = {"&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b}[op]
    x = rng(1).integers(0, 100, size=(3, 4)).astype(dtype)
    y = rng(2).integers(0, 100, size=(4,)).astype(dtype)
    if dtype.startswith("int"):
        x[0] = -x[0]
    check(f(tf.constant(x), tf.constant(y)), f(x, y))


@pytest.mark.parametrize("op", ["&", "|", "^"])
def test_logical_operators_on_bools(op):
    f = {"&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b}[op]
    x = values((3, 4), "bool", seed=1)
    y = values((4,), "bool", seed=2)
    check(f(tf.constant(x), tf.constant(y)), f(x, y))


@pytest.mark.parametrize(
    "dtype,expected",
    [
        ("int8", "float32"),
        ("int16", "float32"),
        ("uint8", "float32"),
        ("uint16", "float32"),
        ("int32", "float64"),
        ("int64", "float64"),
    ],
)
def test_integer_truediv_gives_float(dtype, expected):
    x = np.array([1, 7, 9, 100], dtype)
    y = np.array([2, 2, 4, 3], dtype)
    check(tf.math.truediv(x, y), (x / y).astype(expected))
    check(tf.constant(x) / tf.constant(y), (x / y).astype(expected))


def test_complex_constructor_and_parts():
    re = np.array([1.0, -2.0, 0.0], np.float32)
    im = np.array([0.5, 3.0, -1.0], np.float32)
    z = tf.complex(re, im)
    check(z, (re + 1j * im).astype(np.complex64))
    check(tf.math.real(z), re)
    check(tf.math.imag(z), im)
    check(tf.math.conj(z), np.conj(re + 1j * im).astype(np.complex64))
    check(tf.math.angle(z), np.angle(re + 1j * im).astype(np.float32))
    check(tf.math.abs(z), np.abs(re + 1j * im).astype(np.float32))


def test_atan2_and_divide_no_nan():
    y = np.array([1.0, -1.0, 0.0, 2.0], np.float32)
    x = np.array([1.0, -1.0, -1.0, 0.0], np.float32)
    check(tf.math.atan2(y, x), np.arctan2(y, x))
    check(tf.math.divide_no_nan(y, x), np.array([1.0, 1.0, -0.0, 0.0], np.float32))


# ---------------------------------------------------------------------------------------------
# Reductions

REDUCE_AXES = [None, 0, 1, -1, -2, [0, 2], (0, 1, 2), [-1, 0], []]


def np_axis(axis):
    if axis is None:
        return None
    return tuple(axis) if isinstance(axis, (list, tuple)) else axis


def np_logsumexp(x, axis, keepdims):
    m = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis if axis is not None else None)


def np_int_mean(x, axis, keepdims):
    count = x.size if axis is None else np.prod([x.shape[a] for a in np.atleast_1d(axis)])
    total = np.sum(x.astype(np.int64), axis=axis, keepdims=keepdims)
    return (np.trunc(total / max(count, 1))).astype(x.dtype)


REDUCTIONS = {
    "reduce_sum": (tf.math.reduce_sum, np.sum, FLOATS + INTS + COMPLEX),
    "reduce_mean": (tf.math.reduce_mean, np.mean, FLOATS + INTS + COMPLEX),
    "reduce_max": (tf.math.reduce_max, np.max, FLOATS + INTS),
    "reduce_min": (tf.math.reduce_min, np.min, FLOATS + INTS),
    "reduce_prod": (tf.math.reduce_prod, np.prod, FLOATS + INTS),
    "reduce_all": (tf.math.reduce_all, np.all, ["bool"]),
    "reduce_any": (tf.math.reduce_any, np.any, ["bool"]),
    "reduce_logsumexp": (tf.math.reduce_logsumexp, np_logsumexp, FLOATS),
    "reduce_std": (tf.math.reduce_std, np.std, FLOATS),
    "reduce_variance": (tf.math.reduce_variance, np.var, FLOATS),
}
REDUCTION_CASES = [(n, d) for n, spec in REDUCTIONS.items() for d in spec[2]]


def reduction_input(name, dtype, shape=(3, 4, 5)):
    if dtype == "bool":
        x = values(shape, "bool")
        x[0, 0] = True  # some all-true and some all-false rows for reduce_all/any
        x[1, 1] = False
        return x
    if name == "reduce_prod":
        return rng(5).choice([1, -1, 2, 1, 1], size=shape).astype(dtype)
    if name == "reduce_logsumexp" and dtype == "float16":
        return values(shape, dtype, "any") / 2
    return values(shape, dtype, "any")


def reduction_expected(name, x, axis, keepdims):
    ref = REDUCTIONS[name][1]
    ax = np_axis(axis)
    if isinstance(ax, tuple) and not ax:  # axis=[] reduces nothing
        return np.zeros_like(x) if name in ("reduce_std", "reduce_variance") else x.copy()
    if name == "reduce_mean" and x.dtype.kind in "iu":
        return np_int_mean(x, ax, keepdims)
    if x.dtype == np.bool_:
        return ref(x, axis=ax, keepdims=keepdims)
    if name in ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min") and x.dtype.kind in "iu":
        return ref(x, axis=ax, keepdims=keepdims).astype(x.dtype)
    return np.asarray(ref(as_wide(x), axis=ax, keepdims=keepdims)).astype(x.dtype)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", REDUCE_AXES, ids=str)
@pytest.mark.parametrize("name,dtype", REDUCTION_CASES)
def test_reductions(name, dtype, axis, keepdims):
    fn = REDUCTIONS[name][0]
    x = reduction_input(name, dtype)
    rtol, atol = tolerance(dtype)
    if dtype == "float16":
        rtol, atol = 5e-3, 5e-3
    check(
        fn(tf.constant(x), axis=axis, keepdims=keepdims),
        reduction_expected(name, x, axis, keepdims),
        rtol=rtol * 10 if rtol else None,
        atol=atol * 10 if atol else None,
    )


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("name", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_std"])
def test_large_reductions(name, axis):
    fn = REDUCTIONS[name][0]
    x = values((300, 250), "float64", "any", 9)
    check(fn(x, axis=axis), reduction_expected(name, x, axis, False))
    x32 = x.astype(np.float32)
    check(fn(x32, axis=axis), reduction_expected(name, x32, axis, False), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n", [10**5, 10**6])
def test_large_float32_sums_are_accurate(n):
    # TensorFlow sums float32 in blocks/pairs: the error stays near 1e-6 relative, where a
    # single running float32 accumulator drifts by ~1e-4.
    exact = n * float(np.float32(0.1))
    x = tf.fill([n], 0.1)
    check(tf.reduce_sum(x), np.array(exact, np.float32), rtol=1e-5, atol=0)
    check(tf.reduce_mean(x), np.array(exact / n, np.float32), rtol=1e-5, atol=0)


def test_reduction_top_level_aliases():
    x = values((3, 4), "float32")
    check(tf.reduce_sum(x, 0), x.sum(0))
    check(tf.reduce_mean(x, axis=-1, keepdims=True), x.mean(-1, keepdims=True))
    check(tf.reduce_max(x), x.max())
    check(tf.reduce_min(x, 1), x.min(1))
    check(tf.reduce_prod(x, 1), x.prod(1), rtol=1e-5)
    check(tf.reduce_all(x > -5), np.array(True))
    check(tf.reduce_any(x > 5), np.array(False))
    check(tf.reduce_logsumexp(x), np_logsumexp(x.astype(np.float64), None, False).astype("f4"))


@pytest.mark.parametrize("dtype", ["int32", "int64", "int8"])
def test_integer_reduce_mean_truncates(dtype):
    x = np.array([[-1, -2, 3, -7], [1, 2, 2, 2]], dtype)
    check(tf.math.reduce_mean(x), np.array(0, dtype))  # 0 / 8
    check(tf.math.reduce_mean(x, axis=1), np.array([-1, 1], dtype))  # -7/4 and 7/4 truncate
    check(tf.math.reduce_mean(x[:, :3], axis=0), np.array([0, 0, 2], dtype))


def test_reductions_of_empty_tensors():
    e = np.zeros((0, 3), np.float32)
    check(tf.math.reduce_sum(e, axis=0), np.zeros(3, np.float32))
    check(tf.math.reduce_prod(e), np.array(1.0, np.float32))
    check(tf.math.reduce_max(e, axis=0), np.full(3, -np.inf, np.float32))
    check(tf.math.reduce_min(e, axis=0), np.full(3, np.inf, np.float32))
    check(tf.math.reduce_mean(e), np.array(np.nan, np.float32))
    check(tf.math.reduce_sum(e, axis=1), np.zeros(0, np.float32))
    check(tf.math.reduce_min(np.zeros(0, np.int32)), np.array(2**31 - 1, np.int32))
    check(tf.math.reduce_max(np.zeros(0, np.int32)), np.array(-(2**31), np.int32))
    check(tf.math.reduce_all(np.zeros(0, bool)), np.array(True))
    check(tf.math.reduce_any(np.zeros(0, bool)), np.array(False))


def test_reduce_max_propagates_nan():
    check(tf.math.reduce_max(tf.constant([1.0, np.nan, 3.0])), np.array(np.nan, np.float32))
    check(tf.math.reduce_min(tf.constant([np.nan, 1.0])), np.array(np.nan, np.float32))


def test_logsumexp_is_stable():
    x = np.array([[1000.0, 1000.0], [-1000.0, -1000.0], [0.0, -np.inf]], np.float32)
    check(
        tf.math.reduce_logsumexp(x, axis=1),
        np.array([1000 + np.log(2), -1000 + np.log(2), 0.0], np.float32),
    )


@pytest.mark.parametrize("output_type", [None, "int32", "int64"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
def test_argmax_argmin(name, axis, output_type, dtype):
    x = (values((4, 6), "int32", seed=4) % 5).astype(dtype)  # many ties: first index wins
    fn = getattr(tf.math, name)
    kwargs = {} if output_type is None else {"output_type": getattr(tf, output_type)}
    expected = getattr(np, name)(x, axis=0 if axis is None else axis)
    check(fn(tf.constant(x), axis=axis, **kwargs), expected.astype(output_type or "int64"))


def test_argmax_top_level_and_1d():
    check(tf.argmax([1, 3, 3, 0]), np.array(1, np.int64))
    check(tf.argmin([4.0, 1.0, 1.0], output_type=tf.int32), np.array(1, np.int32))
    x = values((LARGE,), "float32")
    check(tf.argmax(x), np.array(np.argmax(x), np.int64))


def np_cumulative(x, axis, exclusive, reverse, op):
    f = np.cumsum if op == "cumsum" else np.cumprod
    if reverse:
        x = np.flip(x, axis)
    out = f(x, axis=axis, dtype=x.dtype)
    if exclusive:
        first = np.full_like(np.take(out, [0], axis=axis), 0 if op == "cumsum" else 1)
        rest = np.take(out, np.arange(out.shape[axis] - 1), axis=axis)
        out = np.concatenate([first, rest], axis=axis)
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumulative(op, dtype, axis, exclusive, reverse):
    x = (values((3, 5), "int32", seed=6) % 3 + 1).astype(dtype)
    fn = getattr(tf.math, op)
    check(
        fn(tf.constant(x), axis=axis, exclusive=exclusive, reverse=reverse),
        np_cumulative(x, axis, exclusive, reverse, op),
    )


def test_cumsum_defaults_and_large():
    x = values((LARGE,), "float64")
    check(tf.cumsum(x), np.cumsum(x), rtol=1e-9, atol=1e-9)
    check(tf.math.cumsum([[1, 2], [3, 4]]), np.array([[1, 2], [4, 6]], np.int32))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1, [0, 1]])
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_count_nonzero(dtype, axis, keepdims):
    x = (values((4, 5), "int32", seed=7) % 3).astype(dtype)
    expected = np.count_nonzero(x, axis=np_axis(axis), keepdims=keepdims)
    check(tf.math.count_nonzero(x, axis=axis, keepdims=keepdims), np.asarray(expected, np.int64))


def test_count_nonzero_dtype():
    check(tf.math.count_nonzero([0.0, 1.0, 2.0], dtype=tf.int32), np.array(2, np.int32))


@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
def test_top_k(dtype, k):
    x = np.stack([rng(i).permutation(10) for i in range(3)]).astype(dtype)
    order = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[:, :k]
    result = tf.math.top_k(tf.constant(x), k=k)
    check(result.values, np.take_along_axis(x, order, axis=-1))
    check(result.indices, order.astype(np.int32))
    values_, indices = tf.math.top_k(x, k)
    check(values_, np.take_along_axis(x, order, axis=-1))


def test_top_k_ties_prefer_lower_index():
    values_, indices = tf.math.top_k([1, 3, 3, 2], k=2)
    check(values_, np.array([3, 3], np.int32))
    check(indices, np.array([1, 2], np.int32))


@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "float64"])
def test_sort_and_argsort(dtype, axis, direction):
    x = rng(8).permutation(4 * 6).reshape(4, 6).astype(dtype) - 7
    order = np.argsort(x, axis=axis, kind="stable")
    if direction == "DESCENDING":
        order = np.flip(order, axis=axis)
    check(tf.sort(x, axis=axis, direction=direction), np.take_along_axis(x, order, axis=axis))
    check(tf.argsort(x, axis=axis, direction=direction), order.astype(np.int32))


def test_sort_large_and_3d():
    x = values((LARGE,), "float32")
    check(tf.sort(x), np.sort(x))
    y = values((3, 4, 5), "float64")
    check(tf.sort(y, axis=1), np.sort(y, axis=1))
    check(tf.argsort(y, axis=0), np.argsort(y, axis=0).astype(np.int32))


def test_sort_rejects_bad_direction():
    with pytest.raises(ValueError):
        tf.sort([1, 2], direction="UP")


def np_unique(x):
    y, idx = [], []
    seen = {}
    for v in x.tolist():
        if v not in seen:
            seen[v] = len(y)
            y.append(v)
        idx.append(seen[v])
    return np.array(y, x.dtype), np.array(idx)


@pytest.mark.parametrize(
    "x",
    [
        np.array([1, 1, 2, 4, 4, 4, 7, 8, 8], np.int32),
        np.array([3, 1, 3, 2, 1], np.int64),
        np.array([2.5, -1.0, 2.5, 0.0], np.float32),
        np.array([5], np.int32),
        np.array([], np.int32),
    ],
    ids=str,
)
def test_unique(x):
    y, idx = tf.unique(x)
    ey, eidx = np_unique(x)
    check(y, ey)
    check(idx, eidx.astype(np.int32))
    check(tf.unique(x, out_idx=tf.int64).idx, eidx.astype(np.int64))


@pytest.mark.parametrize(
    "x,lo,hi",
    [
        (np.array([1, 5, 9], np.int32), 2, 6),
        (np.array([[-3.0, 0.5], [4.0, 9.0]], np.float32), -1.0, 3.5),
        (np.array([1.0, 5.0, 9.0], np.float64), np.array([0.0, 6.0, 0.0]), 7.0),
        (values((LARGE,), "float32"), -0.5, 0.5),
    ],
)
def test_clip_by_value(x, lo, hi):
    check(tf.clip_by_value(x, lo, hi), np.clip(x, lo, hi).astype(x.dtype))


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64", "complex64"])
def test_add_n(dtype):
    xs = [values((3, 4), dtype, seed=i) for i in range(4)]
    check(tf.math.add_n(xs), sum(xs[1:], xs[0]))
    check(tf.add_n([tf.constant(x) for x in xs[:1]]), xs[0])


# ---------------------------------------------------------------------------------------------
# Matrix products

MATMUL_SIZES = [(1, 1, 1), (2, 3, 4), (7, 1, 5), (1, 130, 1), (17, 33, 9), (64, 64, 64)]
MATMUL_SIZES += [(130, 129, 128), (5, 128, 130)]


def matmul_tolerance(dtype, k):
    if dtype in ("float32", "complex64"):
        return 1e-5 * max(1, k**0.5), 1e-5 * max(1, k**0.5)
    if dtype == "float16":
        return 1e-2, 1e-2 * max(1, k**0.5)
    return tolerance(dtype)


@pytest.mark.parametrize("m,k,n", MATMUL_SIZES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "complex64", "float16"])
def test_matmul_2d(dtype, m, k, n):
    a = values((m, k), dtype, seed=1)
    b = values((k, n), dtype, seed=2)
    expected = (as_wide(a) @ as_wide(b)).astype(dtype)
    rtol, atol = matmul_tolerance(dtype, k)
    check(tf.linalg.matmul(a, b), expected, rtol=rtol, atol=atol)
    check(tf.constant(a) @ tf.constant(b), expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_matmul_transposes(dtype, transpose_a, transpose_b):
    a = values((4, 6), dtype, seed=1)
    b = values((6, 3), dtype, seed=2)
    a_in = a.T.copy() if transpose_a else a
    b_in = b.T.copy() if transpose_b else b
    result = tf.matmul(a_in, b_in, transpose_a=transpose_a, transpose_b=transpose_b)
    check(result, (as_wide(a) @ as_wide(b)).astype(dtype), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("adjoint_b", [False, True])
@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_matmul_adjoint(dtype, adjoint_a, adjoint_b):
    a = values((3, 5), dtype, seed=1)
    b = values((5, 2), dtype, seed=2)
    a_in = np.conj(a.T).copy() if adjoint_a else a
    b_in = np.conj(b.T).copy() if adjoint_b else b
    result = tf.linalg.matmul(a_in, b_in, adjoint_a=adjoint_a, adjoint_b=adjoint_b)
    check(result, a @ b, rtol=1e-5, atol=1e-5)
    # transpose_* does not conjugate
    result = tf.linalg.matmul(a.T.copy(), b, transpose_a=True)
    check(result, a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "ashape,bshape",
    [
        ((2, 3, 4), (2, 4, 5)),
        ((2, 3, 4), (4, 5)),
        ((3, 4), (6, 4, 5)),
        ((2, 1, 3, 4), (5, 4, 2)),
        ((1, 3, 4), (7, 4, 2)),
        ((0, 3, 4), (4, 2)),
        ((2, 3, 0), (2, 0, 4)),
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_batched_matmul_broadcasts_batch_dims(dtype, ashape, bshape):
    a = values(ashape, dtype, seed=1)
    b = values(bshape, dtype, seed=2)
    expected = np.matmul(as_wide(a), as_wide(b)).astype(dtype)
    check(tf.matmul(a, b), expected, rtol=1e-5, atol=1e-5)
    check(tf.constant(a) @ b, expected, rtol=1e-5, atol=1e-5)


def test_batched_matmul_with_transposes():
    a = values((3, 5, 4), "float64", seed=1)
    b = values((3, 2, 5), "float64", seed=2)
    check(
        tf.matmul(a, b, transpose_a=True, transpose_b=True), a.swapaxes(-1, -2) @ b.swapaxes(-1, -2)
    )


def test_matvec():
    a = values((3, 4), "float64", seed=1)
    v = values((4,), "float64", seed=2)
    check(tf.linalg.matvec(a, v), a @ v)


@pytest.mark.parametrize(
    "ashape,bshape,axes",
    [
        ((3, 4), (4, 5), 1),
        ((2, 3, 4), (3, 4, 5), 2),
        ((3, 4), (5, 6), 0),
        ((3, 4, 5), (5, 4, 2), [[1, 2], [1, 0]]),
        ((4, 3), (4, 2), [[0], [0]]),
        ((4, 3), (4, 2), [0, 0]),
    ],
    ids=str,
)
def test_tensordot(ashape, bshape, axes):
    a = values(ashape, "float64", seed=1)
    b = values(bshape, "float64", seed=2)
    check(tf.tensordot(a, b, axes), np.tensordot(a, b, axes))
    check(
        tf.linalg.tensordot(a.astype("f4"), b.astype("f4"), axes),
        np.tensordot(a, b, axes).astype("f4"),
    )


@pytest.mark.parametrize(
    "equation,shapes",
    [
        ("ij,jk->ik", [(3, 4), (4, 5)]),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("ii", [(4, 4)]),
        ("ii->i", [(4, 4)]),
        ("ij->ji", [(3, 4)]),
        ("ij->", [(3, 4)]),
        ("ij->j", [(3, 4)]),
        ("i,j->ij", [(3,), (4,)]),
        ("i,i->", [(5,), (5,)]),
        ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
        ("...ij,...jk->...ik", [(3, 4), (4, 5)]),
        ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
        ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
        ("ij,ij->ij", [(3, 4), (3, 4)]),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_einsum(equation, shapes):
    ops = [values(s, "float64", seed=i) for i, s in enumerate(shapes)]
    check(tf.einsum(equation, *ops), np.einsum(equation, *ops))
    ops32 = [o.astype(np.float32) for o in ops]
    check(tf.linalg.einsum(equation, *ops32), np.einsum(equation, *ops).astype("f4"), rtol=1e-5)


def np_vector_norm(x, ord_, axis, keepdims=False):
    a = np.abs(x)
    if ord_ == np.inf:
        return np.max(a, axis=axis, keepdims=keepdims)
    return np.sum(a**ord_, axis=axis, keepdims=keepdims) ** (1 / ord_)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, 2])
@pytest.mark.parametrize("ord_", [1, 2, "euclidean", np.inf, 3])
def test_vector_norm(ord_, axis, keepdims):
    x = values((3, 4, 5), "float64")
    p = 2 if ord_ == "euclidean" else ord_
    ax = None if axis is None else (axis,)
    expected = np_vector_norm(x, p, ax, keepdims)
    check(tf.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [(0, 1), [1, 2], (-2, -1), (2, 0)], ids=str)
@pytest.mark.parametrize("ord_", ["fro", "euclidean", 1, np.inf, 2])
def test_matrix_norm(ord_, axis, keepdims):
    x = values((3, 4, 5), "float64")
    moved = np.moveaxis(x, list(axis), [-2, -1])
    if ord_ in ("fro", "euclidean"):
        expected = np.sqrt(np.sum(moved**2, axis=(-2, -1)))
    elif ord_ == 1:
        expected = np.max(np.sum(np.abs(moved), axis=-2), axis=-1)
    elif ord_ == np.inf:
        expected = np.max(np.sum(np.abs(moved), axis=-1), axis=-1)
    else:
        expected = np.linalg.norm(moved, ord=2, axis=(-2, -1))  # the largest singular value
    if keepdims:
        for a in sorted(a % 3 for a in axis):
            expected = np.expand_dims(expected, a)
    check(tf.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims), expected, rtol=1e-10)


def test_norm_defaults_and_float32():
    x = np.array([[3.0, -4.0], [0.0, 12.0]], np.float32)
    check(tf.linalg.norm(x), np.array(13.0, np.float32))
    check(tf.linalg.norm(x, ord=1), np.array(19.0, np.float32))  # tensor as a vector
    check(tf.linalg.norm(x, ord=np.inf), np.array(12.0, np.float32))
    check(tf.linalg.norm(x, axis=1), np.array([5.0, 12.0], np.float32))
    # TensorFlow keeps the complex dtype for the norm of a complex tensor
    check(tf.linalg.norm(np.array([3 + 4j, 0j], np.complex64)), np.array(5.0, np.complex64))


# ---------------------------------------------------------------------------------------------
# Shapes, joining, splitting and indexing

ARR = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize(
    "shape",
    [[6, 4], [-1], [4, -1], [2, 3, 2, 2], (24,), [1, 24, 1], [-1, 2, 3], tf.TensorShape([3, 8])],
    ids=str,
)
def test_reshape(shape):
    dims = shape.as_list() if isinstance(shape, tf.TensorShape) else shape
    check(tf.reshape(ARR, shape), ARR.reshape(dims))
    check(tf.reshape(tf.constant(ARR), tf.constant(dims)), ARR.reshape(dims))


def test_reshape_of_scalar_and_empty():
    check(tf.reshape(5, [1, 1]), np.array([[5]], np.int32))
    check(tf.reshape(np.zeros((0, 4)), [-1, 2]), np.zeros((0, 2)))
    check(tf.reshape([[7]], []), np.array(7, np.int32))


@pytest.mark.parametrize("perm", [None, [0, 1, 2], [2, 1, 0], [1, 0, 2], [0, 2, 1], [2, 0, 1]])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex128"])
def test_transpose(perm, dtype):
    x = values((2, 3, 4), dtype)
    check(tf.transpose(x, perm), np.transpose(x, perm))


def test_transpose_large_and_conjugate():
    x = values((300, 250), "float32")
    check(tf.transpose(x), x.T)
    z = values((2, 3), "complex64")
    check(tf.transpose(z, conjugate=True), np.conj(z.T))
    check(tf.transpose([[1, 2, 3]]), np.array([[1], [2], [3]], np.int32))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_concat_and_stack(axis):
    xs = [values((2, 3, 4), "float32", seed=i) for i in range(3)]
    check(tf.concat(xs, axis), np.concatenate(xs, axis))
    check(tf.stack(xs, axis), np.stack(xs, axis))
    uneven = [xs[0], np.take(xs[1], [0], axis=axis)]
    check(tf.concat(uneven, axis=axis), np.concatenate(uneven, axis))


def test_stack_axis_after_last_and_unstack():
    xs = [values((2, 3), "int32", seed=i) for i in range(4)]
    check(tf.stack(xs, axis=2), np.stack(xs, 2))
    check(tf.stack(xs, axis=-1), np.stack(xs, -1))
    check(tf.stack([1, 2, 3]), np.array([1, 2, 3], np.int32))
    check(tf.concat([[1, 2], [3]], 0), np.array([1, 2, 3], np.int32))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_unstack(axis):
    parts = tf.unstack(ARR, axis=axis)
    assert isinstance(parts, list)
    expected = [np.take(ARR, i, axis=axis) for i in range(ARR.shape[axis])]
    assert len(parts) == len(expected)
    for p, e in zip(parts, expected):
        check(p, e)
    assert len(tf.unstack(ARR, num=2)) == 2


@pytest.mark.parametrize(
    "splits,axis",
    [(2, 0), (3, 1), (4, -1), (1, 2), ([1, 2], 1), ([3, -1], 2), ([2, -1, 1], -1), ([0, 3], 1)],
    ids=str,
)
def test_split(splits, axis):
    parts = tf.split(ARR, splits, axis=axis)
    if isinstance(splits, int):
        expected = np.split(ARR, splits, axis=axis)
    else:
        sizes = list(splits)
        if -1 in sizes:
            sizes[sizes.index(-1)] = ARR.shape[axis] - (sum(sizes) + 1)
        expected = np.split(ARR, np.cumsum(sizes)[:-1], axis=axis)
    assert len(parts) == len(expected)
    for p, e in zip(parts, expected):
        check(p, e)


@pytest.mark.parametrize("multiples", [[1, 1, 1], [2, 1, 1], [1, 3, 2], [2, 2, 2], [0, 1, 1]])
def test_tile(multiples):
    check(tf.tile(ARR, multiples), np.tile(ARR, multiples))
    check(tf.tile([1, 2], [3]), np.array([1, 2] * 3, np.int32))


PADDINGS = [[[0, 0], [1, 1], [2, 2]], [[1, 0], [0, 2], [3, 1]], [[0, 0], [0, 0], [0, 0]]]


@pytest.mark.parametrize("paddings", PADDINGS, ids=str)
@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
def test_pad(mode, paddings, dtype):
    x = ARR.astype(dtype)
    np_mode = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}[mode]
    check(tf.pad(x, paddings, mode=mode), np.pad(x, paddings, mode=np_mode))


def test_pad_constant_values_and_lowercase_mode():
    check(
        tf.pad([[1, 2]], [[1, 0], [0, 1]], constant_values=7),
        np.array([[7, 7, 7], [1, 2, 7]], np.int32),
    )
    check(tf.pad([1.0], [[1, 1]], constant_values=-0.5), np.array([-0.5, 1.0, -0.5], np.float32))
    check(tf.pad([[1, 2, 3]], [[0, 0], [2, 2]], "reflect"), np.array([[3, 2, 1, 2, 3, 2, 1]], "i4"))
    check(tf.pad([[1, 2, 3]], [[0, 0], [1, 1]], "symmetric"), np.array([[1, 1, 2, 3, 3]], "i4"))


@pytest.mark.parametrize("axis", [None, 0, 2, -1, [0, 2], [-4]])
def test_squeeze(axis):
    x = np.zeros((1, 3, 1, 1), np.float32) + np.arange(3, dtype=np.float32).reshape(1, 3, 1, 1)
    check(tf.squeeze(x, axis), np.squeeze(x, axis=np_axis(axis)))


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1, -2, -4])
def test_expand_dims(axis):
    check(tf.expand_dims(ARR, axis), np.expand_dims(ARR, axis))
    check(tf.expand_dims(3.0, 0), np.array([3.0], np.float32))


@pytest.mark.parametrize(
    "xshape,target",
    [((3,), (2, 3)), ((1,), (4,)), ((), (2, 2)), ((3, 1), (2, 3, 4)), ((2, 1, 4), (2, 3, 4))],
    ids=str,
)
def test_broadcast_to(xshape, target):
    x = values(xshape, "float32")
    check(tf.broadcast_to(x, target), np.broadcast_to(x, target))


def test_shape_size_rank():
    x = tf.zeros([2, 0, 3])
    check(tf.shape(x), np.array([2, 0, 3], np.int32))
    check(tf.shape(x, out_type=tf.int64), np.array([2, 0, 3], np.int64))
    check(tf.size(ARR), np.array(24, np.int32))
    check(tf.size(ARR, out_type=tf.int64), np.array(24, np.int64))
    check(tf.rank(ARR), np.array(3, np.int32))
    check(tf.rank(5.0), np.array(0, np.int32))
    check(tf.shape(5.0), np.zeros(0, np.int32))


@pytest.mark.parametrize(
    "indices,axis",
    [
        ([3, 0, 3], 0),
        ([[2, 0], [1, 1]], 0),
        ([0, 3, 1], 1),
        ([2], -1),
        (3, 0),
        (1, 1),
        ([], 0),
    ],
    ids=str,
)
def test_gather(indices, axis):
    params = values((5, 4), "float32")
    idx = np.array(indices, np.int32)
    check(tf.gather(params, idx, axis=axis), np.take(params, idx, axis=axis))
    check(tf.gather(params, idx.astype(np.int64), axis=axis), np.take(params, idx, axis=axis))


def test_gather_default_axis_and_3d():
    params = values((4, 3, 5), "int64")
    check(tf.gather(params, [1, 1, 0]), params[[1, 1, 0]])
    check(tf.gather(params, [[4, 0]], axis=2), np.take(params, [[4, 0]], axis=2))


def test_gather_batch_dims():
    params = values((2, 5, 3), "float32")
    idx = np.array([[4, 0, 2, 2], [1, 1, 3, 0]], np.int32)
    expected = np.stack([params[b][idx[b]] for b in range(2)])
    check(tf.gather(params, idx, axis=1, batch_dims=1), expected)
    idx2 = idx[:, :2] % 3
    expected2 = np.stack([params[b][:, idx2[b]] for b in range(2)])
    check(tf.gather(params, idx2, axis=2, batch_dims=1), expected2)
    check(
        tf.gather([[1, 2, 3], [4, 5, 6]], [[2, 0], [1, 1]], axis=1, batch_dims=1),
        np.array([[3, 1], [5, 5]], np.int32),
    )


@pytest.mark.parametrize(
    "indices",
    [[[0, 1], [2, 3]], [[1]], [[0, 1, 2]], [[[0, 1, 2]], [[2, 3, 4]]], [[2, 0], [0, 0]]],
    ids=str,
)
def test_gather_nd(indices):
    params = values((3, 4, 5), "float32")
    idx = np.array(indices, np.int32)
    expected = params[tuple(np.moveaxis(idx, -1, 0))]
    check(tf.gather_nd(params, idx), expected)


def test_scatter_nd_adds_duplicates():
    check(
        tf.scatter_nd([[1], [3], [1]], tf.constant([1.0, 2.0, 3.0]), [5]),
        np.array([0, 4, 0, 2, 0], np.float32),
    )
    check(
        tf.scatter_nd([[0], [2], [0]], tf.constant([[1, 2], [3, 4], [5, 6]]), [3, 2]),
        np.array([[6, 8], [0, 0], [3, 4]], np.int32),
    )
    check(
        tf.scatter_nd([[0, 1], [1, 0], [0, 1]], tf.constant([1, 2, 3], tf.int64), [2, 2]),
        np.array([[0, 4], [2, 0]], np.int64),
    )


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (0, 3)], ids=str)
def test_where_one_argument_gives_int64_coordinates(shape):
    c = values(shape, "bool")
    check(tf.where(c), np.argwhere(c).astype(np.int64))
    x = values(shape, "float32")
    check(tf.where(tf.constant(x) > 0), np.argwhere(x > 0).astype(np.int64))


@pytest.mark.parametrize(
    "cshape,xshape,yshape",
    [((3, 4), (3, 4), (3, 4)), ((3, 1), (1, 4), ()), ((4,), (3, 4), (3, 4)), ((), (2,), (2,))],
    ids=str,
)
def test_where_three_arguments_broadcasts(cshape, xshape, yshape):
    c = values(cshape, "bool")
    x = values(xshape, "float32", seed=1)
    y = values(yshape, "float32", seed=2)
    check(tf.where(c, x, y), np.where(c, x, y))


def test_where_with_python_scalars():
    check(tf.where([True, False, True], 1, 0), np.array([1, 0, 1], np.int32))
    check(tf.where([[True], [False]], [1, 2, 3], 0), np.array([[1, 2, 3], [0, 0, 0]], np.int32))


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_boolean_mask_axis(axis):
    mask = np.array([True, False, True, True][: ARR.shape[axis]])
    mask[-1] = True
    expected = np.compress(mask, ARR, axis=axis)
    check(tf.boolean_mask(ARR, mask, axis=axis), expected)


def test_boolean_mask_multi_dim_mask():
    mask = ARR[..., 0] % 3 == 0
    check(tf.boolean_mask(ARR, mask), ARR[mask])
    full = ARR > 10
    check(tf.boolean_mask(ARR, full), ARR[full])
    check(tf.boolean_mask([1, 2, 3], [False, False, False]), np.zeros(0, np.int32))


@pytest.mark.parametrize("axis", [None, -1, 0, 1])
def test_one_hot(axis):
    idx = np.array([[0, 2, -1], [3, 1, 1]])  # -1 and 3 are out of range: all off
    depth = 3
    hot = (idx[..., None] == np.arange(depth)).astype(np.float32)
    if axis is not None and axis != -1:
        hot = np.moveaxis(hot, -1, axis)
    check(tf.one_hot(idx, depth, axis=axis), hot)


def test_one_hot_values_and_dtype():
    check(
        tf.one_hot([0, 2], 3, on_value=5, off_value=-1),
        np.array([[5, -1, -1], [-1, -1, 5]], np.int32),
    )
    check(tf.one_hot([1], 2, dtype=tf.int64), np.array([[0, 1]], np.int64))
    check(tf.one_hot([1], 2, on_value=True, off_value=False), np.array([[False, True]]))
    check(tf.one_hot(tf.constant([1, 0], tf.int64), 2), np.eye(2, dtype=np.float32)[[1, 0]])


@pytest.mark.parametrize("axis", [[0], [1], [2], [-1], [0, 2], [0, 1, 2]])
def test_reverse(axis):
    check(tf.reverse(ARR, axis), np.flip(ARR, axis))


@pytest.mark.parametrize(
    "begin,size",
    [
        ([0, 0, 0], [2, 3, 4]),
        ([1, 0, 2], [1, 2, 2]),
        ([0, 1, 1], [-1, -1, 2]),
        ([1, 2, 3], [1, 1, 1]),
    ],
    ids=str,
)
def test_slice(begin, size):
    ends = [ARR.shape[i] if s == -1 else b + s for i, (b, s) in enumerate(zip(begin, size))]
    expected = ARR[tuple(slice(b, e) for b, e in zip(begin, ends))]
    check(tf.slice(ARR, begin, size), expected)


X4 = np.arange(4 * 5 * 6, dtype=np.int32).reshape(4, 5, 6)

GETITEM = [
    ("int", lambda a: a[1]),
    ("negative int", lambda a: a[-1]),
    ("two ints", lambda a: a[1, -2]),
    ("three ints", lambda a: a[3, 2, 1]),
    ("slice", lambda a: a[1:3]),
    ("open slices", lambda a: a[:2, 3:]),
    ("negative bounds", lambda a: a[-3:-1, -4:]),
    ("step 2", lambda a: a[::2, 1::2]),
    ("reverse", lambda a: a[::-1]),
    ("reverse step 2", lambda a: a[::-2, :, ::-3]),
    ("negative step bounds", lambda a: a[3:0:-1, -1:-4:-1]),
    ("negative step to start", lambda a: a[:, 2::-1]),
    ("clamped", lambda a: a[2:100, -100:2]),
    ("empty", lambda a: a[3:1]),
    ("column", lambda a: a[:, 2]),
    ("ellipsis last", lambda a: a[..., 1]),
    ("ellipsis middle", lambda a: a[1, ..., ::2]),
    ("ellipsis alone", lambda a: a[...]),
    ("newaxis", lambda a: a[None]),
    ("newaxis middle", lambda a: a[:, None, 1:]),
    ("newaxis end", lambda a: a[..., None]),
    ("mixed", lambda a: a[-1, None, ::-2, ..., 3]),
    ("two newaxis", lambda a: a[None, 1, None]),
]


@pytest.mark.parametrize("fn", [g[1] for g in GETITEM], ids=[g[0] for g in GETITEM])
def test_getitem_matches_numpy(fn):
    check(fn(tf.constant(X4)), fn(X4))


def test_getitem_newaxis_alias_and_tensor_index():
    t = tf.constant(X4)
    assert tf.newaxis is None
    check(t[:, tf.newaxis], X4[:, np.newaxis])
    check(t[tf.constant(2)], X4[2])
    check(t[tf.constant(1, tf.int64), 1:3], X4[1, 1:3])
    check(t[np.int64(-1)], X4[-1])


def test_getitem_boolean_masks():
    t = tf.constant(X4)
    full = X4 % 7 == 0
    check(t[tf.constant(full)], X4[full])
    rows = np.array([True, False, True, True])
    check(t[tf.constant(rows)], X4[rows])
    check(t[t > 100], X4[X4 > 100])


def test_getitem_on_1d_and_scalar_results():
    v = tf.constant([10.0, 20.0, 30.0])
    check(v[0], np.array(10.0, np.float32))
    check(v[-1], np.array(30.0, np.float32))
    check(v[::-1], np.array([30.0, 20.0, 10.0], np.float32))
    check(v[1:], np.array([20.0, 30.0], np.float32))


STRIDED = [
    # (begin, end, strides, masks, numpy equivalent)
    ([0, 1, 0], [2, 3, 6], [1, 1, 2], {}, lambda a: a[0:2, 1:3, 0:6:2]),
    ([1, 0, 0], [0, 0, 0], [1, 1, 1], {"end_mask": 0b110, "shrink_axis_mask": 1}, lambda a: a[1]),
    ([0, 1], [1, 3], [1, 1], {"begin_mask": 1, "shrink_axis_mask": 2}, lambda a: a[:1, 1]),
    ([0, 0, 0], [0, 0, 0], [1, 1, 1], {"begin_mask": 7, "end_mask": 7}, lambda a: a[:, :, :]),
    ([-1, 0, -1], [0, 0, 0], [-1, 1, -1], {"end_mask": 7}, lambda a: a[::-1, :, ::-1]),
    ([-1, 0, 0], [0, 0, 0], [-1, 1, -1], {"end_mask": 7}, lambda a: a[::-1, :, 0::-1]),
    ([0, 2], [0, 4], [1, 1], {"ellipsis_mask": 1}, lambda a: a[..., 2:4]),
    ([1, 0, 0], [2, 0, 0], [1, 1, 1], {"new_axis_mask": 2, "end_mask": 4}, lambda a: a[1:2, None]),
    ([0, 0, 3], [4, 5, 4], [2, 2, 1], {"shrink_axis_mask": 4}, lambda a: a[0:4:2, 0:5:2, 3]),
    ([-2], [0], [1], {"end_mask": 1}, lambda a: a[-2:]),
]


@pytest.mark.parametrize("begin,end,strides,masks,ref", STRIDED)
def test_strided_slice_with_masks(begin, end, strides, masks, ref):
    check(tf.strided_slice(X4, begin, end, strides, **masks), ref(X4))


# ---------------------------------------------------------------------------------------------
# Casts and creation

CAST_PAIRS = [
    ("float32", "int32"),
    ("float64", "int64"),
    ("float32", "int8"),
    ("float32", "uint8"),
    ("float16", "int32"),
    ("float32", "float16"),
    ("float64", "float32"),
    ("float16", "float64"),
    ("float32", "bfloat16"),
    ("bfloat16", "float32"),
    ("int32", "float32"),
    ("int64", "float64"),
    ("int32", "int64"),
    ("int64", "int32"),
    ("int32", "int8"),
    ("int32", "uint8"),
    ("uint8", "int32"),
    ("int32", "bool"),
    ("float32", "bool"),
    ("bool", "int32"),
    ("bool", "float32"),
    ("float32", "complex64"),
    ("int32", "complex128"),
    ("complex128", "complex64"),
    ("complex64", "float32"),
    ("complex128", "int32"),
    ("uint16", "uint64"),
    ("int16", "float16"),
]


def cast_source(src):
    if src == "bool":
        return np.array([True, False, True, True])
    if src.startswith("uint"):
        return np.array([0, 1, 7, 200], src)
    if src.startswith("int"):
        return np.array([-100, -1, 0, 1, 7, 100], src)
    if src.startswith("complex"):
        return np.array([1.5 + 2j, -2.7 - 1j, 0j], src)
    vals = np.array([-2.7, -1.5, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.7, 99.9], np.float64)
    return vals.astype(ml_dtypes.bfloat16 if src == "bfloat16" else src)


def np_cast(x, dst):
    dst_np = np.dtype(tf.as_dtype(dst).as_numpy_dtype)
    if dst == "bool":
        return x != 0
    if x.dtype.kind == "c" and dst_np.kind != "c":
        x = x.real
    if np.dtype(x.dtype).kind == "f" or x.dtype == ml_dtypes.bfloat16:
        if dst_np.kind in "iu":
            x = np.trunc(x.astype(np.float64))  # toward zero
            if dst_np.kind == "u":
                x = np.clip(x, 0, None)
    with np.errstate(all="ignore"):
        return x.astype(dst_np)


@pytest.mark.parametrize("src,dst", CAST_PAIRS)
def test_cast(src, dst):
    x = cast_source(src)
    if dst.startswith("uint") and src.startswith(("float", "bfloat")):
        x = x[x >= 0]  # negative floats to unsigned ints are undefined
    check(tf.cast(x, dst), np_cast(x, dst))
    check(tf.cast(tf.constant(x), getattr(tf, dst)), np_cast(x, dst))


def test_cast_truncates_toward_zero_and_wraps_integers():
    check(tf.cast([-2.7, -0.5, 0.5, 2.7], tf.int32), np.array([-2, 0, 0, 2], np.int32))
    check(tf.cast(tf.constant([2**31 + 5, -(2**31) - 3], tf.int64), tf.int32),
          np.array([-2147483643, 2147483645], np.int32))  # fmt: skip
    check(tf.cast([0.0, 0.5, np.nan, -0.0], tf.bool), np.array([False, True, True, False]))
    check(tf.cast([300, -1], tf.uint8), np.array([44, 255], np.uint8))


def test_cast_same_dtype_and_large():
    x = values((LARGE,), "float32")
    check(tf.cast(x, tf.float32), x)
    check(tf.cast(x, tf.float64), x.astype(np.float64))
    check(tf.cast(x * 100, tf.int32), np.trunc(x * 100).astype(np.int32))


ALL_DTYPES = [
    "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128",
]  # fmt: skip


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3)], ids=str)
def test_zeros_ones_and_likes(dtype, shape):
    np_dtype = tf.as_dtype(dtype).as_numpy_dtype
    check(tf.zeros(shape, dtype), np.zeros(shape, np_dtype))
    check(tf.ones(shape, dtype=getattr(tf, dtype)), np.ones(shape, np_dtype))
    src = tf.ones(shape, dtype)
    check(tf.zeros_like(src), np.zeros(shape, np_dtype))
    check(tf.ones_like(tf.zeros(shape, dtype)), np.ones(shape, np_dtype))
    check(tf.ones_like(src, dtype=tf.float64), np.ones(shape, np.float64))
    check(tf.zeros(tf.TensorShape(shape), dtype), np.zeros(shape, np_dtype))


def test_creation_defaults():
    check(tf.zeros([2, 3]), np.zeros((2, 3), np.float32))
    check(tf.ones(4), np.ones(4, np.float32))
    check(tf.zeros_like([[1, 2]]), np.zeros((1, 2), np.int32))
    check(tf.ones_like(np.array([1.0])), np.ones(1, np.float64))


@pytest.mark.parametrize(
    "dims,value,expected",
    [
        ([2, 3], 5, np.full((2, 3), 5, np.int32)),
        ([2], 5.0, np.full(2, 5, np.float32)),
        ([2, 2], True, np.full((2, 2), True)),
        ([], 1.5, np.array(1.5, np.float32)),
        ([0, 2], 1, np.zeros((0, 2), np.int32)),
        ([3], np.array(2.5), np.full(3, 2.5)),
        ([3], tf.constant(7, tf.int64), np.full(3, 7, np.int64)),
    ],
    ids=str,
)
def test_fill(dims, value, expected):
    check(tf.fill(dims, value), expected)


@pytest.mark.parametrize(
    "args,kwargs,expected",
    [
        ((3,), {}, np.eye(3, dtype=np.float32)),
        ((2, 4), {}, np.eye(2, 4, dtype=np.float32)),
        ((4, 2), {"dtype": tf.int32}, np.eye(4, 2, dtype=np.int32)),
        ((2,), {"batch_shape": [3]}, np.broadcast_to(np.eye(2, dtype=np.float32), (3, 2, 2))),
        ((2, 3), {"batch_shape": [2], "dtype": tf.int32}, np.broadcast_to(np.eye(2, 3), (2, 2, 3))),
        ((0,), {}, np.zeros((0, 0), np.float32)),
        ((2,), {"dtype": tf.float64}, np.eye(2)),
        ((2,), {"dtype": tf.bool}, np.eye(2, dtype=bool)),
    ],
    ids=str,
)
def test_eye(args, kwargs, expected):
    dtype = kwargs.get("dtype", tf.float32)
    check(tf.eye(*args, **kwargs), np.asarray(expected).astype(dtype.as_numpy_dtype))


@pytest.mark.parametrize(
    "args,kwargs,expected",
    [
        ((5,), {}, np.arange(5, dtype=np.int32)),
        ((2, 9, 3), {}, np.arange(2, 9, 3, dtype=np.int32)),
        ((5, 0, -2), {}, np.array([5, 3, 1], np.int32)),
        ((5,), {"dtype": tf.float64}, np.arange(5.0)),
        ((3,), {"dtype": tf.int64}, np.arange(3, dtype=np.int64)),
        ((0, 3, 1.0), {}, np.arange(3, dtype=np.float32)),
        ((1, 2, 0.25), {}, np.arange(1, 2, 0.25, dtype=np.float32)),
        ((1, 2, 0.3), {}, np.array([1.0, 1.3, 1.6, 1.9], np.float32)),
        ((0,), {}, np.zeros(0, np.int32)),
        ((3, 3), {}, np.zeros(0, np.int32)),
        ((tf.constant(4, tf.int64),), {}, np.arange(4, dtype=np.int64)),
        ((tf.constant(0.5, tf.float64), 2), {}, np.array([0.5, 1.5])),
    ],
    ids=str,
)
def test_range(args, kwargs, expected):
    check(tf.range(*args, **kwargs), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("args", [(3, 1), (-3,), (0, 5, -1), (0, 5, 0), (1, 3, -1)], ids=str)
def test_range_with_an_unreachable_limit_is_an_error(args):
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.range(*args)


@pytest.mark.parametrize(
    "start,stop,num",
    [(0.0, 1.0, 5), (-1.0, 1.0, 4), (1.0, 5.0, 1), (2.0, -3.0, 11), (0.0, 10.0, 1001)],
)
def test_linspace(start, stop, num):
    check(tf.linspace(start, stop, num), np.linspace(start, stop, num, dtype=np.float32))
    start64, stop64 = tf.constant(start, tf.float64), tf.constant(stop, tf.float64)
    check(tf.linspace(start64, stop64, num), np.linspace(start, stop, num))


def test_linspace_of_ints_is_float64():
    check(tf.linspace(0, 1, 5), np.linspace(0, 1, 5))


def test_creation_from_numpy_float64_scalars_is_float64():
    # np.float64 is a subclass of Python float, but TensorFlow keeps its dtype.
    check(tf.fill([2], np.float64(2.5)), np.full(2, 2.5))
    check(tf.range(np.float64(0.5), 2), np.array([0.5, 1.5]))
    check(tf.linspace(np.float64(0), np.float64(1), 3), np.array([0.0, 0.5, 1.0]))


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "complex64"])
def test_identity_copies_value(dtype):
    x = values((2, 3), dtype)
    check(tf.identity(x), x)
    t = tf.constant(x)
    check(tf.identity(t), x)


# ---------------------------------------------------------------------------------------------
# tf.nn

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def np_gelu(x, approximate):
    if approximate:
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + np_erf(x / np.sqrt(2)))


ACTIVATIONS = {
    "relu": (tf.nn.relu, lambda x: np.maximum(x, 0)),
    "relu6": (tf.nn.relu6, lambda x: np.clip(x, 0, 6)),
    "leaky_relu": (tf.nn.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x)),
    "leaky_relu_0.01": (
        lambda x: tf.nn.leaky_relu(x, alpha=0.01),
        lambda x: np.where(x > 0, x, 0.01 * x),
    ),
    "elu": (tf.nn.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    "selu": (
        tf.nn.selu,
        lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0))),
    ),
    "gelu": (tf.nn.gelu, lambda x: np_gelu(x, False)),
    "gelu_approximate": (lambda x: tf.nn.gelu(x, approximate=True), lambda x: np_gelu(x, True)),
    "softplus": (tf.nn.softplus, lambda x: np.logaddexp(0, x)),
    "sigmoid": (tf.nn.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "tanh": (tf.nn.tanh, np.tanh),
}


@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (LARGE,)], ids=str)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activations(name, dtype, shape):
    fn, ref = ACTIVATIONS[name]
    x = np.asarray(values(shape, dtype, "any") * 3, dtype)  # beyond 6 for relu6
    rtol = atol = None
    if dtype == "float64" and name.startswith(("gelu", "leaky_relu")):
        # TensorFlow's own float64 gelu and leaky_relu use float32 constants (alpha is a
        # float attribute): they agree with the exact formula to ~1e-7 only.
        rtol, atol = 1e-6, 1e-9
    check(fn(tf.constant(x)), ref(as_wide(x)).astype(dtype), rtol=rtol, atol=atol)


def test_relu_on_integers():
    check(tf.nn.relu([-3, 0, 4]), np.array([0, 0, 4], np.int32))
    check(tf.nn.relu6(tf.constant([-3, 7, 4], tf.int64)), np.array([0, 6, 4], np.int64))


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("axis", [None, -1, 0, 1])
@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_and_log_softmax(dtype, axis):
    x = values((3, 4, 5), dtype, "any") * 4
    ax = -1 if axis is None else axis
    expected = np_softmax(as_wide(x), ax)
    check(tf.nn.softmax(x, axis=axis), expected.astype(dtype))
    check(tf.nn.log_softmax(x, axis=axis), np.log(expected).astype(dtype))


def test_softmax_is_stable_for_large_logits():
    x = np.array([[1000.0, 1000.0, -1000.0], [1e4, 0.0, 0.0]], np.float32)
    check(tf.nn.softmax(x), np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]], np.float32))
    check(tf.nn.log_softmax(x)[0], np.array([-np.log(2), -np.log(2), -2000 - np.log(2)], "f4"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_cross_entropy_with_logits(dtype):
    logits = values((4, 6), dtype, "any", 1) * 3
    labels = np_softmax(values((4, 6), "float64", "any", 2), -1).astype(dtype)
    log_p = np.log(np_softmax(as_wide(logits), -1))
    expected = -(labels * log_p).sum(-1)
    check(tf.nn.softmax_cross_entropy_with_logits(labels, logits), expected.astype(dtype))
    check(
        tf.nn.softmax_cross_entropy_with_logits(
            labels=tf.transpose(labels), logits=tf.transpose(logits), axis=0
        ),
        expected.astype(dtype),
    )


@pytest.mark.parametrize("label_dtype", ["int32", "int64"])
def test_sparse_softmax_cross_entropy_with_logits(label_dtype):
    logits = values((5, 4), "float32", "any") * 3
    labels = np.array([0, 3, 1, 1, 2], label_dtype)
    log_p = np.log(np_softmax(logits.astype(np.float64), -1))
    expected = -log_p[np.arange(5), labels]
    check(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits), expected.astype("f4"))
    check(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits),
        expected.astype("f4"),
    )


@pytest.mark.parametrize("dtype", FLOATS)
def test_sigmoid_cross_entropy_with_logits(dtype):
    logits = values((3, 5), dtype, "any", 1) * 10
    labels = rng(2).uniform(0, 1, size=(3, 5)).astype(dtype)
    x, z = as_wide(logits), as_wide(labels)
    expected = np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
    check(
        tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits),
        expected.astype(dtype),
    )


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (LARGE,)], ids=str)
def test_l2_loss(shape, dtype):
    x = values(shape, dtype)
    if dtype == "float16":
        x = np.asarray(x / 10, dtype)  # keeps the large sum below float16's maximum
    expected = np.sum(as_wide(x) ** 2) / 2
    check(tf.nn.l2_loss(x), np.asarray(expected, dtype), rtol=5e-3 if dtype == "float16" else 1e-5)


def test_bias_add():
    x = values((2, 3, 4), "float32")
    bias = np.array([1.0, -2.0, 0.5, 3.0], np.float32)
    check(tf.nn.bias_add(x, bias), x + bias)
    check(tf.nn.bias_add(x, bias, data_format="NHWC"), x + bias)
    cbias = np.array([1.0, -2.0, 0.5], np.float32)
    check(tf.nn.bias_add(x, cbias, data_format="NCHW"), x + cbias[None, :, None])
    x4 = values((2, 3, 2, 2), "float64")
    check(tf.nn.bias_add(x4, cbias.astype("f8"), data_format="NCHW"), x4 + cbias[:, None, None])
    check(tf.nn.bias_add([[1, 2]], [10, 20]), np.array([[11, 22]], np.int32))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axes", [[0], [1], [0, 1], [0, 2], [-1]], ids=str)
def test_moments(axes, keepdims):
    x = values((3, 4, 5), "float64")
    mean, var = tf.nn.moments(x, axes, keepdims=keepdims)
    ax = tuple(axes)
    check(mean, x.mean(axis=ax, keepdims=keepdims))
    check(var, x.var(axis=ax, keepdims=keepdims))
    m32, v32 = tf.nn.moments(x.astype("f4"), axes=axes, keepdims=keepdims)
    check(m32, x.mean(axis=ax, keepdims=keepdims).astype("f4"), rtol=1e-5)
    check(v32, x.var(axis=ax, keepdims=keepdims).astype("f4"), rtol=1e-4, atol=1e-6)


def test_dropout_rate_zero_is_identity():
    x = values((4, 5), "float32")
    check(tf.nn.dropout(x, 0.0), x)
    check(tf.nn.dropout(tf.constant(x), rate=0), x)


@pytest.mark.parametrize("rate", [0.1, 0.5, 0.8])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout_scales_kept_elements(rate, dtype):
    x = values((400, 500), dtype, "pos")
    out = tf.nn.dropout(x, rate=rate)
    assert out.dtype == tf.as_dtype(dtype)
    assert out.shape == x.shape
    y = out.numpy()
    kept = y != 0
    np.testing.assert_allclose(
        y[kept], x[kept] / (1 - rate), rtol=1e-6 if dtype == "float32" else 1e-12
    )
    assert abs(kept.mean() - (1 - rate)) < 0.01, kept.mean()


def test_dropout_noise_shape_and_seed():
    x = np.ones((300, 40), np.float32)
    y = tf.nn.dropout(x, 0.5, noise_shape=[300, 1]).numpy()
    # one decision per row: each row is all zeros or all 2s
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert (y == y[:, :1]).all()
    assert 0.35 < (y[:, 0] != 0).mean() < 0.65
    with pytest.raises(ValueError):
        tf.nn.dropout(x, 1.0)


# ---------------------------------------------------------------------------------------------
# tf.random


RANDOM_OPS = {
    "normal": lambda: tf.random.normal([1000]),
    "uniform": lambda: tf.random.uniform([1000]),
    "uniform_int": lambda: tf.random.uniform([1000], 0, 100, dtype=tf.int32),
    "truncated_normal": lambda: tf.random.truncated_normal([1000]),
    "shuffle": lambda: tf.random.shuffle(tf.range(1000)),
    "dropout": lambda: tf.nn.dropout(tf.ones([1000]), 0.5),
}


@pytest.mark.parametrize("name", list(RANDOM_OPS))
def test_set_seed_makes_sequences_reproducible(name):
    op = RANDOM_OPS[name]
    tf.random.set_seed(1234)
    first = [op().numpy() for _ in range(3)]
    tf.random.set_seed(1234)
    second = [op().numpy() for _ in range(3)]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    # successive calls differ, and another seed gives another sequence
    assert not np.array_equal(first[0], first[1])
    tf.random.set_seed(4321)
    assert not np.array_equal(op().numpy(), first[0])


def test_op_seed_with_global_seed_is_reproducible():
    tf.random.set_seed(7)
    a = tf.random.normal([50], seed=3).numpy()
    tf.random.set_seed(7)
    b = tf.random.normal([50], seed=3).numpy()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_normal_statistics(dtype):
    tf.random.set_seed(0)
    x = tf.random.normal([200_000], dtype=getattr(tf, dtype))
    assert x.dtype == getattr(tf, dtype) and x.shape == (200_000,)
    v = x.numpy().astype(np.float64)
    assert abs(v.mean()) < 0.01
    assert abs(v.std() - 1) < 0.01
    y = tf.random.normal([100_000, 2], mean=5.0, stddev=3.0, dtype=getattr(tf, dtype)).numpy()
    assert y.shape == (100_000, 2)
    assert abs(y.astype(np.float64).mean() - 5) < 0.05
    assert abs(y.astype(np.float64).std() - 3) < 0.05


@pytest.mark.parametrize(
    "minval,maxval,dtype",
    [(0, None, "float32"), (-2.0, 3.0, "float32"), (1.0, 1.5, "float64"), (-5, 7, "int32"),
     (0, 3, "int64"), (10, 11, "int32")],
)  # fmt: skip
def test_uniform_range(minval, maxval, dtype):
    tf.random.set_seed(1)
    x = tf.random.uniform([100_000], minval=minval, maxval=maxval, dtype=getattr(tf, dtype))
    assert x.dtype == getattr(tf, dtype)
    v = x.numpy()
    hi = 1 if maxval is None else maxval
    assert v.min() >= minval and v.max() < hi
    if dtype.startswith("int"):
        np.testing.assert_array_equal(np.unique(v), np.arange(minval, hi))
    else:
        assert abs(v.mean() - (minval + hi) / 2) < 0.01 * (hi - minval)
        assert v.max() > hi - 0.01 * (hi - minval) and v.min() < minval + 0.01 * (hi - minval)


def test_uniform_int_requires_maxval():
    with pytest.raises(ValueError):
        tf.random.uniform([3], dtype=tf.int32)


@pytest.mark.parametrize("mean,stddev", [(0.0, 1.0), (3.0, 0.5), (-1.0, 4.0)])
def test_truncated_normal_within_two_stddev(mean, stddev):
    tf.random.set_seed(2)
    x = tf.random.truncated_normal([100_000], mean=mean, stddev=stddev)
    assert x.dtype == tf.float32 and x.shape == (100_000,)
    v = x.numpy().astype(np.float64)
    assert (np.abs(v - mean) <= 2 * stddev + 1e-5).all()
    # a normal truncated at +-2 sigma has std ~0.88 sigma
    assert abs(v.mean() - mean) < 0.02 * stddev
    assert abs(v.std() - 0.8796 * stddev) < 0.02 * stddev


@pytest.mark.parametrize("shape", [(1000,), (50, 3), (1,), (0, 2)], ids=str)
def test_shuffle_is_a_permutation_of_the_first_axis(shape):
    tf.random.set_seed(3)
    x = np.arange(int(np.prod(shape))).reshape(shape).astype(np.int64)
    y = tf.random.shuffle(x)
    assert y.dtype == tf.int64 and y.shape == shape
    v = y.numpy()
    np.testing.assert_array_equal(np.sort(v, axis=0), x)
    if x.ndim == 2:  # rows stay whole
        np.testing.assert_array_equal(np.sort(v, axis=1), v)
        assert sorted(map(tuple, v)) == sorted(map(tuple, x))
    if shape == (1000,):
        assert not np.array_equal(v, x)
