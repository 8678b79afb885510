"""`tf.debugging`'s assertions against TensorFlow: eagerly, inside a `tf.function` on traced
values (an Assert node that raises when the graph runs, every call), and with values known
while tracing. Exception classes and results are compared."""

import pytest

from .harness import assert_parity, evaluated

# name -> (assertion over x and y, [(x, y) calls]): x and y are function arguments when traced.
BINARY = {
    "equal": ("tf.debugging.assert_equal(x, y)", [([1, 2], [1, 2]), ([1, 2], [1, 3])]),
    "equal_broadcast": ("tf.debugging.assert_equal(x, y)", [([2, 2], [2]), ([2, 2], [3])]),
    "none_equal": ("tf.debugging.assert_none_equal(x, y)", [([1, 2], [3, 4]), ([1, 2], [1, 0])]),
    "less": ("tf.debugging.assert_less(x, y)", [([1, 2], [2, 3]), ([1, 2], [2, 2])]),
    "less_equal": ("tf.debugging.assert_less_equal(x, y)", [([1, 2], [1, 2]), ([3], [2])]),
    "greater": ("tf.debugging.assert_greater(x, y)", [([3, 4], [2, 3]), ([3, 4], [3, 3])]),
    "greater_equal": ("tf.debugging.assert_greater_equal(x, y)", [([3], [3]), ([2], [3])]),
    "near": ("tf.debugging.assert_near(x, y)", [([1.0], [1.0]), ([1.0], [1.001])]),
    "near_tolerance": (
        "tf.debugging.assert_near(x, y, rtol=0.01, atol=0.0)",
        [([1.0, 2.0], [1.005, 2.01]), ([1.0], [1.1])],
    ),
    "top_level_equal": ("tf.assert_equal(x, y)", [([0.5], [0.5]), ([0.5], [0.25])]),
    "top_level_less": ("tf.assert_less(x, y)", [([0], [1]), ([1], [1])]),
    "top_level_greater": ("tf.assert_greater(x, y)", [([2], [1]), ([1], [1])]),
}

UNARY = {
    "positive": ("tf.debugging.assert_positive(x)", [[1.0, 2.0], [1.0, 0.0]]),
    "negative": ("tf.debugging.assert_negative(x)", [[-1, -2], [-1, 0]]),
    "non_negative": ("tf.debugging.assert_non_negative(x)", [[0.0, 2.0], [-0.5]]),
    "non_positive": ("tf.debugging.assert_non_positive(x)", [[0, -2], [1]]),
    "check_numerics": ("tf.debugging.check_numerics(x, 'boom')", [[1.0], [float("nan")]]),
    "check_numerics_inf": ("tf.debugging.check_numerics(x, 'boom')", [[1.0], [float("inf")]]),
    "all_finite": ("tf.debugging.assert_all_finite(x, 'boom')", [[1.0], [float("-inf")]]),
    "assert_op": ("tf.debugging.Assert(tf.reduce_all(x > 0), [x])", [[1.0], [-1.0, 2.0]]),
    "assert_top_level": ("tf.Assert(x[0] > 0, ['first', x], summarize=2)", [[1.0], [-1.0]]),
    "is_non_decreasing": ("tf.math.is_non_decreasing(x)", [[1, 2, 2], [3, 1]]),
    "is_strictly_increasing": ("tf.math.is_strictly_increasing(x)", [[1, 2, 3], [1, 1]]),
}

STATIC = {
    "rank_ok": "tf.debugging.assert_rank(tf.ones([2, 3]), 2)",
    "rank_bad": "tf.debugging.assert_rank(tf.ones([2, 3]), 3)",
    "top_level_rank": "tf.assert_rank(tf.ones([2]), 2)",
    "rank_at_least": "tf.debugging.assert_rank_at_least(tf.ones([2, 3]), 3)",
    "rank_in": "tf.debugging.assert_rank_in(tf.ones([2, 3]), [0, 2])",
    "rank_in_bad": "tf.debugging.assert_rank_in(tf.ones([2, 3]), [0, 1])",
    "scalar": "tf.debugging.assert_scalar(tf.constant(1.5))",
    "scalar_bad": "tf.debugging.assert_scalar(tf.constant([1.5]))",
    "type_ok": "tf.debugging.assert_type(tf.constant([1]), tf.int32)",
    "type_bad": "tf.debugging.assert_type(tf.constant([1.0]), tf.int32)",
    "integer_bad": "tf.debugging.assert_integer(tf.constant([1.0]))",
    "proper_iterable": "tf.debugging.assert_proper_iterable([1, 2])",
    "proper_iterable_bad": "tf.debugging.assert_proper_iterable(tf.constant([1]))",
    "same_float_dtype": "tf.debugging.assert_same_float_dtype([tf.ones([1]), tf.ones([2])])",
    "same_float_dtype_bad": (
        "tf.debugging.assert_same_float_dtype([tf.ones([1]), tf.ones([1], tf.float64)])"
    ),
    "same_float_int": "tf.debugging.assert_same_float_dtype([tf.constant([1])])",
    "is_numeric": (
        "(tf.debugging.is_numeric_tensor(tf.ones([1])), tf.debugging.is_numeric_tensor(3))"
    ),
    "shapes_ok": (
        "tf.debugging.assert_shapes([(tf.ones([2, 3]), ('N', 'K')), (tf.ones([3]), ('K',))])"
    ),
    "shapes_bad": (
        "tf.debugging.assert_shapes([(tf.ones([2, 3]), ('N', 'K')), (tf.ones([2]), ('K',))])"
    ),
    "shapes_rank": "tf.debugging.assert_shapes([(tf.ones([2, 3]), ('N',))])",
    "shapes_int": "tf.debugging.assert_shapes([(tf.ones([2, 3]), (2, 4))])",
}


def _binary(tf, expression, calls, traced):
    def check(x, y):
        eval(expression, {"tf": tf, "x": x, "y": y})  # noqa: S307 - the test's own expression
        # An assertion returns None eagerly and an Operation in a graph: only its effect counts.
        return tf.constant(0)

    fn = tf.function(check) if traced else check
    out = []
    for x, y in calls:
        try:
            out.append(fn(tf.constant(x), tf.constant(y)))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_assertion(tf_oracle, name, traced):
    expression, calls = BINARY[name]
    assert_parity(tf_oracle, _binary, (expression, calls, traced))


def _unary(tf, expression, calls, traced):
    def check(x):
        result = eval(expression, {"tf": tf, "x": x})  # noqa: S307 - the test's own expression
        # An assertion returns None eagerly and an Operation in a graph: only its effect counts.
        return result if isinstance(result, tf.Tensor) else tf.constant(0)

    fn = tf.function(check) if traced else check
    out = []
    for x in calls:
        try:
            out.append(fn(tf.constant(x)))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_assertion(tf_oracle, name, traced):
    expression, calls = UNARY[name]
    assert_parity(tf_oracle, _unary, (expression, calls, traced))


@pytest.mark.parametrize("name", sorted(STATIC))
def test_static_check(tf_oracle, name):
    assert_parity(tf_oracle, evaluated, (STATIC[name],))


def _constant_failure_while_tracing(tf):
    # Values known while tracing are checked then: the trace itself raises.
    @tf.function
    def f():
        tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]))
        return tf.constant(1)

    try:
        return f()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def test_a_failure_known_while_tracing(tf_oracle):
    assert_parity(tf_oracle, _constant_failure_while_tracing)


def _assert_in_loop(tf):
    # An Assert inside a staged loop body runs on every iteration.
    @tf.function
    def f(n):
        i = tf.constant(0)
        while i < n:
            tf.debugging.assert_less(i, 3)
            i += 1
        return i

    out = []
    for n in (2, 3, 5):
        try:
            out.append(f(tf.constant(n)))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_an_assert_in_a_loop_body(tf_oracle):
    assert_parity(tf_oracle, _assert_in_loop)
