"""`keras.ops.numpy` against Keras 3 under TensorFlow 2.21, generatively: a table of cases
(every name, with float, int, bool and mixed inputs and Python scalars, so Keras's dtype
promotion is checked) run in one program per device; values, dtypes and shapes compared."""

import numpy as np
import pytest

from ._keras_ops_cases import run_cases
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]

F = np.array([[-1.5, 0.0, 2.25], [3.0, -0.5, 1.0]], np.float32)
G = np.array([[0.5, 2.0, -1.0], [1.5, 0.25, 4.0]], np.float32)
P = np.array([[0.5, 1.0, 2.0], [3.0, 0.25, 9.0]], np.float32)
U = np.array([[0.1, -0.4, 0.9], [0.0, 0.5, -0.7]], np.float32)
N = np.array([[1, -2, 3], [4, 0, -6]], np.int32)
J = np.array([[2, 3, -1], [1, 5, 2]], np.int32)
L = np.array([[1, 2, 3], [4, 0, 6]], np.int64)
B = np.array([[True, False, True], [False, False, True]])
U8 = np.array([[1, 2, 250], [0, 7, 9]], np.uint8)
I8 = np.array([[-1, 2, 5], [0, -7, 9]], np.int8)
V = np.array([3.0, -1.0, 2.0, 0.5], np.float32)
NANS = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]], np.float32)
INF = np.array([1.0, np.inf, -np.inf, np.nan, -0.0], np.float32)
M = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, 0.0], [0.5, 0.0, 4.0]], np.float32)
C3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 10.0
E = np.zeros((0, 3), np.float32)

UNARY_FLOAT = [
    "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cos", "cosh", "sin", "sinh",
    "tan", "tanh", "ceil", "floor", "log", "log10", "log1p", "log2", "sqrt", "exp", "exp2",
    "expm1", "sinc", "fabs", "cbrt", "deg2rad", "rad2deg", "i0", "angle",
]  # fmt: skip
UNARY_KEEP = [
    "abs", "absolute", "negative", "square", "sign", "signbit", "trunc", "round", "isfinite",
    "isinf", "isnan", "isneginf", "isposinf", "isreal", "copy", "real", "conj", "conjugate",
    "logical_not", "ravel", "ndim", "size", "nan_to_num", "nonzero", "sort",
    "argsort", "transpose", "flip", "fliplr", "flipud", "rot90", "diff", "tril", "triu",
    "count_nonzero", "imag",
]  # fmt: skip
BINARY = [
    "add", "subtract", "multiply", "divide", "true_divide", "divide_no_nan", "floor_divide",
    "power", "maximum", "minimum", "fmax", "fmin", "mod", "fmod", "equal", "not_equal", "greater",
    "greater_equal", "less", "less_equal", "arctan2", "hypot", "heaviside", "logaddexp",
    "logaddexp2", "logical_and", "logical_or", "logical_xor", "nextafter", "isclose", "allclose",
    "append", "outer",
]  # fmt: skip
INT_BINARY = [
    "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "bitwise_left_shift",
    "bitwise_right_shift", "gcd", "lcm",
]  # fmt: skip
REDUCTIONS = [
    "sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "all", "any", "ptp",
    "argmax", "argmin", "median", "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax",
    "nanmin", "nanargmax", "nanargmin", "nanmedian", "cumsum", "cumprod", "nancumsum",
    "nancumprod",
]  # fmt: skip


def _cases():
    cases = []
    for name in UNARY_FLOAT:
        for x in (U if name in ("arccos", "arcsin", "arctanh") else P, N, L, B, U8):
            cases.append((name, (x,), {}))
    for name in UNARY_KEEP:
        for x in (F, N, B, U8):
            cases.append((name, (x,), {}))
    for name in BINARY:
        for a, b in ((F, G), (N, J), (N, 2), (N, 2.5), (U8, I8), (B, B), (F, 3), (L, F), (N, L)):
            cases.append((name, (a, b), {}))
    for name in INT_BINARY:
        for a, b in ((N, J % 3 + 1), (U8, 2), (I8, N), (L, 1)):
            cases.append((name, (a, b), {}))
    for name in REDUCTIONS:
        for x in (F, N, B, U8, NANS):
            cases.append((name, (x,), {}))
        cases.append((name, (F,), {"axis": 1}))
        if name not in ("cumsum", "cumprod", "nancumsum", "nancumprod"):
            cases.append((name, (N,), {"axis": 0, "keepdims": True}))
    cases += [
        ("sum", (C3,), {"axis": (0, 2)}),
        ("mean", (C3,), {"axis": (0, 2), "keepdims": True}),
        ("max", (E,), {}),
        ("max", (F,), {"initial": 10.0}),
        ("min", (B,), {"axis": 0, "initial": 0}),
        ("prod", (N,), {"dtype": "float32"}),
        ("cumsum", (N,), {"axis": 0, "dtype": "float32"}),
        ("round", (F,), {"decimals": 1}),
        ("round", (N * 17,), {"decimals": -1}),
        ("clip", (F, -1.0, 1.0), {}),
        ("clip", (N, -1, 2), {}),
        ("clip", (B, 0, 1), {}),
        ("nan_to_num", (INF,), {}),
        ("nan_to_num", (INF,), {"nan": 5.0, "posinf": 9.0, "neginf": -9.0}),
        ("isfinite", (INF,), {}),
        ("signbit", (INF,), {}),
        ("argmax", (np.array([-0.0, 0.0, -1.0], np.float32),), {}),
        ("argmin", (np.array([0.0, -0.0, 1.0], np.float32),), {}),
        ("where", (B, F, G), {}),
        ("where", (B, N, 2.5), {}),
        ("where", (B,), {}),
        ("where", (B, F), {}),
        ("select", ([B, ~B], [F, G]), {"default": 7.0}),
        ("quantile", (F, 0.3), {}),
        ("quantile", (C3, np.array([0.1, 0.9], np.float32)), {"axis": 1, "keepdims": True}),
        ("percentile", (N, 50), {"axis": 1, "method": "lower"}),
        ("percentile", (F, 40), {"method": "higher"}),
        ("percentile", (F, 40), {"method": "midpoint"}),
        ("percentile", (F, 40), {"method": "nearest"}),
        ("nanpercentile", (NANS, 50), {"axis": 1}),
        ("nanquantile", (NANS, 0.25), {}),
        ("average", (F,), {}),
        ("average", (F,), {"axis": 1, "weights": np.array([1.0, 2.0, 3.0], np.float32)}),
        ("average", (N,), {"axis": 0, "weights": J}),
        ("zeros", ((2, 3),), {}),
        ("ones", ((2,),), {"dtype": "int32"}),
        ("empty", ((1, 2),), {"dtype": "bool"}),
        ("full", ((2, 2), 3), {}),
        ("full", ((2,), 3), {"dtype": "int64"}),
        ("zeros_like", (N,), {}),
        ("ones_like", (F,), {"dtype": "int8"}),
        ("empty_like", (B,), {}),
        ("full_like", (N, 2.7), {}),
        ("full_like", (F, 2), {"dtype": "float16"}),
        ("eye", (3,), {}),
        ("eye", (3, 4), {"k": 1, "dtype": "int32"}),
        ("eye", (4, 3), {"k": -2}),
        ("eye", (2.0,), {}),
        ("identity", (3,), {"dtype": "bool"}),
        ("tri", (3, 4), {"k": -1}),
        ("tri", (3,), {"k": 1, "dtype": "int32"}),
        ("arange", (5,), {}),
        ("arange", (1, 7, 2), {}),
        ("arange", (0.5, 3), {}),
        ("arange", (0, 2, 0.5), {"dtype": "float64"}),
        ("linspace", (0, 10, 5), {}),
        ("linspace", (0, 10, 4), {"endpoint": False, "retstep": True}),
        ("linspace", (1, 9, 5), {"dtype": "int32"}),
        ("linspace", (np.array([0.0, 1.0], np.float32), 5.0, 3), {"axis": 1}),
        ("logspace", (0, 2, 3), {}),
        ("logspace", (0, 3, 4), {"base": 2, "endpoint": False}),
        ("geomspace", (1, 1000, 4), {}),
        ("geomspace", (-1, -16, 5), {}),
        ("meshgrid", (V[:2], V), {}),
        ("meshgrid", (V[:2], V), {"indexing": "ij"}),
        ("hamming", (5,), {}),
        ("hanning", (6,), {}),
        ("kaiser", (5, 2.0), {}),
        ("bartlett", (5,), {}),
        ("bartlett", (1,), {}),
        ("blackman", (6,), {}),
        ("blackman", (1,), {}),
        ("array", ([1, 2, 3],), {}),
        ("array", ([1.5, 2],), {"dtype": "int32"}),
        ("reshape", (F, (3, 2)), {}),
        ("reshape", (F, -1), {}),
        ("reshape", (F, (-1, -1)), {}),
        ("broadcast_to", (V, (2, 4)), {}),
        ("expand_dims", (F, 0), {}),
        ("expand_dims", (F, (0, -1)), {}),
        ("squeeze", (F[None],), {}),
        ("squeeze", (F[None], 0), {}),
        ("squeeze", (F, 0), {}),
        ("transpose", (C3, (2, 0, 1)), {}),
        ("transpose", (C3, (0, 0, 1)), {}),
        ("moveaxis", (C3, 0, -1), {}),
        ("moveaxis", (C3, (0, 1), (2, 0)), {}),
        ("swapaxes", (C3, 0, 2), {}),
        ("concatenate", ([F, N],), {"axis": 0}),
        ("concatenate", ([F, G],), {"axis": 1}),
        ("stack", ([F, G],), {"axis": 1}),
        ("stack", ([N, L],), {}),
        ("hstack", ([F, N],), {}),
        ("vstack", ([V, V],), {}),
        ("dstack", ([F, G],), {}),
        ("dstack", ([V, V],), {}),
        ("append", (F, G), {"axis": 0}),
        ("split", (C3, 2), {"axis": 2}),
        ("split", (V, [1, 3]), {}),
        ("array_split", (V, 3), {}),
        ("array_split", (V, [1]), {}),
        ("hsplit", (C3, [1]), {}),
        ("vsplit", (C3, 2), {}),
        ("dsplit", (C3, 2), {}),
        ("flip", (C3,), {"axis": (0, 2)}),
        ("rot90", (C3,), {"k": 1, "axes": (1, 2)}),
        ("rot90", (C3,), {"k": 2}),
        ("rot90", (C3,), {"k": -1}),
        ("rot90", (C3,), {"k": 3, "axes": (2, 0)}),
        ("rot90", (V,), {}),
        ("roll", (F, 1), {}),
        ("roll", (C3, -2), {"axis": 2}),
        ("repeat", (N, 2), {}),
        ("repeat", (F, [1, 3]), {"axis": 0}),
        ("tile", (V, 2), {}),
        ("tile", (F, (2, 1, 2)), {}),
        ("pad", (F, ((1, 0), (0, 2))), {}),
        ("pad", (N, 1), {"constant_values": 9}),
        ("pad", (F, ((1, 1), (2, 2))), {"mode": "reflect"}),
        ("pad", (F, ((1, 1), (2, 2))), {"mode": "symmetric"}),
        ("pad", (F, 1), {"mode": "reflect", "constant_values": 1}),
        ("diag", (V,), {}),
        ("diag", (V,), {"k": 1}),
        ("diag", (M,), {"k": -1}),
        ("diagflat", (F,), {}),
        ("diagonal", (C3,), {}),
        ("diagonal", (C3,), {"offset": 1, "axis1": 1, "axis2": 2}),
        ("diagonal", (C3,), {"axis1": 1, "axis2": 1}),
        ("trace", (M,), {}),
        ("trace", (C3,), {"offset": 1, "axis1": 1, "axis2": 2}),
        ("trace", (B,), {}),
        ("diff", (V,), {"n": 2}),
        ("diff", (F,), {"axis": 0}),
        ("diff", (B,), {}),
        ("tril", (M,), {"k": -1}),
        ("triu", (M,), {"k": 1}),
        ("trapezoid", (V,), {}),
        ("trapezoid", (F,), {"dx": 0.5, "axis": 0}),
        ("trapezoid", (V, np.array([0.0, 1.0, 3.0, 4.0], np.float32)), {}),
        ("vander", (V,), {}),
        ("vander", (V[:3],), {"N": 4, "increasing": True}),
        ("vander", (np.array([1, 2, 3], np.int32),), {}),
        ("get_item", (F, 1), {}),
        ("take", (F, np.array([0, -1, 4], np.int32)), {}),
        ("take", (F, np.array([[1, 0]], np.int32)), {"axis": 1}),
        ("take_along_axis", (F, np.array([[2, 0], [1, 1]], np.int32)), {"axis": 1}),
        ("take_along_axis", (F, np.array([[1, 0, -1]], np.int32)), {"axis": 0}),
        ("sort", (F,), {"axis": 0}),
        ("sort", (F,), {"axis": None}),
        ("argsort", (F,), {"axis": None}),
        ("argpartition", (V, 1), {}),
        ("searchsorted", (np.array([1.0, 2.0, 4.0], np.float32), V), {}),
        ("searchsorted", (np.array([1, 2, 2, 4], np.int32), J[0]), {"side": "right"}),
        ("digitize", (V, [0.0, 1.0, 2.5]), {}),
        ("digitize", (N, [0, 2]), {}),
        ("unravel_index", (np.array([1, 5, 7], np.int32), (2, 4)), {}),
        ("unravel_index", (J % 8, (2, 4)), {}),
        ("isin", (N, np.array([1, 3, 5], np.int32)), {}),
        ("isin", (N, np.array([1, 3], np.int64)), {"invert": True}),
        ("bincount", (np.array([1, 1, 3, 0], np.int32),), {}),
        ("bincount", (np.array([1, 1, 3], np.int32),), {"weights": V[:3], "minlength": 6}),
        ("bincount", (np.array([0, 2], np.int64),), {"weights": np.array([1, 2], np.int8)}),
        ("histogram", (V,), {"bins": 3}),
        ("histogram", (V,), {"bins": 2, "range": (0.0, 3.0)}),
        ("unique", (np.array([3, 1, 3, 2, 1], np.int32),), {}),
        (
            "unique",
            (np.array([3, 1, 3, 2, 1], np.int32),),
            {"return_index": True, "return_inverse": True, "return_counts": True},
        ),
        ("unique", (np.array([3, 1, 3], np.int32),), {"size": 4, "fill_value": -1}),
        ("matmul", (F, G.T), {}),
        ("matmul", (N, J.T), {}),
        ("matmul", (I8, I8.T), {}),
        ("matmul", (C3, V), {}),
        ("matmul", (V[:3], C3.transpose(0, 2, 1)[:, :3]), {}),
        ("matmul", (C3, M.T[:, :3].T if False else np.ones((4, 2), np.float32)), {}),
        ("dot", (F, G.T), {}),
        ("dot", (N, np.array([1, 2, 3], np.int32)), {}),
        ("dot", (F, 2.0), {}),
        ("vdot", (F, G), {}),
        ("inner", (F, G), {}),
        ("inner", (N, J), {}),
        ("outer", (V, N), {}),
        ("tensordot", (C3, np.ones((3, 4), np.float32)), {}),
        ("tensordot", (F, G), {"axes": ([1], [1])}),
        ("tensordot", (I8, I8), {"axes": 2}),
        ("einsum", ("ij,kj->ik", F, G), {}),
        ("einsum", ("ij,kj->ik", N, J), {}),
        ("einsum", ("ij->j", I8), {}),
        ("einsum", ("bij,jk->bik", C3, np.ones((3, 2), np.float32)), {}),
        ("kron", (M[:2, :2], N[:, :2]), {}),
        (
            "cross",
            (np.array([1.0, 2.0, 3.0], np.float32), np.array([0.0, 1.0, 0.5], np.float32)),
            {},
        ),
        ("cross", (F, G), {}),
        ("cross", (F[:, :2], G[:, :2]), {}),
        ("cross", (F.T, G.T), {"axis": 0}),
        ("correlate", (V, np.array([1.0, 0.5], np.float32)), {}),
        ("correlate", (V, np.array([1.0, 0.5], np.float32)), {"mode": "full"}),
        ("correlate", (V, np.array([1.0, 0.5, 2.0], np.float32)), {"mode": "same"}),
        ("correlate", (np.array([1, 2, 3], np.int32), np.array([1, 1], np.int32)), {}),
        ("corrcoef", (F,), {}),
        ("corrcoef", (N,), {}),
        ("slogdet", (M,), {}),
        ("view", (F, "int32"), {}),
        ("view", (F, "uint8"), {}),
        ("view", (U8[:, :2].copy(), "int16"), {}),
        ("logical_not", (N,), {}),
        ("reciprocal", (F,), {}),
        ("bitwise_invert", (N,), {}),
        ("bitwise_not", (U8,), {}),
        ("ldexp", (F, N), {}),
        ("ldexp", (F, G), {}),
        ("ldexp", (N, J), {}),
        ("gcd", (F, G), {}),
        ("lcm", (F, G), {}),
        ("floor_divide", (F, 0.5), {}),
        ("divide", (N, 0), {}),
        ("power", (U8, 2), {}),
        ("power", (2, I8), {}),
        ("add", (2, 3.5), {}),
        ("add", (("np", F), ("np", N)), {}),
        ("multiply", (("np", U8), 300), {}),
        ("add", (np.array([1, 2], np.float16), 1.5), {}),
        ("mean", (np.array([1, 2], np.float16),), {}),
        ("var", (L,), {}),
        ("std", (np.array([1, 2], np.float16),), {}),
    ]
    return cases


CASES = _cases()


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_ops(tf_oracle, device):
    assert_parity(tf_oracle, run_cases, (device, CASES), rtol=1e-5, atol=1e-6)


def _traced_and_gradients(tf, device):
    ops = tf.keras.ops
    with tf.device(device):
        x = tf.constant([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]])
        y = tf.constant([[1.0, 2.0, 0.5], [0.5, -1.0, 4.0]])

        @tf.function
        def traced(a, b):
            return (
                ops.divide(a, b),
                ops.mean(ops.cast(a > 0, "int32"), axis=1),
                ops.logaddexp(a, b),
                ops.matmul(a, ops.transpose(b)),
                ops.quantile(a, 0.5, axis=1),
                ops.take_along_axis(a, ops.argsort(a, axis=1), axis=1),
            )

        grads = []
        for fn in (
            lambda a: ops.hypot(a, y),
            lambda a: ops.logaddexp(a, y),
            lambda a: ops.cbrt(a),
            lambda a: ops.sinc(a),
            lambda a: ops.var(a, axis=0),
            lambda a: ops.einsum("ij,kj->ik", a, y),
            lambda a: ops.trapezoid(a),
            lambda a: ops.cross(a, y),
            lambda a: ops.where(a > 0, a * 2.0, ops.square(a)),
            lambda a: ops.median(a, axis=1),
        ):
            with tf.GradientTape() as tape:
                tape.watch(x)
                out = tf.reduce_sum(fn(x) ** 2)
            grads.append(tape.gradient(out, x))
        return traced(x, y), grads


@pytest.mark.parametrize("device", DEVICES)
def test_traced_and_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _traced_and_gradients, (device,), rtol=1e-5, atol=1e-6)


def _arctan2_of_zeros(tf, device):
    with tf.device(device):
        zeros = tf.constant([0, 0, 1], tf.int32)
        return tf.keras.ops.arctan2(zeros, tf.constant([0, 5, 0], tf.int32))


@pytest.mark.parametrize("device", DEVICES)
def test_arctan2_of_zeros(tf_oracle, device):
    assert_parity(tf_oracle, _arctan2_of_zeros, (device,))
