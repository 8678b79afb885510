"""Keras 3's element-wise merge layers beside Add (Subtract, Multiply, Average, Maximum,
Minimum and their functional forms) against Keras under TensorFlow 2.21 on both devices:
values and gradients, rank broadcasting, symbolic shapes in a functional model, default names,
configs and errors."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _values(tf, device):
    import numpy as np

    rng = np.random.default_rng(11)
    a, b, c = (rng.normal(size=(2, 3, 4)).astype(np.float32) for _ in range(3))
    L = tf.keras.layers
    out = []
    with tf.device(device):
        ta, tb, tc = tf.constant(a), tf.constant(b), tf.constant(c)
        for layer in (L.Subtract(), L.Multiply(), L.Average(), L.Maximum(), L.Minimum()):
            inputs = [ta, tb] if isinstance(layer, L.Subtract) else [ta, tb, tc]
            with tf.GradientTape() as tape:
                tape.watch(inputs)
                y = layer(inputs)
                loss = tf.reduce_sum(y * y)
            out.append((y, tape.gradient(loss, inputs)))
        # A lower-rank input is broadcast after the batch axis.
        out.append(L.Multiply()([ta, tf.constant(a[:, :, 0])[:, :, None][:, :, 0:1]]))
        out.append(L.Average()([ta, tf.constant(b[:, 0:1, :])]))
        for fn in (L.subtract, L.multiply, L.average, L.maximum, L.minimum):
            out.append(fn([ta, tb]))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_values_and_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _values, (device,), rtol=1e-6, atol=1e-6)


def _model(tf):
    import numpy as np

    L = tf.keras.layers
    x1, x2 = tf.keras.Input((4,)), tf.keras.Input((4,))
    merged = [
        L.Subtract()([x1, x2]),
        L.Multiply()([x1, x2]),
        L.Average()([x1, x2]),
        L.Maximum()([x1, x2]),
        L.Minimum()([x1, x2]),
    ]
    model = tf.keras.Model([x1, x2], merged)
    data = [np.arange(8, dtype=np.float32).reshape(2, 4), np.ones((2, 4), np.float32)]
    out = [[tuple(t.shape) for t in merged], [layer.name for layer in model.layers[2:]]]
    out.append(model(data))
    out.append([layer.get_config()["name"] for layer in model.layers[2:]])
    out += error_classes(
        [
            lambda: L.Subtract()([x1, x2, x1]),
            lambda: L.Multiply()(x1),
            lambda: L.Maximum()([tf.keras.Input((3,)), tf.keras.Input((4,))]),
            lambda: L.Average()(
                [tf.keras.Input((4,), batch_size=2), tf.keras.Input((4,), batch_size=3)]
            ),
        ]
    )
    return out


def test_functional_model_names_and_errors(tf_oracle):
    assert_parity(tf_oracle, _model, rtol=1e-6, atol=1e-6, helpers=[error_classes])
