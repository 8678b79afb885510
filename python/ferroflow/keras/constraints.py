"""`tf.keras.constraints`: projections applied to a weight after each optimizer step (the
layers' ``kernel_constraint``/``bias_constraint`` arguments), as Keras 3 defines them: a
constraint is any callable ``constraint(weight) -> weight``; ``get(identifier)`` resolves
names (``"max_norm"``, ``"NonNeg"``...), configs, classes, instances and plain callables."""

import re as _re

import ferroflow as _tf
from ferroflow.keras import _backend_config as backend_config
from ferroflow.keras import _identifiers

__all__ = [
    "Constraint",
    "MaxNorm",
    "MinMaxNorm",
    "NonNeg",
    "UnitNorm",
    "deserialize",
    "get",
    "max_norm",
    "min_max_norm",
    "non_neg",
    "serialize",
    "unit_norm",
]


class Constraint:
    """Base class: ``constraint(w)`` returns the projected weight (here ``w`` itself)."""

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _norms(w, axis):
    return _tf.sqrt(_tf.reduce_sum(_tf.square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Scales each slice along ``axis`` down to an L2 norm of at most ``max_value``."""

    def __init__(self, max_value=2, axis=0):
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w):
        w = _tf.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = _tf.clip_by_value(norms, 0, self.max_value)
        return w * (desired / (backend_config.epsilon() + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Zeroes the negative entries."""

    def __call__(self, w):
        w = _tf.convert_to_tensor(w)
        return w * _tf.cast(_tf.greater_equal(w, 0.0), w.dtype)


class UnitNorm(Constraint):
    """Scales each slice along ``axis`` to an L2 norm of one."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = _tf.convert_to_tensor(w)
        return w / (backend_config.epsilon() + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves each slice's L2 norm towards ``[min_value, max_value]`` by the fraction ``rate``."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w):
        w = _tf.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = (
            self.rate * _tf.clip_by_value(norms, self.min_value, self.max_value)
            + (1 - self.rate) * norms
        )
        return w * (desired / (backend_config.epsilon() + norms))

    def get_config(self):
        return {
            "min_value": self.min_value,
            "max_value": self.max_value,
            "rate": self.rate,
            "axis": self.axis,
        }


# Keras exports the snake_case names as the classes themselves.
max_norm = MaxNorm
min_max_norm = MinMaxNorm
non_neg = NonNeg
unit_norm = UnitNorm

_ALL_CLASSES = (Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm)
ALL_OBJECTS_DICT = {cls.__name__: cls for cls in _ALL_CLASSES}
ALL_OBJECTS_DICT.update(
    {_re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower(): cls for cls in _ALL_CLASSES}
)


def serialize(constraint):
    """The constraint's config in Keras' serialized form."""
    from ferroflow.keras.saving import serialize_keras_object

    return serialize_keras_object(constraint)


def deserialize(config, custom_objects=None):
    """The constraint described by ``config`` (a Keras config dict or a name)."""
    from ferroflow.keras.saving import deserialize_keras_object

    return deserialize_keras_object(
        config, custom_objects={**ALL_OBJECTS_DICT, **(custom_objects or {})}
    )


def get(identifier):
    """The constraint for ``identifier``; None stays None, callables come back as they are
    (a class is instantiated with no arguments)."""
    return _identifiers.resolve(identifier, ALL_OBJECTS_DICT, deserialize, "constraint")
