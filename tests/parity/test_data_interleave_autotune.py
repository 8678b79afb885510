"""`Dataset.interleave` with its cycle length left to AUTOTUNE, against TensorFlow on the same
machine: the cycle length (and so the element order) depends on num_parallel_calls and the
schedulable CPUs as TensorFlow's kernels decide it (a parallel, autotuned interleave on two
cores reads one dataset at a time)."""

from .harness import assert_parity


def _orders(tf):
    ds = tf.data.Dataset.range(4)

    def inner(i):
        return tf.data.Dataset.range(3).map(lambda x: x + i * 10)

    out = []
    for calls in (None, tf.data.AUTOTUNE, 1, 2):
        out.append(list(ds.interleave(inner, num_parallel_calls=calls).as_numpy_iterator()))
    out.append(list(ds.interleave(inner, cycle_length=3, num_parallel_calls=tf.data.AUTOTUNE)))
    # More calls than the cycle length fails: on iteration when the length is computed from
    # the CPUs, at once when it is given.
    for cycle in (None, 1):
        try:
            too_many = ds.interleave(inner, cycle_length=cycle, num_parallel_calls=64)
            out.append("made")
            list(too_many)
        except tf.errors.InvalidArgumentError as e:
            out.append(type(e).__name__)
    return out


def test_interleave_autotuned_cycle_length(tf_oracle):
    assert_parity(tf_oracle, _orders, ())
