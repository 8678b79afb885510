"""NumPy type promotion of `tf.experimental.numpy` against TensorFlow's: the whole table of
dtype pairs (with Python scalars) for `result_type`, the dtypes `tnp.add`, `tnp.true_divide`
and `tnp.where` give for tensors of every pair, and hypothesis-drawn argument lists mixing
tensors, NumPy arrays, dtypes and Python scalars."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import assert_parity

DTYPES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)  # fmt: skip
SCALARS = (True, 1, -3, 2**40, 1.5, 2j)


def _result_type_table(tf, dtypes, scalars):
    tnp = tf.experimental.numpy
    table = []
    for a in dtypes + scalars:
        row = []
        for b in dtypes + scalars:
            try:
                row.append(tnp.result_type(a, b).name)
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                row.append(type(e).__name__)
        table.append(row)
    return table


def test_result_type_table(tf_oracle):
    assert_parity(tf_oracle, _result_type_table, (DTYPES, SCALARS))


def _op_dtype_table(tf, dtypes, op, device):
    import numpy as np

    tnp = tf.experimental.numpy
    table = []
    with tf.device(device):
        for a in dtypes:
            row = []
            x = tf.constant(np.array([1, 0], dtype=a))
            for b in dtypes:
                y = tf.constant(np.array([1, 1], dtype=b))
                try:
                    if op == "where":
                        out = tnp.where([True, False], x, y)
                    else:
                        out = getattr(tnp, op)(x, y)
                    row.append((out.dtype.name, out.numpy().tolist()))
                except Exception as e:  # noqa: BLE001 - the class is what is compared
                    row.append(type(e).__name__)
            table.append(row)
    return table


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("op", ["add", "true_divide", "where", "maximum", "equal"])
def test_op_dtype_table(tf_oracle, op, device):
    assert_parity(tf_oracle, _op_dtype_table, (DTYPES, op, device))


def _result_type_of(tf, args):
    import numpy as np

    tnp = tf.experimental.numpy

    def build(arg):
        kind, value = arg
        if kind == "tensor":
            return tf.constant(np.array(value[1], dtype=value[0]))
        if kind == "ndarray":
            return np.array(value[1], dtype=value[0])
        if kind == "list":
            return [build(v) for v in value]
        return value

    try:
        return tnp.result_type(*[build(a) for a in args]).name
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


_scalar = st.one_of(
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, width=64),
    st.complex_numbers(max_magnitude=1e6, allow_nan=False),
)
_leaf = st.one_of(
    st.tuples(st.just("tensor"), st.tuples(st.sampled_from(DTYPES), st.just([1]))),
    st.tuples(st.just("ndarray"), st.tuples(st.sampled_from(DTYPES), st.just([0, 1]))),
    st.tuples(st.just("dtype"), st.sampled_from(DTYPES)),
    st.tuples(st.just("scalar"), _scalar),
)
_args = st.lists(
    st.one_of(_leaf, st.tuples(st.just("list"), st.lists(_leaf, max_size=3))),
    min_size=0,
    max_size=4,
)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(args=_args)
def test_result_type_property(tf_oracle, args):
    # A "scalar" leaf is passed as the Python value; "dtype" as its name.
    assert_parity(tf_oracle, _result_type_of, ([_as_arg(a) for a in args],))


def _as_arg(arg):
    kind, value = arg
    if kind == "list":
        return ("list", [_as_arg(v) for v in value])
    return (kind, value)
