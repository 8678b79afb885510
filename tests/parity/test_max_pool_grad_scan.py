"""MaxPoolGrad's window scan against TensorFlow's: the CPU kernel compares sixteen channels
at a time with selects and adds each window's gradients with vector selects (then the
remaining channels one by one), so channel counts straddle that group (8, 13, 21, 37) and
values repeat (ties), include -inf and NaN, under SAME padding
(windows at the edge have fewer taps) and overlapping windows. Each window's gradient must go
to its first maximum in tap order, as TensorFlow routes it; eager and traced, both devices.

With NaN in a window only eager results are compared: TensorFlow's traced step (oneDNN's
pooling, which keeps the forward pass's argmax) skips NaN there, while its eager MaxPoolGrad,
which ferroflow follows in both modes, scans NaN like any value."""

import numpy as np
import pytest

from .harness import assert_parity

CASES = [
    # (channels, window, stride, padding)
    (8, 2, 2, "VALID"),
    (13, 3, 1, "SAME"),
    (21, 3, 2, "SAME"),
    (5, 2, 1, "VALID"),
    (37, 3, 2, "VALID"),
]


def _pool_gradients(tf, values, window, stride, padding, dtype, device, traced_too=True):
    with tf.device(device):
        x = tf.constant(values.astype(dtype))

        def loss(x):
            p = tf.nn.max_pool2d(x, window, stride, padding)
            weights = tf.cos(tf.reshape(tf.range(tf.size(p), dtype=p.dtype), tf.shape(p)))
            return tf.reduce_sum(p * weights)

        with tf.GradientTape() as tape:
            tape.watch(x)
            eager = tape.gradient(loss(x), x)

        @tf.function
        def traced(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                return tape.gradient(loss(x), x)

        return [eager, traced(x)] if traced_too else [eager]


def _values(channels, special):
    """Small integers (many ties); with `special`, some -inf and NaN as well."""
    rng = np.random.default_rng(channels)
    v = rng.integers(-2, 3, (2, 7, 6, channels)).astype(np.float64)
    if special:
        v[rng.random(v.shape) < 0.1] = -np.inf
        v[rng.random(v.shape) < 0.05] = np.nan
    return v


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pool_gradient_goes_to_the_first_maximum(tf_oracle, case, dtype, device):
    channels, window, stride, padding = case
    args = (_values(channels, False), window, stride, padding, dtype, device)
    assert_parity(tf_oracle, _pool_gradients, args, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_max_pool_gradient_with_infinities_and_nan(tf_oracle, case):
    channels, window, stride, padding = case
    args = (_values(channels, True), window, stride, padding, "float32", "CPU:0", False)
    assert_parity(tf_oracle, _pool_gradients, args, rtol=1e-6, atol=1e-6)
