"""Scalar operands of fused elementwise chains, on either side of a binary step.

The CPU's fused loops read a scalar operand of a binary step as one value rather than a
block of copies. Chains with scalars on the left (`3 - x`, `2 ** x`) and on the right, over
sizes around the loops' block and task lengths (256..2048 elements per block, 32768 per
task), must give TensorFlow's values, NaN, infinities and signed zeros included, and the
traced (fused) result must equal the eager one bit for bit, with positional arguments and with
arguments in a nested dict."""

import numpy as np
import pytest

from .harness import assert_parity

SIZES = [1, 255, 1025, 2049, 32767, 70001]
SPECIAL = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-30]


def _chains(tf, x, y, device):
    with tf.device(device):
        x, y = tf.constant(x), tf.constant(y)

        def chains(x, y):
            left = (3.0 - x) / 2.0 * y + 1.5
            # A Python number first in tf.maximum is float32 in TensorFlow's graphs: a typed
            # constant keeps the scalar on the left for float64 too.
            sides = tf.maximum(tf.constant(0.5, x.dtype), x) - tf.minimum(x, 0.25) * 4.0
            powers = 2.0 ** tf.minimum(x, 8.0) * (y**2.0 + 1.0)
            divided = 1.0 / (tf.abs(x) + 0.5) - y / 3.0
            return [left, sides, powers, divided]

        # Arguments in a dict and a nested list bind to the chains' operands by key.
        from_dict = tf.function(lambda d: chains(d["y"][0], d["x"]))({"x": y, "y": [x]})
        return [chains(x, y), tf.function(chains)(x, y), from_dict]


def _inputs(n, dtype, seed):
    rng = np.random.default_rng(seed)
    x, y = (rng.standard_normal(n).astype(dtype) * 3 for _ in range(2))
    x[rng.choice(n, size=min(n, len(SPECIAL)), replace=False)] = SPECIAL[: min(n, len(SPECIAL))]
    return x, y


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", SIZES)
def test_scalar_operands_in_fused_chains_match_tensorflow(tf_oracle, n, dtype, device):
    x, y = _inputs(n, dtype, n)
    assert_parity(tf_oracle, _chains, args=(x, y, device), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_chains_equal_eager_bit_for_bit(dtype, capfd):
    import ferroflow as tf

    for n in SIZES:
        x, y = _inputs(n, dtype, n + 1)
        _chains(tf, x, y, "CPU:0")  # traces
        tf.debugging.set_log_device_placement(True)
        try:
            capfd.readouterr()
            eager, traced, from_dict = _chains(tf, x, y, "CPU:0")
            log = capfd.readouterr().err
        finally:
            tf.debugging.set_log_device_placement(False)
        if n > 1:  # a one-element chain may run its steps as eager ops
            assert log.count("FusedElementwise") >= 8, log[-2000:]
        for e, t in zip(eager + eager, traced + from_dict):
            e, t = e.numpy(), t.numpy()
            assert e.dtype == t.dtype and e.shape == t.shape
            same = (e.view(f"u{e.itemsize}") == t.view(f"u{t.itemsize}")) | (
                np.isnan(e) & np.isnan(t)
            )
            assert same.all(), (n, np.flatnonzero(~same)[:5])
