"""The 3-D, global and adaptive pooling layers (and the `MaxPool*` / `AvgPool*` /
`Global*Pool*` aliases) against Keras 3 under TensorFlow 2.21 on both devices: outputs,
gradients and traced calls in both data formats, symbolic shapes (None dims included),
configs, names and errors; a small fit and its model's summary."""

import pytest

from ._conv_helpers import configs_and_names, fill_weights, run_cases
from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _values(tf, device):
    L = tf.keras.layers
    cf = "channels_first"
    cases = [
        (L.MaxPooling3D(), (2, 4, 5, 4, 2)),
        (
            L.MaxPool3D((1, 2, 3), strides=(2, 1, 2), padding="same", data_format=cf),
            (1, 2, 4, 5, 7),
        ),
        (L.AveragePooling3D(2, strides=1, padding="same"), (1, 3, 4, 3, 2)),
        (L.AvgPool3D((2, 1, 2), data_format=cf), (1, 2, 4, 3, 5)),
        (L.AvgPool1D(2, padding="same"), (2, 5, 3)),
        (L.MaxPool2D(3, strides=2, data_format=cf), (1, 2, 7, 6)),
        (L.GlobalAveragePooling3D(), (2, 3, 2, 4, 3)),
        (L.GlobalAvgPool3D(data_format=cf, keepdims=True), (2, 3, 2, 4, 3)),
        (L.GlobalMaxPooling3D(keepdims=True), (2, 3, 2, 4, 3)),
        (L.GlobalMaxPool3D(data_format=cf), (2, 3, 2, 4, 3)),
        (L.GlobalAvgPool1D(), (2, 5, 3)),
        (L.GlobalMaxPool2D(data_format=cf), (2, 3, 4, 5)),
        (L.AdaptiveAveragePooling1D(3), (2, 7, 3)),
        (L.AdaptiveAveragePooling1D(3, data_format=cf), (2, 3, 4)),
        (L.AdaptiveMaxPooling1D(5), (2, 3, 2)),
        (L.AdaptiveAveragePooling2D((2, 3), data_format=cf), (1, 2, 5, 7)),
        (L.AdaptiveMaxPooling2D(4), (1, 6, 10, 2)),
        (L.AdaptiveAveragePooling3D((2, 3, 3)), (1, 5, 6, 4, 2)),
        (L.AdaptiveMaxPooling3D([3, 2, 4], data_format=cf), (1, 2, 5, 6, 7)),
    ]
    return run_cases(tf, device, cases)


@pytest.mark.parametrize("device", DEVICES)
def test_values_and_gradients(tf_oracle, device):
    assert_parity(
        tf_oracle, _values, (device,), rtol=1e-5, atol=1e-6, helpers=[fill_weights, run_cases]
    )


def _shapes_configs_errors(tf):
    L = tf.keras.layers
    Input = tf.keras.Input
    cf = "channels_first"
    out = [
        tuple(L.MaxPooling3D(2)(Input((None, 6, 5, 3))).shape),
        tuple(
            L.AveragePooling3D(3, strides=2, padding="same", data_format=cf)(
                Input((2, 7, None, 4))
            ).shape
        ),
        tuple(L.GlobalAveragePooling3D(keepdims=True)(Input((None, 4, 5, 3))).shape),
        tuple(L.GlobalMaxPooling3D(data_format=cf)(Input((2, None, 4, 5))).shape),
        tuple(L.AdaptiveAveragePooling1D(2)(Input((None, 3))).shape),
        tuple(L.AdaptiveMaxPooling2D((2, 3), data_format=cf)(Input((3, 8, 9))).shape),
        tuple(L.AdaptiveAveragePooling3D(2)(Input((4, 5, 6, 1))).shape),
        # One window over the whole axis: eager only (a traced call fails in Keras, whose
        # second pooling's window is then longer than the axis).
        L.AdaptiveAveragePooling1D(1)(tf.reshape(tf.range(8.0), (1, 4, 2))),
    ]
    out.append(
        configs_and_names(
            [
                L.MaxPooling3D(),
                L.AveragePooling3D((1, 2, 3), strides=2, padding="same", data_format=cf),
                L.MaxPool3D(),
                L.AvgPool2D(2),
                L.GlobalAveragePooling3D(keepdims=True),
                L.GlobalMaxPooling3D(),
                L.GlobalAvgPool2D(),
                L.GlobalMaxPool1D(data_format=cf),
                L.AdaptiveAveragePooling1D(4),
                L.AdaptiveAveragePooling2D((2, 3), data_format=cf),
                L.AdaptiveAveragePooling3D([1, 2, 3]),
                L.AdaptiveMaxPooling1D((4,)),
                L.AdaptiveMaxPooling2D(2),
                L.AdaptiveMaxPooling3D(3),
            ]
        )
    )
    out.append(
        [
            L.MaxPool1D is L.MaxPooling1D,
            L.AvgPool3D is L.AveragePooling3D,
            L.GlobalAvgPool3D is L.GlobalAveragePooling3D,
            L.GlobalMaxPool2D is L.GlobalMaxPooling2D,
        ]
    )
    out += error_classes(
        [
            lambda: L.MaxPooling3D((2, 2)),
            lambda: L.MaxPooling3D(0),
            lambda: L.AveragePooling3D(2, strides=-1),
            lambda: L.AveragePooling3D(2, data_format="channels_middle"),
            lambda: L.MaxPooling3D()(tf.ones((1, 4, 4, 2))),
            lambda: L.GlobalAveragePooling3D()(tf.ones((1, 4, 4, 2))),
            lambda: L.GlobalMaxPooling3D(data_format="nchw"),
            lambda: L.AdaptiveAveragePooling1D((2, 3)),
            lambda: L.AdaptiveAveragePooling1D(2.5),
            lambda: L.AdaptiveMaxPooling2D((1, 2, 3)),
            lambda: L.AdaptiveMaxPooling3D("2"),
            lambda: L.AdaptiveAveragePooling2D(2, data_format="channels_middle"),
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


def _fit(tf):
    import numpy as np

    L = tf.keras.layers
    model = tf.keras.Sequential(
        [
            tf.keras.Input((4, 6, 6, 2)),
            L.Conv3D(3, 2, padding="same"),
            L.MaxPooling3D((1, 2, 2)),
            L.AveragePooling3D((2, 1, 1), padding="same"),
            L.AdaptiveMaxPooling3D((2, 2, 1)),
            L.AdaptiveAveragePooling3D(1, data_format="channels_first"),
            L.GlobalAveragePooling3D(),
            L.Dense(1),
        ]
    )
    for layer in model.layers:
        fill_weights(layer)
    x = np.sin(np.arange(8 * 144) * 0.3).reshape(8, 4, 6, 6, 2).astype(np.float32)
    y = np.cos(np.arange(8) * 0.5).reshape(8, 1).astype(np.float32)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    summary = []
    model.summary(print_fn=lambda line, **kwargs: summary.append(line))
    return history.history["loss"], model(x[:2]), summary


def test_fit(tf_oracle):
    assert_parity(tf_oracle, _fit, rtol=1e-4, atol=1e-5, helpers=[fill_weights])
