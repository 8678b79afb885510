"""`tf.data`'s random and directed choices against TensorFlow: `Dataset.random` (op seeds,
global seeds, `rerandomize_each_iteration`), `choose_from_datasets`, `sample_from_datasets`
(uniform, list, tensor and dataset weights, zero weights dropped, `stop_on_empty_dataset`;
the same draws as TensorFlow for the same seeds) and `experimental.shuffle_and_repeat`,
`RandomDataset`, `sample_from_datasets`, `choose_from_datasets`, on the CPU and the GPU."""

import pytest

from ._data_cases import describe_datasets, describe_value
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]

A = "D.range(8)"
B = "D.range(100, 106)"

CASES = [
    ("random", "D.random(seed=4).take(5)"),
    ("random_spec", "D.random(seed=4)"),
    ("random_rerandomize", "D.random(seed=4, rerandomize_each_iteration=True).take(2).repeat(2)"),
    ("random_fixed", "D.random(seed=9).take(2).repeat(2)"),
    ("experimental_random", "E.RandomDataset(seed=2).take(3)"),
    (
        "choose",
        f"D.choose_from_datasets([{A}, {B}], "
        "D.from_tensor_slices(tf.constant([0, 1, 1, 0], tf.int64)))",
    ),
    ("choose_stop", f"D.choose_from_datasets([{A}.take(1), {B}], D.range(2).repeat(3))"),
    (
        "choose_no_stop",
        f"D.choose_from_datasets([{A}.take(1), {B}], D.range(2).repeat(3), "
        "stop_on_empty_dataset=False)",
    ),
    ("choose_out_of_range", f"D.choose_from_datasets([{A}], D.range(3))"),
    ("choose_int32", f"D.choose_from_datasets([{A}], D.from_tensor_slices([0, 0]))"),
    ("choose_empty", "D.choose_from_datasets([], D.range(3))"),
    ("choose_mismatch", f"D.choose_from_datasets([{A}, D.from_tensors(1.0)], D.range(2))"),
    ("experimental_choose", f"E.choose_from_datasets([{A}, {B}], D.range(2).repeat(2))"),
    ("sample", f"D.sample_from_datasets([{A}, {B}], seed=1)"),
    ("sample_weights", f"D.sample_from_datasets([{A}, {B}], weights=[0.2, 0.8], seed=3)"),
    (
        "sample_stop",
        f"D.sample_from_datasets([{A}, {B}], weights=[0.2, 0.8], seed=3, "
        "stop_on_empty_dataset=True)",
    ),
    ("sample_zero_weight", f"D.sample_from_datasets([{A}, {B}], weights=[0.0, 1.0], seed=3)"),
    ("sample_all_zero", f"D.sample_from_datasets([{A}, {B}], weights=[0.0, 0.0], seed=3)"),
    (
        "sample_tensor_weights",
        f"D.sample_from_datasets([{A}, {B}, D.range(50, 53)], weights=tf.constant([0.3, 0.3, "
        "0.4], tf.float64), seed=7)",
    ),
    ("sample_int_weights", f"D.sample_from_datasets([{A}, {B}], weights=[1, 2], seed=3)"),
    ("sample_wrong_length", f"D.sample_from_datasets([{A}, {B}], weights=[1.0], seed=3)"),
    (
        "sample_dataset_weights",
        f"D.sample_from_datasets([{A}, {B}], weights=D.from_tensor_slices([[0.9, 0.1], [0.1, "
        "0.9]]).repeat(), seed=5)",
    ),
    ("sample_one", f"D.sample_from_datasets([{A}], seed=5)"),
    ("sample_empty", "D.sample_from_datasets([], seed=5)"),
    ("experimental_sample", f"E.sample_from_datasets([{A}, {B}], seed=11)"),
    ("shuffle_and_repeat", "D.range(10).apply(E.shuffle_and_repeat(4, 2, seed=5))"),
    (
        "rejection_resample_known",
        "D.range(20).map(lambda x: (x % 3, x)).rejection_resample(lambda c, x: tf.cast(c, "
        "tf.int32), [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], seed=3)",
    ),
    (
        "rejection_resample_filter_only",
        "D.range(20).rejection_resample(lambda x: tf.cast(x % 2, tf.int32), [0.9, 0.1], "
        "[0.5, 0.5], seed=3)",
    ),
    (
        "rejection_resample_unchanged",
        "D.range(6).rejection_resample(lambda x: tf.cast(x % 2, tf.int32), [0.5, 0.5], "
        "[0.5, 0.5], seed=3)",
    ),
    (
        "rejection_resample_estimated",
        "D.range(40).rejection_resample(lambda x: tf.cast(x % 3, tf.int32), [0.6, 0.2, 0.2], "
        "seed=5)",
    ),
    # The estimate is given 32 times per batch of classes, a short last batch's too, so the
    # mixing weights outlast the data (a regression: the resampled data ended early).
    (
        "rejection_resample_estimated_short_batch",
        "D.range(70).rejection_resample(lambda x: tf.cast(x % 10 > 2, tf.int32), [0.5, 0.5], "
        "seed=3)",
    ),
    # Any integer class dtype, as TensorFlow (an int64 class used to fail the spec check).
    (
        "rejection_resample_int64_class",
        "D.range(60).rejection_resample(lambda x: x % 2, [0.5, 0.5], [0.3, 0.7], seed=3)",
    ),
    (
        "experimental_rejection_resample",
        "D.range(40).map(lambda x: (x, x % 2)).apply(E.rejection_resample(lambda x, y: "
        "tf.cast(y, tf.int32), [0.1, 0.9], seed=2))",
    ),
]


@pytest.mark.parametrize("device", DEVICES)
def test_random_and_directed_choices(tf_oracle, device):
    assert_parity(tf_oracle, describe_datasets, (CASES, device), helpers=[describe_value])


def _global_seeds(tf):
    """Draws seeded by `tf.random.set_seed` alone: op seeds come from the global seed and the
    number of seeded ops made so far, as in TensorFlow."""
    tf.random.set_seed(7)
    first = list(tf.data.Dataset.random().take(3).as_numpy_iterator())
    second = list(tf.data.Dataset.random().take(3).as_numpy_iterator())
    mixed = tf.data.Dataset.sample_from_datasets(
        [tf.data.Dataset.range(5), tf.data.Dataset.range(10, 15)]
    )
    return first, second, list(mixed.as_numpy_iterator())


def test_global_seed(tf_oracle):
    assert_parity(tf_oracle, _global_seeds)


def _resampled_in_function(tf, device):
    """rejection_resample built inside a tf.function, called three times: with a seed, every
    call's draws are the same, as TensorFlow's (estimated and given class distributions, an
    int64 class)."""
    out = {}
    with tf.device(device):
        values = tf.constant([0, 0, 0, 1, 1, 1, 1, 1, 1, 1] * 20, tf.int64)
        for name, initial in (("estimated", None), ("given", [0.3, 0.7])):

            @tf.function
            def resampled(values=values, initial=initial):
                ds = tf.data.Dataset.from_tensor_slices(values)
                ds = ds.rejection_resample(lambda x: x, [0.5, 0.5], initial, seed=3)
                return ds.reduce(
                    tf.constant(0, tf.int64), lambda s, e: (s * 3 + e[1] + 7 * e[0]) % 1000003
                )

            out[name] = [resampled() for _ in range(3)]
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_rejection_resample_in_function(tf_oracle, device):
    expected = assert_parity(tf_oracle, _resampled_in_function, (device,))
    assert expected[0] != "raised", expected
