"""`padded_batch`, `ragged_batch` and `batch`'s arguments against TensorFlow: dict and tuple
elements, padded shapes as TensorShapes and as -1 (unknown), one padding value for every
component, bool and string padding, padding dtypes and ranks refused, elements of unknown
rank, drop_remainder specs, row_splits dtypes, `batch(num_parallel_calls=AUTOTUNE,
deterministic=True)`; nested windows interleaved. Element specs, cardinalities, elements
and exception classes, on the CPU and the GPU."""

import pytest

from ._data_cases import describe_datasets, describe_value
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]

RANGES = "D.range(5).map(lambda n: tf.range(n))"
GENERATED = "D.from_generator(lambda: iter([[1], [2, 3]]), output_types=tf.int32)"

CASES = [
    (
        "padded_dict",
        'D.range(4).map(lambda n: {"a": tf.range(n), "b": tf.fill([n, 2], "x")}).padded_batch(2)',
    ),
    ("padded_tensor_shape", f"{RANGES}.padded_batch(2, padded_shapes=tf.TensorShape([5]))"),
    ("padded_minus_one", f"{RANGES}.padded_batch(2, padded_shapes=[-1])"),
    (
        "padded_one_value_for_tuple",
        "D.range(4).map(lambda n: (tf.range(n), tf.range(n) * 2)).padded_batch(2, "
        "padding_values=tf.constant(-1, tf.int64))",
    ),
    (
        "padded_bool",
        "D.range(4).map(lambda n: tf.range(n) > 1).padded_batch(2, padding_values=True)",
    ),
    ("padded_wrong_dtype", f"{RANGES}.padded_batch(2, padding_values=tf.constant(1, tf.int32))"),
    ("padded_zero_batch", f"{RANGES}.padded_batch(0)"),
    ("padded_unknown_rank", f"{GENERATED}.padded_batch(2)"),
    ("padded_unknown_rank_shapes", f"{GENERATED}.padded_batch(2, padded_shapes=[None])"),
    ("padded_drop", f"{RANGES}.padded_batch(2, drop_remainder=True)"),
    (
        "padded_strings",
        'D.from_tensor_slices(["a b", "c"]).map(tf.strings.split).padded_batch(2, '
        'padding_values="<pad>")',
    ),
    ("padded_scalars", "D.range(5).padded_batch(2)"),
    ("padded_wrong_rank", f"{RANGES}.padded_batch(2, padded_shapes=[3, 3])"),
    (
        "padded_vector_value",
        f"{RANGES}.padded_batch(2, padding_values=tf.constant([1, 2], tf.int64))",
    ),
    (
        "batch_parallel",
        "D.range(5).batch(2, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)",
    ),
    ("batch_negative", "D.range(5).batch(-1)"),
    ("ragged_dict", 'D.range(4).map(lambda n: {"a": tf.range(n), "b": n}).ragged_batch(2)'),
    ("ragged_int32", f"{RANGES}.ragged_batch(2, row_splits_dtype=tf.int32)"),
    ("ragged_float_splits", f"{RANGES}.ragged_batch(2, row_splits_dtype=tf.float32)"),
    ("ragged_scalars", "D.range(5).ragged_batch(2, drop_remainder=True)"),
    ("window_interleave", "D.range(6).window(2).interleave(lambda w: w, cycle_length=2)"),
    (
        "window_zip",
        "D.zip((D.range(4), D.range(4))).window(2).flat_map(lambda a, b: D.zip((a, b)))",
    ),
]


@pytest.mark.parametrize("device", DEVICES)
def test_padded_ragged_and_batch_arguments(tf_oracle, device):
    assert_parity(tf_oracle, describe_datasets, (CASES, device), helpers=[describe_value])
