"""`tf.math.sobol_sample` against TensorFlow, bit for bit: small and large dimensions (up to
the table's 21200), skips (one past 2**30, where TensorFlow's 1 << 31 overflows and negates
the points), both dtypes, a traced call, and the kernel's errors."""

import pytest

from .harness import assert_parity

CASES = [(1, 5, 0), (2, 9, 1), (7, 40, 5), (40, 33, 1000), (1111, 6, 12345), (21200, 2, 3)]


def _samples(tf, dtype, device, cases):
    out = []
    with tf.device(device):
        for dim, n, skip in cases:
            out.append(tf.math.sobol_sample(dim, n, skip=skip, dtype=getattr(tf, dtype)))
        out.append(tf.math.sobol_sample(3, 20, skip=2**30 - 10, dtype=getattr(tf, dtype)))
        traced = tf.function(lambda d, n, s: tf.math.sobol_sample(d, n, s, dtype=tf.float64))
        out.append(traced(tf.constant(5), tf.constant(17), tf.constant(2)))
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sobol_sample(tf_oracle, dtype, device):
    assert_parity(tf_oracle, _samples, (dtype, device, CASES), rtol=0, atol=0)


def _errors(tf):
    out = []
    for args, kwargs in [
        ((0, 3), {}),
        ((2, 0), {}),
        ((2, 3, -1), {}),
        ((21201, 1), {}),
        ((2, 3), {"dtype": tf.float16}),
        ((2.0, 3), {}),
        ((2, 2**31 - 2, 5), {}),
    ]:
        try:
            out.append(tf.math.sobol_sample(*args, **kwargs))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_sobol_sample_errors(tf_oracle):
    assert_parity(tf_oracle, _errors)
