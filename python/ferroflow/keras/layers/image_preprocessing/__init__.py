"""Keras 3's image preprocessing layers: resizing and cropping, random geometric and colour
augmentations, over one base class (`BaseImagePreprocessingLayer`)."""

from ferroflow.keras.layers.image_preprocessing.base import BaseImagePreprocessingLayer
from ferroflow.keras.layers.image_preprocessing.clahe import (
    ContrastLimitedAdaptiveHistogramEqualization,
)
from ferroflow.keras.layers.image_preprocessing.color import (
    AutoContrast,
    RandomBrightness,
    RandomContrast,
    RandomGrayscale,
    RandomInvert,
    Solarization,
)
from ferroflow.keras.layers.image_preprocessing.color_adjust import (
    Equalization,
    RandomColorDegeneration,
    RandomColorJitter,
    RandomGaussianBlur,
    RandomHue,
    RandomPosterization,
    RandomSaturation,
    RandomSharpness,
)
from ferroflow.keras.layers.image_preprocessing.composite import (
    AugMix,
    MaxNumBoundingBoxes,
    Pipeline,
    RandAugment,
)
from ferroflow.keras.layers.image_preprocessing.elastic import RandomElasticTransform
from ferroflow.keras.layers.image_preprocessing.geometric import (
    RandomFlip,
    RandomPerspective,
    RandomRotation,
    RandomShear,
    RandomTranslation,
    RandomZoom,
)
from ferroflow.keras.layers.image_preprocessing.mixing import CutMix, MixUp, RandomErasing
from ferroflow.keras.layers.image_preprocessing.random_size import RandomHeight, RandomWidth
from ferroflow.keras.layers.image_preprocessing.resizing import CenterCrop, RandomCrop, Resizing

__all__ = [
    "AugMix",
    "AutoContrast",
    "BaseImagePreprocessingLayer",
    "CenterCrop",
    "ContrastLimitedAdaptiveHistogramEqualization",
    "CutMix",
    "Equalization",
    "MaxNumBoundingBoxes",
    "MixUp",
    "Pipeline",
    "RandAugment",
    "RandomBrightness",
    "RandomColorDegeneration",
    "RandomColorJitter",
    "RandomContrast",
    "RandomCrop",
    "RandomElasticTransform",
    "RandomErasing",
    "RandomFlip",
    "RandomGaussianBlur",
    "RandomGrayscale",
    "RandomHeight",
    "RandomHue",
    "RandomInvert",
    "RandomPerspective",
    "RandomPosterization",
    "RandomRotation",
    "RandomSaturation",
    "RandomSharpness",
    "RandomShear",
    "RandomTranslation",
    "RandomWidth",
    "RandomZoom",
    "Resizing",
    "Solarization",
]
