"""`tf.keras`: layers, models, losses, metrics and optimizers, in Python over the core as in
TensorFlow. Work in progress: Layer, Dense and Model subclassing, optimizers, initializers,
activations and regularizers; losses, metrics, compile/fit, the other layers and saving are
still to come."""

from ferroflow.keras import (
    activations,
    initializers,
    layers,
    models,
    optimizers,
    regularizers,
)
from ferroflow.keras.models import Model

__all__ = [
    "Model",
    "activations",
    "initializers",
    "layers",
    "models",
    "optimizers",
    "regularizers",
]
