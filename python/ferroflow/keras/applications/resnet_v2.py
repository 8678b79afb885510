"""`keras.applications.resnet_v2`: ResNet50V2/101V2/152V2 over resnet.py's v2 blocks."""

from ferroflow.keras.applications import imagenet_utils
from ferroflow.keras.applications.resnet import ResNet, decode_predictions, stacks

__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "decode_predictions", "preprocess_input"]


def _builder(depth, block_counts):
    def builder(
        include_top=True,
        weights="imagenet",
        input_tensor=None,
        input_shape=None,
        pooling=None,
        classes=1000,
        classifier_activation="softmax",
        name=f"resnet{depth}v2",
    ):
        return ResNet(
            stacks(block_counts, v2=True),
            preact=True,
            use_bias=True,
            weights_name=f"resnet{depth}v2",
            name=name,
            include_top=include_top,
            weights=weights,
            input_tensor=input_tensor,
            input_shape=input_shape,
            pooling=pooling,
            classes=classes,
            classifier_activation=classifier_activation,
        )

    builder.__name__ = builder.__qualname__ = f"ResNet{depth}V2"
    builder.__doc__ = f"ResNet{depth}V2 (Keras's architecture and layer names)."
    return builder


ResNet50V2 = _builder(50, (3, 4, 6, 3))
ResNet101V2 = _builder(101, (3, 4, 23, 3))
ResNet152V2 = _builder(152, (3, 8, 36, 3))


def preprocess_input(x, data_format=None):
    """ "tf"-mode preprocessing (scaled to [-1, 1])."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")
