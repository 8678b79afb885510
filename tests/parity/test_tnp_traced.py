"""`tf.experimental.numpy` inside `tf.function` and under `tf.GradientTape`, against TensorFlow:
the NumPy functions are compositions of ferroflow ops, so they trace and differentiate."""

import pytest

from .harness import assert_parity

EXPRESSIONS = [
    "tnp.sum(x * x, axis=0)",
    "tnp.mean(tnp.exp(x))",
    "tnp.matmul(x, tnp.transpose(x))",
    "tnp.dot(x, tnp.ones(3, dtype='float32'))",
    "tnp.where(x > 0, x, 0.5 * x)",
    "tnp.clip(x, -1.0, 1.0)",
    "tnp.logaddexp(x, 2 * x)",
    "tnp.tril(tnp.matmul(tnp.transpose(x), x))",
    "tnp.diagonal(tnp.matmul(tnp.transpose(x), x), 1)",
    "tnp.take_along_axis(x, tnp.array([[2, 0], [1, 1]]), 1)",
    "tnp.cumsum(x, axis=1)",
    "tnp.cumprod(x)",
    "tnp.var(x, axis=0)",
    "tnp.std(x)",
    "tnp.hypot(x, 2 * x)",
    "tnp.kron(x, x)",
    "tnp.cross(x, tnp.flip(x, 1))",
    "tnp.trace(tnp.matmul(tnp.transpose(x), x))",
    "tnp.average(x, axis=1, weights=tnp.array([1.0, 2.0, 3.0], dtype='float32'))",
    "tnp.einsum('ij,kj->ik', x, x)",
    "tnp.sinc(x)",
    "tnp.cbrt(x)",
    "tnp.take(x, [0, 4, 5])",
    "tnp.repeat(x, 2, axis=0)",
    "tnp.tile(x, (2, 1))",
    "tnp.moveaxis(tnp.reshape(x, (1, 2, 3)), 0, -1)",
    "tnp.pad(x, [[1, 0], [0, 1]], 'reflect')",
    "tnp.roll(x, 1)",
    "tnp.polyval(tnp.array([1.0, -2.0, 0.5], dtype='float32'), x)",
    "tnp.amax(x, axis=1)",
    "tnp.prod(x, axis=1)",
    "tnp.outer(x, x)",
    "tnp.vstack([x, x])",
    "tnp.diff(x, axis=1)",
    "tnp.nansum(x)",
    "tnp.sqrt(tnp.abs(x))",
    "tnp.arctan2(x, 2.0)",
    "tnp.power(tnp.abs(x), 1.5)",
    "tnp.select([x > 1, x < 0], [x, -x], 0.25)",
    "tnp.broadcast_to(tnp.sum(x, axis=0), (2, 3))",
    "tnp.linspace(0.0, 1.0, 3) * tnp.sum(x)",
]


def _traced_and_gradient(tf, expression, device):
    import numpy as np

    tnp = tf.experimental.numpy
    with tf.device(device):
        x = tf.constant(np.array([[0.5, -1.25, 2.0], [1.5, 0.75, -0.5]], np.float32))

        def f(x):
            return eval(expression, {"tnp": tnp, "x": x})

        traced = tf.function(f)(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tnp.sum(f(x))
        return traced, tape.gradient(y, x)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_tnp_traced_and_gradient(tf_oracle, expression, device):
    assert_parity(tf_oracle, _traced_and_gradient, (expression, device), rtol=2e-5, atol=2e-6)


DYNAMIC = [
    "tnp.diagonal(a)",
    "tnp.diagonal(a, 2)",
    "tnp.trace(a)",
    "tnp.tril(a)",
    "tnp.kron(a, a)",
    "tnp.take_along_axis(a, tf.zeros([3, 1], tf.int32), 1)",
    "tnp.diag(a)",
    "tnp.diag(a[0], 1)",
    "tnp.flip(a)",
    "tnp.rot90(a)",
    "tnp.atleast_3d(a)",
    "tnp.tile(a, 2)",
    "tnp.moveaxis(a, 0, 1)",
    "tnp.swapaxes(a, 0, 1)",
    "tnp.reshape(a, [-1])",
    "tnp.split(a, 2, axis=1)",
    "tnp.sum(a, axis=0)",
    "tnp.average(a, axis=0, returned=True)",
    "tnp.diff(a)",
    "tnp.vander(a[0])",
    "tnp.compress([True, False], a, axis=0)",
    "tnp.repeat(a, 2)",
    "tnp.size(a)",
    "tnp.hstack([a, a])",
    "tnp.var(a, ddof=1, axis=0, dtype='float32')",
    "tnp.count_nonzero(a)",
    "tnp.clip(a, tnp.zeros(4, dtype='float32'), 5.0)",
    "tnp.broadcast_arrays(a, a[0])",
    "tnp.nextafter(a, a[:1])",
    "tf.broadcast_dynamic_shape(tf.shape(a), tf.shape(a[0]))",
    "tf.broadcast_dynamic_shape(tf.shape(a), tf.shape(a[0, 1:]))",
]


def _dynamic_shapes(tf, expression):
    import numpy as np

    tnp = tf.experimental.numpy
    f = tf.function(
        lambda a: eval(expression, {"tf": tf, "tnp": tnp, "a": a}),
        input_signature=[tf.TensorSpec([None, None], tf.float32)],
    )
    return f(tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4)))


@pytest.mark.parametrize("expression", DYNAMIC)
def test_tnp_unknown_dimensions(tf_oracle, expression):
    assert_parity(tf_oracle, _dynamic_shapes, (expression,))
