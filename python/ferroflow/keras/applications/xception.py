"""`keras.applications.xception`: Xception (entry, middle and exit flows of separable
convolutions with projected residuals), Keras's layer names included."""

from ferroflow.keras import layers
from ferroflow.keras.applications import _common
from ferroflow.keras.applications._builder import imagenet_build, keras_builder
from ferroflow.keras.applications.inception_v3 import _head
from ferroflow.keras.applications.mobilenet_v2 import preprocess_input
from ferroflow.keras.applications.resnet import decode_predictions

__all__ = ["Xception", "decode_predictions", "preprocess_input"]

ORIGIN = "https://storage.googleapis.com/tensorflow/keras-applications/xception/"


def _sep_bn(x, filters, name, relu_first=None):
    """(ReLU ``relu_first``) separable 3x3 conv ``name`` then its BatchNormalization."""
    if relu_first is not None:
        x = layers.Activation("relu", name=relu_first)(x)
    x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return layers.BatchNormalization(axis=_common.channel_axis(), name=f"{name}_bn")(x)


def _projected(x, filters):
    """The strided 1x1 projection of a downsampling block's residual (default names)."""
    r = layers.Conv2D(filters, (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
    return layers.BatchNormalization(axis=_common.channel_axis())(r)


def _down_block(x, block, filters, first_relu=True):
    """Two separable convs, strided max pooling, plus the projected residual."""
    residual = _projected(x, filters[-1])
    p = f"block{block}"
    x = _sep_bn(x, filters[0], f"{p}_sepconv1", f"{p}_sepconv1_act" if first_relu else None)
    x = _sep_bn(x, filters[1], f"{p}_sepconv2", f"{p}_sepconv2_act")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"{p}_pool")(x)
    return layers.Add()([x, residual])


def _body(x):
    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(x)
    x = layers.BatchNormalization(axis=_common.channel_axis(), name="block1_conv1_bn")(x)
    x = layers.Activation("relu", name="block1_conv1_act")(x)
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = layers.BatchNormalization(axis=_common.channel_axis(), name="block1_conv2_bn")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(x)
    x = _down_block(x, 2, (128, 128), first_relu=False)
    x = _down_block(x, 3, (256, 256))
    x = _down_block(x, 4, (728, 728))
    for i in range(8):
        residual = x
        p = f"block{i + 5}"
        for conv in (1, 2, 3):
            x = _sep_bn(x, 728, f"{p}_sepconv{conv}", f"{p}_sepconv{conv}_act")
        x = layers.Add()([x, residual])
    x = _down_block(x, 13, (728, 1024))
    x = _sep_bn(x, 1536, "block14_sepconv1")
    x = layers.Activation("relu", name="block14_sepconv1_act")(x)
    x = _sep_bn(x, 2048, "block14_sepconv2")
    return layers.Activation("relu", name="block14_sepconv2_act")(x)


Xception = keras_builder(
    "Xception",
    "xception",
    imagenet_build(_body, "xception_weights_tf_dim_ordering_tf_kernels", 299, 71, ORIGIN, _head),
)
