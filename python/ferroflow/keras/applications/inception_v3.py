"""`keras.applications.inception_v3`: InceptionV3 (the mixed0..mixed10 blocks of parallel
convolution branches), Keras's layer names included."""

from ferroflow.keras import layers
from ferroflow.keras.applications import _common
from ferroflow.keras.applications._builder import imagenet_build, keras_builder
from ferroflow.keras.applications.mobilenet_v2 import preprocess_input
from ferroflow.keras.applications.resnet import decode_predictions

__all__ = ["InceptionV3", "decode_predictions", "preprocess_input"]

ORIGIN = "https://storage.googleapis.com/tensorflow/keras-applications/inception_v3/"


def conv2d_bn(x, filters, num_row, num_col, padding="same", strides=(1, 1), name=None):
    """Conv (no bias) -> BatchNormalization (no scale) -> ReLU."""
    x = layers.Conv2D(
        filters,
        (num_row, num_col),
        strides=strides,
        padding=padding,
        use_bias=False,
        name=None if name is None else f"{name}_conv",
    )(x)
    x = layers.BatchNormalization(
        axis=_common.bn_axis(), scale=False, name=None if name is None else f"{name}_bn"
    )(x)
    return layers.Activation("relu", name=name)(x)


def _chain(x, *convs):
    """conv2d_bn applied in turn: each conv is (filters, rows, cols[, strides, padding])."""
    for conv in convs:
        filters, rows, cols = conv[:3]
        strides, padding = (conv[3], conv[4]) if len(conv) > 3 else ((1, 1), "same")
        x = conv2d_bn(x, filters, rows, cols, padding=padding, strides=strides)
    return x


def _avg_branch(x, filters):
    x = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return conv2d_bn(x, filters, 1, 1)


def _concat(branches, name=None):
    return layers.Concatenate(axis=_common.bn_axis(), name=name)(branches)


def _body(x):
    x = _chain(x, (32, 3, 3, (2, 2), "valid"), (32, 3, 3, (1, 1), "valid"), (64, 3, 3))
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _chain(x, (80, 1, 1, (1, 1), "valid"), (192, 3, 3, (1, 1), "valid"))
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    for i, pool_filters in enumerate((32, 64, 64)):
        branches = [
            _chain(x, (64, 1, 1)),
            _chain(x, (48, 1, 1), (64, 5, 5)),
            _chain(x, (64, 1, 1), (96, 3, 3), (96, 3, 3)),
            _avg_branch(x, pool_filters),
        ]
        x = _concat(branches, f"mixed{i}")
    down = ((2, 2), "valid")
    branches = [
        _chain(x, (384, 3, 3, *down)),
        _chain(x, (64, 1, 1), (96, 3, 3), (96, 3, 3, *down)),
        layers.MaxPooling2D((3, 3), strides=(2, 2))(x),
    ]
    x = _concat(branches, "mixed3")
    for i, f in enumerate((128, 160, 160, 192)):
        branches = [
            _chain(x, (192, 1, 1)),
            _chain(x, (f, 1, 1), (f, 1, 7), (192, 7, 1)),
            _chain(x, (f, 1, 1), (f, 7, 1), (f, 1, 7), (f, 7, 1), (192, 1, 7)),
            _avg_branch(x, 192),
        ]
        x = _concat(branches, f"mixed{4 + i}")
    branches = [
        _chain(x, (192, 1, 1), (320, 3, 3, *down)),
        _chain(x, (192, 1, 1), (192, 1, 7), (192, 7, 1), (192, 3, 3, *down)),
        layers.MaxPooling2D((3, 3), strides=(2, 2))(x),
    ]
    x = _concat(branches, "mixed8")
    for i in range(2):
        branch1x1 = _chain(x, (320, 1, 1))
        branch3x3 = _chain(x, (384, 1, 1))
        branch3x3 = _concat(
            [_chain(branch3x3, (384, 1, 3)), _chain(branch3x3, (384, 3, 1))], f"mixed9_{i}"
        )
        dbl = _chain(x, (448, 1, 1), (384, 3, 3))
        dbl = _concat([_chain(dbl, (384, 1, 3)), _chain(dbl, (384, 3, 1))])
        x = _concat([branch1x1, branch3x3, dbl, _avg_branch(x, 192)], f"mixed{9 + i}")
    return x


def _head(x, include_top, pooling, classes, classifier_activation, weights):
    if not include_top:
        return _common.pooled(x, pooling, avg_name=None, max_name=None)
    x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    return _common.predictions(x, classes, classifier_activation, weights)


InceptionV3 = keras_builder(
    "InceptionV3",
    "inception_v3",
    imagenet_build(
        _body, "inception_v3_weights_tf_dim_ordering_tf_kernels", 299, 75, ORIGIN, _head
    ),
)
