"""`Dataset.range` bounds against TensorFlow: Python and numpy integers, bools and int64 tensors
are accepted and numpy floats truncated; a Python float is a TypeError (it used to be
truncated silently), a tensor of another dtype a ValueError."""

from .harness import assert_parity


def _bounds(tf):
    import numpy as np

    out = [list(tf.data.Dataset.range(np.int32(3)).as_numpy_iterator())]
    out.append(list(tf.data.Dataset.range(tf.constant(2, tf.int64), 9, tf.constant(3, tf.int64))))
    for bound in (np.float32(2.5), np.array(3.0), True):
        out.append(list(tf.data.Dataset.range(bound).as_numpy_iterator()))
    for bad in ((1.5,), (2.0,), ("3",), (tf.constant(2), 9)):
        try:
            tf.data.Dataset.range(*bad)
        except Exception as e:
            out.append((type(e).__name__, str(e)[:24]))
    return out


def test_range_bounds(tf_oracle):
    assert_parity(tf_oracle, _bounds, ())
