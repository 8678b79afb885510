"""`tf.nn.isotonic_regression` against TensorFlow: fits and block ids along any axis, both
directions, integer inputs (promoted as TensorFlow promotes them), ties, a traced call and the
gradient (the incoming gradient averaged over each block), on CPU and GPU."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _program(tf, device, dtype, decreasing, axis):
    import numpy as np

    rng = np.random.default_rng(9)
    values = rng.integers(-4, 5, [4, 6]).astype(dtype)  # small integers: ties included
    x = tf.constant(values)

    def fit(x):
        return tf.nn.isotonic_regression(x, decreasing=decreasing, axis=axis)

    with tf.device(device):
        eager = fit(x)
        traced = tf.function(fit)(x)
        grad = None
        if x.dtype.is_floating:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = fit(x)[0]
                total = tf.reduce_sum(y * tf.reshape(tf.range(24, dtype=y.dtype), [4, 6]))
            grad = tape.gradient(total, x)
    return eager, traced, grad


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("decreasing", [True, False])
@pytest.mark.parametrize("axis", [-1, 0])
def test_isotonic_float32(tf_oracle, device, decreasing, axis):
    assert_parity(tf_oracle, _program, (device, "float32", decreasing, axis), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float64", "int32", "int8", "int64", "float16"])
def test_isotonic_dtypes(tf_oracle, dtype):
    assert_parity(tf_oracle, _program, ("CPU:0", dtype, True, -1), rtol=1e-3, atol=1e-3)


def _rank3(tf, axis):
    import numpy as np

    x = tf.constant(np.random.default_rng(1).standard_normal([2, 3, 5]).astype("float32"))
    return tf.nn.isotonic_regression(x, axis=axis), tf.nn.isotonic_regression(x, False, axis)


@pytest.mark.parametrize("axis", [-1, 2, 1, 0, 3])
def test_isotonic_rank3_forward(tf_oracle, axis):
    # Rank 3 only along the last axis: TensorFlow's axis swap fails for the others (and its
    # gradient is then shaped [rows, -1], not like the input: not compared).
    assert_parity(tf_oracle, _rank3, (axis,), rtol=1e-6)
