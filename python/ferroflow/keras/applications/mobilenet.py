"""`keras.applications.mobilenet`: MobileNet (depthwise separable blocks) as Keras builds it,
layer names and weight file names included."""

from ferroflow.keras import layers
from ferroflow.keras.applications import _common, _mobile
from ferroflow.keras.applications._builder import build
from ferroflow.keras.applications.mobilenet_v2 import preprocess_input
from ferroflow.keras.applications.resnet import decode_predictions

__all__ = ["MobileNet", "decode_predictions", "preprocess_input"]

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"
_SIZES = (128, 160, 192, 224)
_ALPHA_TEXT = {1.0: "1_0", 0.75: "7_5", 0.50: "5_0"}
# (pointwise filters, stride) of blocks 1..13.
_BLOCKS = (
    [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)]
    + [(512, 1)] * 5
    + [(1024, 2), (1024, 1)]
)


def _depthwise_conv_block(x, filters, alpha, depth_multiplier, stride, block_id):
    if stride != 1:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D(
        (3, 3),
        padding="same" if stride == 1 else "valid",
        depth_multiplier=depth_multiplier,
        strides=(stride, stride),
        use_bias=False,
        name=f"conv_dw_{block_id}",
    )(x)
    x = layers.BatchNormalization(axis=_common.channel_axis(), name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(
        int(filters * alpha), (1, 1), padding="same", use_bias=False, name=f"conv_pw_{block_id}"
    )(x)
    x = layers.BatchNormalization(axis=_common.channel_axis(), name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def MobileNet(
    input_shape=None,
    alpha=1.0,
    depth_multiplier=1,
    dropout=1e-3,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    name=None,
):
    """MobileNet with width ``alpha`` and ``depth_multiplier`` (Keras's layer names)."""
    if weights == "imagenet" and depth_multiplier != 1:
        raise ValueError(
            "If imagenet weights are being loaded, depth multiplier must be 1.  "
            f"Received depth_multiplier={depth_multiplier}"
        )

    def body(x):
        x = layers.Conv2D(
            int(32 * alpha), (3, 3), padding="same", use_bias=False, strides=(2, 2), name="conv1"
        )(x)
        x = layers.BatchNormalization(axis=_common.channel_axis(), name="conv1_bn")(x)
        x = layers.ReLU(6.0, name="conv1_relu")(x)
        for block_id, (filters, stride) in enumerate(_BLOCKS, start=1):
            x = _depthwise_conv_block(x, filters, alpha, depth_multiplier, stride, block_id)
        return x

    def head(x, include_top, pooling, classes, classifier_activation, weights):
        if not include_top:
            return _common.pooled(x, pooling, avg_name=None, max_name=None)
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        _common.validate_activation(classifier_activation, weights)
        return layers.Activation(activation=classifier_activation, name="predictions")(x)

    def rows(shape, found={}):  # noqa: B006 - computed once per build (it may warn)
        if "rows" not in found:
            found["rows"] = _mobile.weight_rows(
                shape,
                weights,
                alpha,
                (0.25, 0.50, 0.75, 1.0),
                _SIZES,
                "If imagenet weights are being loaded, alpha can be one of`0.25`, `0.50`, "
                f"`0.75` or `1.0` only.  Received alpha={alpha}",
            )
        return found["rows"]

    def file_names(shape):
        stem = f"mobilenet_{_ALPHA_TEXT.get(alpha, '2_5')}_{rows(shape)}_tf"
        return (f"{stem}.h5", f"{stem}_no_top.h5")

    return build(
        body,
        name=name if name is not None else (lambda shape: f"mobilenet_{alpha:0.2f}_{rows(shape)}"),
        default_size=_mobile.default_size(input_shape, _SIZES),
        min_size=32,
        head=head,
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
