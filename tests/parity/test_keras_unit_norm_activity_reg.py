"""`UnitNormalization` and `ActivityRegularization` against Keras 3 under TensorFlow 2.21 on
both devices: values and gradients (zero slices included), the penalty in `layer.losses` and
in a `fit` history, configs, names and errors."""

import pytest

from ._outcomes import error_classes, output_and_gradient
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _values(tf, device):
    import numpy as np

    x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(2, 3, 4)
    x[1, 2] = 0.0
    L = tf.keras.layers
    out = []
    with tf.device(device):
        t = tf.constant(x)
        for layer in (
            L.UnitNormalization(),
            L.UnitNormalization(axis=1),
            L.UnitNormalization(axis=[1, 2]),
        ):
            out.append(output_and_gradient(tf, layer, t))
        reg = L.ActivityRegularization(l1=0.1, l2=0.01)
        y = reg(t)
        out.append((y, [float(v) for v in reg.losses]))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_values_gradients_and_penalty(tf_oracle, device):
    assert_parity(
        tf_oracle, _values, (device,), rtol=1e-5, atol=1e-6, helpers=[output_and_gradient]
    )


def _fit(tf, device):
    import numpy as np

    rng = np.random.default_rng(2)
    x = rng.normal(size=(16, 3)).astype(np.float32)
    y = rng.normal(size=(16, 2)).astype(np.float32)
    with tf.device(device):
        model = tf.keras.Sequential(
            [
                tf.keras.Input((3,)),
                tf.keras.layers.Dense(2, kernel_initializer="ones"),
                tf.keras.layers.ActivityRegularization(l2=0.5),
                tf.keras.layers.UnitNormalization(),
            ]
        )
        model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
        history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    return history.history["loss"], model.get_weights()


@pytest.mark.parametrize("device", DEVICES)
def test_fit_adds_the_penalty(tf_oracle, device):
    assert_parity(tf_oracle, _fit, (device,), rtol=1e-5, atol=1e-6)


def _configs_errors(tf):
    L = tf.keras.layers
    out = []
    for layer in (L.UnitNormalization((1, 2)), L.ActivityRegularization(0.2, 0.3)):
        config = layer.get_config()
        config.pop("dtype", None)
        out.append((layer.name, config))
    out.append(tuple(L.UnitNormalization()(tf.keras.Input((4, 5))).shape))
    out += error_classes(
        [
            lambda: L.UnitNormalization(axis="last"),
            lambda: L.UnitNormalization(axis=3)(tf.keras.Input((4, 5))),
            lambda: L.ActivityRegularization(l1=-1.0),
        ]
    )
    return out


def test_configs_names_and_errors(tf_oracle):
    assert_parity(tf_oracle, _configs_errors, rtol=0, atol=0, helpers=[error_classes])
