"""`keras.applications.vgg16`."""

from ferroflow.keras.applications.vgg import decode_predictions, preprocess_input, vgg_builder

__all__ = ["VGG16", "decode_predictions", "preprocess_input"]

VGG16 = vgg_builder("vgg16", (2, 2, 3, 3, 3))
