"""`keras.applications.mobilenet_v2`: MobileNetV2 (inverted residual blocks) as Keras builds
it, layer names and weight file names included."""

from ferroflow.keras import backend, layers
from ferroflow.keras.applications import _common, _mobile, imagenet_utils
from ferroflow.keras.applications._builder import build
from ferroflow.keras.applications.resnet import decode_predictions

__all__ = ["MobileNetV2", "decode_predictions", "preprocess_input"]

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"
_SIZES = (96, 128, 160, 192, 224)
# (filters, stride, expansion) of blocks 0..16.
_BLOCKS = (
    [(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6)]
    + [(64, 2, 6)]
    + [(64, 1, 6)] * 3
    + [(96, 1, 6)] * 3
    + [(160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6)]
)


def _bn(x, name):
    return layers.BatchNormalization(
        axis=_common.channel_axis(), epsilon=1e-3, momentum=0.999, name=name
    )(x)


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    in_channels = inputs.shape[_common.channel_axis()]
    pointwise_filters = _mobile.make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(
            expansion * in_channels, 1, padding="same", use_bias=False, name=f"{prefix}expand"
        )(x)
        x = _bn(x, f"{prefix}expand_BN")
        x = layers.ReLU(6.0, name=f"{prefix}expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=_common.correct_pad(x, 3), name=f"{prefix}pad")(x)
    x = layers.DepthwiseConv2D(
        3,
        strides=stride,
        use_bias=False,
        padding="same" if stride == 1 else "valid",
        name=f"{prefix}depthwise",
    )(x)
    x = _bn(x, f"{prefix}depthwise_BN")
    x = layers.ReLU(6.0, name=f"{prefix}depthwise_relu")(x)
    x = layers.Conv2D(
        pointwise_filters, 1, padding="same", use_bias=False, name=f"{prefix}project"
    )(x)
    x = _bn(x, f"{prefix}project_BN")
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=f"{prefix}add")([inputs, x])
    return x


def _default_size(input_shape, input_tensor):
    """Keras's checks of ``input_tensor`` against ``input_shape``, and the square input size
    whose weights load (from the Keras tensor's shape when ``input_shape`` is None)."""
    keras_tensor = input_tensor is not None and backend.is_keras_tensor(input_tensor)
    if input_shape is not None and input_tensor is not None:
        if not keras_tensor:
            raise ValueError(
                f"input_tensor is not a Keras tensor; Received `input_tensor={input_tensor}`"
            )
        # Keras compares these two entries in both formats (channels with rows when
        # channels first).
        if _common.channels_first() and input_tensor.shape[1] != input_shape[1]:
            raise ValueError(
                "input_shape[1] must equal shape(input_tensor)[1] when `image_data_format` "
                f"is `channels_first`; Received `input_tensor.shape={input_tensor.shape}`, "
                f"`input_shape={input_shape}`"
            )
        if not _common.channels_first() and input_tensor.shape[2] != input_shape[1]:
            raise ValueError(
                "input_tensor.shape[2] must equal input_shape[1]; Received "
                f"`input_tensor.shape={input_tensor.shape}`, `input_shape={input_shape}`"
            )
    if input_shape is None and keras_tensor:
        return _mobile.default_size(tuple(input_tensor.shape[1:]), _SIZES)
    return _mobile.default_size(input_shape, _SIZES)


def MobileNetV2(
    input_shape=None,
    alpha=1.0,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name=None,
):
    """MobileNetV2 with width multiplier ``alpha`` (Keras's architecture and layer names)."""
    _common.check_weights(weights, include_top, classes)  # before the input checks, as Keras
    size = _default_size(input_shape, input_tensor)

    def body(x):
        x = layers.Conv2D(
            _mobile.make_divisible(32 * alpha, 8),
            kernel_size=3,
            strides=(2, 2),
            padding="same",
            use_bias=False,
            name="Conv1",
        )(x)
        x = _bn(x, "bn_Conv1")
        x = layers.ReLU(6.0, name="Conv1_relu")(x)
        for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
            x = _inverted_res_block(x, expansion, stride, alpha, filters, block_id)
        last = _mobile.make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
        x = layers.Conv2D(last, kernel_size=1, use_bias=False, name="Conv_1")(x)
        x = _bn(x, "Conv_1_bn")
        return layers.ReLU(6.0, name="out_relu")(x)

    def rows(shape, found={}):  # noqa: B006 - computed once per build (it may warn)
        if "rows" not in found:
            found["rows"] = _mobile.weight_rows(
                shape,
                weights,
                alpha,
                (0.35, 0.50, 0.75, 1.0, 1.3, 1.4),
                _SIZES,
                "If imagenet weights are being loaded, alpha must be one of `0.35`, `0.50`, "
                f"`0.75`, `1.0`, `1.3` or `1.4` only; Received `alpha={alpha}`",
            )
        return found["rows"]

    def file_names(shape):
        stem = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows(shape)}"
        return (f"{stem}.h5", f"{stem}_no_top.h5")

    return build(
        body,
        name=name
        if name is not None
        else (lambda shape: f"mobilenetv2_{alpha:0.2f}_{rows(shape)}"),
        default_size=size,
        min_size=32,
        head=_common.unnamed_average_head,
        file_names=file_names,
        origin=BASE_WEIGHT_PATH,
        include_top=include_top,
        weights=weights,
        input_tensor=input_tensor,
        input_shape=input_shape,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
    )


def preprocess_input(x, data_format=None):
    """ "tf"-mode preprocessing (scaled to [-1, 1])."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")
