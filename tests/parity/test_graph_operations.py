"""The `tf.Operation`s TensorFlow returns inside a `tf.function` for ops kept for their
effect (`no_op`, `group`, `print`, `Assert`, the `assert_*` family), None eagerly."""

import pytest

from .harness import assert_parity


def _operations(tf, traced):
    def body(x):
        ops = [
            tf.no_op(),
            tf.no_op(),
            tf.group(x),
            tf.group(x, name="grouped"),
            tf.print(x, output_stream="file:///dev/null"),
            tf.debugging.Assert(x > 0, [x]),
            tf.debugging.assert_positive(x),
            tf.debugging.assert_equal(1, 1),
        ]
        with tf.name_scope("scope"):
            ops.append(tf.no_op(name="named"))
        with tf.control_dependencies([op for op in ops if op is not None]):
            y = x + 1.0
        described = [None if op is None else (type(op).__name__, op.type) for op in ops]
        names = [None if op is None else op.name for op in ops[:5] + ops[-1:]]
        return described, names, y

    if not traced:
        return body(tf.constant(1.0))
    seen = []

    @tf.function
    def run(x):
        described, names, y = body(x)
        seen.append((described, names))
        return y

    return seen, run(tf.constant(1.0))


@pytest.mark.parametrize("traced", [False, True])
def test_effect_ops_return_operations_when_traced(tf_oracle, traced):
    assert_parity(tf_oracle, _operations, (traced,))


def _returned_operation(tf):
    @tf.function
    def f():
        return tf.no_op()

    try:
        f()
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        return type(error).__name__
    return "no error"


def test_returning_an_operation_from_a_function_raises(tf_oracle):
    assert_parity(tf_oracle, _returned_operation)
