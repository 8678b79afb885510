"""`RepeatVector` and `Permute` against Keras 3 under TensorFlow 2.21 on both devices: values
and gradients, symbolic shapes, configs, and argument and input-rank errors."""

import pytest

from ._outcomes import error_classes, output_and_gradient
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _values(tf, device):
    import numpy as np

    x2 = np.arange(6, dtype=np.float32).reshape(2, 3)
    x4 = np.arange(48, dtype=np.float32).reshape(2, 3, 4, 2)
    L = tf.keras.layers
    out = []
    with tf.device(device):
        for layer, x in (
            (L.RepeatVector(3), x2),
            (L.Permute((2, 1, 3)), x4),
            (L.Permute((3, 2, 1)), x4),
            (L.Permute([1, 2, 3]), x4),
        ):
            out.append(output_and_gradient(tf, layer, tf.constant(x)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_values_and_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _values, (device,), rtol=0, atol=0, helpers=[output_and_gradient])


def _shapes_configs_errors(tf):
    L = tf.keras.layers
    out = [
        tuple(L.RepeatVector(4)(tf.keras.Input((5,))).shape),
        tuple(L.Permute((2, 1))(tf.keras.Input((3, 7))).shape),
    ]
    for layer in (L.RepeatVector(2), L.Permute((2, 1))):
        config = layer.get_config()
        config.pop("dtype", None)
        out.append((layer.name, config))
    out += error_classes(
        [
            lambda: L.RepeatVector(2.5),
            lambda: L.RepeatVector(True),
            lambda: L.RepeatVector(0),
            lambda: L.Permute((0, 1)),
            lambda: L.Permute((1, 3)),
            lambda: L.RepeatVector(2)(tf.ones((2, 3, 4))),
            lambda: L.Permute((2, 1))(tf.ones((2, 3))),
        ]
    )
    return out


def test_shapes_configs_and_errors(tf_oracle):
    assert_parity(tf_oracle, _shapes_configs_errors, rtol=0, atol=0, helpers=[error_classes])
