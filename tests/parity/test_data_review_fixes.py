"""Regression tests against TensorFlow for differences a review found: `Dataset.counter`'s
error class for a tensor of another dtype, `group_by_reducer`'s cardinality over an empty
input, and the dict order of parsed features mixing every kind (raw ragged keys before the
features built from other keys)."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _program(tf, device):
    out = []
    with tf.device(device):
        for args in [(tf.constant(1),), (0, tf.constant(2)), (tf.constant(1.5),), ("a",)]:
            try:
                out.append(list(tf.data.Dataset.counter(*args).take(2).as_numpy_iterator()))
            except Exception as e:  # noqa: BLE001 - compared by class and the argument named
                out.append((type(e).__name__, str(e).split(" for Tensor")[0]))
        reducer = tf.data.experimental.Reducer(
            lambda k: tf.constant(0, tf.int64), lambda s, x: s + x, lambda s: s
        )
        empty = tf.data.Dataset.range(0)
        grouped = empty.apply(tf.data.experimental.group_by_reducer(lambda x: x % 2, reducer))
        out.append(int(grouped.cardinality()))
        features = {
            "a": tf.io.RaggedFeature(tf.int64, value_key="w"),
            "z": tf.io.RaggedFeature(
                tf.int64, partitions=[tf.io.RaggedFeature.UniformRowLength(1)]
            ),
            "b": tf.io.SparseFeature("i", "v", tf.int64, 4),
            "w": tf.io.RaggedFeature(tf.int64),
            "c": tf.io.FixedLenFeature([], tf.int64, default_value=0),
            "d": tf.io.VarLenFeature(tf.int64),
        }
        one = tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))
        example = tf.train.Example(features=tf.train.Features(feature=dict.fromkeys("zwidvc", one)))
        record = example.SerializeToString()
        out.append(list(tf.io.parse_single_example(record, features)))
        out.append(list(tf.io.parse_example([record], features)))
        out.append(list(tf.function(lambda r: tf.io.parse_example(r, features))([record])))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_counter_cardinality_and_parse_order(tf_oracle, device):
    assert_parity(tf_oracle, _program, args=(device,))
