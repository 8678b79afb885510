"""`keras.applications.resnet` (ResNet50/101/152) and the residual blocks that ResNetV2
shares, as Keras builds them (layer names included, so Keras's weight files load)."""

from ferroflow.keras import layers
from ferroflow.keras.applications import imagenet_utils
from ferroflow.keras.applications._builder import build, keras_builder
from ferroflow.keras.applications._common import bn_axis

__all__ = ["ResNet50", "ResNet101", "ResNet152", "decode_predictions", "preprocess_input"]

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"


def _bn(x, name):
    return layers.BatchNormalization(axis=bn_axis(), epsilon=1.001e-5, name=name)(x)


def ResNet(stack_fn, preact, use_bias, weights_name=None, name="resnet", **kwargs):
    """A ResNet (v1, or v2 with ``preact``) whose residual stages are ``stack_fn``."""

    def body(x):
        x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(x)
        x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
        if not preact:
            x = _bn(x, "conv1_bn")
            x = layers.Activation("relu", name="conv1_relu")(x)
        x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
        x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
        x = stack_fn(x)
        if preact:
            x = _bn(x, "post_bn")
            x = layers.Activation("relu", name="post_relu")(x)
        return x

    files = None
    if weights_name is not None:
        stem = f"{weights_name}_weights_tf_dim_ordering_tf_kernels"
        files = (f"{stem}.h5", f"{stem}_notop.h5")
    return build(
        body,
        name=name,
        default_size=224,
        min_size=32,
        file_names=files,
        origin=BASE_WEIGHTS_PATH,
        **kwargs,
    )


def residual_block_v1(x, filters, kernel_size=3, stride=1, conv_shortcut=True, name=None):
    """The bottleneck block of ResNet v1."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = _bn(shortcut, f"{name}_0_bn")
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = _bn(x, f"{name}_1_bn")
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.Conv2D(filters, kernel_size, padding="SAME", name=f"{name}_2_conv")(x)
    x = _bn(x, f"{name}_2_bn")
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    x = _bn(x, f"{name}_3_bn")
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def stack_residual_blocks_v1(x, filters, blocks, stride1=2, name=None):
    """A stage of ``blocks`` v1 blocks, the first one strided with a projection."""
    x = residual_block_v1(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = residual_block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def residual_block_v2(x, filters, kernel_size=3, stride=1, conv_shortcut=False, name=None):
    """The pre-activation bottleneck block of ResNet v2."""
    preact = _bn(x, f"{name}_preact_bn")
    preact = layers.Activation("relu", name=f"{name}_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = _bn(x, f"{name}_1_bn")
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False, name=f"{name}_2_conv")(
        x
    )
    x = _bn(x, f"{name}_2_bn")
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return layers.Add(name=f"{name}_out")([shortcut, x])


def stack_residual_blocks_v2(x, filters, blocks, stride1=2, name=None):
    """A stage of v2 blocks; the last one is strided."""
    x = residual_block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = residual_block_v2(x, filters, name=f"{name}_block{i}")
    return residual_block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def stacks(block_counts, v2=False):
    """The four residual stages (64..512 filters) with ``block_counts`` blocks each."""

    def stack_fn(x):
        for i, (filters, blocks) in enumerate(zip((64, 128, 256, 512), block_counts)):
            if v2:
                stride1 = 1 if i == 3 else 2
                x = stack_residual_blocks_v2(x, filters, blocks, stride1, name=f"conv{i + 2}")
            else:
                stride1 = 1 if i == 0 else 2
                x = stack_residual_blocks_v1(x, filters, blocks, stride1, name=f"conv{i + 2}")
        return x

    return stack_fn


def _resnet(depth, block_counts):
    def make(**kwargs):
        return ResNet(stacks(block_counts), False, True, f"resnet{depth}", **kwargs)

    return keras_builder(f"ResNet{depth}", f"resnet{depth}", make)


ResNet50 = _resnet(50, (3, 4, 6, 3))
ResNet101 = _resnet(101, (3, 4, 23, 3))
ResNet152 = _resnet(152, (3, 8, 36, 3))


def preprocess_input(x, data_format=None):
    """Caffe-mode ImageNet preprocessing (BGR, mean-centred)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds, top=5):
    """See `imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
