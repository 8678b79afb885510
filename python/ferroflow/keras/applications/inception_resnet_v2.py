"""`keras.applications.inception_resnet_v2`: InceptionResNetV2 (Inception branches whose
concatenation is added, scaled, to the block input), Keras's layer names included."""

from ferroflow.keras import layers
from ferroflow.keras.applications import _common
from ferroflow.keras.applications._builder import imagenet_build, keras_builder
from ferroflow.keras.applications.inception_v3 import _head
from ferroflow.keras.applications.mobilenet_v2 import preprocess_input
from ferroflow.keras.applications.resnet import decode_predictions
from ferroflow.keras.layers.layer import Layer

__all__ = ["InceptionResNetV2", "decode_predictions", "preprocess_input"]

ORIGIN = "https://storage.googleapis.com/tensorflow/keras-applications/inception_resnet_v2/"


class CustomScaleLayer(Layer):
    """``inputs[0] + inputs[1] * scale``: a residual scaled before it is added."""

    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def get_config(self):
        """The layer's config, with ``scale``."""
        return {**super().get_config(), "scale": self.scale}

    def call(self, inputs):
        """The scaled sum."""
        return inputs[0] + inputs[1] * self.scale


def conv2d_bn(
    x, filters, kernel_size, strides=1, padding="same", activation="relu", use_bias=False, name=None
):
    """Conv -> BatchNormalization (no scale; only without bias) -> activation."""
    x = layers.Conv2D(
        filters, kernel_size, strides=strides, padding=padding, use_bias=use_bias, name=name
    )(x)
    if not use_bias:
        bn_name = None if name is None else f"{name}_bn"
        x = layers.BatchNormalization(axis=_common.bn_axis(), scale=False, name=bn_name)(x)
    if activation is not None:
        x = layers.Activation(activation, name=None if name is None else f"{name}_ac")(x)
    return x


def _chain(x, *convs):
    """conv2d_bn in turn; each conv is (filters, kernel[, strides, padding])."""
    for conv in convs:
        x = conv2d_bn(x, *conv)
    return x


# The branches (chains of (filters, kernel)) of each residual block type.
_BLOCKS = {
    "block35": (((32, 1),), ((32, 1), (32, 3)), ((32, 1), (48, 3), (64, 3))),
    "block17": (((192, 1),), ((128, 1), (160, [1, 7]), (192, [7, 1]))),
    "block8": (((192, 1),), ((192, 1), (224, [1, 3]), (256, [3, 1]))),
}


def inception_resnet_block(x, scale, block_type, block_idx, activation="relu"):
    """One residual Inception block: its branches, a 1x1 projection, the scaled sum."""
    if block_type not in _BLOCKS:
        raise ValueError(
            'Unknown Inception-ResNet block type. Expects "block35", "block17" or "block8", '
            f"but got: {block_type}"
        )
    branches = [_chain(x, *chain) for chain in _BLOCKS[block_type]]
    block_name = f"{block_type}_{block_idx}"
    mixed = layers.Concatenate(axis=_common.bn_axis(), name=f"{block_name}_mixed")(branches)
    up = conv2d_bn(
        mixed,
        x.shape[_common.bn_axis()],
        1,
        activation=None,
        use_bias=True,
        name=f"{block_name}_conv",
    )
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=f"{block_name}_ac")(x)
    return x


def _body(x):
    down = (2, "valid")
    x = _chain(x, (32, 3, *down), (32, 3, 1, "valid"), (64, 3))
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = _chain(x, (80, 1, 1, "valid"), (192, 3, 1, "valid"))
    x = layers.MaxPooling2D(3, strides=2)(x)
    pool = layers.AveragePooling2D(3, strides=1, padding="same")
    branches = [
        _chain(x, (96, 1)),
        _chain(x, (48, 1), (64, 5)),
        _chain(x, (64, 1), (96, 3), (96, 3)),
    ]
    branches.append(_chain(pool(x), (64, 1)))
    x = layers.Concatenate(axis=_common.bn_axis(), name="mixed_5b")(branches)
    for block_idx in range(1, 11):
        x = inception_resnet_block(x, 0.17, "block35", block_idx)
    branches = [
        _chain(x, (384, 3, *down)),
        _chain(x, (256, 1), (256, 3), (384, 3, *down)),
        layers.MaxPooling2D(3, strides=2, padding="valid")(x),
    ]
    x = layers.Concatenate(axis=_common.bn_axis(), name="mixed_6a")(branches)
    for block_idx in range(1, 21):
        x = inception_resnet_block(x, 0.1, "block17", block_idx)
    branches = [
        _chain(x, (256, 1), (384, 3, *down)),
        _chain(x, (256, 1), (288, 3, *down)),
        _chain(x, (256, 1), (288, 3), (320, 3, *down)),
        layers.MaxPooling2D(3, strides=2, padding="valid")(x),
    ]
    x = layers.Concatenate(axis=_common.bn_axis(), name="mixed_7a")(branches)
    for block_idx in range(1, 10):
        x = inception_resnet_block(x, 0.2, "block8", block_idx)
    x = inception_resnet_block(x, 1.0, "block8", 10, activation=None)
    return conv2d_bn(x, 1536, 1, name="conv_7b")


InceptionResNetV2 = keras_builder(
    "InceptionResNetV2",
    "inception_resnet_v2",
    imagenet_build(
        _body, "inception_resnet_v2_weights_tf_dim_ordering_tf_kernels", 299, 75, ORIGIN, _head
    ),
)
