"""Fuzzes shapes known only when a graph runs: inside a traced function, Reshape, Fill, zeros,
ones, BroadcastTo and random ops take a shape computed from the call's data. Hostile values
(negative sizes, several -1s, huge sizes, wrong lengths) must raise TensorFlow's typed errors
when the graph runs, never crash, hang or return a tensor of another shape than asked."""

import ferroflow as tf
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ALLOWED = (tf.errors.InvalidArgumentError, tf.errors.ResourceExhaustedError, ValueError)

BODIES = {
    "reshape": lambda x, s: tf.reshape(x, s),
    "fill": lambda x, s: tf.fill(s, 1.5),
    "zeros": lambda x, s: tf.zeros(s),
    "ones": lambda x, s: tf.ones(s, tf.int32),
    "broadcast_to": lambda x, s: tf.broadcast_to(x[:1], s),
    "uniform": lambda x, s: tf.random.uniform(s),
    "normal_list": lambda x, s: tf.random.normal([s[0], 2]),
    "reshape_list": lambda x, s: tf.reshape(x, [s[0], -1]),
}

FUNCTIONS = {
    name: tf.function(
        body,
        input_signature=[
            tf.TensorSpec([None], tf.float32),
            tf.TensorSpec([None], tf.int32),
        ],
    )
    for name, body in BODIES.items()
}

sizes = st.one_of(st.integers(-3, 8), st.sampled_from([-1, 2**31 - 1, -(2**31), 2**20, 1 << 16]))


@pytest.mark.parametrize("name", sorted(BODIES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(0, 12), shape=st.lists(sizes, min_size=0, max_size=4))
def test_hostile_traced_shapes_raise_typed_errors(name, n, shape):
    x = tf.constant(np.arange(n, dtype=np.float32))
    s = tf.constant(np.array(shape, dtype=np.int32).reshape([len(shape)]))
    try:
        out = FUNCTIONS[name](x, s)
    except ALLOWED:
        return
    dims = out.shape.as_list()
    if name in ("fill", "zeros", "ones", "uniform", "broadcast_to"):
        assert dims == shape, (name, dims, shape)
    elif name == "reshape":
        assert len(dims) == len(shape), (dims, shape)
        assert all(s in (-1, d) for s, d in zip(shape, dims)), (dims, shape)
        assert int(np.prod(dims)) == n and all(d >= 0 for d in dims)
    elif name == "normal_list":
        assert dims == [shape[0], 2]
    else:
        assert dims[0] == shape[0] and int(np.prod(dims)) == n


@pytest.mark.parametrize("multiple", [2**40, 2**62])
def test_an_impossible_traced_shape_raises_while_tracing(multiple):
    # A traced op whose output could never be allocated is not deferred: its kernel reports
    # the size as eagerly, instead of a tensor of that shape standing in the trace.
    @tf.function
    def tiled(x):
        return tf.tile(x * 2.0, [multiple])

    with pytest.raises((tf.errors.ResourceExhaustedError, tf.errors.InvalidArgumentError)):
        tiled.get_concrete_function(tf.ones([4]))
