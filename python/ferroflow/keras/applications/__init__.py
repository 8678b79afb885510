"""`tf.keras.applications`: Keras's image classification architectures, built over
ferroflow's Keras layers with Keras's layer names, so that Keras's ImageNet weight files
(read from the Keras cache, never downloaded) load into them."""

from ferroflow.keras.applications import (
    convnext,
    densenet,
    efficientnet,
    efficientnet_v2,
    imagenet_utils,
    inception_resnet_v2,
    inception_v3,
    mobilenet,
    mobilenet_v2,
    mobilenet_v3,
    nasnet,
    resnet,
    resnet_v2,
    vgg16,
    vgg19,
    xception,
)
from ferroflow.keras.applications.convnext import (
    ConvNeXtBase,
    ConvNeXtLarge,
    ConvNeXtSmall,
    ConvNeXtTiny,
    ConvNeXtXLarge,
)
from ferroflow.keras.applications.densenet import DenseNet121, DenseNet169, DenseNet201
from ferroflow.keras.applications.efficientnet import (
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
)
from ferroflow.keras.applications.efficientnet_v2 import (
    EfficientNetV2B0,
    EfficientNetV2B1,
    EfficientNetV2B2,
    EfficientNetV2B3,
    EfficientNetV2L,
    EfficientNetV2M,
    EfficientNetV2S,
)
from ferroflow.keras.applications.inception_resnet_v2 import InceptionResNetV2
from ferroflow.keras.applications.inception_v3 import InceptionV3
from ferroflow.keras.applications.mobilenet import MobileNet
from ferroflow.keras.applications.mobilenet_v2 import MobileNetV2
from ferroflow.keras.applications.mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
from ferroflow.keras.applications.nasnet import NASNetLarge, NASNetMobile
from ferroflow.keras.applications.resnet import ResNet50, ResNet101, ResNet152
from ferroflow.keras.applications.resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2
from ferroflow.keras.applications.vgg16 import VGG16
from ferroflow.keras.applications.vgg19 import VGG19
from ferroflow.keras.applications.xception import Xception

resnet50 = resnet

__all__ = [
    "ConvNeXtBase",
    "ConvNeXtLarge",
    "ConvNeXtSmall",
    "ConvNeXtTiny",
    "ConvNeXtXLarge",
    "DenseNet121",
    "DenseNet169",
    "DenseNet201",
    "EfficientNetB0",
    "EfficientNetB1",
    "EfficientNetB2",
    "EfficientNetB3",
    "EfficientNetB4",
    "EfficientNetB5",
    "EfficientNetB6",
    "EfficientNetB7",
    "EfficientNetV2B0",
    "EfficientNetV2B1",
    "EfficientNetV2B2",
    "EfficientNetV2B3",
    "EfficientNetV2L",
    "EfficientNetV2M",
    "EfficientNetV2S",
    "InceptionResNetV2",
    "InceptionV3",
    "MobileNet",
    "MobileNetV2",
    "MobileNetV3Large",
    "MobileNetV3Small",
    "NASNetLarge",
    "NASNetMobile",
    "ResNet50",
    "ResNet50V2",
    "ResNet101",
    "ResNet101V2",
    "ResNet152",
    "ResNet152V2",
    "VGG16",
    "VGG19",
    "Xception",
    "convnext",
    "densenet",
    "efficientnet",
    "efficientnet_v2",
    "imagenet_utils",
    "inception_resnet_v2",
    "inception_v3",
    "mobilenet",
    "mobilenet_v2",
    "mobilenet_v3",
    "nasnet",
    "resnet",
    "resnet50",
    "resnet_v2",
    "vgg16",
    "vgg19",
    "xception",
]
