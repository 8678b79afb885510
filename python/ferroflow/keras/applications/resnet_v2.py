"""`keras.applications.resnet_v2`: ResNet50V2/101V2/152V2 over resnet.py's v2 blocks."""

from ferroflow.keras.applications import imagenet_utils
from ferroflow.keras.applications._builder import keras_builder
from ferroflow.keras.applications.resnet import ResNet, decode_predictions, stacks

__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "decode_predictions", "preprocess_input"]


def _resnet_v2(depth, block_counts):
    def make(**kwargs):
        return ResNet(stacks(block_counts, v2=True), True, True, f"resnet{depth}v2", **kwargs)

    return keras_builder(f"ResNet{depth}V2", f"resnet{depth}v2", make)


ResNet50V2 = _resnet_v2(50, (3, 4, 6, 3))
ResNet101V2 = _resnet_v2(101, (3, 4, 23, 3))
ResNet152V2 = _resnet_v2(152, (3, 8, 36, 3))


def preprocess_input(x, data_format=None):
    """ "tf"-mode preprocessing (scaled to [-1, 1])."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")
