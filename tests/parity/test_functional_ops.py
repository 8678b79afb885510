"""`tf.map_fn`, `tf.scan`, `tf.foldl`, `tf.foldr` against TensorFlow: values, structures and
gradients, eagerly and traced with a static leading size."""

import pytest

from .harness import assert_parity

CASES = {
    "map_square": "tf.map_fn(lambda v: v * v, x)",
    "map_reduce": "tf.map_fn(tf.reduce_sum, x)",
    "map_signature": (
        "tf.map_fn(lambda v: tf.cast(v > 0.5, tf.int32), x, fn_output_signature=tf.int32)"
    ),
    "map_nested": "tf.map_fn(lambda t: (t[0] + t[1], t[0] * 2.0), (x, x * 3.0))",
    "map_dict": (
        "tf.map_fn(lambda d: d['a'] - d['b'], {'a': x, 'b': x[::-1]}, "
        "fn_output_signature=tf.float32)"
    ),
    "scan": "tf.scan(lambda a, v: a + v, x)",
    "scan_init": "tf.scan(lambda a, v: a * 0.5 + v, x, initializer=tf.zeros([3]))",
    "scan_reverse": "tf.scan(lambda a, v: a + v, x, reverse=True)",
    "foldl": "tf.foldl(lambda a, v: a * 2.0 + v, x)",
    "foldr": "tf.foldr(lambda a, v: a * 2.0 + v, x)",
    "foldl_init": "tf.foldl(lambda a, v: a + tf.reduce_sum(v), x, initializer=1.0)",
    "foldr_empty": "tf.foldr(lambda a, v: a + v, x[:0])",
    "map_scalar": "tf.map_fn(lambda v: v, tf.constant(1.0))",
}


def _run(tf, expression, traced):
    def body(x):
        return eval(expression, {"tf": tf, "x": x})  # noqa: S307 - the test's own expression

    x = tf.reshape(tf.range(12.0) / 10.0, [4, 3])
    try:
        return (tf.function(body) if traced else body)(x)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_functional(tf_oracle, name, traced):
    assert_parity(tf_oracle, _run, (CASES[name], traced))


def _gradient(tf, traced):
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.scan(lambda a, v: a * v, x)) + tf.reduce_sum(
                tf.map_fn(lambda v: tf.sin(v) * v, x)
            )
        return tape.gradient(y, x)

    x = tf.reshape(tf.range(1.0, 7.0) / 4.0, [3, 2])
    return (tf.function(grad) if traced else grad)(x)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_functional_gradient(tf_oracle, traced):
    assert_parity(tf_oracle, _gradient, (traced,))
