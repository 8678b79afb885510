"""`tf.data` datasets of datasets against TensorFlow: `flat_map`, `interleave` (cycle and
block lengths, its parallel form), `window` (size, shift, stride, drop_remainder; windows
are datasets), `group_by_window`, `bucket_by_sequence_length` (padding, bucket boundaries,
no padding) and `experimental.parallel_interleave`/`group_by_reducer`: element specs,
cardinalities, every element in order, exception classes, on the CPU and the GPU."""

import pytest

from ._data_cases import describe_datasets, describe_value
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]

CASES = [
    ("flat_map", "D.range(6).flat_map(lambda x: D.range(x))"),
    (
        "flat_map_tuple",
        "D.zip((D.range(3), D.range(3))).flat_map(lambda a, b: D.from_tensors(a + b).repeat(b))",
    ),
    ("flat_map_slices", "D.from_tensor_slices([[1, 2], [3, 4]]).flat_map(D.from_tensor_slices)"),
    ("flat_map_not_dataset", "D.range(3).flat_map(lambda x: x)"),
    ("flat_map_empty", "D.range(0).flat_map(lambda x: D.range(x))"),
    (
        "interleave",
        "D.range(5).interleave(lambda x: D.range(x).map(lambda y: x * 10 + y), cycle_length=2, "
        "block_length=2)",
    ),
    ("interleave_uneven", "D.range(7).interleave(lambda x: D.range(x % 3), cycle_length=3)"),
    (
        "interleave_parallel",
        "D.range(6).interleave(lambda x: D.from_tensors(x).repeat(x), cycle_length=4, "
        "num_parallel_calls=2, deterministic=True)",
    ),
    ("interleave_autotune_cycle", "D.range(4).interleave(lambda x: D.range(x), cycle_length=1)"),
    ("interleave_bad_block", "D.range(4).interleave(lambda x: D.range(x), 2, block_length=0)"),
    ("window", "D.range(10).window(3)"),
    ("window_shift_stride", "D.range(10).window(3, shift=2, stride=2)"),
    ("window_drop", "D.range(10).window(3, shift=2, stride=2, drop_remainder=True)"),
    ("window_shift_past", "D.range(10).window(2, shift=4)"),
    ("window_tuple", "D.zip((D.range(5), D.range(5).map(lambda x: x * 1.5))).window(2)"),
    ("window_dict", 'D.from_tensor_slices({"a": [1, 2, 3], "b": ["x", "y", "z"]}).window(2)'),
    ("window_batched", "D.range(10).window(4, drop_remainder=True).flat_map(lambda w: w.batch(4))"),
    ("window_infinite", "D.range(3).repeat().window(2)"),
    ("window_bad_size", "D.range(3).window(0)"),
    ("window_bad_shift", "D.range(3).window(2, shift=-1)"),
    (
        "group_by_window",
        "D.range(10).group_by_window(lambda x: x % 3, lambda k, d: d.batch(2), window_size=2)",
    ),
    (
        "group_by_window_size_func",
        "D.range(10).group_by_window(lambda x: x % 2, lambda k, d: d.map(lambda v: v + 100 * k), "
        "window_size_func=lambda k: k + 2)",
    ),
    (
        "group_by_window_both",
        "D.range(3).group_by_window(lambda x: x, lambda k, d: d, 2, lambda k: k)",
    ),
    ("group_by_window_bad_key", "D.range(3).group_by_window(lambda x: 1.5, lambda k, d: d, 2)"),
    (
        "group_by_window_not_dataset",
        "D.range(3).group_by_window(lambda x: x, lambda k, d: k, 2)",
    ),
    (
        "bucket",
        "D.range(10).map(lambda x: tf.range(x)).bucket_by_sequence_length(tf.size, [3, 5], "
        "[2, 2, 3])",
    ),
    (
        "bucket_boundary",
        "D.range(8).map(lambda x: tf.range(x)).bucket_by_sequence_length(tf.size, [3, 9], "
        "[2, 2, 3], pad_to_bucket_boundary=True)",
    ),
    (
        "bucket_boundary_too_long",
        "D.range(12).map(lambda x: tf.range(x)).bucket_by_sequence_length(tf.size, [3, 9], "
        "[2, 2, 3], pad_to_bucket_boundary=True)",
    ),
    (
        "bucket_no_padding",
        "D.range(10).map(lambda x: tf.fill([2], x)).bucket_by_sequence_length(lambda x: "
        "tf.cast(x[0], tf.int32), [3, 5], [2, 2, 2], no_padding=True, drop_remainder=True)",
    ),
    (
        "bucket_padded_values",
        "D.range(7).map(lambda x: (tf.range(x), x)).bucket_by_sequence_length(lambda a, b: "
        "tf.size(a), [4], [2, 2], padded_shapes=([6], []), padding_values=(tf.constant(-1, "
        "tf.int64), tf.constant(0, tf.int64)))",
    ),
    ("bucket_bad_sizes", "D.range(3).bucket_by_sequence_length(lambda x: 1, [3], [2])"),
    (
        "experimental_bucket",
        "D.range(6).map(lambda x: tf.range(x)).apply(E.bucket_by_sequence_length(tf.size, [3], "
        "[2, 2]))",
    ),
    (
        "parallel_interleave",
        "D.range(6).apply(E.parallel_interleave(lambda x: D.range(x), cycle_length=2, "
        "block_length=2))",
    ),
    (
        "group_by_reducer",
        "D.range(10).apply(E.group_by_reducer(lambda x: x % 3, E.Reducer(lambda k: "
        "tf.constant(0, tf.int64), lambda s, x: s + x, lambda s: s * 10)))",
    ),
    (
        "experimental_group_by_window",
        "D.range(6).apply(E.group_by_window(lambda x: x % 2, lambda k, d: d.batch(5), 5))",
    ),
]


@pytest.mark.parametrize("device", DEVICES)
def test_nested_datasets(tf_oracle, device):
    assert_parity(tf_oracle, describe_datasets, (CASES, device), helpers=[describe_value])


def _in_function(tf):
    """The transformations iterated by a `for` loop inside a `tf.function` (built inside
    it, and passed to it), and `reduce` called inside one."""
    D = tf.data.Dataset
    cases = {
        "flat_map": lambda: D.range(4).flat_map(lambda x: D.range(x)),
        "interleave": lambda: D.range(4).interleave(lambda x: D.range(x), cycle_length=2),
        "window": lambda: D.range(5).window(2).flat_map(lambda w: w.batch(2)).map(tf.reduce_sum),
        "scan": lambda: D.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s)),
        "group_by_window": lambda: (
            D.range(6)
            .group_by_window(lambda x: x % 2, lambda k, d: d.batch(2), 2)
            .map(tf.reduce_sum)
        ),
        "sample": lambda: D.sample_from_datasets([D.range(3), D.range(10, 13)], seed=1),
        "unique": lambda: D.from_tensor_slices(tf.constant([1, 1, 2], tf.int64)).unique(),
        "enumerate": lambda: D.range(3).enumerate().map(lambda i, x: i * 10 + x),
    }
    out = {}
    for name, make in cases.items():

        @tf.function
        def folded():
            total = tf.constant(0, tf.int64)
            for x in make():  # noqa: B023 - traced at once, in this iteration
                total = total * 3 + x
            return total

        out[name] = (folded(), folded())

    @tf.function
    def reduced():
        return D.range(5).reduce(tf.constant(0, tf.int64), lambda s, x: s + x)

    @tf.function
    def passed(dataset):
        total = tf.constant(0, tf.int64)
        for x in dataset:
            total += x
        return total

    out["reduce"] = reduced()
    out["passed"] = passed(D.range(4).flat_map(lambda x: D.range(x)))
    return out


def test_inside_tf_function(tf_oracle):
    assert_parity(tf_oracle, _in_function)
