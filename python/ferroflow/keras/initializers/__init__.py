"""`tf.keras.initializers`: how layers fill their weights.

``get(identifier)`` resolves a name (``"glorot_uniform"``, ``"GlorotUniform"``), a config dict,
a class, an instance, any callable ``fn(shape, dtype=None)`` or a fixed tensor/array.
"""

import inspect as _inspect
import re as _re

import numpy as _np

import ferroflow as _tf
from ferroflow.keras.initializers.constant import Constant, Identity, Ones, Zeros
from ferroflow.keras.initializers.fans import compute_fans
from ferroflow.keras.initializers.initializer import (
    Initializer,
    standardize_dtype,
    standardize_shape,
)
from ferroflow.keras.initializers.orthogonal import Orthogonal
from ferroflow.keras.initializers.random import RandomNormal, RandomUniform, TruncatedNormal
from ferroflow.keras.initializers.variance_scaling import (
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    LecunNormal,
    LecunUniform,
    VarianceScaling,
)

# Keras exports every class under its snake_case name too.
constant = Constant
identity = Identity
ones = Ones
zeros = Zeros
orthogonal = Orthogonal
random_normal = RandomNormal
random_uniform = RandomUniform
truncated_normal = TruncatedNormal
variance_scaling = VarianceScaling
glorot_normal = GlorotNormal
glorot_uniform = GlorotUniform
he_normal = HeNormal
he_uniform = HeUniform
lecun_normal = LecunNormal
lecun_uniform = LecunUniform
IdentityInitializer = Identity
OrthogonalInitializer = Orthogonal

__all__ = [
    "Constant",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "IdentityInitializer",
    "Initializer",
    "LecunNormal",
    "LecunUniform",
    "Ones",
    "Orthogonal",
    "OrthogonalInitializer",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "compute_fans",
    "constant",
    "deserialize",
    "get",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "identity",
    "lecun_normal",
    "lecun_uniform",
    "ones",
    "orthogonal",
    "random_normal",
    "random_uniform",
    "serialize",
    "truncated_normal",
    "variance_scaling",
    "zeros",
]

_ALL_CLASSES = (
    Initializer,
    Constant,
    Identity,
    Ones,
    Zeros,
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    LecunNormal,
    LecunUniform,
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
)


def _snake_case(name):
    return _re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


ALL_OBJECTS_DICT = {cls.__name__: cls for cls in _ALL_CLASSES}
ALL_OBJECTS_DICT.update({_snake_case(cls.__name__): cls for cls in _ALL_CLASSES})
ALL_OBJECTS_DICT.update(
    {
        "IdentityInitializer": Identity,
        "OrthogonalInitializer": Orthogonal,
        "normal": RandomNormal,
        "uniform": RandomUniform,
        "one": Ones,
        "zero": Zeros,
    }
)


def serialize(initializer):
    """The initializer's config in Keras' serialized form."""
    if initializer is None:
        return None
    if not isinstance(initializer, Initializer):
        raise ValueError(f"Cannot serialize {initializer!r}: it is not an Initializer.")
    return {
        "module": "keras.initializers",
        "class_name": type(initializer).__name__,
        "config": initializer.get_config(),
        "registered_name": None,
    }


def deserialize(config, custom_objects=None):
    """The initializer described by ``config`` (a name or a ``{"class_name", "config"}`` dict)."""
    objects = {**ALL_OBJECTS_DICT, **(custom_objects or {})}
    if isinstance(config, str):
        config = {"class_name": config, "config": {}}
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Unknown `config` as a `dict`, config={config}")
    cls = objects.get(config["class_name"])
    if cls is None:
        raise ValueError(f"Could not interpret initializer identifier: {config}")
    inner = config.get("config") or {}
    if _inspect.isclass(cls):
        return cls.from_config(inner) if hasattr(cls, "from_config") else cls(**inner)
    return cls


def _fixed_value_initializer(value):
    """``init(shape, dtype)`` that returns ``value`` cast to ``dtype`` (shape must match)."""

    def initialize_fn(shape, dtype=None):
        dtype = standardize_dtype(dtype)
        expected = standardize_shape(value.shape)
        if standardize_shape(shape) != expected:
            raise ValueError(
                f"Expected `shape` to be {expected} for direct tensor as initializer. "
                f"Received shape={shape}"
            )
        return _tf.cast(value, dtype)

    return initialize_fn


def get(identifier):
    """The initializer for ``identifier``; None stays None, other callables come back as they
    are (a class is instantiated with no arguments)."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        if identifier not in ALL_OBJECTS_DICT:
            raise ValueError(f"Could not interpret initializer identifier: {identifier}")
        obj = deserialize(identifier)
    elif _tf.is_tensor(identifier) or isinstance(identifier, (_np.ndarray, _np.generic)):
        obj = _fixed_value_initializer(identifier)
    else:
        obj = identifier
    if callable(obj):
        if _inspect.isclass(obj):
            obj = obj()
        return obj
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")
