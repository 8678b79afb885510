"""`keras.applications.mobilenet_v3`: MobileNetV3Small and MobileNetV3Large (inverted
residual blocks with hard-swish and squeeze-and-excitation), Keras's layer names included.
The input rescaling is part of the model (``include_preprocessing``), as in Keras."""

import warnings

from ferroflow.keras import backend, layers
from ferroflow.keras.applications import _common, _mobile
from ferroflow.keras.applications.resnet import decode_predictions
from ferroflow.keras.models import Model

__all__ = ["MobileNetV3Large", "MobileNetV3Small", "decode_predictions", "preprocess_input"]

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/"
_depth = _mobile.make_divisible
# (expansion, filters, kernel ("k": the model's), stride, squeeze-excite, activation ("a": the
# model's)) of each block.
_SMALL = (
    (1, 16, 3, 2, True, "relu"),
    (72.0 / 16, 24, 3, 2, False, "relu"),
    (88.0 / 24, 24, 3, 1, False, "relu"),
    (4, 40, "k", 2, True, "a"),
    (6, 40, "k", 1, True, "a"),
    (6, 40, "k", 1, True, "a"),
    (3, 48, "k", 1, True, "a"),
    (3, 48, "k", 1, True, "a"),
    (6, 96, "k", 2, True, "a"),
    (6, 96, "k", 1, True, "a"),
    (6, 96, "k", 1, True, "a"),
)
_LARGE = (
    (1, 16, 3, 1, False, "relu"),
    (4, 24, 3, 2, False, "relu"),
    (3, 24, 3, 1, False, "relu"),
    (3, 40, "k", 2, True, "relu"),
    (3, 40, "k", 1, True, "relu"),
    (3, 40, "k", 1, True, "relu"),
    (6, 80, 3, 2, False, "a"),
    (2.5, 80, 3, 1, False, "a"),
    (2.3, 80, 3, 1, False, "a"),
    (2.3, 80, 3, 1, False, "a"),
    (6, 112, 3, 1, True, "a"),
    (6, 112, 3, 1, True, "a"),
    (6, 160, "k", 2, True, "a"),
    (6, 160, "k", 1, True, "a"),
    (6, 160, "k", 1, True, "a"),
)


def relu(x):
    """An unnamed ReLU layer."""
    return layers.ReLU()(x)


def hard_sigmoid(x):
    """ReLU6(x + 3) / 6, as Keras writes it (tensor arithmetic in the functional graph)."""
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def hard_swish(x):
    """An unnamed hard-swish activation layer."""
    return layers.Activation("hard_swish")(x)


def _bn(x, name):
    return layers.BatchNormalization(
        axis=_common.channel_axis(), epsilon=1e-3, momentum=0.999, name=name
    )(x)


def _se_block(inputs, filters, se_ratio, prefix):
    x = layers.GlobalAveragePooling2D(keepdims=True, name=f"{prefix}squeeze_excite_avg_pool")(
        inputs
    )
    x = layers.Conv2D(
        _depth(filters * se_ratio), 1, padding="same", name=f"{prefix}squeeze_excite_conv"
    )(x)
    x = layers.ReLU(name=f"{prefix}squeeze_excite_relu")(x)
    x = layers.Conv2D(filters, 1, padding="same", name=f"{prefix}squeeze_excite_conv_1")(x)
    x = hard_sigmoid(x)
    return layers.Multiply(name=f"{prefix}squeeze_excite_mul")([inputs, x])


def _inverted_res_block(x, expansion, filters, kernel_size, stride, se_ratio, activation, block_id):
    shortcut = x
    prefix = "expanded_conv_"
    infilters = x.shape[_common.channel_axis()]
    if block_id:
        prefix = f"expanded_conv_{block_id}_"
        x = layers.Conv2D(
            _depth(infilters * expansion), 1, padding="same", use_bias=False, name=f"{prefix}expand"
        )(x)
        x = activation(_bn(x, f"{prefix}expand_bn"))
    if stride == 2:
        x = layers.ZeroPadding2D(
            padding=_common.correct_pad(x, kernel_size), name=f"{prefix}depthwise_pad"
        )(x)
    x = layers.DepthwiseConv2D(
        kernel_size,
        strides=stride,
        padding="same" if stride == 1 else "valid",
        use_bias=False,
        name=f"{prefix}depthwise",
    )(x)
    x = activation(_bn(x, f"{prefix}depthwise_bn"))
    if se_ratio:
        x = _se_block(x, _depth(infilters * expansion), se_ratio, prefix)
    x = layers.Conv2D(filters, 1, padding="same", use_bias=False, name=f"{prefix}project")(x)
    x = _bn(x, f"{prefix}project_bn")
    if stride == 1 and infilters == filters:
        x = layers.Add(name=f"{prefix}add")([shortcut, x])
    return x


def _input_shape(input_shape, input_tensor):
    """Keras's MobileNetV3 input shape: from ``input_tensor``, else free height and width."""
    first = _common.channels_first()
    if input_shape is not None and input_tensor is not None:
        if not backend.is_keras_tensor(input_tensor):
            raise ValueError("input_tensor specified: ", input_tensor, "is not a keras tensor")
        if input_tensor.shape[1 if first else 2] != input_shape[1]:
            raise ValueError(
                ("When backend.image_data_format()=channels_first, " if first else "")
                + "input_shape[1] must equal input_tensor.shape["
                + ("1" if first else "2")
                + f"].  Received input_shape={input_shape}, "
                f"input_tensor.shape={input_tensor.shape}"
            )
    if input_shape is None and input_tensor is not None:
        if backend.is_keras_tensor(input_tensor):
            rows, cols = _common.spatial(input_tensor.shape[1:])
            input_shape = (3, cols, rows) if first else (cols, rows, 3)
    elif input_shape is None:
        input_shape = (3, None, None) if first else (None, None, 3)
    # A non-Keras `input_tensor` leaves the shape unknown: Keras subscripts it anyway
    # (TypeError) before `keras.Input` could refuse the tensor.
    rows, cols = _common.spatial(input_shape)
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(f"Input size must be at least 32x32; Received `input_shape={input_shape}`")
    return input_shape


def MobileNetV3(
    blocks,
    last_point_ch,
    input_shape=None,
    alpha=1.0,
    model_type="large",
    minimalistic=False,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    classes=1000,
    pooling=None,
    dropout_rate=0.2,
    classifier_activation="softmax",
    include_preprocessing=True,
    name=None,
):
    """A MobileNetV3 of the given ``blocks`` table."""
    _common.check_weights(weights, include_top, classes)
    input_shape = _input_shape(input_shape, input_tensor)
    rows, cols = _common.spatial(input_shape)
    if weights == "imagenet":
        if (not minimalistic and alpha not in [0.75, 1.0]) or (minimalistic and alpha != 1.0):
            raise ValueError(
                "If imagenet weights are being loaded, alpha can be one of `0.75`, `1.0` for "
                "non minimalistic or `1.0` for minimalistic only."
            )
        if rows != cols or rows != 224:
            warnings.warn(
                "`input_shape` is undefined or non-square, or `rows` is not 224. Weights for "
                "input shape (224, 224) will be loaded as the default.",
                stacklevel=3,
            )
    image, inputs = _common.model_input(input_tensor, input_shape)
    kernel, activation, se_ratio = (3, relu, None) if minimalistic else (5, hard_swish, 0.25)
    x = image
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, 3, strides=(2, 2), padding="same", use_bias=False, name="conv")(x)
    x = activation(_bn(x, "conv_bn"))
    for block_id, (expansion, filters, k, stride, se, act) in enumerate(blocks):
        x = _inverted_res_block(
            x,
            expansion,
            _depth(filters * alpha),
            kernel if k == "k" else k,
            stride,
            se_ratio if se else None,
            activation if act == "a" else relu,
            block_id,
        )
    last_conv_ch = _depth(x.shape[_common.channel_axis()] * 6)
    if alpha > 1.0:
        last_point_ch = _depth(last_point_ch * alpha)
    x = layers.Conv2D(last_conv_ch, 1, padding="same", use_bias=False, name="conv_1")(x)
    x = activation(_bn(x, "conv_1_bn"))
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, 1, padding="same", use_bias=True, name="conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, 1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        _common.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = _common.pooled(x, pooling)
    model = Model(inputs, x, name=name)
    stem = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
    files = (f"weights_mobilenet_v3_{stem}.h5", f"weights_mobilenet_v3_{stem}_no_top_v2.h5")
    return _common.finish(model, weights, files[0] if include_top else files[1], BASE_WEIGHT_PATH)


def _builder(kind, blocks, last_point_ch):
    title = f"MobileNetV3{kind.title()}"

    def builder(
        input_shape=None,
        alpha=1.0,
        minimalistic=False,
        include_top=True,
        weights="imagenet",
        input_tensor=None,
        classes=1000,
        pooling=None,
        dropout_rate=0.2,
        classifier_activation="softmax",
        include_preprocessing=True,
        name=title,
    ):
        return MobileNetV3(
            blocks,
            last_point_ch,
            input_shape,
            alpha,
            kind,
            minimalistic,
            include_top,
            weights,
            input_tensor,
            classes,
            pooling,
            dropout_rate,
            classifier_activation,
            include_preprocessing,
            name=name,
        )

    builder.__name__ = builder.__qualname__ = title
    builder.__doc__ = f"{title} (Keras's architecture and layer names)."
    return builder


MobileNetV3Small = _builder("small", _SMALL, 1024)
MobileNetV3Large = _builder("large", _LARGE, 1280)


def preprocess_input(x, data_format=None):
    """The identity: the model rescales its input itself (kept for compatibility)."""
    return x
