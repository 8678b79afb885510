"""`keras.ops` core ops against Keras 3 under TensorFlow 2.21: conversions and casts, shapes,
control flow (cond, while_loop, fori_loop, scan, associative_scan, map, switch,
vectorized_map) eagerly and traced, scatters and slices, custom gradients, stop_gradient and
jvp, on both devices."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _conversions(tf, device):
    import numpy as np

    ops = tf.keras.ops
    with tf.device(device):
        x = tf.constant([[1.5, -2.7], [300.0, -400.0]])
        n = ops.convert_to_numpy(x)
        return (
            ops.convert_to_tensor([1, 2]),
            ops.convert_to_tensor([1.7, -2.2], dtype="int32"),
            ops.convert_to_tensor(np.array([1, 0]), dtype="bool"),
            ops.convert_to_tensor(x, dtype="float16"),
            ops.convert_to_tensor(3.5),
            type(n).__name__,
            n,
            ops.is_tensor(x),
            ops.is_tensor(n),
            ops.dtype(x),
            ops.dtype(tf.constant([1], tf.uint8)),
            ops.shape(x),
            ops.shape(np.zeros((2, 0, 3))),
            ops.cast(x, "int32"),
            ops.cast(x, tf.bool),
            ops.saturate_cast(x, "uint8"),
            ops.saturate_cast(x, "int8"),
            ops.saturate_cast(tf.constant([70000, -5], tf.int32), "int16"),
            ops.saturate_cast(x, "float16"),
            ops.unstack(x),
            ops.unstack(x, axis=1),
            ops.stop_gradient(x),
            error_classes([lambda: ops.cast(x, "nonsense"), lambda: ops.vectorize(ops.sin)(x)]),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_conversions(tf_oracle, device):
    assert_parity(tf_oracle, _conversions, (device,), helpers=[error_classes])


def _control_flow(tf, device):
    ops = tf.keras.ops

    def run(x):
        add = lambda a, b: a + b  # noqa: E731
        return (
            ops.cond(ops.sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0),
            ops.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + x), (0, ops.zeros_like(x))),
            ops.while_loop(lambda v: ops.sum(v) < 100.0, lambda v: v * 2.0, x + 1.0),
            ops.while_loop(
                lambda i, s: True, lambda i, s: (i + 1, s * 1.5), [0, x], maximum_iterations=3
            ),
            ops.fori_loop(0, 4, lambda i, v: v + ops.cast(i, "float32"), x),
            ops.scan(lambda c, v: (c + v, c * v), ops.zeros((3,)), ops.reshape(x, (2, 3))),
            ops.scan(lambda c, v: (c + v, c), 0.0, ops.reshape(x, (6,)), reverse=True),
            ops.scan(lambda c, v: (c * 2.0, c), ops.ones((2,)), None, length=3),
            ops.scan(
                lambda c, v: ((c[0] + v["a"], c[1] * 2.0), c[0]),
                (ops.zeros((3,)), ops.ones(())),
                {"a": ops.reshape(x, (2, 3))},
            ),
            ops.associative_scan(add, ops.reshape(x, (6,))),
            ops.associative_scan(add, ops.reshape(x, (2, 3)), axis=1, reverse=True),
            ops.associative_scan(
                lambda a, b: (a[0] * b[0], a[1] + b[1]),
                (ops.arange(1.0, 8.0), ops.arange(7.0)),
            ),
            ops.associative_scan(ops.maximum, ops.reshape(ops.concatenate([x, -x]), (12,))),
            ops.map(lambda v: v * ops.sum(v), ops.reshape(x, (2, 3))),
            ops.map(lambda d: d["a"] + d["b"], {"a": x[:2], "b": x[2:4]}),
            ops.switch(1, [lambda v: v + 1.0, lambda v: v * 10.0], x),
            ops.switch(7, [lambda v: v + 1.0, lambda v: v * 10.0], x),
            ops.switch(-1, [lambda v, w: v + w, lambda v, w: v - w], x, x),
            ops.vectorized_map(lambda v: ops.sum(v * v), ops.reshape(x, (3, 2))),
            ops.vectorize(lambda a, b: a * b + 1.0)(x[:1][None], 2.0),
        )

    with tf.device(device):
        x = tf.constant([1.0, -2.0, 3.0, 0.5, 2.0, -1.0])
        return run(x), tf.function(run)(x)


@pytest.mark.parametrize("device", DEVICES)
def test_control_flow(tf_oracle, device):
    assert_parity(tf_oracle, _control_flow, (device,))


def _updates(tf, device):
    ops = tf.keras.ops
    with tf.device(device):
        base = tf.reshape(tf.range(12, dtype=tf.float32), (3, 4))
        idx = tf.constant([[0, 1], [2, 3], [0, 1]])
        upd = tf.constant([10.0, 20.0, 5.0])
        return (
            ops.scatter(tf.constant([[1], [3], [1]]), tf.constant([1.0, 2.0, 3.0]), (5,)),
            ops.scatter(idx, upd, (3, 4)),
            ops.scatter_update(base, idx[:2], upd[:2]),
            ops.scatter_update(base, idx, upd, reduction="add"),
            ops.scatter_update(base, idx, upd, reduction="MAX"),
            ops.scatter_update(base, idx, upd, reduction="min"),
            ops.scatter_update(base, idx, upd, reduction="mul"),
            ops.scatter_update(base, tf.constant([[1]]), tf.constant([[7.0, 7.0, 7.0, 7.0]])),
            ops.slice(base, (1, 1), (2, 2)),
            ops.slice(base, tf.constant([0, 2]), (3, 1)),
            ops.slice_update(base, (1, 2), tf.ones((2, 2))),
            ops.slice_update(base, (2, 3), tf.ones((2, 2))),
            ops.slice_update(tf.range(5), (1,), tf.constant([9, 9])),
            error_classes([lambda: ops.scatter_update(base, idx, upd, reduction="avg")]),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_scatters_and_slices(tf_oracle, device):
    assert_parity(tf_oracle, _updates, (device,), helpers=[error_classes])


def _gradients(tf, device):
    ops = tf.keras.ops

    @ops.custom_gradient
    def clipped(x):
        def grad(*args, upstream=None):
            up = args[0] if args else upstream
            return ops.clip(up, -0.5, 0.5)

        return x * 3.0, grad

    with tf.device(device):
        x = tf.constant([1.0, -2.0, 4.0])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            a = ops.sum(clipped(x) * x)
            b = ops.sum(ops.stop_gradient(x * x) * x)
            c = ops.sum(ops.scan(lambda s, v: (s * v, s), 1.0, x)[1])
            e = ops.sum(ops.associative_scan(lambda p, q: p * q, x))
        grads = [tape.gradient(t, x) for t in (a, b, c, e)]
        primal, tangent = ops.jvp(lambda v: ops.sin(v) * v, (x,), (tf.ones_like(x),))
        p2, t2, aux = ops.jvp(lambda v: (v * v, v + 1.0), (x,), (x,), has_aux=True)
        return grads, primal, tangent, p2, t2, aux


@pytest.mark.parametrize("device", DEVICES)
def test_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _gradients, (device,))


def _functional(tf, device):
    import numpy as np

    ops = tf.keras.ops
    with tf.device(device):
        inp = tf.keras.Input((3,))
        ints = tf.keras.Input((3,), dtype="int32")
        y = ops.relu(ops.add(inp, 1.0))
        z = ops.concatenate([y, ops.cast(ints, "float32")], axis=-1)
        s = ops.sum(ops.divide(z, 2), axis=-1)
        t = ops.mean(ints, axis=-1)
        u = ops.matmul(ops.expand_dims(inp, -1), ops.expand_dims(inp, 1))
        v = ops.softmax(ops.reshape(u, (-1, 9)))
        w = ops.argmax(v, axis=-1)
        model = tf.keras.Model([inp, ints], [s, t, u, v, w])
        data = [np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), np.arange(6).reshape(2, 3)]
        return (
            [(k.shape, k.dtype) for k in (y, z, s, t, u, v, w)],
            model(data),
            [layer.name for layer in model.layers],
        )


@pytest.mark.parametrize("device", DEVICES)
def test_functional_model(tf_oracle, device):
    assert_parity(tf_oracle, _functional, (device,))
