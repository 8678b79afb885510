"""The rest of TensorFlow's ragged dispatch against TensorFlow (see ragged/ragged_dispatch.py):
string, cast, bitwise and assertion APIs on ragged values, tile, reverse, squeeze, split,
one_hot, dynamic_partition, bitcast, gather_nd, cumsum, matmul (and `dense @ ragged`),
nn.dropout, strings.reduce_join / format / join, sparse.bincount, assert_type, and reshape /
broadcast_to / broadcast_dynamic_shape with DynamicRaggedShapes; eagerly and inside a
`tf.function`, on the CPU and the GPU, with gradients where TensorFlow's ragged op has them.
Ragged results compare by flat values, nested row splits, static shape and `to_list()`."""

import pytest

from .harness import assert_parity
from .test_ragged import _cases, _describe
from .test_ragged_function import _gradient

DEVICES = ["CPU:0", "GPU:0"]


def _shapes_as_tensors(tf, value):
    """A DynamicRaggedShape as its row splits and inner shape (inside the function: a shape
    is not a value a ferroflow tf.function returns)."""
    if type(value).__name__ == "DynamicRaggedShape":
        return {
            "splits": [p.row_splits() for p in value.row_partitions],
            "inner_shape": value.inner_shape,
        }
    return value


def _names(tf):
    return {
        "tf": tf,
        "rt": tf.ragged.constant([[1.0, 2.0, 3.0], [], [4.0, 5.0], [6.0]]),
        "nested": tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6], [], [7]]]),
        "inner": tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1),
        "ints": tf.ragged.constant([[1, 2], [3]]),
        "s": tf.ragged.constant([["a", "Bc"], [], ["  d "]]),
        "rows": tf.ragged.constant([[1, 2], [3], [4, 5, 6], []]),
        "col": tf.constant([[1.0], [2.0]]),
        "fold": tf.ragged.constant([[[1.0, 2.0]], [[3.0, 4.0], [5.0, 6.0]]], ragged_rank=1),
        "a3": tf.ragged.constant([[[1.0, 2.0], [3.0, 4.0]], [[5.0]]]),
        "b3": tf.ragged.constant([[[1.0], [2.0]], [[3.0, 4.0]]]),
        "pairs": [[[0, 1], [1, 0]], [[1, 1]]],
        "dense_b": tf.ragged.constant([[[1.0, 2.0], [4.0, 5.0]], [[7.0], [8.0]]]),
        "m42": tf.reshape(tf.range(8.0), [4, 2]),
        "m223": tf.reshape(tf.range(12.0), [2, 2, 3]),
        "b4": tf.RaggedTensor.from_row_lengths(tf.ones([3, 2, 1]), [1, 2]),
        "ids": tf.ragged.constant([[1, 2], [3], [0, 1, 2], []]),
        "fw": tf.ragged.constant([[0.5, 1.0], [2.0], [1.0, 1.0, 3.0], []]),
        "images": tf.ragged.constant(
            [[[[1.0], [2.0]], [[3.0], [4.0]]], [[[5.0]]], [[[6.0], [7.0], [8.0]]]], ragged_rank=2
        ),
    }


def _run(tf, expression, traced, device):
    def body():
        out = eval(expression, _names(tf))  # noqa: S307 - the test's own expression
        return _shapes_as_tensors(tf, out)

    try:
        with tf.device(device):
            out = tf.function(body)() if traced else body()
        return _describe(tf, out)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


ELEMENTWISE = _cases("""
as_string: tf.strings.as_string(rt)
as_string_top: tf.as_string(ints, width=3)
length: tf.strings.length(s)
length_chars: tf.strings.length(tf.ragged.constant([["\u00e9a"], []]), unit="UTF8_CHAR")
lower_upper_strip: [tf.strings.lower(s), tf.strings.upper(s), tf.strings.strip(s)]
substr: tf.strings.substr(s, 0, 1)
substr_tail: tf.strings.substr(tf.ragged.constant([["abc"], ["de", "f"]]), -1, 1)
regex_full_match: tf.strings.regex_full_match(s, "[a-z]+")
regex_replace: tf.strings.regex_replace(s, "[a-z]", "x")
to_hash_bucket: tf.strings.to_hash_bucket(s, 10)
to_hash_bucket_fast: tf.strings.to_hash_bucket_fast(s, 7)
to_hash_bucket_strong: tf.strings.to_hash_bucket_strong(s, 10, [1, 2])
to_number: tf.strings.to_number(tf.ragged.constant([["1.5", "-2"], []]))
to_number_int: tf.strings.to_number(tf.ragged.constant([["7"], ["8", "9"]]), tf.int64)
to_number_bad: tf.strings.to_number(tf.ragged.constant([["1.5", "x"]]))
unicode_script: tf.strings.unicode_script(tf.ragged.constant([[65, 945], []]))
unicode_transcode: tf.strings.unicode_transcode(s, "UTF-8", "UTF-16-BE")
invert: tf.bitwise.invert(ints)
check_numerics: tf.debugging.check_numerics(rt, "checked")
check_numerics_inf: tf.debugging.check_numerics(rt / 0.0, "checked")
dtypes_cast: tf.dtypes.cast(rt, tf.int32)
saturate_cast: tf.saturate_cast(rt * 100.0, tf.uint8)
dtypes_saturate_cast: tf.dtypes.saturate_cast(rt - 3.0, tf.uint8)
complex: tf.dtypes.complex(rt, rt * 2.0)
scalar_mul: tf.math.scalar_mul(2.0, rt)
scalar_mul_int: tf.scalar_mul(3, ints)
realdiv: tf.realdiv(rt, 2.0)
realdiv_ragged: tf.realdiv(rt, rt + 1.0)
truncatediv: tf.truncatediv(tf.ragged.constant([[7, -7], [5]]), 2)
truncatemod: tf.truncatemod(tf.ragged.constant([[7, -7], [5]]), 3)
sigmoid_xent: tf.nn.sigmoid_cross_entropy_with_logits(labels=rt / 10.0, logits=rt - 2.0)
sigmoid_xent_dense: tf.nn.sigmoid_cross_entropy_with_logits(rt / 10.0, [[1.0], [2.0], [3.0], [4.0]])
assert_equal_value: tf.debugging.assert_equal(rt, rt)
assert_equal: [tf.debugging.assert_equal(rt, rt), 1][1]
assert_equal_top: [tf.assert_equal(ints, tf.ragged.constant([[1, 2], [3]])), 1][1]
assert_equal_fails: tf.debugging.assert_equal(ints, tf.ragged.constant([[1, 2], [4]]))
assert_less: [tf.debugging.assert_less(rt, rt + 1.0), 1][1]
assert_less_fails: tf.debugging.assert_less(rt, rt)
assert_greater: [tf.debugging.assert_greater(rt + 1.0, rt), 1][1]
assert_greater_equal: [tf.debugging.assert_greater_equal(rt, 0.0), 1][1]
assert_less_equal_dense: [tf.debugging.assert_less_equal(rt, [[3.0], [0.0], [5.0], [6.0]]), 1][1]
assert_none_equal: [tf.debugging.assert_none_equal(rt, rt + 1.0), 1][1]
assert_near: [tf.debugging.assert_near(rt, rt + 1e-7), 1][1]
assert_near_fails: tf.debugging.assert_near(rt, rt + 1.0)
assert_type: [tf.debugging.assert_type(rt, tf.float32), 1][1]
assert_type_fails: tf.debugging.assert_type(ints, tf.float32)
strings_join: tf.strings.join([s, s], separator="-")
strings_join_dense: tf.strings.join([s, "!"])
strings_format: tf.strings.format("x={} y={}", [rt, tf.constant(3)])
strings_format_one: tf.strings.format("{}", ints)
strings_format_nested: tf.strings.format("{}", nested, summarize=1)
""")

SHAPES = _cases("""
tile: tf.tile(ints, [2, 3])
tile_rows: tf.tile(rows, [2, 1])
tile_nested: tf.tile(nested, [1, 2, 2])
tile_nested_outer: tf.tile(nested, [2, 1, 1])
tile_inner: tf.tile(inner, [1, 2, 3])
tile_tensor: tf.tile(ints, tf.constant([1, 2]))
tile_negative: tf.tile(ints, [1, -1])
tile_float: tf.tile(ints, [1.0, 2.0])
reverse_rows: tf.reverse(rt, [0])
reverse_columns: tf.reverse(rt, [1])
reverse_both: tf.reverse(rt, [0, -1])
reverse_nested: tf.reverse(nested, [2])
reverse_inner: tf.reverse(inner, [2])
reverse_tensor_axis: tf.reverse(rt, tf.constant([1]))
reverse_int_axis: tf.reverse(rt, 1)
reverse_bad_axis: tf.reverse(rt, [2])
squeeze_inner: tf.squeeze(tf.ragged.constant([[[1], [2]], [[3]]]), [2])
squeeze_negative: tf.squeeze(tf.ragged.constant([[[1], [2]], [[3]]]), -1)
squeeze_ragged: tf.squeeze(tf.ragged.constant([[1], [2], [3]]), [1])
squeeze_outer: tf.squeeze(tf.ragged.constant([[1, 2, 3]]), [0])
squeeze_both: tf.squeeze(tf.ragged.constant([[4]]), [0, 1])
squeeze_nested: tf.squeeze(tf.ragged.constant([[[1, 2]], [[3]]]), [1])
squeeze_not_one: tf.squeeze(ints, [1])
squeeze_no_axis: tf.squeeze(ints)
squeeze_bad_axis_type: tf.squeeze(ints, "1")
split_rows: tf.split(rows, 2)
split_sizes: tf.split(rows, [1, 3])
split_sizes_tensor: tf.split(rows, tf.constant([3, 1]))
split_inner: tf.split(inner, 2, axis=2)
split_one: tf.split(rows, 1)
split_ragged_axis: tf.split(rows, 2, axis=1)
split_uneven: tf.split(rows, 3)
split_num_mismatch: tf.split(rows, [1, 3], num=3)
split_float: tf.split(rows, [1.0, 3.0])
one_hot: tf.one_hot(ints, 4)
one_hot_values: tf.one_hot(ints, 3, on_value=5, off_value=-1)
one_hot_axis: tf.one_hot(ints, 4, axis=2)
one_hot_negative_axis: tf.one_hot(nested, 8, axis=-1)
one_hot_bad_axis: tf.one_hot(ints, 4, axis=1)
dynamic_partition: tf.dynamic_partition(rt, [0, 1, 0, 1], 2)
dynamic_partition_ragged: tf.dynamic_partition(ints, tf.ragged.constant([[0, 1], [1]]), 2)
dynamic_partition_empty: tf.dynamic_partition(rt, [2, 2, 0, 0], 3)
dynamic_partition_float: tf.dynamic_partition(rt, [0, 1, 0, 1], 2.0)
bitcast: tf.bitcast(ints, tf.float32)
bitcast_wider: tf.bitcast(tf.cast(inner, tf.int16), tf.int32)
bitcast_narrower: tf.bitcast(ints, tf.int16)
from_tensor_nested_lengths: tf.RaggedTensor.from_tensor(m223, lengths=[[2, 1], [1, 3, 2]])
from_tensor_lengths_rank: tf.RaggedTensor.from_tensor(m223, [[2, 1], [3, 1, 2]], 3)
reshape_flat: tf.reshape(rt, [-1])
reshape_nested: tf.reshape(nested, [7, 1])
reshape_to_ragged: tf.reshape(tf.range(6.0), tf.shape(rt))
reshape_list_to_ragged: tf.reshape([1, 2, 3, 4, 5, 6, 7], tf.shape(nested))
reshape_ragged_to_ragged: tf.reshape(rt, tf.shape(rt))
reshape_bad_size: tf.reshape(rt, [4])
broadcast_to_column: tf.broadcast_to([[1.0], [2.0], [3.0], [4.0]], tf.shape(rt))
broadcast_to_scalar: tf.broadcast_to(tf.constant(5), tf.shape(nested))
broadcast_to_inner: tf.broadcast_to(tf.constant([1.0, 2.0]), tf.shape(inner))
broadcast_to_ragged: tf.broadcast_to(rt, tf.shape(rt, out_type=tf.int64))
broadcast_to_ragged_dtype: tf.broadcast_to(rt, tf.shape(rt))
broadcast_to_ragged_mismatch: tf.broadcast_to(rt[:, :1], tf.shape(rt, out_type=tf.int64))
broadcast_to_dense_shape: tf.broadcast_to(rt, [4, 3])
broadcast_to_bad_rows: tf.broadcast_to([[1.0], [2.0]], tf.shape(rt))
broadcast_shape: tf.broadcast_dynamic_shape(tf.shape(rt), [4, 1])
broadcast_shape_left: tf.broadcast_dynamic_shape([4, 1], tf.shape(rt))
broadcast_shape_vector: tf.broadcast_dynamic_shape(tf.shape(rt), [1])
broadcast_shape_same: tf.broadcast_dynamic_shape(tf.shape(nested), tf.shape(nested))
broadcast_shape_dtypes: tf.broadcast_dynamic_shape(tf.shape(rt), tf.shape(rt, out_type=tf.int64))
broadcast_shape_rows: tf.broadcast_dynamic_shape(tf.shape(rt), [3, 1])
broadcast_shape_columns: tf.broadcast_dynamic_shape(tf.shape(rt), [4, 5])
""")

GATHER_MATH = _cases("""
gather_nd_pairs: tf.gather_nd(rt, [[0, 1], [2, 0]])
gather_nd_rows: tf.gather_nd(rt, [[2], [0]])
gather_nd_nested_scalar: tf.gather_nd(nested, [[2, 0, 1], [0, 1, 0]])
gather_nd_nested_rows: tf.gather_nd(nested, [[2, 0], [0, 0]])
gather_nd_inner: tf.gather_nd(inner, [[0, 1, 0], [1, 0, 1]])
gather_nd_inner_rows: tf.gather_nd(inner, [[0, 1], [1, 0]])
gather_nd_empty_index: tf.gather_nd(ints, tf.zeros([2, 0], tf.int32))
gather_nd_rank3: tf.gather_nd(rt, [[[0, 0]], [[2, 1]]])
gather_nd_ragged_indices: tf.gather_nd([[1, 2], [3, 4]], tf.ragged.constant(pairs, ragged_rank=1))
gather_nd_ragged_inner: tf.gather_nd(tf.constant([1, 2]), tf.ragged.constant([[0], [1, 0]]))
gather_nd_batch_dims: tf.gather_nd(rt, [[0, 1]], batch_dims=1)
gather_nd_bad_row: tf.gather_nd(rt, [[7, 0]])
gather_nd_string: tf.gather_nd(s, [[2, 0], [0, 1]])
cumsum: tf.cumsum(rt, axis=1)
cumsum_exclusive: tf.cumsum(rt, axis=1, exclusive=True)
cumsum_reverse: tf.math.cumsum(rt, axis=-1, reverse=True)
cumsum_exclusive_reverse: tf.cumsum(rt, axis=1, exclusive=True, reverse=True)
cumsum_rows: tf.cumsum(rt, axis=0)
cumsum_nested: tf.cumsum(nested, axis=2)
cumsum_nested_middle: tf.cumsum(nested, axis=1)
cumsum_inner: tf.cumsum(inner, axis=2, reverse=True)
cumsum_bad_axis: tf.cumsum(rt, axis=2)
matmul_2d: tf.matmul(tf.ragged.constant([[1.0, 2.0], [3.0, 4.0]]), col)
matmul_2d_both: tf.linalg.matmul(tf.ragged.constant([[1.0, 2.0]]), tf.ragged.constant([[1.0], [2]]))
matmul_2d_ragged: tf.matmul(tf.constant([[10.0], [20.0]]), tf.ragged.constant([[1.0, 2.0], [3.0]]))
matmul_operator: tf.constant([[10.0], [20.0]]) @ tf.ragged.constant([[1.0, 2.0], [3.0]])
matmul_operator_uniform: tf.constant([[1.0, 2.0]]) @ tf.ragged.constant([[1.0], [2.0]])
matmul_operator_reflected: tf.ragged.constant([[1.0, 2.0]]) @ tf.constant([[1.0], [2.0]])
matmul_fold: tf.matmul(fold, tf.constant([[[1.0], [1.0]], [[1.0], [0.0]]]))
matmul_fold_transpose_b: tf.matmul(fold, tf.ones([2, 3, 2]), transpose_b=True)
matmul_3d: tf.matmul(a3, b3)
matmul_3d_dense_a: tf.matmul(tf.ones([2, 2, 2]), dense_b)
matmul_3d_ragged_b: tf.matmul(tf.ones([2, 1, 2]), tf.RaggedTensor.from_row_lengths(m42, [2, 2]))
matmul_3d_transpose_a: tf.matmul(tf.ragged.constant([[[1.0, 2.0]], [[3.0], [4.0]]]), a3, True)
matmul_3d_transpose_b: tf.matmul(tf.ragged.constant([[[1.0, 2.0]], [[3.0]]]), a3, transpose_b=True)
matmul_3d_inner_ragged: tf.matmul(tf.ragged.constant([[[1.0, 2.0], [3.0]]]), tf.ones([1, 2, 2]))
matmul_3d_incompatible: tf.matmul(tf.ragged.constant([[[1.0, 2.0]], [[3.0]]]), tf.ones([2, 2, 1]))
matmul_4d: tf.matmul(tf.RaggedTensor.from_row_lengths(m42[:, None], [2, 2]), tf.ones([2, 2, 2, 1]))
matmul_4d_ragged: tf.matmul(tf.RaggedTensor.from_row_lengths(m42[:3, None], [1, 2]), b4)
matmul_4d_mismatch: tf.matmul(tf.RaggedTensor.from_row_lengths(m42[:3, None], [2, 1]), b4)
matmul_dtype: tf.matmul(tf.ragged.constant([[1.0, 2.0]]), tf.constant([[1], [2]]))
matmul_rank: tf.matmul(tf.ragged.constant([[1.0, 2.0]]), tf.ones([1, 2, 1]))
matmul_both_flags: tf.matmul(tf.ragged.constant([[1.0]]), [[1.0]], transpose_a=True, adjoint_a=True)
operator_dtypes_div: tf.constant([1.0], tf.float64) / tf.constant(3, tf.uint16)
operator_dtypes_rdiv: tf.constant(3, tf.uint16) / tf.constant([1.0], tf.float64)
dropout_zero: tf.nn.dropout(rt, 0.0)
dropout: (lambda d: (d.row_splits, tf.reduce_all((d == 0) | (d == rt * 2))))(tf.nn.dropout(rt, 0.5))
dropout_noise_shape: tf.nn.dropout(rt, 0.5, noise_shape=[4, 1])
embedding_lookup: tf.nn.embedding_lookup(m42, ints)
embedding_lookup_nested: tf.nn.embedding_lookup(m42, nested % 4)
embedding_lookup_shards: tf.nn.embedding_lookup([m42[:2], m42[2:]], ints)
embedding_lookup_max_norm: tf.nn.embedding_lookup(m42, ints, max_norm=2.0)
embedding_lookup_float_ids: tf.nn.embedding_lookup(m42, rt)
embedding_lookup_bad_id: tf.nn.embedding_lookup(m42, ints * 2)
reduce_join_rows: tf.strings.reduce_join(s, axis=1)
reduce_join_columns: tf.strings.reduce_join(s, axis=0, separator="|")
reduce_join_all: tf.strings.reduce_join(s)
reduce_join_keepdims: tf.strings.reduce_join(s, axis=1, keepdims=True, separator="+")
reduce_join_nested: tf.strings.reduce_join(tf.strings.as_string(nested), axis=2, separator=",")
reduce_join_nested_0: tf.strings.reduce_join(tf.strings.as_string(nested), axis=0)
reduce_join_nested_1: tf.strings.reduce_join(tf.strings.as_string(nested), axis=-2, separator=".")
reduce_join_axes: tf.strings.reduce_join(tf.strings.as_string(nested), axis=[1, 2])
reduce_join_bad_axis: tf.strings.reduce_join(s, axis=2)
bincount_rows: tf.sparse.bincount(ints, axis=-1)
bincount_all: tf.sparse.bincount(tf.ragged.constant([[1, 2, 2], [], [3, 1]]), axis=0)
bincount_weights: tf.sparse.bincount(ints, weights=tf.ragged.constant([[0.5, 1.5], [2.0]]), axis=-1)
bincount_bounds: tf.sparse.bincount(tf.cast(ints * 3, tf.int64), axis=-1, minlength=5, maxlength=5)
bincount_binary: tf.sparse.bincount(rows % 3, axis=-1, binary_output=True)
bincount_dense_weights: tf.sparse.bincount(ints, weights=[1.0, 2.0, 3.0], axis=-1)
bincount_bad_axis: tf.sparse.bincount(ints, axis=1)
""")

# Issue 19's numerical APIs with a ragged version (ragged/ragged_dispatch_numeric.py).
NUMERIC = _cases("""
math_bincount_all: tf.math.bincount(rows)
math_bincount_rows: tf.math.bincount(rows, axis=-1)
math_bincount_bounds: tf.math.bincount(rows, axis=-1, minlength=9, dtype=tf.float32)
math_bincount_binary: tf.math.bincount(rows, axis=-1, maxlength=3, binary_output=True)
math_bincount_weights: tf.math.bincount(rows, fw, axis=-1)
math_bincount_weights_all: tf.math.bincount(nested, nested * 2)
math_bincount_dense_weights: tf.math.bincount(rows, weights=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
math_bincount_floats: tf.math.bincount(rt, axis=-1)
math_bincount_empty: tf.math.bincount(tf.ragged.constant([[], []], dtype=tf.int32), axis=-1)
math_bincount_negative: tf.math.bincount(rows - 5, axis=-1)
math_bincount_bad_axis: tf.math.bincount(rows, axis=1)
stateless_dropout: tf.nn.experimental.stateless_dropout(rt, 0.5, seed=[1, 2])
stateless_dropout_noise_shape: tf.nn.experimental.stateless_dropout(rt, 0.5, [1, 2], None, [4, 1])
resize: tf.image.resize(images, [2, 3])
resize_nearest: tf.image.resize(images, [3, 2], method="nearest")
resize_uniform: tf.image.resize(tf.RaggedTensor.from_row_lengths(m223[..., None], [1, 1]), [1, 1])
resize_aspect: tf.image.resize(images, [4, 3], preserve_aspect_ratio=True)
resize_rank: tf.image.resize(rt, [2, 2])
lookup_sparse: tf.nn.embedding_lookup_sparse(m42, ids, None)
lookup_sparse_sum: tf.nn.embedding_lookup_sparse(m42, ids[::2], None, "sum")
lookup_sparse_sqrtn: tf.nn.embedding_lookup_sparse(m42, ids, fw, "sqrtn")
lookup_sparse_dense_weights: tf.nn.embedding_lookup_sparse(m42, ids, [1.0] * 6)
lookup_sparse_combiner: tf.nn.embedding_lookup_sparse(m42, ids, None, "max")
safe_lookup_sparse: tf.nn.safe_embedding_lookup_sparse(m42, ids)
safe_lookup_sparse_default: tf.nn.safe_embedding_lookup_sparse(m42, ids - 2, default_id=3)
safe_lookup_sparse_weights: tf.nn.safe_embedding_lookup_sparse(m42, ids, fw - 2.0)
safe_lookup_sparse_sum: tf.nn.safe_embedding_lookup_sparse(m42, ids, fw - 2.0, "sum")
""")

# APIs TensorFlow composes of dispatching ones (no ragged handler of their own).
COMPOSED = _cases("""
logsumexp_rows: tf.math.reduce_logsumexp(rt, axis=1)
logsumexp_all: tf.math.reduce_logsumexp(rt)
logsumexp_keepdims: tf.math.reduce_logsumexp(rt, axis=1, keepdims=True)
logsumexp_all_keepdims: tf.reduce_logsumexp(rt, keepdims=True)
logsumexp_columns: tf.math.reduce_logsumexp(rt, axis=0)
logsumexp_nested_inner: tf.math.reduce_logsumexp(tf.cast(nested, tf.float32), axis=2)
logsumexp_nested_rows: tf.math.reduce_logsumexp(tf.cast(nested, tf.float32), axis=1)
logsumexp_inf: tf.math.reduce_logsumexp(rt - float("inf"), axis=1)
stop_gradient: tf.stop_gradient(rt)
stop_gradient_nested: tf.stop_gradient(nested)
stop_gradient_sparse: tf.sparse.to_dense(tf.stop_gradient(tf.sparse.from_dense([[1.0, 0.0]])))
moments_rows: tf.nn.moments(rt, axes=[1])
moments_keepdims: tf.nn.moments(rt, axes=[1], keepdims=True)
moments_columns: tf.nn.moments(rt, axes=[0])
moments_all: tf.nn.moments(rt, axes=[0, 1])
moments_half: tf.nn.moments(tf.cast(rt, tf.float16), axes=[1])
batch_norm: tf.nn.batch_normalization(rt, 0.0, 1.0, None, None, 0.001)
batch_norm_ragged: tf.nn.batch_normalization(rt, rt, rt * rt, 1.0, 2.0, 0.001)
batch_norm_rows: tf.nn.batch_normalization(rt, [[1.0], [2.0], [3.0], [4.0]], 1.0, 0.5, None, 0.1)
""")

# Compared eagerly only: in a graph TensorFlow's assertion returns an Operation (which a
# tf.function refuses to return, TypeError) where ferroflow's returns None or raises at once,
# and TensorFlow's graph rejects a 2-D matmul by its static shapes (ValueError) before the
# ragged check (InvalidArgumentError) runs.
EAGER_ONLY = {
    "elementwise-assert_equal_value",
    "elementwise-assert_equal_fails",
    "elementwise-assert_near_fails",
    "gather_math-matmul_2d_ragged",
    "gather_math-matmul_operator",
    # ferroflow maps a batch of known size image by image with static shapes, so a result of
    # the wrong size is a ValueError at trace time; TensorFlow's graph finds it when it runs.
    "numeric-resize_aspect",
}

# ferroflow's GPU gather at an out-of-range index gives zeros (TensorFlow's GPU kernel does
# the same) where TensorFlow's CPU kernel, the oracle's, raises: compared on the CPU only.
CPU_ONLY = {"gather_math-gather_nd_bad_row", "gather_math-embedding_lookup_bad_id"}


def _all_cases():
    groups = {
        "elementwise": ELEMENTWISE,
        "shapes": SHAPES,
        "gather_math": GATHER_MATH,
        "composed": COMPOSED,
        "numeric": NUMERIC,
    }
    return [(f"{g}-{n}", e) for g, cases in groups.items() for n, e in cases.items()]


CASES = _all_cases()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize(("name", "expression"), CASES, ids=[n for n, _ in CASES])
def test_ragged_dispatch(tf_oracle, name, expression, traced, device):
    if traced and name in EAGER_ONLY:
        pytest.skip("compared eagerly only (see EAGER_ONLY)")
    if device != "CPU:0" and name in CPU_ONLY:
        pytest.skip("compared on the CPU only (see CPU_ONLY)")
    assert_parity(
        tf_oracle,
        _run,
        (expression, traced, device),
        helpers=[_describe, _names, _shapes_as_tensors],
    )


# Expressions over `rt` (flat values: the watched tensor) and `nested` (ragged rank 2, the same
# values); each gives a scalar loss (test_ragged_function's `_gradient` runs them).
GRADIENTS = {
    "tile": "tf.reduce_sum(tf.tile(rt, [2, 3]).flat_values ** 2)",
    "tile_nested": "tf.reduce_sum(tf.tile(nested, [1, 2, 2]).flat_values * tf.range(24.0))",
    "reverse": "tf.reduce_sum(tf.reverse(rt, [0, 1]).flat_values * tf.range(6.0))",
    "squeeze": "tf.reduce_sum(tf.squeeze(tf.expand_dims(rt, 2), [2]).flat_values ** 3)",
    "split": "tf.add_n([tf.reduce_sum(p.flat_values * i) for i, p in enumerate(tf.split(rt, 2))])",
    "gather_nd": "tf.reduce_sum(tf.gather_nd(rt, [[0, 1], [2, 0], [0, 1]]) ** 2)",
    "gather_nd_rows": "tf.reduce_sum(tf.gather_nd(nested, [[2, 0], [0, 1]]).flat_values ** 2)",
    "cumsum": "tf.reduce_sum(tf.cumsum(rt, axis=1).flat_values * tf.range(6.0))",
    "cumsum_reverse": "tf.reduce_sum(tf.cumsum(rt, 1, exclusive=True, reverse=True) ** 2)",
    "cumsum_rows": "tf.reduce_sum(tf.cumsum(rt, axis=0).flat_values * tf.range(6.0))",
    "matmul_2d": "tf.reduce_sum(tf.matmul(rt[2:4, :1], tf.constant([[1.0, 2.0]])) ** 2)",
    "matmul_fold": "tf.reduce_sum(tf.matmul(rt[:, :, tf.newaxis], tf.ones([4, 1, 2])) ** 2)",
    "matmul_3d": "tf.reduce_sum(tf.matmul(rt[:, :, tf.newaxis], rt[:, tf.newaxis]) ** 2)",
    "reshape": "tf.reduce_sum(tf.reshape(rt, [3, 2]) * [[1.0, 2.0]])",
    "broadcast_to": "tf.reduce_sum(tf.broadcast_to(rt.values[:4, None], tf.shape(rt)) ** 2)",
    "embedding_lookup": "tf.reduce_sum(tf.nn.embedding_lookup(rt.values, "
    "tf.ragged.constant([[0, 2], [5, 5], []])) ** 2)",
    "logsumexp": "tf.reduce_sum(tf.math.reduce_logsumexp(rt, axis=1)[::2])",
    "logsumexp_all": "tf.math.reduce_logsumexp(rt * 2.0)",
    "stop_gradient": "tf.reduce_sum(tf.stop_gradient(rt) * rt)",
    "moments": "tf.add_n([tf.reduce_sum(m[::2]) for m in tf.nn.moments(rt, axes=[1])])",
    "batch_norm": "tf.reduce_sum(tf.nn.batch_normalization(rt, 1.0, 2.0, rt, 3.0, 0.1) ** 2)",
    "dynamic_partition": "tf.reduce_sum(tf.dynamic_partition(rt, [1, 0, 1, 0], 2)[1] ** 2)",
    "realdiv": "tf.reduce_sum(tf.realdiv(rt, 2.0).flat_values * rt.flat_values)",
    "scalar_mul": "tf.reduce_sum(tf.math.scalar_mul(3.0, rt).flat_values ** 2)",
    "sigmoid_xent": "tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(rt / 4.0, rt))",
    "saturate_cast": "tf.reduce_sum(tf.saturate_cast(rt * 2.0, tf.float64).flat_values ** 2)",
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_ragged_dispatch_gradient(tf_oracle, name, traced, device):
    assert_parity(tf_oracle, _gradient, (GRADIENTS[name], traced, device), rtol=1e-5, atol=1e-5)


def _numeric_unknown_rows(tf, device):
    """Ragged resize and bincount inside a tf.function whose ragged input's row count is left
    to the call (a staged loop over the images)."""
    images = tf.ragged.constant(
        [[[[1.0], [2.0]], [[3.0], [4.0]]], [[[5.0]]], [[[6.0], [7.0], [8.0]]]], ragged_rank=2
    )
    spec = tf.RaggedTensorSpec([None, None, None, 1], tf.float32, ragged_rank=2)
    resize = tf.function(lambda im: tf.image.resize(im, [2, 3]), input_signature=[spec])
    ints = tf.RaggedTensorSpec([None, None], tf.int32)
    bincount = tf.function(lambda r: tf.math.bincount(r, axis=-1), input_signature=[ints])
    with tf.device(device):
        return [
            resize(images),
            resize(images[:0]),
            bincount(tf.ragged.constant([[1, 2], [3]])),
            bincount(tf.ragged.constant([[], []], dtype=tf.int32)),
        ]


@pytest.mark.parametrize("device", DEVICES)
def test_numeric_unknown_rows(tf_oracle, device):
    assert_parity(tf_oracle, _numeric_unknown_rows, (device,))
