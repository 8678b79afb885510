"""`keras.applications.convnext`: ConvNeXt Tiny/Small/Base/Large/XLarge (depthwise 7x7
convolution, LayerNormalization, inverted MLP and layer scale per block; Sequential stem and
downsampling blocks), Keras's layer names included. Normalization is part of the model."""

import numpy as np

from ferroflow.keras import initializers, layers
from ferroflow.keras.applications import _common
from ferroflow.keras.applications.resnet import decode_predictions
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.models import Model, Sequential

__all__ = [
    "ConvNeXtBase",
    "ConvNeXtLarge",
    "ConvNeXtSmall",
    "ConvNeXtTiny",
    "ConvNeXtXLarge",
    "decode_predictions",
    "preprocess_input",
]

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/convnext/"
MODEL_CONFIGS = {
    "tiny": {"depths": [3, 3, 9, 3], "projection_dims": [96, 192, 384, 768]},
    "small": {"depths": [3, 3, 27, 3], "projection_dims": [96, 192, 384, 768]},
    "base": {"depths": [3, 3, 27, 3], "projection_dims": [128, 256, 512, 1024]},
    "large": {"depths": [3, 3, 27, 3], "projection_dims": [192, 384, 768, 1536]},
    "xlarge": {"depths": [3, 3, 27, 3], "projection_dims": [256, 512, 1024, 2048]},
}


class StochasticDepth(Layer):
    """Drops whole samples of a residual branch in training (scaled by the keep rate)."""

    def __init__(self, drop_path_rate, **kwargs):
        super().__init__(**kwargs)
        self.drop_path_rate = drop_path_rate

    def call(self, x, training=None):
        """``x``, or in training ``x / keep`` on kept samples and 0 on dropped ones."""
        if not training:
            return x
        import ferroflow as tf
        from ferroflow.keras import random

        keep = 1 - self.drop_path_rate
        shape = tf.concat([tf.shape(x)[:1], tf.ones([len(x.shape) - 1], tf.int32)], 0)
        # Keras's unseeded draw: the global seed generator.
        mask = tf.floor(keep + random.uniform(shape, 0, 1))
        return (x / keep) * mask

    def get_config(self):
        """The layer's config, with ``drop_path_rate``."""
        return {**super().get_config(), "drop_path_rate": self.drop_path_rate}


class LayerScale(Layer):
    """Multiplies by a learned per-channel ``gamma`` initialized to ``init_values``."""

    def __init__(self, init_values, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, _):
        """Creates ``gamma``."""
        self.gamma = self.add_weight(
            shape=(self.projection_dim,),
            initializer=initializers.Constant(self.init_values),
            trainable=True,
        )

    def call(self, x):
        """``x * gamma``."""
        return x * self.gamma

    def get_config(self):
        """The layer's config, with ``init_values`` and ``projection_dim``."""
        return {
            **super().get_config(),
            "init_values": self.init_values,
            "projection_dim": self.projection_dim,
        }


def ConvNeXtBlock(projection_dim, drop_path_rate=0.0, layer_scale_init_value=1e-6, name=None):
    """A function applying one ConvNeXt block named ``name``."""

    def apply(inputs):
        x = layers.Conv2D(
            filters=projection_dim,
            kernel_size=7,
            padding="same",
            groups=projection_dim,
            name=f"{name}_depthwise_conv",
        )(inputs)
        x = layers.LayerNormalization(epsilon=1e-6, name=f"{name}_layernorm")(x)
        x = layers.Dense(4 * projection_dim, name=f"{name}_pointwise_conv_1")(x)
        x = layers.Activation("gelu", name=f"{name}_gelu")(x)
        x = layers.Dense(projection_dim, name=f"{name}_pointwise_conv_2")(x)
        if layer_scale_init_value is not None:
            x = LayerScale(layer_scale_init_value, projection_dim, name=f"{name}_layer_scale")(x)
        if drop_path_rate:
            layer = StochasticDepth(drop_path_rate, name=f"{name}_stochastic_depth")
        else:
            layer = layers.Activation("linear", name=f"{name}_identity")
        return inputs + layer(x)

    return apply


def _prestem(x, name):
    return layers.Normalization(
        mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
        variance=[(0.229 * 255) ** 2, (0.224 * 255) ** 2, (0.225 * 255) ** 2],
        name=f"{name}_prestem_normalization",
    )(x)


def _downsamplers(name, dims):
    stem = Sequential(
        [
            layers.Conv2D(dims[0], kernel_size=4, strides=4, name=f"{name}_stem_conv"),
            layers.LayerNormalization(epsilon=1e-6, name=f"{name}_stem_layernorm"),
        ],
        name=f"{name}_stem",
    )
    blocks = [stem]
    for i in range(3):
        blocks.append(
            Sequential(
                [
                    layers.LayerNormalization(
                        epsilon=1e-6, name=f"{name}_downsampling_layernorm_{i}"
                    ),
                    layers.Conv2D(
                        dims[i + 1], kernel_size=2, strides=2, name=f"{name}_downsampling_conv_{i}"
                    ),
                ],
                name=f"{name}_downsampling_block_{i}",
            )
        )
    return blocks


def ConvNeXt(
    depths,
    projection_dims,
    drop_path_rate=0.0,
    layer_scale_init_value=1e-6,
    default_size=224,
    name="convnext",
    include_preprocessing=True,
    include_top=True,
    weights=None,
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    weights_name=None,
):
    """A ConvNeXt with ``depths`` blocks of ``projection_dims`` channels per stage."""
    _common.refuse_channels_first("ConvNeXt")
    _common.check_weights(weights, include_top, classes)
    input_shape = _common.obtain_input_shape(
        input_shape, default_size, 32, require_flatten=include_top, weights=weights
    )
    image, inputs = _common.model_input(input_tensor, input_shape)
    if isinstance(inputs, list):
        inputs = inputs[0]
    x = image
    if include_preprocessing and input_shape[2] == 3:
        x = _prestem(x, name)
    rates = [float(r) for r in np.linspace(0.0, drop_path_rate, sum(depths))]
    cur = 0
    for i, downsample in enumerate(_downsamplers(name, projection_dims)):
        x = downsample(x)
        for j in range(depths[i]):
            x = ConvNeXtBlock(
                projection_dim=projection_dims[i],
                drop_path_rate=rates[cur + j],
                layer_scale_init_value=layer_scale_init_value,
                name=f"{name}_stage_{i}_block_{j}",
            )(x)
        cur += depths[i]
    if include_top:
        _common.validate_activation(classifier_activation, weights)
        x = layers.GlobalAveragePooling2D(name=f"{name}_head_gap")(x)
        x = layers.LayerNormalization(epsilon=1e-6, name=f"{name}_head_layernorm")(x)
        x = layers.Dense(classes, activation=classifier_activation, name=f"{name}_head_dense")(x)
    else:
        x = _common.pooled(x, pooling, avg_name=None, max_name=None)
        x = layers.LayerNormalization(epsilon=1e-6)(x)
    model = Model(inputs=inputs, outputs=x, name=name)
    if weights == "imagenet":
        _check_variant(weights_name, depths, projection_dims, name)
    files = (f"{name}.h5", f"{name}_notop.h5")
    return _common.finish(model, weights, files[0] if include_top else files[1], BASE_WEIGHTS_PATH)


def _check_variant(weights_name, depths, projection_dims, name):
    expected = MODEL_CONFIGS[weights_name.split("convnext_")[-1]]
    if list(depths) != expected["depths"] or list(projection_dims) != expected["projection_dims"]:
        raise ValueError(
            f"Architecture configuration does not match {weights_name} variant. When using "
            "pre-trained weights, the model architecture must match the pre-trained "
            f"configuration exactly. Expected depths: {expected['depths']}, got: {depths}. "
            f"Expected projection_dims: {expected['projection_dims']}, got: {projection_dims}."
        )
    if weights_name not in name:
        raise ValueError(
            f'Model name "{name}" does not match weights variant "{weights_name}". When using '
            'imagenet weights, model name must contain the weights variant (e.g., "convnext_'
            f'{weights_name.split("convnext_")[-1]}").'
        )


def _builder(size):
    title = f"ConvNeXt{'XLarge' if size == 'xlarge' else size.title()}"

    def builder(
        include_top=True,
        include_preprocessing=True,
        weights="imagenet",
        input_tensor=None,
        input_shape=None,
        pooling=None,
        classes=1000,
        classifier_activation="softmax",
        name=f"convnext_{size}",
    ):
        return ConvNeXt(
            weights_name=f"convnext_{size}",
            depths=MODEL_CONFIGS[size]["depths"],
            projection_dims=MODEL_CONFIGS[size]["projection_dims"],
            name=name,
            include_top=include_top,
            include_preprocessing=include_preprocessing,
            weights=weights,
            input_tensor=input_tensor,
            input_shape=input_shape,
            pooling=pooling,
            classes=classes,
            classifier_activation=classifier_activation,
        )

    builder.__name__ = builder.__qualname__ = title
    builder.__doc__ = f"{title} (Keras's architecture and layer names)."
    return builder


ConvNeXtTiny = _builder("tiny")
ConvNeXtSmall = _builder("small")
ConvNeXtBase = _builder("base")
ConvNeXtLarge = _builder("large")
ConvNeXtXLarge = _builder("xlarge")


def preprocess_input(x, data_format=None):
    """The identity: the model normalizes its input itself (kept for compatibility)."""
    return x
