"""`ZeroPadding1D/2D/3D` against Keras 3 under TensorFlow 2.21 on both devices: every argument
form, both data formats, gradients, symbolic shapes, configs and argument errors."""

import pytest

from ._outcomes import error_classes, output_and_gradient
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _values(tf, device):
    import numpy as np

    L = tf.keras.layers
    cases = [
        (L.ZeroPadding1D(), (2, 3, 2)),
        (L.ZeroPadding1D((0, 2)), (2, 3, 2)),
        (L.ZeroPadding1D(2, data_format="channels_first"), (2, 3, 2)),
        (L.ZeroPadding2D(), (1, 2, 3, 2)),
        (L.ZeroPadding2D(2), (1, 2, 3, 2)),
        (L.ZeroPadding2D((1, 0)), (1, 2, 3, 2)),
        (L.ZeroPadding2D(((0, 1), (2, 3)), data_format="channels_first"), (1, 2, 3, 2)),
        (L.ZeroPadding3D(), (1, 2, 2, 2, 1)),
        (L.ZeroPadding3D((1, 0, 2)), (1, 2, 2, 2, 1)),
        (L.ZeroPadding3D(((0, 1), (1, 0), (0, 0)), data_format="channels_first"), (1, 2, 2, 2, 2)),
    ]
    out = []
    with tf.device(device):
        for layer, shape in cases:
            t = tf.constant(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 1)
            out.append(output_and_gradient(tf, layer, t))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_values_and_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _values, (device,), rtol=0, atol=0, helpers=[output_and_gradient])


def _shapes_configs_errors(tf):
    L = tf.keras.layers
    out = [
        tuple(L.ZeroPadding1D(3)(tf.keras.Input((None, 4))).shape),
        tuple(L.ZeroPadding2D(((1, 2), (3, 4)))(tf.keras.Input((5, 6, 3))).shape),
        tuple(L.ZeroPadding3D(1, data_format="channels_first")(tf.keras.Input((2, 3, 4, 5))).shape),
    ]
    for layer in (L.ZeroPadding1D((1, 2)), L.ZeroPadding2D(1), L.ZeroPadding3D((1, 2, 3))):
        config = layer.get_config()
        config.pop("dtype", None)
        out.append((layer.name, config))
    out += error_classes(
        [
            lambda: L.ZeroPadding1D((1, 2, 3)),
            lambda: L.ZeroPadding1D(-1),
            lambda: L.ZeroPadding2D((1, 2, 3)),
            lambda: L.ZeroPadding2D(1.5),
            lambda: L.ZeroPadding2D(((1, 2), (1, -2))),
            lambda: L.ZeroPadding3D((1, 2)),
            lambda: L.ZeroPadding2D(data_format="channels_middle"),
            lambda: L.ZeroPadding2D()(tf.ones((2, 3, 4))),
        ]
    )
    return out


def test_shapes_configs_and_errors(tf_oracle):
    assert_parity(tf_oracle, _shapes_configs_errors, rtol=0, atol=0, helpers=[error_classes])
