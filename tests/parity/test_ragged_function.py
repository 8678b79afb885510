"""RaggedTensor as a composite value against TensorFlow: gradients through its flat values
(reductions, elementwise ops, conversions), tf.function arguments/outputs/input_signature and
retracing, tf.nest, RaggedTensorSpec, tf.experimental.RowPartition and DynamicRaggedShape, and
the printed forms."""

import pytest

from .harness import assert_parity, parity
from .test_ragged import _describe

DEVICES = ["CPU:0", "GPU:0"]

# Expressions over `rt`, a RaggedTensor whose flat values are the watched `x`; `nested` has
# ragged rank 2 over the same values.
GRADIENTS = {
    "sum_all": "tf.reduce_sum(tf.sin(rt))",
    "sum_rows": "tf.reduce_sum(tf.reduce_sum(rt * rt, axis=1) * [1.0, 2.0, 3.0, 4.0])",
    "sum_columns": "tf.reduce_sum(tf.reduce_sum(rt, axis=0) ** 2)",
    "mean_rows": "tf.reduce_sum(tf.reduce_mean(rt, axis=1) * [1.0, 2.0, 3.0, 4.0])",
    "max_rows": "tf.reduce_sum(tf.reduce_max(rt * rt, axis=1))",
    "min_columns": "tf.reduce_sum(tf.reduce_min(rt, axis=0) * [1.0, -2.0, 3.0])",
    "prod_rows": "tf.reduce_sum(tf.reduce_prod(rt + 1.0, axis=1))",
    "std_rows": "tf.reduce_sum(tf.math.reduce_std(rt[1:2], axis=1) + 0.0 * tf.reduce_sum(rt))",
    "dense_broadcast": "tf.reduce_sum((rt * tf.constant([[1.0], [2.0], [3.0], [4.0]])) ** 2)",
    "ragged_product": "tf.reduce_sum(rt * rt * rt)",
    "to_tensor": "tf.reduce_sum(rt.to_tensor(default_value=1.0) ** 2)",
    "to_tensor_shape": "tf.reduce_sum(rt.to_tensor(shape=[3, 2]) * [[1.0, 2.0]])",
    "column_slice": "tf.reduce_sum(rt[:, :2] * 3.0)",
    "row_slice": "tf.reduce_sum(rt[1:] ** 2)",
    "row": "tf.reduce_sum(rt[2] * rt[2])",
    "gather": "tf.reduce_sum(tf.gather(rt, [2, 0, 2]) ** 2)",
    "concat": "tf.reduce_sum(tf.concat([rt, rt * 2.0], axis=1) ** 2)",
    "stack": "tf.reduce_sum(tf.stack([rt, rt * rt]) * 0.5)",
    "where": "tf.reduce_sum(tf.where(rt > 0.5, rt * rt, -rt))",
    "boolean_mask": "tf.reduce_sum(tf.ragged.boolean_mask(rt, rt > 0.0) ** 3)",
    "map_flat_values": "tf.reduce_sum(tf.ragged.map_flat_values(tf.exp, rt))",
    "softmax": "tf.reduce_sum(tf.nn.softmax(rt) * rt)",
    "relu": "tf.reduce_sum(tf.nn.relu(rt) * rt)",
    "nested_sum": "tf.reduce_sum(tf.reduce_sum(nested, axis=1) ** 2)",
    "nested_max": "tf.reduce_sum(tf.reduce_max(nested, axis=2) * 2.0)",
}


def _gradient(tf, expression, traced, device):
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            rt = tf.RaggedTensor.from_row_splits(x, [0, 3, 3, 5, 6])
            nested = tf.RaggedTensor.from_nested_row_splits(x, [[0, 2, 3], [0, 2, 2, 6]])
            names = {"tf": tf, "rt": rt, "nested": nested}
            y = eval(expression, names)  # noqa: S307 - the test's own expression
        g = tape.gradient(y, x)
        return y, tf.convert_to_tensor(g)

    with tf.device(device):
        x = tf.constant([0.5, -1.5, 2.0, 0.25, 3.0, -0.75])
        return (tf.function(grad) if traced else grad)(x)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_ragged_gradient(tf_oracle, name, traced, device):
    assert_parity(tf_oracle, _gradient, (GRADIENTS[name], traced, device), rtol=1e-5, atol=1e-5)


def _gradient_of_ragged_source(tf, traced):
    def grad(values):
        rt = tf.RaggedTensor.from_row_lengths(values, [2, 0, 1])
        with tf.GradientTape() as tape:
            tape.watch(rt)
            y = tf.reduce_sum(rt * rt * 3.0)
        return tape.gradient(y, rt)

    out = (tf.function(grad) if traced else grad)(tf.constant([1.0, -2.0, 0.5]))
    return _describe(tf, out)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_gradient_of_a_ragged_source(tf_oracle, traced):
    assert_parity(tf_oracle, _gradient_of_ragged_source, (traced,), helpers=[_describe])


def _ragged_target_output_gradients(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        rt = tf.RaggedTensor.from_row_splits(x, [0, 2, 3]) * 2.0
    plain = tape.gradient(rt, x)
    seeded = tape.gradient(rt, x, output_gradients=tf.ragged.constant([[1.0, 2.0], [3.0]]))
    return plain, seeded


def test_ragged_target(tf_oracle):
    assert_parity(tf_oracle, _ragged_target_output_gradients)


# --- tf.function ------------------------------------------------------------------------------


def _retracing(tf):
    traces = []

    @tf.function
    def f(rt):
        traces.append(rt.shape.as_list())
        return tf.reduce_sum(rt, axis=1), rt * 2

    outs = [
        f(tf.ragged.constant([[1.0, 2.0], [3.0]])),
        f(tf.ragged.constant([[5.0], [6.0, 7.0, 8.0]])),
        f(tf.ragged.constant([[1.0], [2.0], [3.0]])),
        f(tf.ragged.constant([[1, 2], [3]])),
    ]
    return len(traces), [_describe(tf, o) for o in outs]


def test_function_retraces_by_spec(tf_oracle):
    assert_parity(tf_oracle, _retracing, helpers=[_describe])


def _input_signature(tf, device):
    traces = []

    @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
    def f(rt):
        traces.append(1)
        return tf.reduce_max(rt, axis=1), rt[:, :1], tf.reduce_mean(rt, axis=0), rt + 1.0

    with tf.device(device):
        a = f(tf.ragged.constant([[1.0, 2.0], [3.0]]))
        b = f(tf.ragged.constant([[1.0, 2.0], [], [4.0, 5.0, 6.0]]))
    try:
        f(tf.ragged.constant([[1, 2]]))
        bad = "accepted"
    except (TypeError, ValueError) as e:
        bad = type(e).__name__
    return len(traces), _describe(tf, a), _describe(tf, b), bad


@pytest.mark.parametrize("device", DEVICES)
def test_input_signature(tf_oracle, device):
    assert_parity(tf_oracle, _input_signature, (device,), helpers=[_describe])


def _nested_signature(tf):
    spec = tf.RaggedTensorSpec(
        [None, None, None], tf.int32, ragged_rank=2, row_splits_dtype=tf.int32
    )

    @tf.function(input_signature=[spec])
    def f(rt):
        return tf.reduce_sum(rt, axis=2), rt.row_splits, rt.values.row_splits

    value = tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]], row_splits_dtype=tf.int32)
    return _describe(tf, f(value))


def test_nested_input_signature(tf_oracle):
    assert_parity(tf_oracle, _nested_signature, helpers=[_describe])


def _concrete_function(tf):
    @tf.function
    def f(rt):
        return rt.to_tensor(default_value=-1)

    concrete = f.get_concrete_function(tf.RaggedTensorSpec([None, None], tf.int64))
    return concrete(tf.ragged.constant([[1, 2, 3], [], [4]], dtype=tf.int64))


def test_concrete_function(tf_oracle):
    assert_parity(tf_oracle, _concrete_function)


def _uniform_through_function(tf):
    @tf.function
    def f(rt):
        return rt, rt.uniform_row_length

    rt = tf.RaggedTensor.from_uniform_row_length(tf.range(6), 3)
    out, length = f(rt)
    return _describe(tf, out), length


def test_uniform_row_length_through_function(tf_oracle):
    assert_parity(tf_oracle, _uniform_through_function, helpers=[_describe])


# --- tf.nest, TypeSpec -----------------------------------------------------------------------


def _nest(tf):
    rt = tf.ragged.constant([[1, 2], [], [3]])
    nested = tf.ragged.constant([[[1.0], []], [[2.0, 3.0]]])
    structure = {"a": rt, "b": [nested, tf.constant(5)]}
    flat = tf.nest.flatten(structure, expand_composites=True)
    packed = tf.nest.pack_sequence_as(structure, [t * 2 for t in flat], expand_composites=True)
    leaves = tf.nest.flatten(structure)
    mapped = tf.nest.map_structure(lambda t: t + 1, structure)
    return (
        flat,
        _describe(tf, packed),
        [isinstance(v, tf.RaggedTensor) for v in leaves],
        _describe(tf, mapped),
    )


def test_nest(tf_oracle):
    assert_parity(tf_oracle, _nest, helpers=[_describe])


SPECS = {
    "repr": "repr(tf.RaggedTensorSpec([2, None], tf.int32))",
    "repr_nested": "repr(tf.RaggedTensorSpec([None, None, None, 3], ragged_rank=2))",
    "from_value": "repr(tf.type_spec_from_value(tf.ragged.constant([[1.0], [2.0, 3.0]])))",
    "properties": (
        "[s.shape, s.dtype, s.ragged_rank, s.row_splits_dtype, s.flat_values_spec] for s in "
        "[tf.RaggedTensorSpec([3, None, 2], tf.float64, 1, tf.int32)]"
    ),
    "default_rank": "tf.RaggedTensorSpec([None, None, None]).ragged_rank",
    "unknown_rank": "tf.RaggedTensorSpec(None, tf.int32)",
    "rank_too_big": "tf.RaggedTensorSpec([2, None], ragged_rank=2)",
    "equal": "tf.RaggedTensorSpec([2, None]) == tf.RaggedTensorSpec([2, None], tf.float32, 1)",
    "not_equal": "tf.RaggedTensorSpec([2, None]) == tf.RaggedTensorSpec([3, None])",
    "compatible": (
        "tf.RaggedTensorSpec([None, None], tf.int32).is_compatible_with("
        "tf.ragged.constant([[1], [2, 3]]))"
    ),
    "incompatible_dtype": (
        "tf.RaggedTensorSpec([None, None], tf.int64).is_compatible_with("
        "tf.ragged.constant([[1], [2, 3]]))"
    ),
    "supertype": (
        "repr(tf.RaggedTensorSpec([2, None]).most_specific_common_supertype("
        "[tf.RaggedTensorSpec([3, None])]))"
    ),
    "subtype": "tf.RaggedTensorSpec([2, None]).is_subtype_of(tf.RaggedTensorSpec([None, None]))",
    "value_type": "tf.RaggedTensorSpec([2, None]).value_type.__name__",
    "hashable": "len({tf.RaggedTensorSpec([2, None]), tf.RaggedTensorSpec([2, None])})",
}


def _spec_expression(tf, expression):
    try:
        result = eval(expression, {"tf": tf})  # noqa: S307 - the test's own expression
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    if hasattr(result, "__iter__") and not isinstance(result, (str, list, tuple, dict)):
        result = list(result)
    return result


@pytest.mark.parametrize("name", sorted(SPECS))
def test_ragged_tensor_spec(tf_oracle, name):
    assert_parity(tf_oracle, _spec_expression, (SPECS[name],))


# --- RowPartition, DynamicRaggedShape, printing ----------------------------------------------

PARTITIONS = {
    "from_row_lengths": "tf.experimental.RowPartition.from_row_lengths([2, 0, 3])",
    "from_row_splits": "tf.experimental.RowPartition.from_row_splits([0, 1, 1, 4])",
    "from_value_rowids": "tf.experimental.RowPartition.from_value_rowids([0, 0, 2, 2], nrows=4)",
    "from_row_starts": "tf.experimental.RowPartition.from_row_starts([0, 2], nvals=5)",
    "from_row_limits": "tf.experimental.RowPartition.from_row_limits([2, 2, 6])",
    "uniform": "tf.experimental.RowPartition.from_uniform_row_length(2, nvals=6)",
    "uniform_nrows": "tf.experimental.RowPartition.from_uniform_row_length(0, nrows=3)",
    "bad_splits": "tf.experimental.RowPartition.from_row_splits([0, 3, 2])",
    "with_dtype": "tf.experimental.RowPartition.from_row_lengths([2, 1]).with_dtype(tf.int32)",
}


def _partition(tf, expression):
    try:
        p = eval(expression, {"tf": tf})  # noqa: S307 - the test's own expression
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    return {
        "repr": repr(p),
        "row_splits": p.row_splits(),
        "row_lengths": p.row_lengths(),
        "value_rowids": p.value_rowids(),
        "offsets": p.offsets_in_rows(),
        "nrows": p.nrows(),
        "nvals": p.nvals(),
        "starts": p.row_starts(),
        "limits": p.row_limits(),
        "static": [p.static_nrows, p.static_nvals, p.static_uniform_row_length, p.is_uniform()],
        "dtype": p.dtype,
    }


@pytest.mark.parametrize("name", sorted(PARTITIONS))
def test_row_partition(tf_oracle, name):
    assert_parity(tf_oracle, _partition, (PARTITIONS[name],))


SHAPES = {
    "of_ragged": "tf.shape(tf.ragged.constant([[1, 2], [3]]))",
    "of_nested": "tf.shape(tf.ragged.constant([[[1, 2], [3]], [[4]]]))",
    "of_inner": "tf.shape(tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1))",
    "of_dense": "tf.experimental.DynamicRaggedShape.from_tensor(tf.ones([2, 3]))",
    "from_lengths": "tf.experimental.DynamicRaggedShape.from_lengths([2, (2, 1), 3])",
    "from_lengths_uniform": (
        "tf.experimental.DynamicRaggedShape.from_lengths([2, 3, (1, 0, 2, 1, 1, 0)])"
    ),
    "int32": "tf.shape(tf.ragged.constant([[1, 2], [3]]), out_type=tf.int32)",
}


def _shape(tf, expression):
    try:
        s = eval(expression, {"tf": tf})  # noqa: S307 - the test's own expression
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    ones = tf.ones(s, tf.int32)
    return {
        "repr": repr(s),
        "rank": s.rank,
        "num_row_partitions": s.num_row_partitions,
        "inner_shape": s.inner_shape,
        "dtype": s.dtype,
        "lengths": s.static_lengths(),
        "dim0": s[0],
        "uniform": [s.is_uniform(i) for i in range(s.rank)],
        "ones": _describe(tf, ones),
    }


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_dynamic_ragged_shape(tf_oracle, name):
    assert_parity(tf_oracle, _shape, (SHAPES[name],), helpers=[_describe])


PRINTED = [
    "tf.ragged.constant([[1, 2], [3]])",
    "tf.ragged.constant([[1.5, 2.0], [], [3.25]])",
    "tf.ragged.constant([[[1, 2], [3]], [[4]]])",
    "tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)",
    "tf.ragged.constant([[True], [False, True]])",
    "tf.ragged.constant([[1] * 20] * 3)",
    "tf.ragged.constant([[], []])",
    "tf.ragged.constant([[[]], []])",
    "tf.RaggedTensor.from_row_lengths(tf.zeros([0, 3]), [0, 0])",
    "tf.ragged.constant([[1, 2], [3]], dtype=tf.float64)",
]


def _printed(tf, expression):
    import numpy as np

    def plain(a):
        if isinstance(a, np.ndarray) and a.dtype == object:
            return [plain(v) for v in a]
        return a

    value = eval(expression, {"tf": tf})  # noqa: S307 - the test's own expression
    return repr(value), str(value), plain(value.numpy())


@pytest.mark.parametrize("expression", PRINTED)
def test_printed(tf_oracle, expression):
    assert_parity(tf_oracle, _printed, (expression,))


def _tensor_left_operand(tf):
    """A dense tensor on the left of a ragged one: TensorFlow's operator wrapper hands the
    operation to the ragged operand (ferroflow raised TypeError)."""
    rt = tf.ragged.constant([[1.0, 2.0], [3.0]])
    dense = tf.constant([[10.0], [20.0]])
    results = (dense + rt, dense * rt, dense - rt, dense / rt, dense**rt, dense < rt)
    results += (dense >= rt, dense == rt, dense != rt)
    out = [_describe(tf, v) for v in results]
    for thunk in (lambda: dense + object(), lambda: dense < "a"):
        try:
            out.append(_describe(tf, thunk()))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_tensor_left_operand(tf_oracle):
    assert_parity(tf_oracle, _tensor_left_operand, helpers=[_describe])


def _python_left_operands(tf):
    rt = tf.ragged.constant([[1.0, 2.0], [3.0]])
    return [_describe(tf, v) for v in (5.0 * rt, 1.0 - rt, 2.0**rt, 7.0 / rt, [[1.0], [2.0]] + rt)]


def test_python_left_operands(tf_oracle):
    assert_parity(tf_oracle, _python_left_operands, helpers=[_describe])


def _traced_partitions(tf, device):
    signature = [tf.TensorSpec([None], tf.int64), tf.TensorSpec([None], tf.float32)]

    @tf.function(input_signature=signature)
    def f(ids, values):
        rt = tf.RaggedTensor.from_value_rowids(values, ids, nrows=6)
        return (
            rt,
            tf.ragged.segment_ids_to_row_splits(ids, 7),
            tf.ragged.stack_dynamic_partitions(values, ids, 6),
            tf.reduce_max(rt, axis=0),
            rt.to_tensor(),
        )

    with tf.device(device):
        a = f(tf.constant([0, 0, 2, 2, 4], tf.int64), tf.constant([1.0, 2.0, 3.0, 4.0, 5.0]))
        b = f(tf.constant([], tf.int64), tf.constant([], tf.float32))
        c = f(tf.constant([5, 5, 5], tf.int64), tf.constant([7.0, 8.0, 9.0]))
    return [_describe(tf, list(out)) for out in (a, b, c)]


@pytest.mark.parametrize("device", DEVICES)
def test_partitions_from_traced_ids(tf_oracle, device):
    assert_parity(tf_oracle, _traced_partitions, (device,), helpers=[_describe])


def _shapes_through_functions(tf, device):
    """A DynamicRaggedShape is a composite value: returned from and passed to tf.function,
    flattened by tf.nest with expand_composites (TensorFlow's component order). Used to raise
    TypeError on return."""
    rt = tf.ragged.constant([[1, 2], [3]])

    @tf.function
    def shape_of(r):
        return tf.experimental.DynamicRaggedShape.from_tensor(r)

    @tf.function
    def use(s):
        return tf.ones(s), s[0], s.num_row_partitions

    @tf.function
    def of_traced(x):
        return tf.shape(tf.RaggedTensor.from_row_lengths(x, [1, 2]))

    with tf.device(device):
        outs = [shape_of(rt), use(tf.shape(rt)), shape_of(tf.ones([2, 3]))]
        outs += [of_traced(tf.constant([1.0, 2.0, 3.0]))]
    flat = [tf.nest.flatten(o, expand_composites=True) for o in outs]
    return [repr(o) for o in outs], flat


@pytest.mark.parametrize("device", DEVICES)
def test_dynamic_ragged_shape_through_functions(tf_oracle, device):
    assert_parity(tf_oracle, _shapes_through_functions, (device,))


@parity
def test_traced_ragged_equality_checks_dtypes_before_shapes(tf):
    """Traced, a ragged `==`/`!=` against a tensor of another dtype is TensorFlow's TypeError
    even where the shapes are incompatible too (ferroflow compared shapes first and answered
    True for `!=`); eagerly the mismatch is an incompatible comparison (False/True)."""
    r = tf.ragged.constant([[1, 2], [3]])
    out = []
    for fn in (
        lambda: r == tf.ragged.constant([[1.0, 2.0], [3.0]]),
        lambda: r != tf.constant([1.5, 2.0]),
        lambda: r == tf.constant([1.5, 2.0]),
        lambda: r == tf.ragged.constant([[1, 2], [3]]),
    ):
        for run in (fn, tf.function(fn)):
            try:
                value = run()
                out.append(value.to_list() if hasattr(value, "to_list") else value)
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
    return out
