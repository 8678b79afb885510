"""`keras.applications.efficientnet_v2`: EfficientNetV2 B0-B3, S, M and L (fused and plain
MBConv blocks), Keras's layer names and initializers included. Input rescaling and
normalization are part of the model (``include_preprocessing``), as in Keras."""

import math

from ferroflow.keras import initializers, layers
from ferroflow.keras.applications import _common
from ferroflow.keras.applications._builder import build
from ferroflow.keras.applications.efficientnet import (
    CONV_KERNEL_INITIALIZER,
    conv_bn_act,
    dropout_head,
    squeeze_excite,
)
from ferroflow.keras.applications.resnet import decode_predictions

__all__ = [
    "EfficientNetV2B0",
    "EfficientNetV2B1",
    "EfficientNetV2B2",
    "EfficientNetV2B3",
    "EfficientNetV2L",
    "EfficientNetV2M",
    "EfficientNetV2S",
    "decode_predictions",
    "preprocess_input",
]

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/efficientnet_v2/"


def _stages(rows):
    """Block args from rows of (kernel, repeats, in, out, expand, se_ratio, strides, conv_type)."""
    keys = (
        "kernel_size",
        "num_repeat",
        "input_filters",
        "output_filters",
        "expand_ratio",
        "se_ratio",
        "strides",
        "conv_type",
    )
    return [dict(zip(keys, row)) for row in rows]


_B = _stages(
    [
        (3, 1, 32, 16, 1, 0, 1, 1),
        (3, 2, 16, 32, 4, 0, 2, 1),
        (3, 2, 32, 48, 4, 0, 2, 1),
        (3, 3, 48, 96, 4, 0.25, 2, 0),
        (3, 5, 96, 112, 6, 0.25, 1, 0),
        (3, 8, 112, 192, 6, 0.25, 2, 0),
    ]
)
DEFAULT_BLOCKS_ARGS = {
    "efficientnetv2-s": _stages(
        [
            (3, 2, 24, 24, 1, 0.0, 1, 1),
            (3, 4, 24, 48, 4, 0.0, 2, 1),
            (3, 4, 48, 64, 4, 0, 2, 1),
            (3, 6, 64, 128, 4, 0.25, 2, 0),
            (3, 9, 128, 160, 6, 0.25, 1, 0),
            (3, 15, 160, 256, 6, 0.25, 2, 0),
        ]
    ),
    "efficientnetv2-m": _stages(
        [
            (3, 3, 24, 24, 1, 0, 1, 1),
            (3, 5, 24, 48, 4, 0, 2, 1),
            (3, 5, 48, 80, 4, 0, 2, 1),
            (3, 7, 80, 160, 4, 0.25, 2, 0),
            (3, 14, 160, 176, 6, 0.25, 1, 0),
            (3, 18, 176, 304, 6, 0.25, 2, 0),
            (3, 5, 304, 512, 6, 0.25, 1, 0),
        ]
    ),
    "efficientnetv2-l": _stages(
        [
            (3, 4, 32, 32, 1, 0, 1, 1),
            (3, 7, 32, 64, 4, 0, 2, 1),
            (3, 7, 64, 96, 4, 0, 2, 1),
            (3, 10, 96, 192, 4, 0.25, 2, 0),
            (3, 19, 192, 224, 6, 0.25, 1, 0),
            (3, 25, 224, 384, 6, 0.25, 2, 0),
            (3, 7, 384, 640, 6, 0.25, 1, 0),
        ]
    ),
    **{f"efficientnetv2-b{i}": _B for i in range(4)},
}


def round_filters(filters, width_coefficient, min_depth, depth_divisor):
    """``filters`` scaled by the width coefficient, rounded to ``depth_divisor``."""
    filters *= width_coefficient
    minimum_depth = min_depth or depth_divisor
    return int(
        max(minimum_depth, int(filters + depth_divisor / 2) // depth_divisor * depth_divisor)
    )


def round_repeats(repeats, depth_coefficient):
    """``repeats`` scaled by the depth coefficient, rounded up."""
    return int(math.ceil(depth_coefficient * repeats))


def _residual(x, inputs, survival_probability, name):
    # Keras passes the survival probability as the dropout rate: kept as it is.
    if survival_probability:
        x = layers.Dropout(survival_probability, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
    return layers.Add(name=f"{name}add")([x, inputs])


def MBConvBlock(
    input_filters,
    output_filters,
    expand_ratio=1,
    kernel_size=3,
    strides=1,
    se_ratio=0.0,
    bn_momentum=0.9,
    activation="swish",
    survival_probability=0.8,
    name=None,
):
    """A function applying one MBConv block (expansion, depthwise conv, SE, projection)."""

    def apply(inputs):
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = conv_bn_act(
                x, filters, 1, activation, f"{name}expand_conv", f"{name}expand_bn",
                f"{name}expand_activation", momentum=bn_momentum, strides=1, padding="same",
            )  # fmt: skip
        x = layers.DepthwiseConv2D(
            kernel_size=kernel_size,
            strides=strides,
            depthwise_initializer=CONV_KERNEL_INITIALIZER,
            padding="same",
            use_bias=False,
            name=f"{name}dwconv2",
        )(x)
        x = layers.BatchNormalization(
            axis=_common.bn_axis(), momentum=bn_momentum, name=f"{name}bn"
        )(x)
        x = layers.Activation(activation, name=f"{name}activation")(x)
        if 0 < se_ratio <= 1:
            x = squeeze_excite(x, filters, max(1, int(input_filters * se_ratio)), activation, name)
        x = conv_bn_act(
            x, output_filters, 1, None, f"{name}project_conv", f"{name}project_bn", None,
            momentum=bn_momentum, strides=1, padding="same",
        )  # fmt: skip
        if strides == 1 and input_filters == output_filters:
            x = _residual(x, inputs, survival_probability, name)
        return x

    return apply


def FusedMBConvBlock(
    input_filters,
    output_filters,
    expand_ratio=1,
    kernel_size=3,
    strides=1,
    se_ratio=0.0,
    bn_momentum=0.9,
    activation="swish",
    survival_probability=0.8,
    name=None,
):
    """A function applying one fused MBConv block (a full conv replaces expansion+depthwise)."""

    def apply(inputs):
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = conv_bn_act(
                x, filters, kernel_size, activation, f"{name}expand_conv", f"{name}expand_bn",
                f"{name}expand_activation", momentum=bn_momentum, strides=strides,
                padding="same",
            )  # fmt: skip
        if 0 < se_ratio <= 1:
            x = squeeze_excite(x, filters, max(1, int(input_filters * se_ratio)), activation, name)
        expanded = expand_ratio != 1
        x = conv_bn_act(
            x, output_filters, 1 if expanded else kernel_size,
            None if expanded else activation, f"{name}project_conv", f"{name}project_bn",
            f"{name}project_activation", momentum=bn_momentum,
            strides=1 if expanded else strides, padding="same",
        )  # fmt: skip
        if strides == 1 and input_filters == output_filters:
            x = _residual(x, inputs, survival_probability, name)
        return x

    return apply


def EfficientNetV2(
    width_coefficient,
    depth_coefficient,
    default_size,
    dropout_rate=0.2,
    drop_connect_rate=0.2,
    depth_divisor=8,
    min_depth=8,
    bn_momentum=0.9,
    activation="swish",
    blocks_args="default",
    name="efficientnetv2",
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    include_preprocessing=True,
    weights_name=None,
):
    """An EfficientNetV2; the default block table is the one of the model ``name``."""
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS[name]

    def filters(n):
        return round_filters(n, width_coefficient, min_depth, depth_divisor)

    def body(x, shape):
        if include_preprocessing:
            # Keras reads the channels from the validated input shape, not the input tensor.
            if name.split("-")[-1].startswith("b") and shape[_common.bn_axis() - 1] == 3:
                x = layers.Rescaling(scale=1.0 / 255)(x)
                x = layers.Normalization(
                    mean=[0.485, 0.456, 0.406],
                    variance=[0.229**2, 0.224**2, 0.225**2],
                    axis=_common.bn_axis(),
                )(x)
            else:
                x = layers.Rescaling(scale=1.0 / 128.0, offset=-1)(x)
        x = conv_bn_act(
            x, filters(blocks_args[0]["input_filters"]), 3, activation, "stem_conv", "stem_bn",
            "stem_activation", momentum=bn_momentum, strides=2, padding="same",
        )  # fmt: skip
        b = 0
        total = float(sum(args["num_repeat"] for args in blocks_args))
        for i, stage in enumerate(blocks_args):
            if stage["num_repeat"] <= 0:
                raise ValueError(
                    "The number of repeats in `EfficientNetV2` must be > 0. Received: "
                    f"num_repeat={stage['num_repeat']}"
                )
            args = {k: v for k, v in stage.items() if k not in ("conv_type", "num_repeat")}
            args["input_filters"] = filters(args["input_filters"])
            args["output_filters"] = filters(args["output_filters"])
            block = FusedMBConvBlock if stage["conv_type"] == 1 else MBConvBlock
            for j in range(round_repeats(stage["num_repeat"], depth_coefficient)):
                if j > 0:
                    args["strides"] = 1
                    args["input_filters"] = args["output_filters"]
                x = block(
                    activation=activation,
                    bn_momentum=bn_momentum,
                    survival_probability=drop_connect_rate * b / total,
                    name=f"block{i + 1}{chr(j + 97)}_",
                    **args,
                )(x)
                b += 1
        return conv_bn_act(
            x, filters(1280), 1, activation, "top_conv", "top_bn", "top_activation",
            momentum=bn_momentum, strides=1, padding="same",
        )  # fmt: skip

    return build(
        body,
        name=name,
        default_size=default_size,
        min_size=32,
        head=dropout_head(dropout_rate, bias_initializer=initializers.Constant(0.0)),
        pass_shape=True,
        file_names=(f"{name}.h5", f"{name}_notop.h5"),
        origin=BASE_WEIGHTS_PATH,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        input_shape=input_shape,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
    )


def _builder(variant, width, depth, size):
    title = f"EfficientNetV2{variant.upper()}"

    def builder(
        include_top=True,
        weights="imagenet",
        input_tensor=None,
        input_shape=None,
        pooling=None,
        classes=1000,
        classifier_activation="softmax",
        include_preprocessing=True,
        name=f"efficientnetv2-{variant}",
    ):
        return EfficientNetV2(
            width_coefficient=width,
            depth_coefficient=depth,
            default_size=size,
            name=name,
            include_top=include_top,
            weights=weights,
            input_tensor=input_tensor,
            input_shape=input_shape,
            pooling=pooling,
            classes=classes,
            classifier_activation=classifier_activation,
            include_preprocessing=include_preprocessing,
            weights_name=variant,
        )

    builder.__name__ = builder.__qualname__ = title
    builder.__doc__ = f"{title} (Keras's architecture and layer names)."
    return builder


EfficientNetV2B0 = _builder("b0", 1.0, 1.0, 224)
EfficientNetV2B1 = _builder("b1", 1.0, 1.1, 240)
EfficientNetV2B2 = _builder("b2", 1.1, 1.2, 260)
EfficientNetV2B3 = _builder("b3", 1.2, 1.4, 300)
EfficientNetV2S = _builder("s", 1.0, 1.0, 384)
EfficientNetV2M = _builder("m", 1.0, 1.0, 480)
EfficientNetV2L = _builder("l", 1.0, 1.0, 480)


def preprocess_input(x, data_format=None):
    """The identity: the model rescales its input itself (kept for compatibility)."""
    return x
