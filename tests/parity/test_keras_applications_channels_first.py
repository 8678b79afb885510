"""`keras.applications` built with ``image_data_format="channels_first"`` and given an
``input_tensor``, against Keras 3 under TensorFlow 2.21: parameter counts, layer names, input
and output shapes, the channel axis of the normalization layers, a summary, forward values
with the same weights (TensorFlow runs channels-first convolutions and pooling on the CPU),
the families Keras refuses channels first (ConvNeXt, DenseNet, NASNet), and Keras's errors
for an ``input_tensor`` that is not a Keras tensor."""

import numpy as np
import pytest

from .harness import assert_parity
from .test_keras_applications import seed_weights

# Each family once, at cheap input sizes (channels first).
BUILDS = [
    ("ResNet50", {"input_shape": (3, 32, 32), "classes": 10}),
    ("ResNet50V2", {"include_top": False, "pooling": "max", "input_shape": (3, 64, 64)}),
    ("VGG16", {"input_shape": (3, 32, 32), "classes": 10}),
    ("MobileNet", {"input_shape": (3, 128, 128), "alpha": 0.5}),
    ("MobileNetV2", {"alpha": 0.35, "input_shape": (3, 96, 96)}),
    ("MobileNetV3Small", {}),
    ("MobileNetV3Large", {"minimalistic": True, "include_top": False, "pooling": "avg"}),
    ("EfficientNetB0", {"input_shape": (3, 32, 32)}),
    ("EfficientNetV2B0", {"include_top": False, "input_shape": (3, 32, 32)}),
    ("Xception", {"include_top": False, "input_shape": (3, 71, 71), "pooling": "avg"}),
    ("InceptionV3", {"include_top": False, "input_shape": (3, 75, 75), "pooling": "max"}),
    ("InceptionResNetV2", {"include_top": False, "input_shape": (3, 75, 75)}),
    ("DenseNet121", {"input_shape": (3, 32, 32)}),
    ("ConvNeXtTiny", {"input_shape": (3, 32, 32)}),
    ("NASNetMobile", {"include_top": False, "input_shape": (3, 32, 32)}),
]


def _channels_first_builds(tf, builds):
    keras = tf.keras
    keras.config.set_image_data_format("channels_first")
    out = []
    try:
        for name, kwargs in builds:
            try:
                model = getattr(keras.applications, name)(weights=None, **kwargs)
            except Exception as e:  # noqa: BLE001 - the class and message are compared
                out.append((name, type(e).__name__, str(e)))
                continue
            axes = sorted(
                {
                    str(layer.get_config()["axis"])
                    for layer in model.layers
                    if type(layer).__name__ in ("BatchNormalization", "Concatenate")
                }
            )
            out.append(
                (
                    name,
                    model.count_params(),
                    tuple(model.input_shape),
                    tuple(model.output_shape),
                    [layer.name for layer in model.layers],
                    [tuple(layer.output.shape) for layer in model.layers],
                    axes,
                )
            )
            keras.backend.clear_session()
        summary = []
        model = keras.applications.MobileNetV3Small(
            weights=None, input_shape=(3, 32, 32), include_top=False
        )
        model.summary(print_fn=lambda line, **kwargs: summary.append(line))
        out.append(summary)
    finally:
        keras.config.set_image_data_format("channels_last")
    out.append(keras.config.image_data_format())
    return out


def test_channels_first_builds(tf_oracle):
    assert_parity(tf_oracle, _channels_first_builds, (BUILDS,))


def _channels_first_forward(tf, device, builds, images):
    """Forward passes with the same weights on both sides (one seeded generator)."""
    keras = tf.keras
    keras.config.set_image_data_format("channels_first")
    out = []
    try:
        with tf.device(device):
            for (name, kwargs), image in zip(builds, images):
                model = getattr(keras.applications, name)(weights=None, **kwargs)
                seed_weights(model)
                out.append(model(tf.constant(image), training=False))
                keras.backend.clear_session()
    finally:
        keras.config.set_image_data_format("channels_last")
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_channels_first_forward(tf_oracle, device):
    builds = [
        ("MobileNetV3Small", {"input_shape": (3, 32, 32), "include_top": False}),
        ("EfficientNetB0", {"input_shape": (3, 32, 32), "include_top": False}),
        # Flatten puts a channels-first image in channels-last order before fc1.
        ("VGG16", {"input_shape": (3, 64, 64), "classes": 10, "classifier_activation": None}),
    ]
    image = np.random.default_rng(2).uniform(0, 255, (2, 3, 64, 64)).astype("float32")
    images = [image[:, :, :32, :32], image[:, :, :32, :32], image]
    args = (device, builds, images)
    assert_parity(
        tf_oracle, _channels_first_forward, args, rtol=1e-4, atol=1e-4, helpers=[seed_weights]
    )


def _input_tensors(tf, image):
    """``input_tensor``: Keras tensors (an Input, a layer's output, channels first), and
    tensors and arrays that are not Keras tensors (Keras's errors)."""
    keras = tf.keras
    A = keras.applications
    out = []

    def attempt(build):
        try:
            model = build()
        except Exception as e:  # noqa: BLE001 - the class is compared
            return type(e).__name__
        return (
            model.count_params(),
            [tuple(t.shape) for t in model.inputs],
            tuple(model.output_shape),
            model.name,
        )

    inp = keras.Input((48, 48, 3))
    scaled = keras.layers.Rescaling(0.5)(inp)
    not_keras = [tf.constant(image), image, "image"]
    out.append(attempt(lambda: A.ResNet50(weights=None, include_top=False, input_tensor=inp)))
    out.append(attempt(lambda: A.MobileNetV2(weights=None, input_tensor=scaled, alpha=0.35)))
    out.append(attempt(lambda: A.MobileNetV3Small(weights=None, input_tensor=scaled)))
    out.append(
        attempt(lambda: A.MobileNetV2(weights=None, input_tensor=inp, input_shape=(64, 64, 3)))
    )
    out.append(
        attempt(lambda: A.MobileNetV3Small(weights=None, input_tensor=inp, input_shape=(9, 9, 3)))
    )
    # EfficientNetV2 picks its preprocessing from the validated input shape (3 channels by
    # default), not from the tensor: Keras's ImageNet normalization fails on one channel.
    gray = keras.Input((32, 32, 1))
    out.append(
        attempt(lambda: A.EfficientNetV2B0(weights=None, include_top=False, input_tensor=gray))
    )
    for name in ("ResNet50", "MobileNet", "MobileNetV2", "MobileNetV3Small", "EfficientNetB0"):
        for tensor in not_keras:
            out.append(
                attempt(lambda n=name, t=tensor: getattr(A, n)(weights=None, input_tensor=t))
            )
    out.append(
        attempt(
            lambda: A.MobileNetV2(weights=None, input_tensor=not_keras[0], input_shape=(48, 48, 3))
        )
    )
    out.append(
        attempt(
            lambda: A.MobileNetV3Small(
                weights=None, input_tensor=not_keras[0], input_shape=(48, 48, 3)
            )
        )
    )
    keras.config.set_image_data_format("channels_first")
    try:
        first = keras.Input((3, 48, 48))
        out.append(attempt(lambda: A.ResNet50(weights=None, include_top=False, input_tensor=first)))
        out.append(attempt(lambda: A.MobileNetV3Small(weights=None, input_tensor=first)))
        out.append(attempt(lambda: A.MobileNetV2(weights=None, input_tensor=first)))
        out.append(
            attempt(
                lambda: A.MobileNetV2(weights=None, input_tensor=first, input_shape=(3, 48, 48))
            )
        )
        out.append(
            attempt(
                lambda: A.MobileNetV2(weights=None, input_tensor=first, input_shape=(48, 3, 48))
            )
        )
        out.append(
            attempt(
                lambda: A.MobileNetV3Small(
                    weights=None, input_tensor=first, input_shape=(3, 48, 48)
                )
            )
        )
        # `obtain_input_shape`'s checks, channels first (the messages are compared).
        for kwargs in (
            {"input_shape": (3, 16, 16), "include_top": False},
            {"input_shape": (3, None, None)},
            {"input_shape": (1, 64, 64), "include_top": False, "weights": "imagenet"},
            {"input_shape": (224, 224, 3), "weights": "imagenet"},
            {"input_shape": (3, 64)},
        ):
            try:
                A.ResNet50(**{"weights": None, **kwargs})
                out.append("built")
            except ValueError as e:
                out.append(str(e))
    finally:
        keras.config.set_image_data_format("channels_last")
    return out


def test_input_tensor(tf_oracle):
    image = np.zeros((1, 48, 48, 3), np.float32)
    assert_parity(tf_oracle, _input_tensors, (image,))


def _rescaling_channels_first(tf, device, image):
    """A per-channel `Rescaling` scale (EfficientNet's ImageNet stem) goes on the channel axis
    of a channels-first image."""
    keras = tf.keras
    keras.config.set_image_data_format("channels_first")
    try:
        with tf.device(device):
            layer = keras.layers.Rescaling([0.5, 2.0, 4.0], offset=1.0)
            return layer(tf.constant(image)), layer(tf.constant(image[0]))
    finally:
        keras.config.set_image_data_format("channels_last")


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_rescaling_channels_first(tf_oracle, device):
    image = np.arange(2 * 3 * 2 * 3, dtype=np.float32).reshape(2, 3, 2, 3)
    assert_parity(tf_oracle, _rescaling_channels_first, (device, image))


def _config_round_trip(tf):
    """A channels-first build's config (layers keep ``data_format`` and ``axis``) rebuilt
    after the image data format is back to channels last."""
    keras = tf.keras
    keras.config.set_image_data_format("channels_first")
    try:
        model = keras.applications.EfficientNetB0(
            weights=None, include_top=False, input_shape=(3, 32, 32)
        )
        config = model.get_config()
    finally:
        keras.config.set_image_data_format("channels_last")
    rebuilt = keras.Model.from_config(config)
    return (
        rebuilt.count_params(),
        tuple(rebuilt.output_shape),
        rebuilt.get_layer("stem_conv").get_config(),
        rebuilt.get_layer("stem_bn").get_config()["axis"],
        rebuilt.get_layer("block1a_se_reshape").get_config()["target_shape"],
    )


def test_config_round_trip(tf_oracle):
    assert_parity(tf_oracle, _config_round_trip)
