"""`tf.test` against TensorFlow: which of TestCase's assertions pass or fail on the same
values, what `evaluate` and `compute_gradient` return, and the build queries."""

from .harness import assert_parity


def _assertions(tf):
    class Case(tf.test.TestCase):
        def runTest(self):  # noqa: N802 - unittest's name
            pass

    case = Case()
    case.setUp()
    ints, floats = tf.constant([1, 2]), tf.constant([1.0, 2.0])

    def raises_op_error():
        with case.assertRaisesOpError("Incompatible|must be broadcastable"):
            tf.constant([1.0, 2.0]) + tf.constant([1.0, 2.0, 3.0])

    def raises_other():
        with case.assertRaisesOpError("anything"):
            raise ValueError("not an op error")

    checks = {
        "close": lambda: case.assertAllClose([1.0, 2.0], floats + 1e-8),
        "close_bad": lambda: case.assertAllClose([1.0], [1.1]),
        "close_tolerance": lambda: case.assertAllClose([1.0], [1.1], rtol=0.2),
        "close_nested": lambda: case.assertAllClose(
            {"a": floats, "b": [tf.constant(2.0)]}, {"a": [1.0, 2.0], "b": [2.0]}
        ),
        "close_nested_bad": lambda: case.assertAllClose({"a": floats}, {"a": [1.0, 3.0]}),
        "close_shape": lambda: case.assertAllClose([1.0, 2.0], [1.0, 2.0, 3.0]),
        "close_by_type": lambda: case.assertAllCloseAccordingToType(
            tf.constant([1.0], tf.float16), [1.0005]
        ),
        "not_close": lambda: case.assertNotAllClose([1.0], [2.0]),
        "not_close_bad": lambda: case.assertNotAllClose([1.0], [1.0]),
        "equal": lambda: case.assertAllEqual(ints, [1, 2]),
        "equal_bad": lambda: case.assertAllEqual(ints, [1, 3]),
        "equal_shape": lambda: case.assertAllEqual([1, 2], [[1, 2], [1, 2]]),
        "not_equal": lambda: case.assertNotAllEqual(ints, [1, 3]),
        "near": lambda: case.assertNear(1.0, 1.05, 0.1),
        "near_bad": lambda: case.assertNear(1.0, 1.5, 0.1),
        "array_near": lambda: case.assertArrayNear([1.0, 2.0], [1.01, 2.0], 0.1),
        "in_range": lambda: case.assertAllInRange(floats, 1.0, 2.0),
        "in_range_open": lambda: case.assertAllInRange(floats, 1.0, 2.0, open_upper_bound=True),
        "in_set": lambda: case.assertAllInSet(ints, [1, 2, 3]),
        "in_set_bad": lambda: case.assertAllInSet(ints, [1]),
        "greater": lambda: case.assertAllGreater(floats, 0.5),
        "greater_bad": lambda: case.assertAllGreater(floats, 1.0),
        "less_equal": lambda: case.assertAllLessEqual(floats, 2.0),
        "shape_equal": lambda: case.assertShapeEqual(np_ones(), tf.ones([2, 3])),
        "dtype_equal": lambda: case.assertDTypeEqual(floats, tf.float32),
        "dtype_equal_bad": lambda: case.assertDTypeEqual(ints, tf.float32),
        "raises_op_error": raises_op_error,
        "raises_other": raises_other,
        "evaluate": lambda: case.evaluate({"a": ints, "b": [floats * 2.0]}),
        "cuda": lambda: (tf.test.is_built_with_cuda(), tf.test.is_built_with_rocm()),
    }

    def np_ones():
        import numpy as np

        return np.ones([2, 3])

    out = {}
    for name, check in checks.items():
        try:
            result = check()
            out[name] = "passed" if result is None else result
        except AssertionError:
            out[name] = "AssertionError"
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out[name] = type(e).__name__
    return out


def test_test_case_assertions(tf_oracle):
    assert_parity(tf_oracle, _assertions)


def _jacobians(tf):
    def f(x, y):
        return tf.reduce_sum(x * x, 0) * y

    x = tf.constant([[1.0, 2.0], [3.0, -1.0]], tf.float64)
    y = tf.constant([0.5, 2.0], tf.float64)
    theoretical, numerical = tf.test.compute_gradient(f, [x, y])
    return [list(theoretical), list(numerical)]


def test_compute_gradient(tf_oracle):
    assert_parity(tf_oracle, _jacobians)
