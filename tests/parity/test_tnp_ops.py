"""`tf.experimental.numpy` against TensorFlow: every public callable from the table in
`_tnp_cases.py` (values, dtypes, shapes and NumPy's promotion; errors for bad arguments), under
CPU:0 and GPU:0 device scopes, and the dtype names and constants."""

import zlib

import pytest

from ._tnp_cases import CASES
from .harness import assert_parity


def _call(tf, name, args, kwargs, device):
    import numpy as np

    def convert(a):
        if isinstance(a, tuple) and len(a) == 3 and a[0] == "t":
            return tf.constant(np.asarray(a[1], dtype=a[2]))
        if isinstance(a, list):
            return [convert(x) for x in a]
        if isinstance(a, tuple):
            return tuple(convert(x) for x in a)
        return a

    def comparable(out):
        # NumPy types, dtypes and finfo/iinfo objects compare by their printed form.
        if isinstance(out, (list, tuple)) and not hasattr(out, "_fields"):
            return type(out)(comparable(x) for x in out)
        if isinstance(out, (np.dtype, type, np.finfo, np.iinfo)):
            return repr(out)
        if isinstance(out, tf.TensorShape):
            return ("shape", out.as_list())
        return out

    fn = tf.experimental.numpy
    for part in name.split("."):
        fn = getattr(fn, part)
    with tf.device(device):
        args = [convert(a) for a in args]
        kwargs = {k: convert(v) for k, v in kwargs.items()}
        return comparable(fn(*args, **kwargs))


def _id(case):
    name, args, kwargs = case
    key = repr((args, sorted(kwargs.items()))).encode()
    return f"{name}-{zlib.crc32(key) % 10**6:06d}"


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_tnp_call(tf_oracle, case, device):
    name, args, kwargs = case
    # Float32 kernels of the two frameworks may differ by an ulp or so in transcendental
    # functions (exp2, cbrt, logaddexp go through pow/exp/log). On the GPU, WGSL's atan2
    # builtin (lavapipe's) is good to about 5e-6 relative: the float32 bound is 1e-5.
    rtol = 1e-5 if device == "GPU:0" and name == "arctan2" else 2e-6
    assert_parity(tf_oracle, _call, (name, args, kwargs, device), rtol=rtol, atol=1e-6)


def _constants(tf):
    tnp = tf.experimental.numpy
    names = [
        "bool_", "complex128", "complex64", "complex_", "float16", "float32", "float64",
        "float_", "inexact", "int16", "int32", "int64", "int8", "int_", "object_", "string_",
        "uint16", "uint32", "uint64", "uint8", "unicode_",
    ]  # fmt: skip
    return (
        [repr(getattr(tnp, n)) for n in names],
        [tnp.e, tnp.pi, tnp.inf, tnp.newaxis],
        tnp.ndarray is tf.Tensor,
        isinstance(tnp.zeros(2), tnp.ndarray),
        # (pytest's assertion rewriting may add "@py_builtins" names to a package it imports)
        sorted(n for n in dir(tnp.random) if not n.startswith(("_", "@"))),
    )


def test_tnp_constants(tf_oracle):
    assert_parity(tf_oracle, _constants)


def test_every_tnp_name_has_a_case():
    import ferroflow as tf

    tnp = tf.experimental.numpy
    covered = {name for name, _, _ in CASES}
    missing = [
        n
        for n in dir(tnp)
        if not n.startswith("_")
        and callable(getattr(tnp, n))
        and n not in covered
        and not isinstance(getattr(tnp, n), type)
        and n not in ("experimental_enable_numpy_behavior",)
    ]
    assert missing == []


VARIABLE_EXPRESSIONS = [
    "tnp.asarray(v)",
    "tnp.sum(v)",
    "tnp.add(v, 1)",
    "tnp.transpose(v)",
    "tnp.array_equal(v, v)",
    "tnp.mean(v, axis=0)",
    "tnp.result_type(v)",
    "tnp.zeros_like(v)",
    "tnp.size(v)",
    "tnp.shape(v)",
    "tnp.stack([v, v])",
    "tnp.where(v > 2, v, 0)",
    "tnp.full((2,), v[0, 0])",
    "tf.function(lambda x: tnp.array_equal(x, x))(tf.constant([1, 2]))",
    "tf.function(lambda x: tnp.array_equal(x, tnp.ones(3)))(tf.constant([1, 2]))",
    "round(tf.constant(1.5))",
]


def _with_variable(tf, expression):
    tnp = tf.experimental.numpy
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    return eval(expression, {"tf": tf, "tnp": tnp, "v": v})


@pytest.mark.parametrize("expression", VARIABLE_EXPRESSIONS)
def test_tnp_variables_and_functions(tf_oracle, expression):
    assert_parity(tf_oracle, _with_variable, (expression,))
