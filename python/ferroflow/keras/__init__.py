"""`tf.keras`: layers, models (subclassed, Sequential, functional), training (compile, fit,
evaluate, predict, callbacks), losses, metrics, optimizers and saving, in Python over the core
as in TensorFlow."""

from ferroflow.keras import (
    activations,
    backend,
    callbacks,
    constraints,
    initializers,
    layers,
    losses,
    metrics,
    models,
    ops,
    optimizers,
    regularizers,
    saving,
    utils,
)
from ferroflow.keras.layers.input_layer import Input, InputLayer
from ferroflow.keras.models import Model, Sequential

__all__ = [
    "Input",
    "InputLayer",
    "Model",
    "Sequential",
    "activations",
    "backend",
    "callbacks",
    "constraints",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "ops",
    "optimizers",
    "regularizers",
    "saving",
    "utils",
]
