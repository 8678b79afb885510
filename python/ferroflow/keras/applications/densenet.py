"""`keras.applications.densenet`: DenseNet121/169/201 (dense blocks of concatenated
bottleneck convolutions, transition blocks between them), Keras's layer names included."""

from ferroflow.keras import layers
from ferroflow.keras.applications import imagenet_utils
from ferroflow.keras.applications._builder import build, keras_builder
from ferroflow.keras.applications._common import bn_axis, refuse_channels_first
from ferroflow.keras.applications.resnet import decode_predictions

__all__ = ["DenseNet121", "DenseNet169", "DenseNet201", "decode_predictions", "preprocess_input"]

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/densenet/"


def _bn_relu(x, name):
    x = layers.BatchNormalization(axis=bn_axis(), epsilon=1.001e-5, name=f"{name}_bn")(x)
    return layers.Activation("relu", name=f"{name}_relu")(x)


def conv_block(x, growth_rate, name):
    """BN-ReLU-1x1 conv-BN-ReLU-3x3 conv, concatenated to the block's input."""
    x1 = _bn_relu(x, f"{name}_0")
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=f"{name}_1_conv")(x1)
    x1 = _bn_relu(x1, f"{name}_1")
    x1 = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False, name=f"{name}_2_conv")(x1)
    return layers.Concatenate(axis=bn_axis(), name=f"{name}_concat")([x, x1])


def dense_block(x, blocks, name):
    """``blocks`` conv blocks with growth rate 32."""
    for i in range(blocks):
        x = conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def transition_block(x, reduction, name):
    """BN-ReLU, a 1x1 conv to ``reduction`` of the channels, 2x2 average pooling."""
    x = _bn_relu(x, name)
    x = layers.Conv2D(int(x.shape[bn_axis()] * reduction), 1, use_bias=False, name=f"{name}_conv")(
        x
    )
    return layers.AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def DenseNet(blocks, depth, name, **kwargs):
    """A DenseNet with ``blocks`` conv blocks in each of its four dense blocks."""

    def body(x):
        x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(x)
        x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
        x = _bn_relu(x, "conv1")
        x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
        x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
        for stage, count in enumerate(blocks):
            x = dense_block(x, count, name=f"conv{stage + 2}")
            if stage < 3:
                x = transition_block(x, 0.5, name=f"pool{stage + 2}")
        x = layers.BatchNormalization(axis=bn_axis(), epsilon=1.001e-5, name="bn")(x)
        return layers.Activation("relu", name="relu")(x)

    refuse_channels_first("DenseNet")
    stem = f"densenet{depth}_weights_tf_dim_ordering_tf_kernels"
    return build(
        body,
        name=name,
        default_size=224,
        min_size=32,
        file_names=(f"{stem}.h5", f"{stem}_notop.h5"),
        origin=BASE_WEIGHTS_PATH,
        **kwargs,
    )


def _densenet(depth, blocks):
    def make(name, **kwargs):
        return DenseNet(blocks, depth, name, **kwargs)

    return keras_builder(f"DenseNet{depth}", f"densenet{depth}", make)


DenseNet121 = _densenet(121, (6, 12, 24, 16))
DenseNet169 = _densenet(169, (6, 12, 32, 32))
DenseNet201 = _densenet(201, (6, 12, 48, 32))


def preprocess_input(x, data_format=None):
    """ "torch"-mode preprocessing (scaled to [0, 1], normalized per channel)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="torch")
