"""TensorFlow's top-level manipulation and math names (issue 18's first batch): values,
dtypes, shapes and exception classes, eagerly and inside a `tf.function`, and gradients."""

import pytest

from .harness import assert_parity, evaluated

# name -> expression over `tf` (constants built inside, so eager and traced runs see the same).
CASES = {
    "roll": "tf.roll(tf.range(7), 3, 0)",
    "roll_negative": "tf.roll(tf.reshape(tf.range(12.0), [3, 4]), -1, 1)",
    "roll_two_axes": "tf.roll(tf.reshape(tf.range(12), [3, 4]), [1, 2], [0, 1])",
    "roll_same_axis": "tf.roll(tf.range(5), [1, 3], [0, 0])",
    "roll_bad_axis": "tf.roll(tf.range(5), 1, 2)",
    "repeat_scalar": "tf.repeat([1, 2, 3], 2)",
    "repeat_vector": "tf.repeat([[1, 2], [3, 4]], [1, 3], axis=0)",
    "repeat_axis1": "tf.repeat(tf.reshape(tf.range(6.0), [2, 3]), [2, 0, 1], axis=1)",
    "repeat_flat": "tf.repeat([[1, 2], [3, 4]], 2)",
    "repeat_tensor_counts": "tf.repeat([5, 6, 7], tf.constant([0, 2, 1]))",
    "meshgrid_xy": "tf.meshgrid([1, 2, 3], [4, 5])",
    "meshgrid_ij": "tf.meshgrid([1.0, 2.0], [3.0, 4.0, 5.0], [6.0], indexing='ij')",
    "meshgrid_one": "tf.meshgrid([1, 2])",
    "searchsorted_left": "tf.searchsorted([[1.0, 3.0, 5.0, 5.0, 7.0]], [[0.0, 5.0, 6.0, 9.0]])",
    "searchsorted_right": (
        "tf.searchsorted([[1, 3, 5, 5, 7], [0, 1, 2, 3, 4]], [[5, 8], [2, -1]], side='right')"
    ),
    "searchsorted_int64": "tf.searchsorted([1, 2, 3], [2, 3], out_type=tf.int64)",
    "sequence_mask": "tf.sequence_mask([1, 3, 2], 5)",
    "sequence_mask_default": "tf.sequence_mask([[1, 3], [2, 0]])",
    "sequence_mask_float": "tf.sequence_mask([2, 0], 3, dtype=tf.float32)",
    "reverse_sequence": (
        "tf.reverse_sequence(tf.reshape(tf.range(12), [3, 4]), [4, 2, 0], seq_axis=1, batch_axis=0)"
    ),
    "reverse_sequence_t": (
        "tf.reverse_sequence(tf.reshape(tf.range(24), [4, 3, 2]), [3, 1, 2], seq_axis=0, "
        "batch_axis=1)"
    ),
    "unravel_index": "tf.unravel_index([22, 41, 37], [7, 6])",
    "unravel_index_scalar": "tf.unravel_index(5, [2, 3])",
    "unravel_index_bad": "tf.unravel_index([42], [7, 6])",
    "broadcast_dynamic_shape": "tf.broadcast_dynamic_shape([2, 1, 3], [4, 1])",
    "broadcast_dynamic_shape_bad": "tf.broadcast_dynamic_shape([2, 3], [4])",
    "shape_n": "tf.shape_n([tf.ones([2, 3]), tf.ones([4])], out_type=tf.int64)",
    "identity_n": "tf.identity_n([tf.ones([2]), tf.range(3)])",
    "scatter_add": "tf.tensor_scatter_nd_add(tf.ones([5]), [[1], [3], [1]], [2.0, 3.0, 4.0])",
    "scatter_sub": "tf.tensor_scatter_nd_sub(tf.ones([2, 3]), [[0, 1], [1, 2]], [5.0, 6.0])",
    "scatter_update": "tf.tensor_scatter_nd_update(tf.zeros([5]), [[4], [1]], [7.0, 8.0])",
    "scatter_update_rows": (
        "tf.tensor_scatter_nd_update(tf.zeros([3, 2]), [[2], [0]], [[1.0, 2.0], [3.0, 4.0]])"
    ),
    "truncatediv_int": "tf.truncatediv([7, -7, 7, -7, 6], [2, 2, -2, -2, 3])",
    "truncatemod_int": "tf.truncatemod([7, -7, 7, -7, 6], [2, 2, -2, -2, 3])",
    "truncatediv_float": "tf.truncatediv([7.5, -7.5, 1.0], [2.0, 2.0, -3.0])",
    "truncatemod_float": "tf.truncatemod([7.5, -7.5, 1.0], [2.0, 2.0, -3.0])",
    "realdiv": "tf.realdiv([7.0, -1.0], [2.0, 4.0])",
    "scalar_mul": "tf.scalar_mul(3.0, tf.constant([1.5, -2.0]))",
    "scalar_mul_bad": "tf.scalar_mul(tf.constant([2.0, 3.0]), tf.constant([7.0]))",
    "clip_by_norm": "tf.clip_by_norm(tf.constant([[3.0, 4.0], [0.3, 0.4]]), 1.0, axes=[1])",
    "clip_by_norm_zero": "tf.clip_by_norm(tf.zeros([3]), 1.0)",
    "clip_by_global_norm": (
        "tf.clip_by_global_norm([tf.constant([3.0, 4.0]), None, tf.constant([12.0])], 1.0)"
    ),
    "clip_by_global_norm_small": "tf.clip_by_global_norm([tf.constant([0.3, 0.4])], 1.0)",
    "global_norm": "tf.linalg.global_norm([tf.constant([3.0]), tf.constant([[4.0]])])",
    "histogram": "tf.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], [0.0, 5.0], nbins=5)",
    "histogram_int64": "tf.histogram_fixed_width([0.5, 0.7], [0.0, 1.0], 2, dtype=tf.int64)",
    "unique_with_counts": "tf.unique_with_counts([1, 1, 2, 4, 4, 4, 7, 8, 8])",
    "truncatediv_math": "tf.math.truncatediv([-9], [4])",
}

STATIC = {
    "broadcast_static_shape": (
        "tf.broadcast_static_shape(tf.TensorShape([2, 1, None]), tf.TensorShape([4, 1])).as_list()"
    ),
    "broadcast_static_shape_bad": (
        "tf.broadcast_static_shape(tf.TensorShape([2, 3]), tf.TensorShape([4]))"
    ),
    "executing_eagerly": "tf.executing_eagerly()",
    "inside_function": "tf.inside_function()",
    "get_static_value": "tf.get_static_value(tf.constant([1, 2]))",
    "no_op": "tf.no_op()",
    "group": "tf.group(tf.constant(1))",
    "tuple": "tf.tuple([tf.constant(1), tf.constant(2.0)])",
}


def _run(tf, expression, traced):
    def body():
        return eval(expression, {"tf": tf})  # noqa: S307 - the test's own expression

    try:
        return tf.function(body)() if traced else body()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_top_level_op(tf_oracle, name, traced):
    assert_parity(tf_oracle, _run, (CASES[name], traced))


@pytest.mark.parametrize("name", sorted(STATIC))
def test_top_level_static(tf_oracle, name):
    assert_parity(tf_oracle, evaluated, (STATIC[name],))


def _executing_eagerly_inside(tf):
    @tf.function
    def f():
        return tf.constant(tf.executing_eagerly()), tf.constant(tf.inside_function())

    return f(), tf.get_static_value(tf.constant(3.0))


def test_context_inside_a_function(tf_oracle):
    assert_parity(tf_oracle, _executing_eagerly_inside)


GRADIENTS = {
    "roll": "tf.reduce_sum(tf.roll(x, 2, 1) * tf.range(4.0))",
    "repeat": "tf.reduce_sum(tf.repeat(x, [1, 0, 2], axis=0) ** 2)",
    "meshgrid": "tf.reduce_sum(tf.meshgrid(x[0], x[1])[0] * tf.meshgrid(x[0], x[1])[1])",
    "reverse_sequence": (
        "tf.reduce_sum(tf.reverse_sequence(x, [2, 4, 1], seq_axis=1, batch_axis=0) * tf.range(4.0))"
    ),
    "scatter_update": (
        "tf.reduce_sum(tf.tensor_scatter_nd_update(x, [[1], [1]], x[:2] * 3.0) ** 2)"
    ),
    "scatter_add": "tf.reduce_sum(tf.tensor_scatter_nd_add(x, [[2]], x[:1] * x[1:2]) ** 2)",
    "clip_by_norm": "tf.reduce_sum(tf.clip_by_norm(x, 2.0, axes=[1]) * tf.range(4.0))",
    "clip_by_global_norm": (
        "tf.reduce_sum(tf.clip_by_global_norm([x, x * 2.0], 3.0)[0][1] * tf.range(4.0))"
    ),
    # TruncateDiv passes no gradient: only x's own path counts.
    "truncatediv": "tf.reduce_sum(tf.truncatediv(x, 0.7) * x)",
}


def _gradient(tf, expression, traced):
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = eval(expression, {"tf": tf, "x": x})  # noqa: S307 - the test's own expression
        return tape.gradient(y, x)

    x = tf.reshape(tf.range(12.0) / 7.0 - 0.5, [3, 4])
    return (tf.function(grad) if traced else grad)(x)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_top_level_gradient(tf_oracle, name, traced):
    assert_parity(tf_oracle, _gradient, (GRADIENTS[name], traced))


def _truncatemod_gradient(tf):
    # TensorFlow registers no gradient for TruncateMod: asking for one raises LookupError.
    # (Inside a tf.function TensorFlow wraps it in its StagingError, which is not mimicked.)
    x = tf.constant([1.5, 2.5])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.truncatemod(x, 0.7)
    try:
        return tape.gradient(y, x)
    except LookupError as e:
        return type(e).__name__, str(e)


def test_truncatemod_has_no_gradient(tf_oracle):
    assert_parity(tf_oracle, _truncatemod_gradient)


# Two tensors of different dtypes: the op's InvalidArgumentError (TypeError for truediv, whose
# check is Python's), as TensorFlow's generated ops raise it.
MIXED_DTYPES = {
    name: f"{fn}(tf.constant([1]), tf.constant([1], tf.int64))"
    for name, fn in {
        "multiply": "tf.multiply",
        "subtract": "tf.subtract",
        "pow": "tf.pow",
        "equal": "tf.equal",
        "less": "tf.less",
        "floordiv": "tf.math.floordiv",
        "truediv": "tf.math.truediv",
        "squared_difference": "tf.math.squared_difference",
        "bitwise_and": "tf.bitwise.bitwise_and",
        "left_shift": "tf.bitwise.left_shift",
        "operator": "(lambda a, b: a * b)",
    }.items()
}


@pytest.mark.parametrize("name", sorted(MIXED_DTYPES))
def test_mixed_dtype_tensors(tf_oracle, name):
    assert_parity(tf_oracle, evaluated, (MIXED_DTYPES[name],))
