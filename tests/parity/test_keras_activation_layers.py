"""Keras 3's activation layers (ReLU, LeakyReLU, ELU, Softmax, Identity) against Keras under
TensorFlow 2.21 on both devices: outputs and gradients, Softmax's masks and multi-axis form,
configs, argument errors, default names, and a functional model saved and reloaded."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _outputs(tf, device):
    import numpy as np

    x = np.linspace(-4, 8, 24, dtype=np.float32).reshape(2, 3, 4)
    L = tf.keras.layers
    layers = [
        L.ReLU(),
        L.ReLU(max_value=5.0),
        L.ReLU(negative_slope=0.1, threshold=1.0),
        L.ReLU(max_value=6.0, negative_slope=0.5, threshold=0.5),
        L.LeakyReLU(),
        L.LeakyReLU(negative_slope=0.05),
        L.ELU(),
        L.ELU(alpha=0.5),
        L.Softmax(),
        L.Softmax(axis=1),
        L.Softmax(axis=[1, 2]),
        L.Softmax(axis=(2,)),
        L.Identity(),
    ]
    out = []
    with tf.device(device):
        t = tf.constant(x)
        for layer in layers:
            with tf.GradientTape() as tape:
                tape.watch(t)
                y = layer(t)
                loss = tf.reduce_sum(y * y)
            out.append((y, tape.gradient(loss, t)))
        mask = np.array([[1, 1, 0, 1], [0, 0, 0, 0], [1, 0, 1, 1]], bool)
        out.append(L.Softmax()(t, mask=mask))
        out.append(L.Softmax()(t, mask=mask.astype(np.float32) * 0.7))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_outputs_and_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _outputs, (device,), rtol=1e-5, atol=1e-6)


def _configs_and_errors(tf):
    L = tf.keras.layers
    out = []
    for layer in (
        L.ReLU(max_value=2.0, negative_slope=0.1),
        L.LeakyReLU(0.2),
        L.ELU(0.7),
        L.Softmax(axis=[1, 2]),
        L.Identity(),
    ):
        config = layer.get_config()
        config.pop("dtype", None)
        back = type(layer).from_config(layer.get_config())
        out.append(
            (type(layer).__name__, layer.name, config, back.get_config() == layer.get_config())
        )
    out += error_classes(
        [
            lambda: L.ReLU(max_value=-1.0),
            lambda: L.ReLU(negative_slope=None),
            lambda: L.ReLU(threshold=-0.5),
            lambda: L.LeakyReLU(negative_slope=-0.1),
            lambda: L.Softmax()(tf.ones((2, 3)), mask=tf.ones((2, 2), tf.bool)),
            lambda: L.Softmax()(tf.ones((2, 3)), mask=tf.ones((1, 2, 3), tf.bool)),
        ]
    )
    out.append(L.LeakyReLU(alpha=0.25).negative_slope)
    return out


def test_configs_names_and_errors(tf_oracle):
    assert_parity(tf_oracle, _configs_and_errors, rtol=0, atol=0, helpers=[error_classes])


def _saved_model_round_trip(tf, path):
    import numpy as np

    inputs = tf.keras.Input((4,))
    h = tf.keras.layers.Dense(5, kernel_initializer="ones")(inputs)
    h = tf.keras.layers.LeakyReLU(0.1)(h)
    h = tf.keras.layers.ReLU(max_value=3.0)(h)
    h = tf.keras.layers.ELU()(h)
    outputs = tf.keras.layers.Softmax()(tf.keras.layers.Identity()(h))
    model = tf.keras.Model(inputs, outputs)
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    x = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)
    return [layer.name for layer in loaded.layers], loaded(x), model(x)


def test_keras_file_round_trip(tf_oracle, tmp_path):
    assert_parity(
        tf_oracle,
        _saved_model_round_trip,
        (str(tmp_path / "model.keras"),),
        rtol=1e-6,
        atol=1e-7,
    )
