"""Keras 3's image preprocessing layers: resizing and cropping, random geometric and colour
augmentations, over one base class (`BaseImagePreprocessingLayer`)."""

from ferroflow.keras.layers.image_preprocessing.base import BaseImagePreprocessingLayer
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
    RandomHue,
    RandomPosterization,
    RandomSaturation,
    RandomSharpness,
)
from ferroflow.keras.layers.image_preprocessing.geometric import (
    RandomFlip,
    RandomRotation,
    RandomTranslation,
    RandomZoom,
)
from ferroflow.keras.layers.image_preprocessing.resizing import CenterCrop, RandomCrop, Resizing

__all__ = [
    "AutoContrast",
    "BaseImagePreprocessingLayer",
    "CenterCrop",
    "Equalization",
    "RandomBrightness",
    "RandomColorDegeneration",
    "RandomColorJitter",
    "RandomContrast",
    "RandomCrop",
    "RandomFlip",
    "RandomGrayscale",
    "RandomHue",
    "RandomInvert",
    "RandomPosterization",
    "RandomRotation",
    "RandomSaturation",
    "RandomSharpness",
    "RandomTranslation",
    "RandomZoom",
    "Resizing",
    "Solarization",
]
