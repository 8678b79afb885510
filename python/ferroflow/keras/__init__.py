"""`tf.keras`: layers, models (subclassed, Sequential, functional), training (compile, fit,
evaluate, predict, callbacks), losses, metrics, optimizers and saving, in Python over the core
as in TensorFlow."""

from ferroflow.device_scope import device
from ferroflow.keras import (
    activations,
    applications,
    backend,
    callbacks,
    config,
    constraints,
    datasets,
    distillation,
    distribution,
    dtype_policies,
    export,
    initializers,
    layers,
    legacy,
    losses,
    metrics,
    mixed_precision,
    models,
    ops,
    optimizers,
    preprocessing,
    quantizers,
    random,
    regularizers,
    saving,
    tree,
    utils,
    visualization,
    wrappers,
)
from ferroflow.keras._operations import Operation
from ferroflow.keras._scopes import RematScope, StatelessScope, SymbolicScope, remat
from ferroflow.keras._variables import Variable
from ferroflow.keras.dtype_policies import DTypePolicy, FloatDTypePolicy
from ferroflow.keras.function import Function
from ferroflow.keras.initializers import Initializer
from ferroflow.keras.layers import InputSpec, Layer
from ferroflow.keras.layers.input_layer import Input, InputLayer, KerasTensor
from ferroflow.keras.losses import Loss
from ferroflow.keras.metrics import Metric
from ferroflow.keras.models import Model, Sequential
from ferroflow.keras.optimizers import Optimizer
from ferroflow.keras.quantizers import Quantizer
from ferroflow.keras.regularizers import Regularizer
from ferroflow.name_scope import name_scope

# The Keras 3 release whose behaviour ferroflow's Keras follows (the one TensorFlow 2.21 ships).
# Keras's Layer subclasses Operation: keras.Operation answers for layers too.
Operation.register(Layer)

__version__ = "3.15.1"


def version():
    """The Keras version ferroflow's Keras follows."""
    return __version__


__all__ = [
    "DTypePolicy",
    "FloatDTypePolicy",
    "Function",
    "Initializer",
    "Input",
    "InputLayer",
    "InputSpec",
    "KerasTensor",
    "Layer",
    "Loss",
    "Metric",
    "Model",
    "Operation",
    "Optimizer",
    "Quantizer",
    "Regularizer",
    "RematScope",
    "Sequential",
    "StatelessScope",
    "SymbolicScope",
    "Variable",
    "activations",
    "applications",
    "backend",
    "callbacks",
    "config",
    "constraints",
    "datasets",
    "device",
    "distillation",
    "distribution",
    "dtype_policies",
    "export",
    "initializers",
    "layers",
    "legacy",
    "losses",
    "metrics",
    "mixed_precision",
    "models",
    "name_scope",
    "ops",
    "optimizers",
    "preprocessing",
    "quantizers",
    "random",
    "regularizers",
    "remat",
    "saving",
    "tree",
    "utils",
    "version",
    "visualization",
    "wrappers",
]
