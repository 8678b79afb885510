"""`UpSampling1D/2D/3D` against Keras 3 under TensorFlow 2.21 on both devices: factors per axis,
both data formats, UpSampling2D's interpolations, gradients, symbolic shapes, configs, names
and errors."""

import pytest

from ._outcomes import error_classes, output_and_gradient
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _values(tf, device):
    import numpy as np

    L = tf.keras.layers
    cases = [
        (L.UpSampling1D(), (2, 3, 2)),
        (L.UpSampling1D(3), (2, 3, 2)),
        (L.UpSampling2D(), (1, 2, 3, 2)),
        (L.UpSampling2D((1, 3), data_format="channels_first"), (1, 2, 3, 2)),
        (L.UpSampling2D(2, interpolation="bilinear"), (1, 3, 4, 2)),
        (L.UpSampling2D((2, 3), interpolation="bicubic"), (1, 3, 4, 1)),
        (L.UpSampling2D(2, interpolation="area"), (1, 3, 4, 1)),
        (L.UpSampling2D(2, interpolation="lanczos3", data_format="channels_first"), (1, 2, 3, 4)),
        (L.UpSampling3D(), (1, 2, 2, 2, 1)),
        (L.UpSampling3D((1, 2, 3), data_format="channels_first"), (1, 2, 2, 2, 2)),
    ]
    out = []
    with tf.device(device):
        for layer, shape in cases:
            t = tf.constant(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7)
            out.append(output_and_gradient(tf, layer, t))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_values_and_gradients(tf_oracle, device):
    assert_parity(
        tf_oracle, _values, (device,), rtol=2e-5, atol=2e-6, helpers=[output_and_gradient]
    )


def _shapes_configs_errors(tf):
    L = tf.keras.layers
    out = [
        tuple(L.UpSampling1D(3)(tf.keras.Input((None, 4))).shape),
        tuple(L.UpSampling2D((2, 3))(tf.keras.Input((5, 6, 3))).shape),
        tuple(L.UpSampling3D(2, data_format="channels_first")(tf.keras.Input((2, 3, 4, 5))).shape),
    ]
    for layer in (L.UpSampling1D(2), L.UpSampling2D(2, interpolation="BILINEAR"), L.UpSampling3D()):
        config = layer.get_config()
        config.pop("dtype", None)
        out.append((layer.name, config))
    out += error_classes(
        [
            lambda: L.UpSampling1D(2.0),
            lambda: L.UpSampling1D(0),
            lambda: L.UpSampling2D((1, 2, 3)),
            lambda: L.UpSampling2D(0),
            lambda: L.UpSampling3D((1, 2)),
            lambda: L.UpSampling2D(data_format="channels_middle"),
            lambda: L.UpSampling2D(interpolation="cubic")(tf.ones((1, 2, 2, 1))),
            lambda: L.UpSampling2D()(tf.ones((2, 3, 4))),
        ]
    )
    return out


def test_shapes_configs_and_errors(tf_oracle):
    assert_parity(tf_oracle, _shapes_configs_errors, rtol=0, atol=0, helpers=[error_classes])
