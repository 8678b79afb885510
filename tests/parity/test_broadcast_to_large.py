"""`tf.broadcast_to` past a parallel task's size, against TensorFlow.

A single value and a row repeated along leading axes are copied as contiguous runs split
across tasks (a row's period need not divide a task); other broadcasts walk strided views.
Values, dtypes and shapes must be TensorFlow's for numbers, bools and strings, eager and
traced, on both devices, as must the error for shapes that do not broadcast."""

import pytest

from .harness import assert_parity

CASES = [
    ((), (70_001,)),
    ((1, 1), (300, 257)),
    ((37,), (2, 1_000, 37)),
    ((1, 33, 7), (150, 33, 7)),
    ((3, 1, 5), (3, 7_000, 5)),
    ((4, 1), (4, 20_000)),
]


def _broadcasts(tf, cases, dtype, device):
    import numpy as np

    out = []
    with tf.device(device):
        for small, big in cases:
            size = int(np.prod(small))
            if dtype == "string":
                values = np.array([f"v{i}" for i in range(size)], dtype=object).reshape(small)
            elif dtype == "bool":
                values = (np.arange(size) % 3 == 0).reshape(small)
            else:
                values = (np.arange(size) * 1.5 - 7).astype(dtype).reshape(small)
            x = tf.constant(values)
            eager = tf.broadcast_to(x, big)
            traced = tf.function(lambda x, big=big: tf.broadcast_to(x, big))(x)
            # Sums and corners keep the comparison small; strings compare a strided sample.
            for y in (eager, traced):
                if dtype == "string":
                    out.append([y.shape.as_list(), y.numpy().reshape(-1)[::997].tolist()])
                else:
                    flat = tf.reshape(tf.cast(y, tf.float64), [-1])
                    out.append([y.shape.as_list(), y.dtype.name, tf.reduce_sum(flat * 1.0001)])
                    out.append(flat[::991])
        try:
            tf.broadcast_to(tf.constant([1, 2, 3]), [4, 2])
        except Exception as e:  # noqa: BLE001 - the class is compared
            out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "string"])
def test_large_broadcasts_match_tensorflow(tf_oracle, dtype, device):
    assert_parity(tf_oracle, _broadcasts, args=(CASES, dtype, device), rtol=1e-9, atol=0)
