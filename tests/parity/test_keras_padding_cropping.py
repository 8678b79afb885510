"""`ZeroPadding1D/2D/3D` and `Cropping1D/2D/3D` against Keras 3 under TensorFlow 2.21 on both
devices: both families take the same argument forms, so one table drives both: values and
gradients in both data formats, symbolic shapes, configs, default names and errors (arguments,
and crops as large as the input)."""

import pytest

from ._outcomes import error_classes, output_and_gradient
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]
FAMILIES = ["ZeroPadding", "Cropping"]


def _values(tf, device, family):
    import numpy as np

    one, two, three = (getattr(tf.keras.layers, f"{family}{n}D") for n in (1, 2, 3))
    cases = [
        (one(), (2, 5, 2)),
        (one((0, 2)), (2, 5, 2)),
        (one(2), (2, 5, 2)),
        (two(), (1, 4, 5, 2)),
        (two(1), (1, 4, 5, 2)),
        (two((1, 0)), (1, 4, 5, 2)),
        (two(((0, 1), (2, 1)), data_format="channels_first"), (1, 2, 4, 5)),
        (three(), (1, 3, 4, 5, 1)),
        (three((1, 0, 2)), (1, 3, 4, 5, 1)),
        (three(((0, 1), (1, 0), (0, 0)), data_format="channels_first"), (1, 2, 3, 3, 2)),
    ]
    out = []
    with tf.device(device):
        for layer, shape in cases:
            t = tf.constant(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 1)
            out.append(output_and_gradient(tf, layer, t))
    return out


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("device", DEVICES)
def test_values_and_gradients(tf_oracle, device, family):
    assert_parity(
        tf_oracle, _values, (device, family), rtol=0, atol=0, helpers=[output_and_gradient]
    )


def _shapes_configs_errors(tf, family):
    one, two, three = (getattr(tf.keras.layers, f"{family}{n}D") for n in (1, 2, 3))
    out = [
        tuple(one(1)(tf.keras.Input((None, 4))).shape),
        tuple(two(((1, 2), (3, 0)))(tf.keras.Input((5, 6, 3))).shape),
        tuple(three(1, data_format="channels_first")(tf.keras.Input((2, 3, 4, 5))).shape),
    ]
    for layer in (one((1, 2)), two(1), three((1, 2, 3))):
        config = layer.get_config()
        config.pop("dtype", None)
        out.append((layer.name, config))
    out += error_classes(
        [
            lambda: one((1, 2, 3)),
            lambda: one(-1),
            lambda: two(-1),
            lambda: two((1, 2, 3)),
            lambda: two(1.5),
            lambda: two(((1, 2), (1, -2))),
            lambda: three((1, 2)),
            lambda: two(data_format="channels_middle"),
            lambda: one(2)(tf.ones((1, 4, 2))),
            lambda: two(((2, 2), (0, 0)))(tf.ones((1, 4, 3, 1))),
            lambda: two(1)(tf.keras.Input((2, 5, 1))),
            lambda: two()(tf.ones((2, 3, 4))),
        ]
    )
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_shapes_configs_and_errors(tf_oracle, family):
    assert_parity(
        tf_oracle, _shapes_configs_errors, (family,), rtol=0, atol=0, helpers=[error_classes]
    )
