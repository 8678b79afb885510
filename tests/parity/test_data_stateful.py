"""`tf.data` transformations with state or selection against TensorFlow: `scan` (state
shapes relaxed as TensorFlow relaxes them), `reduce`, `take_while`, `enumerate`, `unique`,
`counter`, `shard`, `rebatch`, `ignore_errors`, `get_single_element`, and
`tf.data.experimental`'s `assert_cardinality`, `at`, `from_list`, `pad_to_cardinality`,
`scan`, `take_while`, `unique`, `unbatch`, `enumerate_dataset`, `map_and_batch`,
`ignore_errors`, `get_single_element`, `Counter`: element specs, cardinalities, elements
in order and exception classes, on the CPU and the GPU."""

import pytest

from ._data_cases import describe_datasets, describe_value
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]

I64 = "tf.constant(0, tf.int64)"

CASES = [
    ("scan", f"D.range(6).scan({I64}, lambda s, x: (s + x, s * 2))"),
    ("scan_list_output", f"D.range(4).scan({I64}, lambda s, x: (s + x, [s, x]))"),
    (
        "scan_growing_state",
        "D.range(4).scan(tf.constant([0], tf.int64), lambda s, x: (tf.concat([s, [x]], 0), "
        "tf.size(s)))",
    ),
    (
        "scan_growing_state_spec",
        "D.range(4).scan(tf.constant([0], tf.int64), lambda s, x: (tf.concat([s, [x]], 0), s))",
    ),
    (
        "scan_tuple_element",
        "D.zip((D.range(3), D.range(3))).scan(0.5, lambda s, ab: (s * 2, ab[0] + ab[1]))",
    ),
    ("scan_type_change", f"D.range(3).scan({I64}, lambda s, x: (tf.cast(s, tf.int32), s))"),
    ("scan_not_pair", f"D.range(3).scan({I64}, lambda s, x: s)"),
    ("scan_float_state", "D.range(4).scan(1.0, lambda s, x: (s * 1.5, s))"),
    ("reduce", f"D.range(6).reduce({I64}, lambda s, x: s + x)"),
    (
        "reduce_tuple",
        f"D.range(5).reduce(({I64}, tf.constant(1.0)), lambda s, x: (s[0] + x, s[1] * 2))",
    ),
    (
        "reduce_growing",
        "D.range(4).reduce(tf.constant([9], tf.int64), lambda s, x: tf.concat([s, [x]], 0))",
    ),
    ("reduce_empty", f"D.range(0).reduce({I64}, lambda s, x: s + x)"),
    ("reduce_type_change", f"D.range(3).reduce({I64}, lambda s, x: tf.cast(s, tf.float32))"),
    ("take_while", "D.range(10).take_while(lambda x: x < 3)"),
    ("take_while_none", "D.range(10).take_while(lambda x: x > 3)"),
    ("take_while_not_bool", "D.range(10).take_while(lambda x: x)"),
    ("take_while_vector", "D.range(10).take_while(lambda x: x < [3, 4])"),
    ("enumerate", "D.from_tensor_slices(['a', 'b', 'c']).enumerate(5)"),
    ("enumerate_tuple", "D.zip((D.range(2), D.range(2))).enumerate()"),
    ("unique", "D.from_tensor_slices([1, 2, 1, 3, 2]).unique()"),
    ("unique_strings", "D.from_tensor_slices(['a', 'b', 'a']).unique()"),
    ("unique_float", "D.from_tensor_slices([1.0]).unique()"),
    ("unique_vectors", "D.from_tensor_slices([[1, 2], [1, 3], [1, 2]]).unique()"),
    ("unique_string_vectors", "D.from_tensor_slices([['a', 'b'], ['a', 'b']]).unique()"),
    ("unique_tuple", "D.zip((D.range(2), D.range(2))).unique()"),
    ("counter", "D.counter(2, 3).take(4)"),
    ("counter_int32", "D.counter(-1, -2, dtype=tf.int32).take(3)"),
    ("counter_spec", "D.counter()"),
    ("experimental_counter", "E.Counter(5).take(2)"),
    ("shard", "D.range(10).shard(3, 1)"),
    ("shard_last", "D.range(10).shard(4, 3)"),
    ("shard_filtered", "D.range(10).filter(lambda x: x > 2).shard(2, 0)"),
    ("shard_zero", "D.range(10).shard(0, 0)"),
    ("shard_bad_index", "D.range(10).shard(2, 2)"),
    ("rebatch", "D.range(10).batch(4).rebatch(3)"),
    ("rebatch_list", "D.range(10).batch(4).rebatch([1, 2])"),
    ("rebatch_drop", "D.range(10).batch(4).rebatch(3, drop_remainder=True)"),
    ("rebatch_static", "D.range(8).batch(4, drop_remainder=True).rebatch(2)"),
    ("rebatch_scalar", "D.range(10).rebatch(2)"),
    ("rebatch_tuple", "D.zip((D.range(5), D.range(5))).batch(2).rebatch(3)"),
    (
        "ignore_errors",
        "D.from_tensor_slices([1.0, 0.0, 2.0, 0.0, 4.0]).map(lambda x: "
        "tf.debugging.check_numerics(1 / x, 'bad')).ignore_errors()",
    ),
    (
        "ignore_errors_after_map",
        "D.from_tensor_slices([1.0, 0.0, 2.0]).map(lambda x: tf.debugging.check_numerics(1 / x, "
        "'bad')).map(lambda y: y * 2).apply(E.ignore_errors())",
    ),
    ("get_single_element", "D.range(5).skip(2).take(1).get_single_element()"),
    ("get_single_element_many", "D.range(5).get_single_element()"),
    ("get_single_element_empty", "D.range(0).get_single_element()"),
    ("get_single_element_tuple", "E.get_single_element(D.from_tensors((1, 'a')))"),
    ("assert_cardinality", "D.range(5).filter(lambda x: x < 9).apply(E.assert_cardinality(5))"),
    ("assert_cardinality_more", "D.range(6).apply(E.assert_cardinality(5))"),
    ("assert_cardinality_less", "D.range(4).apply(E.assert_cardinality(5))"),
    ("at", "E.at(D.range(10).skip(2).map(lambda x: x * 3), 3)"),
    ("at_out_of_range", "E.at(D.range(3), 5)"),
    ("at_filtered", "E.at(D.range(3).filter(lambda x: x > 0), 0)"),
    ("from_list", "E.from_list([(1, 'a'), (2, 'b')])"),
    ("from_list_shapes", "E.from_list([[1, 2], [3, 4, 5]])"),
    ("from_list_empty", "E.from_list([])"),
    (
        "pad_to_cardinality",
        "D.from_tensor_slices({'a': [1, 2], 'b': [0.5, 1.5]}).apply(E.pad_to_cardinality(4))",
    ),
    (
        "pad_to_cardinality_small",
        "D.from_tensor_slices({'a': [1, 2, 3]}).apply(E.pad_to_cardinality(2))",
    ),
    ("pad_to_cardinality_not_dict", "D.range(3).apply(E.pad_to_cardinality(4))"),
    ("experimental_scan", f"D.range(3).apply(E.scan({I64}, lambda s, x: (s + x, s)))"),
    ("experimental_take_while", "D.range(5).apply(E.take_while(lambda x: x < 2))"),
    ("experimental_unique", "D.from_tensor_slices([3, 3, 1]).apply(E.unique())"),
    ("experimental_unbatch", "D.range(5).batch(2).apply(E.unbatch())"),
    ("experimental_enumerate", "D.range(3).apply(E.enumerate_dataset(10))"),
    ("map_and_batch", "D.range(7).apply(E.map_and_batch(lambda x: x * 2, 3))"),
    (
        "map_and_batch_drop",
        "D.range(7).apply(E.map_and_batch(lambda x: x * 2, 3, drop_remainder=True))",
    ),
]


@pytest.mark.parametrize("device", DEVICES)
def test_stateful_and_selecting(tf_oracle, device):
    assert_parity(tf_oracle, describe_datasets, (CASES, device), helpers=[describe_value])
