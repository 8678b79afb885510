"""tf.RaggedTensor and tf.ragged against TensorFlow: construction, accessors, conversions,
indexing, the APIs TensorFlow dispatches to ragged inputs (elementwise math, reductions, concat,
stack, gather, where, boolean_mask, shape/size/rank), eagerly and inside a `tf.function`, on the
CPU and the GPU. A ragged result is compared through its flat values, nested row splits (values
and dtypes), static shape and `to_list()`; errors by exception class."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _describe(tf, value):
    """A RaggedTensor as comparable parts; other values unchanged (lists/tuples walked)."""
    if isinstance(value, tf.RaggedTensor):
        return {
            "flat_values": value.flat_values,
            "splits": list(value.nested_row_splits),
            "shape": value.shape,
            "ragged_rank": value.ragged_rank,
            "list": value.to_list(),
        }
    if isinstance(value, (list, tuple)):
        return type(value)(_describe(tf, v) for v in value)
    if isinstance(value, dict):
        return {k: _describe(tf, v) for k, v in value.items()}
    return value


def _run(tf, expression, traced, device):
    def body():
        rt = tf.ragged.constant([[1.0, 2.0, 3.0], [], [4.0, 5.0], [6.0]])
        nested = tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6], [], [7]]])
        inner = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
        ints = tf.ragged.constant([[1, 2], [3]])
        names = {"tf": tf, "rt": rt, "nested": nested, "inner": inner, "ints": ints}
        return eval(expression, names)  # noqa: S307 - the test's own expression

    try:
        with tf.device(device):
            out = tf.function(body)() if traced else body()
        return _describe(tf, out)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _cases(text):
    """`name: expression` lines as a dict."""
    out = {}
    for line in text.strip().splitlines():
        name, _, expression = line.partition(":")
        out[name.strip()] = expression.strip()
    return out


CONSTRUCTION = _cases("""
constant: tf.ragged.constant([[1, 2], [3], []])
constant_nested: tf.ragged.constant([[[1, 2], [3]], [[4]]])
constant_inner: tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
constant_dtypes: tf.ragged.constant([[1.5, 2], [3]], dtype=tf.float64, row_splits_dtype=tf.int32)
constant_bool: tf.ragged.constant([[True], [False, True]])
constant_empty: tf.ragged.constant([[], []])
constant_rank0: tf.ragged.constant([[1, 2], [3]], ragged_rank=0)
constant_dense: tf.ragged.constant([1, 2, 3])
constant_inner_shape: tf.ragged.constant([[1, 2], [3, 4], [5, 6]], inner_shape=(2,))
constant_rank2_inner: tf.ragged.constant([[[[1], [2]]], [[[3]]]], ragged_rank=2)
constant_mixed_depth: tf.ragged.constant([[1, [2]], [3]])
constant_bad_rank: tf.ragged.constant([[1, 2], [3]], ragged_rank=-1)
constant_of_tensor_1d: tf.ragged.constant(tf.constant([1, 2]))
constant_of_tensor_2d: tf.ragged.constant(tf.constant([[1, 2], [3, 4]]))
constant_of_tensor_rank0: tf.ragged.constant(tf.constant([[1, 2], [3, 4]]), ragged_rank=0)
constant_of_tensors: tf.ragged.constant([tf.constant([1, 2]), tf.constant([3])])
constant_of_scalar_tensors: tf.ragged.constant([[tf.constant(1)], [tf.constant(2)]])
from_row_splits: tf.RaggedTensor.from_row_splits([3, 1, 4, 1, 5], [0, 2, 2, 5])
from_row_splits_int32: tf.RaggedTensor.from_row_splits([3, 1, 4], tf.constant([0, 1, 3]))
from_row_splits_bad_start: tf.RaggedTensor.from_row_splits([1, 2, 3], [1, 3])
from_row_splits_decreasing: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 1, 3])
from_row_splits_bad_end: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2])
from_row_splits_unchecked: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 3], validate=False)
from_row_splits_empty: tf.RaggedTensor.from_row_splits([1, 2, 3], [])
from_row_splits_float: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 3.0])
from_row_lengths: tf.RaggedTensor.from_row_lengths([3, 1, 4, 1, 5], [2, 0, 3])
from_row_lengths_negative: tf.RaggedTensor.from_row_lengths([1, 2, 3], [2, -1, 2])
from_value_rowids: tf.RaggedTensor.from_value_rowids([3, 1, 4, 1, 5], [0, 0, 2, 2, 2], nrows=4)
from_value_rowids_default: tf.RaggedTensor.from_value_rowids([3, 1, 4], [0, 2, 2])
from_value_rowids_unsorted: tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 2, 1])
from_value_rowids_nrows: tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 1, 1], nrows=1)
from_row_starts: tf.RaggedTensor.from_row_starts([3, 1, 4, 1, 5], [0, 2, 2])
from_row_limits: tf.RaggedTensor.from_row_limits([3, 1, 4, 1, 5], [2, 2, 5])
from_uniform_row_length: tf.RaggedTensor.from_uniform_row_length(tf.range(6), 2)
from_uniform_row_length_bad: tf.RaggedTensor.from_uniform_row_length(tf.range(5), 2)
from_nested_row_splits: tf.RaggedTensor.from_nested_row_splits([1, 2, 3], [[0, 2, 3], [0, 1, 2, 3]])
from_nested_row_lengths: tf.RaggedTensor.from_nested_row_lengths([1, 2, 3, 4], [[2, 1], [1, 2, 1]])
from_nested_value_rowids: tf.RaggedTensor.from_nested_value_rowids([1, 2, 3], [[0, 1], [0, 1, 1]])
nested_value_rowids_bad: tf.RaggedTensor.from_nested_value_rowids([1, 2, 3], [[0, 0, 1], [0, 2]])
from_tensor: tf.RaggedTensor.from_tensor([[1, 2], [3, 4]])
from_tensor_lengths: tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], lengths=[2, 5])
from_tensor_padding: tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0], [0, 0, 0]], padding=0)
from_tensor_padding_inner: tf.RaggedTensor.from_tensor(inner.to_tensor(), padding=[0, 0])
from_tensor_rank2: tf.RaggedTensor.from_tensor(tf.reshape(tf.range(8), [2, 2, 2]), ragged_rank=2)
from_tensor_both: tf.RaggedTensor.from_tensor([[1]], lengths=[1], padding=0)
from_sparse: tf.RaggedTensor.from_sparse(tf.sparse.from_dense([[1, 2], [0, 0], [3, 0]]))
to_sparse: tf.sparse.to_dense(tf.ragged.constant([[1, 2], [], [3]]).to_sparse())
to_sparse_indices: tf.ragged.constant([[[1], [2, 3]], [[4]]]).to_sparse().indices
""")

ACCESSORS = _cases("""
values: rt.values
flat_values: nested.flat_values
row_splits: rt.row_splits
nested_row_splits: nested.nested_row_splits
row_lengths: rt.row_lengths()
row_lengths_axis2: nested.row_lengths(axis=2)
nested_row_lengths: nested.nested_row_lengths()
value_rowids: rt.value_rowids()
nested_value_rowids: nested.nested_value_rowids()
nrows: rt.nrows()
nrows_int32: rt.nrows(out_type=tf.int32)
row_starts: rt.row_starts()
row_limits: rt.row_limits()
bounding_shape: nested.bounding_shape()
bounding_shape_axis: rt.bounding_shape(axis=1)
uniform_row_length: tf.RaggedTensor.from_uniform_row_length(tf.range(6), 3).uniform_row_length
shape_list: [rt.shape.as_list(), nested.shape.as_list(), rt.ragged_rank, nested.ragged_rank]
dtype: [rt.dtype, nested.dtype, nested.row_splits.dtype]
to_tensor: rt.to_tensor()
to_tensor_default: rt.to_tensor(default_value=-1.0)
to_tensor_shape_pad: rt.to_tensor(shape=[5, 4])
to_tensor_shape_cut: rt.to_tensor(shape=[2, 1])
to_tensor_shape_partial: rt.to_tensor(shape=[None, 2])
to_tensor_nested: nested.to_tensor()
to_tensor_nested_shape: nested.to_tensor(shape=[2, 2, 2])
to_tensor_inner_default: inner[::-1].to_tensor(default_value=[9, 8])
to_tensor_inner_bad: inner.to_tensor(shape=[2, 1, 3])
with_values: rt.with_values(rt.values * 2.0)
with_flat_values: nested.with_flat_values(tf.range(7) * 10)
with_row_splits_dtype: nested.with_row_splits_dtype(tf.int32)
merge_dims_01: nested.merge_dims(0, 1)
merge_dims_12: nested.merge_dims(1, 2)
merge_dims_all: nested.merge_dims(0, -1)
merge_dims_inner: inner.merge_dims(1, 2)
getitem_row: rt[0]
getitem_negative: rt[-1]
getitem_out_of_range: rt[7]
getitem_slice: rt[1:3]
getitem_reverse: rt[::-1]
getitem_step: rt[::2]
getitem_columns: rt[:, :2]
getitem_columns_tail: rt[:, 1:]
getitem_columns_negative: rt[:, -1:]
getitem_columns_step: rt[:, ::2]
getitem_columns_reverse: rt[:, ::-1]
getitem_ellipsis: rt[..., :1]
getitem_ragged_int: rt[:, 0]
getitem_nested_pair: nested[2, 0]
getitem_nested_inner: nested[:, :, 1:]
getitem_nested_row_slice: nested[2, :2]
getitem_uniform_inner: inner[:, :, 0]
getitem_newaxis: rt[tf.newaxis]
getitem_too_many: rt[0, 0, 0]
""")

ELEMENTWISE = _cases("""
add_scalar: rt + 1.0
radd_scalar: 2.0 + rt
sub_rt: rt - rt * 2.0
mul_dense_rows: rt * tf.constant([[1.0], [2.0], [3.0], [4.0]])
div: rt / 2.0
floordiv: tf.ragged.constant([[7, -7], [5]]) // 2
mod: tf.ragged.constant([[7, -7], [5]]) % 3
pow: rt ** 2.0
neg: -rt
abs: abs(rt - 3.0)
less: rt < 3.0
greater_equal: rt >= tf.constant([[1.0], [0.0], [5.0], [7.0]])
eq_rt: rt == rt
eq_incompatible: rt == tf.ragged.constant([[1.0], [2.0]])
ne_none: rt != None
and: tf.ragged.constant([[True, False], [True]]) & tf.ragged.constant([[True, True], [False]])
or_scalar: tf.ragged.constant([[True, False], [False]]) | False
invert: ~tf.ragged.constant([[True, False], [True]])
sin: tf.math.sin(rt)
exp_nested: tf.exp(tf.cast(nested, tf.float32))
cast: tf.cast(rt, tf.int64)
maximum_dense: tf.maximum(rt, [[2.0], [0.0], [4.5], [9.0]])
add_same_shape_dense: tf.ragged.constant([[1, 2], [3, 4]]) + tf.constant([[1, 2], [3, 4]])
add_dense_bad_rows: tf.ragged.constant([[1, 2], [3, 4, 5]]) + tf.constant([[1, 2, 3]])
add_dense_row: tf.ragged.constant([[1, 2], [3, 4, 5]]) + tf.constant([[1]])
add_mismatched: tf.ragged.constant([[1, 2], [3]]) + tf.ragged.constant([[1], [3, 4]])
add_nested_dense: nested + tf.constant([[[10]], [[20]], [[30]]])
add_inner_vector: inner * tf.constant([10, 100])
add_mixed_ragged_ranks: tf.ragged.constant([[[1, 2, 3]], [[]], [[4, 5]]]) + inner[:, :1, :1] * 0
add_dtype_mismatch: tf.ragged.constant([[1, 2], [3]]) + 1.5
add_splits_dtypes: ints + tf.ragged.constant([[1, 2], [3]], row_splits_dtype=tf.int32)
tf_add_reflected: tf.add(1.0, rt)
divide_no_nan: tf.math.divide_no_nan(rt, tf.ragged.constant([[1.0, 0, 2], [], [0, 4], [3]]))
clip: tf.clip_by_value(rt, 2.0, 5.0)
zeros_like: tf.zeros_like(nested)
ones_like_dtype: tf.ones_like(rt, dtype=tf.int32)
identity: tf.identity(rt)
add_n: tf.add_n([rt, rt, rt])
relu: tf.nn.relu(rt - 3.0)
relu6_elu_selu: [tf.nn.relu6(rt * 2.0), tf.nn.elu(rt - 3.0), tf.nn.selu(rt - 3.0)]
softplus_leaky_gelu: [tf.nn.softplus(rt), tf.nn.leaky_relu(rt - 3.0), tf.nn.gelu(rt)]
sigmoid_tanh: [tf.nn.sigmoid(rt), tf.nn.tanh(rt - 3.0)]
softmax: tf.nn.softmax(rt)
softmax_axis0: tf.nn.softmax(rt, axis=0)
softmax_inner: [tf.nn.softmax(tf.cast(inner, tf.float32), axis=a) for a in (1, 2)]
log_softmax: tf.nn.log_softmax(rt)
map_flat_values: tf.ragged.map_flat_values(tf.math.square, rt)
map_flat_values_two: tf.ragged.map_flat_values(tf.add, rt, rt * 10.0)
map_flat_values_plain: tf.ragged.map_flat_values(tf.add, 1, 2)
map_flat_values_mismatch: tf.ragged.map_flat_values(tf.add, rt, tf.ragged.constant([[1.0], [2.0]]))
""")

REDUCTIONS = _cases("""
sum_all: tf.reduce_sum(rt)
sum_0: tf.reduce_sum(rt, axis=0)
sum_1: tf.reduce_sum(rt, axis=1)
sum_neg: tf.reduce_sum(rt, axis=-1)
sum_keepdims: tf.reduce_sum(rt, axis=1, keepdims=True)
sum_keepdims_0: tf.reduce_sum(rt, axis=0, keepdims=True)
sum_all_keepdims: tf.reduce_sum(rt, keepdims=True)
sum_both: tf.reduce_sum(rt, axis=[0, 1])
sum_empty_axes: tf.reduce_sum(rt, axis=[])
sum_tensor_axis: tf.reduce_sum(rt, axis=tf.constant(1))
sum_bad_axis: tf.reduce_sum(rt, axis=2)
mean_1: tf.reduce_mean(rt, axis=1)
mean_0: tf.reduce_mean(rt, axis=0)
mean_int: tf.reduce_mean(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]), axis=1)
max_1: tf.reduce_max(rt, axis=1)
max_0: tf.reduce_max(rt, axis=0)
max_int_empty: tf.reduce_max(tf.ragged.constant([[1, 5], [], [-3]]), axis=1)
max_neg_inf: tf.reduce_max(tf.ragged.constant([[-float('inf')], [1.0]]), axis=1)
min_1: tf.reduce_min(rt, axis=1)
min_0: tf.reduce_min(rt, axis=0)
prod_1: tf.reduce_prod(rt, axis=1)
any_1: tf.reduce_any(rt > 4.0, axis=1)
all_1: tf.reduce_all(rt > 1.5, axis=1)
all_0: tf.reduce_all(rt > 1.5, axis=0)
variance_1: tf.math.reduce_variance(rt, axis=1)
std_1: tf.math.reduce_std(rt, axis=1)
nested_sum_0: tf.reduce_sum(nested, axis=0)
nested_sum_1: tf.reduce_sum(nested, axis=1)
nested_sum_2: tf.reduce_sum(nested, axis=2)
nested_max_1: tf.reduce_max(nested, axis=1)
nested_min_0: tf.reduce_min(nested, axis=0)
nested_mean_12: tf.reduce_mean(nested, axis=[1, 2])
nested_keepdims: tf.reduce_sum(nested, axis=2, keepdims=True)
inner_sum_2: tf.reduce_sum(inner, axis=2)
inner_max_1: tf.reduce_max(inner, axis=1)
""")

STRUCTURE = _cases("""
concat_0: tf.concat([rt, rt * 2.0], axis=0)
concat_1: tf.concat([rt, rt * 2.0], axis=1)
concat_dense: tf.concat([tf.ragged.constant([[1, 2], [3]]), tf.constant([[7, 8], [9, 9]])], axis=1)
concat_nested_1: tf.concat([nested, nested], axis=1)
concat_nested_2: tf.concat([nested, nested], axis=2)
concat_rows_mismatch: tf.concat([rt, tf.ragged.constant([[1.0]])], axis=1)
concat_dtype_mismatch: tf.concat([rt, tf.ragged.constant([[1]])], axis=0)
concat_negative_axis: tf.concat([rt, rt], axis=-1)
stack_0: tf.stack([rt, rt + 1.0])
stack_1: tf.stack([rt, rt + 1.0], axis=1)
stack_2: tf.stack([rt, rt + 1.0], axis=2)
ragged_stack: tf.ragged.stack([tf.ragged.constant([[1, 2], [3]]), tf.ragged.constant([[4]])])
ragged_stack_dense_vectors: tf.ragged.stack([tf.constant([1, 2]), tf.constant([3])])
ragged_stack_dense: tf.ragged.stack([tf.constant([[1, 2]]), tf.constant([[3, 4]])], axis=1)
ragged_stack_one: tf.ragged.stack([tf.ragged.constant([[1, 2], [3]])])
expand_dims_0: tf.expand_dims(rt, 0)
expand_dims_1: tf.expand_dims(rt, 1)
expand_dims_last: tf.expand_dims(rt, -1)
gather: tf.gather(rt, [3, 0, 0])
gather_nested: tf.gather(nested, [2, 1])
gather_2d: tf.gather(rt, [[1, 2], [0, 3]])
gather_ragged_indices: tf.gather(tf.constant([10, 20, 30]), tf.ragged.constant([[2, 0], [1]]))
gather_bad: tf.gather(rt, [4])
where_choose: tf.where(rt > 2.5, rt, -rt)
where_scalar: tf.where(rt > 2.5, rt, 0.0)
where_coordinates: tf.where(rt > 2.5)
where_nested_coordinates: tf.where(nested > 3)
boolean_mask_ragged: tf.ragged.boolean_mask(rt, rt > 2.5)
boolean_mask_dense: tf.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [[1 > 0, False, True]] * 2)
boolean_mask_rows: tf.ragged.boolean_mask(rt, [True, False, True, False])
boolean_mask_nested: tf.ragged.boolean_mask(nested, nested > 2)
boolean_mask_outer: tf.ragged.boolean_mask(nested, nested.row_lengths(axis=2) > 1)
boolean_mask_api: tf.boolean_mask(rt, [False, True, True, True])
boolean_mask_scalar: tf.ragged.boolean_mask(rt, True)
size: tf.size(rt)
size_int64: tf.size(nested, out_type=tf.int64)
rank: [tf.rank(rt), tf.rank(nested)]
shape_lengths: [tf.shape(rt).static_lengths(), tf.shape(nested).num_row_partitions]
shape_rank: tf.shape(nested).rank
shape_outer: tf.shape(rt)[0]
shape_inner: tf.shape(inner)[2]
shape_ragged_dim: tf.shape(rt)[1]
shape_inner_shape: tf.shape(nested).inner_shape
ones_from_shape: tf.ones(tf.shape(nested))
""")

NAMESPACE = _cases("""
range: tf.ragged.range([3, 5, 2])
range_limits: tf.ragged.range([0, 3], [4, 3])
range_deltas: tf.ragged.range([0, 5, 8], [3, 3, 12], [1, -1, 2])
range_scalar: tf.ragged.range(3, [5, 7])
range_float: tf.ragged.range(0.0, [1.0, 2.5], 0.5)
range_int64: tf.ragged.range([2], dtype=tf.int64, row_splits_dtype=tf.int32)
range_zero_delta: tf.ragged.range([1], [5], [0])
splits_to_ids: tf.ragged.row_splits_to_segment_ids([0, 3, 3, 5, 6, 9])
splits_to_ids_int32: tf.ragged.row_splits_to_segment_ids(tf.constant([0, 2, 2]), out_type=tf.int32)
ids_to_splits: tf.ragged.segment_ids_to_row_splits([0, 0, 0, 2, 2, 3, 4, 4, 4])
ids_to_splits_num: tf.ragged.segment_ids_to_row_splits([0, 1, 1], num_segments=4)
ids_to_splits_int32: tf.ragged.segment_ids_to_row_splits(tf.constant([0, 2]))
stack_dynamic_partitions: tf.ragged.stack_dynamic_partitions([10, 20, 30, 40], [1, 0, 1, 1], 3)
stack_dynamic_partitions_rows: tf.ragged.stack_dynamic_partitions(inner.values, [2, 0, 2], 3)
stack_dynamic_partitions_ragged: tf.ragged.stack_dynamic_partitions(rt, [0, 1, 1, 0], 2)
stack_dynamic_partitions_bad: tf.ragged.stack_dynamic_partitions([1, 2], [0, 3], 2)
cross_hashed: tf.ragged.cross_hashed([ints, tf.constant([[5], [6]])])
cross_hashed_buckets: tf.ragged.cross_hashed([ints, tf.constant([[5], [6]])], num_buckets=10)
cross_hashed_dense_first: tf.ragged.cross_hashed([tf.constant([[5, 7], [6, 8]]), ints], hash_key=7)
cross_hashed_three: tf.ragged.cross_hashed([ints, ints * 3, tf.sparse.from_dense([[0, 4], [9, 0]])])
cross_hashed_empty_row: tf.ragged.cross_hashed([tf.ragged.constant([[1], []]), ints])
cross_hashed_batch_mismatch: tf.ragged.cross_hashed([ints, tf.constant([[5]])])
""")


# Errors TensorFlow's graph finds only when it runs (or by its own static rules) where a ferroflow
# trace, which computes constants at once, finds them while tracing, or the reverse; and static
# lengths, which a graph does not know: these run eagerly only.
EAGER_ONLY = {
    "construction-from_uniform_row_length_bad",
    "accessors-getitem_too_many",
    "elementwise-eq_incompatible",
    "elementwise-add_dtype_mismatch",
    "structure-shape_lengths",
    "namespace-cross_hashed_batch_mismatch",
}


def _all_cases():
    groups = {
        "construction": CONSTRUCTION,
        "accessors": ACCESSORS,
        "elementwise": ELEMENTWISE,
        "reductions": REDUCTIONS,
        "structure": STRUCTURE,
        "namespace": NAMESPACE,
    }
    return [(f"{g}-{n}", e) for g, cases in groups.items() for n, e in cases.items()]


CASES = _all_cases()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize(("name", "expression"), CASES, ids=[n for n, _ in CASES])
def test_ragged(tf_oracle, name, expression, traced, device):
    if traced and name in EAGER_ONLY:
        pytest.skip("compared eagerly only (see EAGER_ONLY)")
    assert_parity(tf_oracle, _run, (expression, traced, device), helpers=[_describe])
