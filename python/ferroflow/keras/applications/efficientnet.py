"""`keras.applications.efficientnet`: EfficientNetB0..B7 (MBConv blocks with
squeeze-and-excitation, scaled in width and depth), Keras's layer names and initializers
included. The input normalization is part of the model, as in Keras."""

import math

from ferroflow.keras import layers
from ferroflow.keras.applications import _common
from ferroflow.keras.applications._builder import build, keras_builder
from ferroflow.keras.applications.resnet import decode_predictions

__all__ = [f"EfficientNetB{i}" for i in range(8)] + ["decode_predictions", "preprocess_input"]

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/keras-applications/"
# (kernel_size, repeats, filters_in, filters_out, expand_ratio, strides) of the 7 stages;
# every block has id_skip and se_ratio 0.25.
_STAGES = (
    (3, 1, 32, 16, 1, 1),
    (3, 2, 16, 24, 6, 2),
    (5, 2, 24, 40, 6, 2),
    (3, 3, 40, 80, 6, 2),
    (5, 3, 80, 112, 6, 1),
    (5, 4, 112, 192, 6, 2),
    (3, 1, 192, 320, 6, 1),
)
DEFAULT_BLOCKS_ARGS = [
    {
        "kernel_size": k,
        "repeats": r,
        "filters_in": fi,
        "filters_out": fo,
        "expand_ratio": e,
        "id_skip": True,
        "strides": s,
        "se_ratio": 0.25,
    }
    for k, r, fi, fo, e, s in _STAGES
]
CONV_KERNEL_INITIALIZER = {
    "class_name": "VarianceScaling",
    "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"},
}
DENSE_KERNEL_INITIALIZER = {
    "class_name": "VarianceScaling",
    "config": {"scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"},
}
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]


def round_filters(filters, width_coefficient, divisor=8):
    """``filters`` scaled by the width coefficient, rounded to a multiple of ``divisor``."""
    filters *= width_coefficient
    new_filters = max(divisor, int(filters + divisor / 2) // divisor * divisor)
    if new_filters < 0.9 * filters:
        new_filters += divisor
    return int(new_filters)


def squeeze_excite(x, filters, filters_se, activation, name, se_shape=None):
    """Squeeze-and-excitation: pooled, two 1x1 convs, the sigmoid gate times ``x``."""
    se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    se = layers.Reshape(
        se_shape or ((filters, 1, 1) if _common.channels_first() else (1, 1, filters)),
        name=f"{name}se_reshape",
    )(se)
    se = layers.Conv2D(
        filters_se,
        1,
        padding="same",
        activation=activation,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}se_reduce",
    )(se)
    se = layers.Conv2D(
        filters,
        1,
        padding="same",
        activation="sigmoid",
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}se_expand",
    )(se)
    return layers.Multiply(name=f"{name}se_excite")([x, se])


def conv_bn_act(
    x, filters, kernel, activation, conv_name, bn_name, act_name, momentum=0.99, **conv_args
):
    """Conv2D (no bias, Keras's EfficientNet initializer) -> BatchNormalization -> act."""
    x = layers.Conv2D(
        filters,
        kernel,
        use_bias=False,
        kernel_initializer=CONV_KERNEL_INITIALIZER,
        name=conv_name,
        **conv_args,
    )(x)
    x = layers.BatchNormalization(axis=_common.bn_axis(), momentum=momentum, name=bn_name)(x)
    if activation is None:
        return x
    return layers.Activation(activation, name=act_name)(x)


def skip(x, inputs, drop_rate, name):
    """The residual sum, after stochastic depth (per-sample dropout) when ``drop_rate``."""
    if drop_rate > 0:
        x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
    return layers.Add(name=f"{name}add")([x, inputs])


def block(
    inputs,
    activation="swish",
    drop_rate=0.0,
    name="",
    filters_in=32,
    filters_out=16,
    kernel_size=3,
    strides=1,
    expand_ratio=1,
    se_ratio=0.0,
    id_skip=True,
):
    """An MBConv block: expansion, depthwise conv, squeeze-and-excitation, projection."""
    filters = filters_in * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = conv_bn_act(
            x, filters, 1, activation, f"{name}expand_conv", f"{name}expand_bn",
            f"{name}expand_activation", padding="same",
        )  # fmt: skip
    if strides == 2:
        x = layers.ZeroPadding2D(
            padding=_common.correct_pad(x, kernel_size), name=f"{name}dwconv_pad"
        )(x)
    x = layers.DepthwiseConv2D(
        kernel_size,
        strides=strides,
        padding="valid" if strides == 2 else "same",
        use_bias=False,
        depthwise_initializer=CONV_KERNEL_INITIALIZER,
        name=f"{name}dwconv",
    )(x)
    x = layers.BatchNormalization(axis=_common.bn_axis(), name=f"{name}bn")(x)
    x = layers.Activation(activation, name=f"{name}activation")(x)
    if 0 < se_ratio <= 1:
        x = squeeze_excite(x, filters, max(1, int(filters_in * se_ratio)), activation, name)
    x = conv_bn_act(
        x, filters_out, 1, None, f"{name}project_conv", f"{name}project_bn", None,
        padding="same",
    )  # fmt: skip
    if id_skip and strides == 1 and filters_in == filters_out:
        x = skip(x, inputs, drop_rate, name)
    return x


def dropout_head(dropout_rate, **dense_args):
    """The EfficientNet classifier: average pooling, dropout, ``predictions`` (Keras's
    initializer); without top, the ``pooling`` option."""

    def head(x, include_top, pooling, classes, classifier_activation, weights):
        if not include_top:
            return _common.pooled(x, pooling)
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        _common.validate_activation(classifier_activation, weights)
        return layers.Dense(
            classes,
            activation=classifier_activation,
            kernel_initializer=DENSE_KERNEL_INITIALIZER,
            name="predictions",
            **dense_args,
        )(x)

    return head


def EfficientNet(
    width_coefficient,
    depth_coefficient,
    default_size,
    dropout_rate=0.2,
    drop_connect_rate=0.2,
    depth_divisor=8,
    activation="swish",
    blocks_args="default",
    name="efficientnet",
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    input_shape=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    weights_name=None,
):
    """An EfficientNet scaled by ``width_coefficient`` and ``depth_coefficient``."""
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS

    def filters(n):
        return round_filters(n, width_coefficient, depth_divisor)

    def repeats(n):
        return int(math.ceil(depth_coefficient * n))

    def body(x):
        x = layers.Rescaling(1.0 / 255.0)(x)
        x = layers.Normalization(axis=_common.bn_axis())(x)
        if weights == "imagenet":
            x = layers.Rescaling([1.0 / math.sqrt(s) for s in IMAGENET_STDDEV_RGB])(x)
        x = layers.ZeroPadding2D(padding=_common.correct_pad(x, 3), name="stem_conv_pad")(x)
        x = conv_bn_act(
            x, filters(32), 3, activation, "stem_conv", "stem_bn", "stem_activation",
            strides=2, padding="valid",
        )  # fmt: skip
        b = 0
        total = float(sum(repeats(args["repeats"]) for args in blocks_args))
        for i, args in enumerate(blocks_args):
            if args["repeats"] <= 0:
                raise ValueError(
                    "The number of repeats in `EfficientNet` must be > 0. Received: "
                    f"repeats={args['repeats']}"
                )
            args = {k: v for k, v in args.items() if k != "repeats"}
            args["filters_in"] = filters(args["filters_in"])
            args["filters_out"] = filters(args["filters_out"])
            for j in range(repeats(blocks_args[i]["repeats"])):
                if j > 0:
                    args["strides"] = 1
                    args["filters_in"] = args["filters_out"]
                rate = drop_connect_rate * b / total
                x = block(x, activation, rate, name=f"block{i + 1}{chr(j + 97)}_", **args)
                b += 1
        return conv_bn_act(
            x, filters(1280), 1, activation, "top_conv", "top_bn", "top_activation",
            padding="same",
        )  # fmt: skip

    return build(
        body,
        name=name,
        default_size=default_size,
        min_size=32,
        head=dropout_head(dropout_rate),
        file_names=None if weights_name is None else (f"{name}.h5", f"{name}_notop.h5"),
        origin=BASE_WEIGHTS_PATH,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        input_shape=input_shape,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
    )


def _builder(index, width, depth, size, dropout):
    def make(**kwargs):
        return EfficientNet(width, depth, size, dropout, weights_name=f"b{index}", **kwargs)

    return keras_builder(f"EfficientNetB{index}", f"efficientnetb{index}", make)


EfficientNetB0 = _builder(0, 1.0, 1.0, 224, 0.2)
EfficientNetB1 = _builder(1, 1.0, 1.1, 240, 0.2)
EfficientNetB2 = _builder(2, 1.1, 1.2, 260, 0.3)
EfficientNetB3 = _builder(3, 1.2, 1.4, 300, 0.3)
EfficientNetB4 = _builder(4, 1.4, 1.8, 380, 0.4)
EfficientNetB5 = _builder(5, 1.6, 2.2, 456, 0.4)
EfficientNetB6 = _builder(6, 1.8, 2.6, 528, 0.5)
EfficientNetB7 = _builder(7, 2.0, 3.1, 600, 0.5)


def preprocess_input(x, data_format=None):
    """The identity: EfficientNet models normalize their input themselves (Keras keeps this
    function for compatibility)."""
    return x
