"""`keras.applications.vgg19`."""

from ferroflow.keras.applications.vgg import decode_predictions, preprocess_input, vgg_builder

__all__ = ["VGG19", "decode_predictions", "preprocess_input"]

VGG19 = vgg_builder("vgg19", (2, 2, 4, 4, 4))
