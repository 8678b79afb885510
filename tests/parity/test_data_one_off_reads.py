"""Regression tests against TensorFlow: the one-off reads of a dataset apply its optimizations
as TensorFlow's ops do. `get_single_element` (DatasetToSingleElement) applies none, so a `map`
then `batch` keeps `batch`'s rules ("Cannot batch tensors with different shapes") where an
iterator's fused MapAndBatch batches equal-sized elements (ferroflow fused there too);
`tf.data.experimental.at` (GetElementAtIndex) applies them, so a fused `map` then `batch` has
no random access (ferroflow answered), unless the options turn the fusion off."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _error(e):
    return (type(e).__name__, str(e).split("}} ")[-1].split(" [Op")[0].split(". Shapes")[0])


def _one_off_reads(tf, device):
    def ragged_shapes():
        return tf.data.Dataset.range(2).map(
            lambda i: tf.reshape(tf.range(2), tf.where(i == 0, [2, 1], [1, 2]))
        )

    unfused = tf.data.Options()
    unfused.experimental_optimization.map_and_batch_fusion = False
    no_defaults = tf.data.Options()
    no_defaults.experimental_optimization.apply_default_optimizations = False
    r = tf.data.Dataset.range(6)
    reads = {
        "iterator": lambda d: next(iter(d)),
        "get_single_element": lambda d: d.get_single_element(),
        "at 0": lambda d: tf.data.experimental.at(d, 0),
    }
    datasets = {
        "shapes batch": ragged_shapes().batch(2),
        "shapes batch unfused": ragged_shapes().batch(2).with_options(unfused),
        "shapes batch no defaults": ragged_shapes().batch(2).with_options(no_defaults),
        "map batch": r.map(lambda i: i * 2).batch(6),
        "map batch unfused": r.map(lambda i: i * 2).batch(6).with_options(unfused),
        "map map": r.map(lambda i: i + 1).map(lambda i: i * 2).take(1),
        "batch": r.batch(6),
    }
    out = []
    with tf.device(device):
        for name, dataset in datasets.items():
            for read, fn in reads.items():
                if (name, read) == ("shapes batch", "iterator"):
                    # TensorFlow's fused batch takes the shape of whichever element finishes
                    # first: it varies from run to run (test_data_fusion covers ferroflow's).
                    continue
                try:
                    out.append((name, read, fn(dataset).numpy()))
                except Exception as e:  # noqa: BLE001 - compared by class and message
                    out.append((name, read, _error(e)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_one_off_reads_apply_the_options_as_tensorflow(tf_oracle, device):
    expected = assert_parity(
        tf_oracle, _one_off_reads, args=(device,), helpers=(_error,), rtol=0, atol=0
    )
    assert expected[0] != "raised", expected
