"""Conv3D, the transposed convolutions, the depthwise and separable convolutions (and their
aliases) against Keras 3 under TensorFlow 2.21 on both devices: outputs, input and weight
gradients and traced calls with fixed weights, both data formats, strides, dilation, groups,
output_padding, depth_multiplier; symbolic shapes, configs, names, weights and errors; a
small fit and a `.keras` round trip."""

import pytest

from ._conv_helpers import configs_and_names, fill_weights, run_cases
from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _values(tf, device):
    L = tf.keras.layers
    cf = "channels_first"
    cases = [
        (L.Conv1D(3, 3, padding="causal", dilation_rate=2), (2, 7, 2)),
        (L.Conv1D(4, 3, strides=2, groups=2, data_format=cf), (2, 4, 7)),
        # One input channel per group: ferroflow runs these as depthwise convolutions.
        (L.Conv1D(4, 3, strides=2, groups=2, data_format=cf), (2, 2, 7)),
        (L.Conv2D(6, 3, strides=2, groups=3, padding="same"), (1, 5, 6, 3)),
        (L.Conv2D(4, 3, dilation_rate=2, groups=2, data_format=cf), (1, 2, 7, 7)),
        (L.Conv3D(3, 2, strides=(1, 2, 2), padding="same"), (2, 3, 4, 5, 2)),
        (L.Conv3D(4, 2, dilation_rate=(1, 2, 1), groups=2, data_format=cf), (1, 4, 3, 5, 3)),
        (L.Convolution3D(2, (1, 2, 3), activation="relu", use_bias=False), (1, 2, 3, 4, 2)),
        (L.Conv1DTranspose(3, 3, strides=2, data_format=cf), (2, 2, 5)),
        (L.Conv1DTranspose(2, 4, dilation_rate=2, padding="same"), (2, 5, 3)),
        (L.Conv2DTranspose(3, 3, strides=2, padding="same", output_padding=1), (1, 4, 3, 2)),
        (
            L.Conv2DTranspose(2, (3, 2), strides=(2, 3), output_padding=(1, 2), data_format=cf),
            (1, 3, 3, 4),
        ),
        (L.Convolution2DTranspose(2, 3, dilation_rate=2, activation="tanh"), (1, 4, 4, 2)),
        (L.Conv3DTranspose(2, 2, strides=2, padding="same", data_format=cf), (1, 3, 2, 3, 2)),
        (
            L.Conv3DTranspose(3, (3, 2, 2), strides=(1, 2, 1), output_padding=(0, 1, 0)),
            (1, 2, 3, 2, 2),
        ),
        (L.DepthwiseConv1D(3, strides=2, depth_multiplier=2, padding="same"), (2, 7, 3)),
        (L.DepthwiseConv1D(3, dilation_rate=2, data_format=cf), (2, 3, 8)),
        (L.DepthwiseConv2D(3, strides=(2, 1), depth_multiplier=2, data_format=cf), (1, 2, 6, 5)),
        (L.DepthwiseConv2D(3, strides=2, dilation_rate=2, padding="same"), (1, 7, 8, 2)),
        (L.SeparableConv1D(4, 3, depth_multiplier=2, padding="same", data_format=cf), (2, 3, 6)),
        (L.SeparableConvolution1D(3, 2, strides=2, dilation_rate=2), (2, 9, 2)),
        (L.SeparableConv2D(4, 3, strides=2, padding="same", activation="relu"), (1, 6, 7, 3)),
        (
            L.SeparableConv2D(
                3, (2, 3), dilation_rate=2, strides=2, data_format=cf, use_bias=False
            ),
            (1, 2, 9, 8),
        ),
    ]
    return run_cases(tf, device, cases)


@pytest.mark.parametrize("device", DEVICES)
def test_values_and_gradients(tf_oracle, device):
    assert_parity(
        tf_oracle, _values, (device,), rtol=2e-5, atol=2e-5, helpers=[fill_weights, run_cases]
    )


def _unknown_sizes(tf):
    """Traced calls whose input signatures leave the batch and spatial sizes unknown (3-D
    convolutions keep a known depth: ferroflow's conv3d needs it)."""
    import numpy as np

    L = tf.keras.layers
    cf = "channels_first"

    def cases():
        return [
            (
                L.Conv1DTranspose(2, 3, strides=2, padding="same", output_padding=1),
                (2, 7, 3),
                [None, None, 3],
            ),
            (
                L.Conv2DTranspose(2, 3, strides=2, data_format=cf),
                (2, 3, 4, 3),
                [None, 3, None, None],
            ),
            (L.Conv3DTranspose(2, 2, strides=(1, 2, 2)), (1, 2, 3, 4, 2), [None, 2, None, None, 2]),
            (
                L.DepthwiseConv1D(3, strides=2, dilation_rate=2, padding="same"),
                (2, 9, 3),
                [None, None, 3],
            ),
            (
                L.DepthwiseConv2D(3, strides=(2, 3), dilation_rate=2, padding="same"),
                (1, 8, 9, 2),
                [None, None, None, 2],
            ),
            (
                L.SeparableConv2D(2, 2, strides=2, dilation_rate=3, padding="same"),
                (1, 7, 10, 2),
                [None, None, None, 2],
            ),
        ]

    out = []
    for device in ("CPU:0", "GPU:0"):
        with tf.device(device):
            for layer, shape, spec in cases():
                layer.build(shape)
                fill_weights(layer)
                x = np.cos(np.arange(np.prod(shape)) * 0.3).reshape(shape).astype(np.float32)
                fn = tf.function(layer, input_signature=[tf.TensorSpec(spec, tf.float32)])
                out.append(fn(tf.constant(x)))
    return out


def test_unknown_sizes_in_traces(tf_oracle):
    assert_parity(tf_oracle, _unknown_sizes, rtol=2e-5, atol=2e-5, helpers=[fill_weights])


def _shapes_configs_errors(tf):
    L = tf.keras.layers
    Input = tf.keras.Input
    cf = "channels_first"
    out = [
        tuple(L.Conv3D(4, 3, strides=2, padding="same")(Input((None, 8, 9, 2))).shape),
        tuple(L.Conv3D(2, 2, data_format=cf)(Input((3, 4, None, 5))).shape),
        tuple(L.Conv1DTranspose(4, 3, strides=2)(Input((None, 3))).shape),
        tuple(
            L.Conv2DTranspose(4, 3, strides=2, padding="same", output_padding=1, data_format=cf)(
                Input((3, 5, None))
            ).shape
        ),
        tuple(L.Conv3DTranspose(2, (2, 3, 1), strides=(1, 2, 3))(Input((4, 4, 4, 3))).shape),
        tuple(
            L.DepthwiseConv2D(3, depth_multiplier=3, strides=2, padding="same")(
                Input((None, 9, 2))
            ).shape
        ),
        tuple(L.DepthwiseConv1D(3, dilation_rate=2)(Input((10, 2))).shape),
        tuple(L.SeparableConv1D(5, 3, padding="same", data_format=cf)(Input((2, None))).shape),
        tuple(L.SeparableConv2D(5, 3, strides=(1, 2))(Input((8, 8, 3))).shape),
    ]
    built = [
        L.Conv3D(4, (1, 2, 3), groups=2, kernel_regularizer="l2", bias_constraint="non_neg"),
        L.Convolution3D(2, 2, data_format=cf, activation="relu", use_bias=False),
        L.Conv1DTranspose(3, 2, strides=2, output_padding=1, kernel_initializer="ones"),
        L.Conv2DTranspose(3, 3, padding="same", dilation_rate=2, bias_regularizer="l1"),
        L.Conv3DTranspose(2, 2, data_format=cf, kernel_constraint="unit_norm"),
        L.Convolution1DTranspose(2, 3),
        L.Convolution2DTranspose(2, 3),
        L.Convolution3DTranspose(2, 3),
        L.DepthwiseConv1D(3, depth_multiplier=2, depthwise_regularizer="l2"),
        L.DepthwiseConv2D((2, 3), strides=2, dilation_rate=1, depthwise_initializer="zeros"),
        L.SeparableConv1D(3, 2, pointwise_constraint="max_norm", depth_multiplier=2),
        L.SeparableConv2D(3, 2, data_format=cf, pointwise_regularizer="l1"),
        L.SeparableConvolution1D(2, 3),
        L.SeparableConvolution2D(2, 3),
    ]
    shapes = {1: (2, 6, 4), 2: (2, 6, 6, 4), 3: (2, 4, 4, 4, 4)}
    for layer in built:
        layer.build(shapes[layer.rank])
    out.append(configs_and_names(built))
    out.append(L.Convolution1D is L.Conv1D and L.SeparableConvolution2D is L.SeparableConv2D)
    conv = L.Conv3D(2, 2)
    conv(tf.ones((1, 3, 3, 3, 2)))
    out += error_classes(
        [
            lambda: L.Conv3D(0, 3),
            lambda: L.Conv3D(4, 3, padding="causal"),
            lambda: L.Conv3D(4, (3, 3)),
            lambda: L.Conv3D(4, 3, groups=3),
            lambda: L.Conv3D(4, 3, strides=2, dilation_rate=2),
            lambda: L.Conv3D(4, 3)(tf.ones((1, 5, 5, 3))),
            lambda: L.Conv3D(4, 3)(tf.ones((1, 2, 2, 2, 3))),
            lambda: L.Conv3D(4, 3, groups=2)(tf.ones((1, 4, 4, 4, 3))),
            lambda: conv(tf.ones((1, 3, 3, 3, 3))),
            lambda: L.Conv2DTranspose(4, 3, strides=2, output_padding=2),
            lambda: L.Conv2DTranspose(4, 3, padding="causal"),
            lambda: L.Conv1DTranspose(4, 3, strides=2, dilation_rate=2),
            lambda: L.Conv3DTranspose(4, 3, output_padding=(1, 2)),
            lambda: L.Conv2DTranspose(-1, 3),
            lambda: L.DepthwiseConv2D(3, depth_multiplier=0),
            lambda: L.DepthwiseConv1D(3, padding="causal"),
            lambda: L.DepthwiseConv2D(3, strides=0),
            lambda: L.DepthwiseConv2D(3)(tf.ones((1, 2, 2, 1))),
            lambda: L.SeparableConv2D(0, 3),
            lambda: L.SeparableConv1D(4, 3, depth_multiplier=-1),
            lambda: L.SeparableConv2D(4, 3, data_format="channels_middle"),
            lambda: L.SeparableConv1D(4, 3)(tf.ones((1, 4, 4, 2))),
        ]
    )
    return out


def test_shapes_configs_and_errors(tf_oracle):
    assert_parity(
        tf_oracle,
        _shapes_configs_errors,
        rtol=0,
        atol=0,
        helpers=[error_classes, configs_and_names],
    )


def _fit_and_save(tf, path):
    import numpy as np

    L = tf.keras.layers
    model = tf.keras.Sequential(
        [
            tf.keras.Input((6, 6, 2)),
            L.SeparableConv2D(3, 3, padding="same", activation="relu"),
            L.DepthwiseConv2D(3, depth_multiplier=2),
            L.Conv2DTranspose(2, 3, strides=2, padding="same"),
            L.Reshape((4, 8, 8, 1)),
            L.Conv3D(2, 2, strides=2),
            L.Conv3DTranspose(1, 2),
            L.Flatten(),
            L.Dense(1),
        ]
    )
    for layer in model.layers:
        fill_weights(layer)
    x = np.sin(np.arange(8 * 72) * 0.3).reshape(8, 6, 6, 2).astype(np.float32)
    y = np.cos(np.arange(8) * 0.5).reshape(8, 1).astype(np.float32)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    return (
        history.history["loss"],
        [layer.name for layer in loaded.layers],
        loaded(x[:2]),
        model(x[:2]),
    )


def test_fit_and_keras_file(tf_oracle, tmp_path):
    assert_parity(
        tf_oracle,
        _fit_and_save,
        (str(tmp_path / "model.keras"),),
        rtol=1e-4,
        atol=1e-5,
        helpers=[fill_weights],
    )
