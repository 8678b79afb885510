"""`keras.applications.nasnet`: NASNetMobile and NASNetLarge (NASNet-A normal and reduction
cells of separable convolutions and poolings), Keras's layer names included."""

from ferroflow.keras import layers
from ferroflow.keras.applications import _common
from ferroflow.keras.applications.mobilenet_v2 import preprocess_input
from ferroflow.keras.applications.resnet import decode_predictions
from ferroflow.keras.models import Model

__all__ = ["NASNetLarge", "NASNetMobile", "decode_predictions", "preprocess_input"]

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/nasnet/"
# default size -> (file with top, origin, file without top, origin)
_WEIGHT_FILES = {
    224: (
        "nasnet_mobile.h5",
        "NASNet-mobile.h5",
        "nasnet_mobile_no_top.h5",
        "NASNet-mobile-no-top.h5",
    ),
    331: ("nasnet_large.h5", "NASNet-large.h5", "nasnet_large_no_top.h5", "NASNet-large-no-top.h5"),
}


def _bn(x, name):
    return layers.BatchNormalization(
        axis=_common.channel_axis(), momentum=0.9997, epsilon=1e-3, name=name
    )(x)


def _conv1x1(x, filters, name):
    return layers.Conv2D(
        filters,
        (1, 1),
        strides=(1, 1),
        padding="same",
        name=name,
        use_bias=False,
        kernel_initializer="he_normal",
    )(x)


def _separable_conv_block(ip, filters, kernel_size=(3, 3), strides=(1, 1), block_id=None):
    x = layers.Activation("relu")(ip)
    if strides == (2, 2):
        x = layers.ZeroPadding2D(
            padding=_common.correct_pad(x, kernel_size), name=f"separable_conv_1_pad_{block_id}"
        )(x)
    x = layers.SeparableConv2D(
        filters,
        kernel_size,
        strides=strides,
        name=f"separable_conv_1_{block_id}",
        padding="valid" if strides == (2, 2) else "same",
        use_bias=False,
    )(x)
    x = _bn(x, f"separable_conv_1_bn_{block_id}")
    x = layers.Activation("relu")(x)
    x = layers.SeparableConv2D(
        filters, kernel_size, name=f"separable_conv_2_{block_id}", padding="same", use_bias=False
    )(x)
    return _bn(x, f"separable_conv_2_bn_{block_id}")


def _adjust_block(p, ip, filters, block_id=None):
    """Matches the previous cell's output ``p`` to ``ip``'s size and ``filters``."""
    if p is None:
        return ip
    if p.shape[-2] != ip.shape[-2]:
        p = layers.Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
        pool = {"pool_size": (1, 1), "strides": (2, 2), "padding": "valid"}
        p1 = layers.AveragePooling2D(**pool, name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = _conv1x1(p1, filters // 2, f"adjust_conv_1_{block_id}")
        p2 = layers.ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = layers.Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = layers.AveragePooling2D(**pool, name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = _conv1x1(p2, filters // 2, f"adjust_conv_2_{block_id}")
        p = layers.Concatenate(axis=_common.channel_axis())([p1, p2])
        return _bn(p, f"adjust_bn_{block_id}")
    if p.shape[_common.channel_axis()] != filters:
        p = layers.Activation("relu")(p)
        p = _conv1x1(p, filters, f"adjust_conv_projection_{block_id}")
        return _bn(p, f"adjust_bn_{block_id}")
    return p


def _cell_input(ip, p, filters, block_id, kind):
    p = _adjust_block(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = _conv1x1(h, filters, f"{kind}_conv_1_{block_id}")
    return p, _bn(h, f"{kind}_bn_1_{block_id}")


def _avg3(x, strides, padding, name):
    return layers.AveragePooling2D((3, 3), strides=strides, padding=padding, name=name)(x)


def _normal_a_cell(ip, p, filters, block_id=None):
    p, h = _cell_input(ip, p, filters, block_id, "normal")
    b = block_id
    x1 = layers.Add(name=f"normal_add_1_{b}")(
        [
            _separable_conv_block(h, filters, (5, 5), block_id=f"normal_left1_{b}"),
            _separable_conv_block(p, filters, block_id=f"normal_right1_{b}"),
        ]
    )
    x2 = layers.Add(name=f"normal_add_2_{b}")(
        [
            _separable_conv_block(p, filters, (5, 5), block_id=f"normal_left2_{b}"),
            _separable_conv_block(p, filters, (3, 3), block_id=f"normal_right2_{b}"),
        ]
    )
    x3 = _avg3(h, (1, 1), "same", f"normal_left3_{b}")
    x3 = layers.Add(name=f"normal_add_3_{b}")([x3, p])
    x4 = layers.Add(name=f"normal_add_4_{b}")(
        [
            _avg3(p, (1, 1), "same", f"normal_left4_{b}"),
            _avg3(p, (1, 1), "same", f"normal_right4_{b}"),
        ]
    )
    x5 = _separable_conv_block(h, filters, block_id=f"normal_left5_{b}")
    x5 = layers.Add(name=f"normal_add_5_{b}")([x5, h])
    x = layers.Concatenate(axis=_common.channel_axis(), name=f"normal_concat_{b}")(
        [p, x1, x2, x3, x4, x5]
    )
    return x, ip


def _reduction_a_cell(ip, p, filters, block_id=None):
    p, h = _cell_input(ip, p, filters, block_id, "reduction")
    b = block_id
    h3 = layers.ZeroPadding2D(padding=_common.correct_pad(h, 3), name=f"reduction_pad_1_{b}")(h)
    x1 = layers.Add(name=f"reduction_add_1_{b}")(
        [
            _separable_conv_block(h, filters, (5, 5), (2, 2), f"reduction_left1_{b}"),
            _separable_conv_block(p, filters, (7, 7), (2, 2), f"reduction_right1_{b}"),
        ]
    )
    x2_1 = layers.MaxPooling2D(
        (3, 3), strides=(2, 2), padding="valid", name=f"reduction_left2_{b}"
    )(h3)
    x2_2 = _separable_conv_block(p, filters, (7, 7), (2, 2), f"reduction_right2_{b}")
    x2 = layers.Add(name=f"reduction_add_2_{b}")([x2_1, x2_2])
    x3_1 = _avg3(h3, (2, 2), "valid", f"reduction_left3_{b}")
    x3_2 = _separable_conv_block(p, filters, (5, 5), (2, 2), f"reduction_right3_{b}")
    x3 = layers.Add(name=f"reduction_add3_{b}")([x3_1, x3_2])
    x4 = _avg3(x1, (1, 1), "same", f"reduction_left4_{b}")
    x4 = layers.Add()([x2, x4])
    x5_1 = _separable_conv_block(x1, filters, (3, 3), block_id=f"reduction_left4_{b}")
    x5_2 = layers.MaxPooling2D(
        (3, 3), strides=(2, 2), padding="valid", name=f"reduction_right5_{b}"
    )(h3)
    x5 = layers.Add(name=f"reduction_add4_{b}")([x5_1, x5_2])
    x = layers.Concatenate(axis=_common.channel_axis(), name=f"reduction_concat_{b}")(
        [x2, x3, x4, x5]
    )
    return x, ip


def NASNet(
    input_shape=None,
    penultimate_filters=4032,
    num_blocks=6,
    stem_block_filters=96,
    skip_reduction=True,
    filter_multiplier=2,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    default_size=None,
    classifier_activation="softmax",
    name="NASNet",
):
    """A NASNet-A with ``num_blocks`` normal cells per stage."""
    _common.refuse_channels_first("NASNet")
    _common.check_weights(weights, include_top, classes)
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError(
            "When specifying the input shape of a NASNet and loading `ImageNet` weights, the "
            "input_shape argument must be static (no None entries). Got: "
            f"`input_shape={input_shape}`."
        )
    default_size = 331 if default_size is None else default_size
    input_shape = _common.obtain_input_shape(
        input_shape, default_size, 32, require_flatten=include_top, weights=weights
    )
    image, inputs = _common.model_input(input_tensor, input_shape)
    if penultimate_filters % (24 * (filter_multiplier**2)) != 0:
        raise ValueError(
            "For NASNet-A models, the `penultimate_filters` must be a multiple of 24 * "
            f"(`filter_multiplier` ** 2). Current value: {penultimate_filters}"
        )
    filters = penultimate_filters // 24
    x = layers.Conv2D(
        stem_block_filters,
        (3, 3),
        strides=(2, 2),
        padding="valid",
        use_bias=False,
        name="stem_conv1",
        kernel_initializer="he_normal",
    )(image)
    x = _bn(x, "stem_bn1")
    p = None
    x, p = _reduction_a_cell(x, p, filters // (filter_multiplier**2), block_id="stem_1")
    x, p = _reduction_a_cell(x, p, filters // filter_multiplier, block_id="stem_2")
    for stage in range(3):
        width = filters * filter_multiplier**stage
        if stage:
            x, p0 = _reduction_a_cell(x, p, width, block_id=f"reduce_{stage * num_blocks}")
            p = p if skip_reduction else p0
        for i in range(num_blocks):
            block_id = f"{stage * num_blocks + i + 1}" if stage else f"{i}"
            x, p = _normal_a_cell(x, p, width, block_id=block_id)
    x = layers.Activation("relu")(x)
    x = _common.unnamed_average_head(
        x, include_top, pooling, classes, classifier_activation, weights
    )
    model = Model(inputs, x, name=name)
    if weights == "imagenet":
        if default_size not in _WEIGHT_FILES:
            raise ValueError("ImageNet weights can only be loaded with NASNetLarge or NASNetMobile")
        top, top_origin, no_top, no_top_origin = _WEIGHT_FILES[default_size]
        fname, origin = (top, top_origin) if include_top else (no_top, no_top_origin)
        _common.load_legacy_h5_weights(
            model, _common.cached_file(fname, BASE_WEIGHTS_PATH + origin)
        )
        return model
    return _common.finish(model, weights)


def NASNetMobile(
    input_shape=None,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="nasnet_mobile",
):
    """NASNet-A Mobile (4 @ 1056), 224x224 by default (Keras's layer names)."""
    if not include_top and input_shape is None:
        input_shape = (224, 224, 3)
    return NASNet(
        input_shape,
        penultimate_filters=1056,
        num_blocks=4,
        stem_block_filters=32,
        skip_reduction=False,
        filter_multiplier=2,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        pooling=pooling,
        classes=classes,
        default_size=224,
        classifier_activation=classifier_activation,
        name=name,
    )


def NASNetLarge(
    input_shape=None,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name="nasnet_large",
):
    """NASNet-A Large (6 @ 4032), 331x331 by default (Keras's layer names)."""
    return NASNet(
        input_shape,
        penultimate_filters=4032,
        num_blocks=6,
        stem_block_filters=96,
        skip_reduction=True,
        filter_multiplier=2,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        pooling=pooling,
        classes=classes,
        default_size=331,
        classifier_activation=classifier_activation,
        name=name,
    )
