"""Dtype errors of ops inside a tf.function against TensorFlow: inputs whose dtypes disagree
and dtypes an op refuses raise TypeError while the graph is built (TensorFlow's op-definition
check), InvalidArgumentError eagerly. ferroflow's traced shape rules raised ValueError for
them."""

import pytest

from .harness import assert_parity

CASES = [
    "x + y",
    "tf.add(x, y)",
    "tf.matmul(tf.reshape(x, [1, 2]), tf.reshape(y, [2, 1]))",
    "tf.concat([x, y], 0)",
    "tf.maximum(x, y)",
    "tf.where(x > 1.0, x, y)",
    "x * y",
    "tf.stack([x, y])",
    "tf.equal(x, y)",
    "tf.math.squared_difference(x, y)",
    "tf.sin(y)",
    "tf.math.log(y)",
    "tf.nn.relu(tf.constant([True]))",
    "tf.matmul(tf.constant([[True]]), tf.constant([[True]]))",
]


def _errors(tf, traced, cases):
    x, y = tf.constant([1.0, 2.0]), tf.constant([1, 2])
    out = []
    for expression in cases:

        def run(x, y, expression=expression):
            return eval(expression, {"tf": tf, "x": x, "y": y})  # noqa: S307 - test's own

        try:
            out.append((tf.function(run) if traced else run)(x, y))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("traced", [False, True])
def test_dtype_errors(tf_oracle, traced):
    assert_parity(tf_oracle, _errors, (traced, CASES))
