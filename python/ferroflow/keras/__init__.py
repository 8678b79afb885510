"""`tf.keras`: layers, models, losses, metrics and optimizers, in Python over the core as in
TensorFlow. Work in progress: Layer, Dense and Model subclassing, optimizers, losses, metrics,
initializers, activations and regularizers; compile/fit, the other layers and saving are
still to come."""

from ferroflow.keras import (
    activations,
    callbacks,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    regularizers,
    saving,
    utils,
)
from ferroflow.keras.models import Model

__all__ = [
    "Model",
    "activations",
    "callbacks",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "optimizers",
    "regularizers",
    "saving",
    "utils",
]
