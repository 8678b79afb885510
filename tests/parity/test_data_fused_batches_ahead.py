"""Regression tests against TensorFlow: a parallel `map` fused with `batch` computes the next
batches on a background thread while one is consumed (TensorFlow's MapAndBatch keeps batches
in flight). The batches, the errors of failing elements and the batches after them, the
iteration's end and a partial last batch stay those of TensorFlow's fused kernel; an iterator
dropped mid-pass or read after its end does not hang or change what a new one reads."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _batches_ahead(tf, device):
    def checked(i):
        # Element 5 fails: its batch raises, the batches after it follow.
        x = tf.cast(i, tf.float32)
        bad = tf.where(tf.equal(i, 5), tf.constant(float("nan")), x)
        return tf.debugging.check_numerics(bad, "element") * 2.0, tf.fill([2], i)

    out = []
    with tf.device(device):
        for drop in (False, True):
            ds = tf.data.Dataset.range(11).map(checked, num_parallel_calls=tf.data.AUTOTUNE)
            ds = ds.batch(3, drop_remainder=drop)
            it = iter(ds)
            for _ in range(6):
                try:
                    a, b = next(it)
                    out.append(("batch", drop, a.numpy(), b.numpy()))
                except StopIteration:
                    out.append(("end", drop))
                except tf.errors.InvalidArgumentError as e:
                    out.append(("error", drop, "element" in str(e)))
        # An iterator dropped after one batch, then a new pass over the same dataset.
        ds = tf.data.Dataset.range(40).map(lambda i: i * i, num_parallel_calls=4).batch(4)
        first = next(iter(ds)).numpy()
        out.append(("first", first, [b.numpy() for b in ds.take(3)]))
        out.append(
            ("total", int(ds.reduce(tf.constant(0, tf.int64), lambda s, b: s + tf.reduce_sum(b))))
        )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_parallel_map_batches_computed_ahead_match_tensorflow(tf_oracle, device):
    expected = assert_parity(tf_oracle, _batches_ahead, (device,), rtol=0, atol=0)
    assert expected[0] != "raised", expected
    # TensorFlow's failing element raised its own error, and its next batch followed.
    assert "'error'), ('py', 'bool', False), ('py', 'bool', True)" in repr(expected), expected
