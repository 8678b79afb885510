"""`tf.keras.regularizers`: weight penalties added to a layer's losses.

A regularizer is any callable ``reg(weight)`` returning a scalar tensor; ``get(identifier)``
resolves names (``"l1"``, ``"l2"``, ``"l1_l2"``, ``"orthogonal_regularizer"``), configs,
classes, instances and plain callables.
"""

import inspect as _inspect
import math as _math
import re as _re

import numpy as _np

import ferroflow as _tf
from ferroflow.keras import _backend_config as backend_config
from ferroflow.keras import _identifiers


def validate_float_arg(value, name):
    """``value`` as a float, or ValueError unless it is a finite non-negative number."""
    if (
        not isinstance(value, (float, int))
        or (_math.isinf(value) or _math.isnan(value))
        or value < 0
    ):
        raise ValueError(
            f"Invalid value for argument {name}: expected a non-negative float."
            f"Received: {name}={value}"
        )
    return float(value)


def _float32(value):
    # Keras 3 keeps `L1.l1` and `OrthogonalRegularizer.factor` as float32 tensors; their
    # configs report the float32-rounded value.
    return float(_np.float32(value))


class Regularizer:
    """Regularizer base class: ``reg(x)`` returns the penalty for weight ``x``."""

    def __call__(self, x):
        return 0.0

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def get_config(self):
        raise NotImplementedError(f"{self} does not implement get_config()")


class L1L2(Regularizer):
    """``l1 * sum(abs(x)) + l2 * sum(square(x))``."""

    def __init__(self, l1=0.0, l2=0.0):
        l1 = 0.0 if l1 is None else l1
        l2 = 0.0 if l2 is None else l2
        self.l1 = validate_float_arg(l1, name="l1")
        self.l2 = validate_float_arg(l2, name="l2")

    def __call__(self, x):
        x = _tf.convert_to_tensor(x)
        regularization = _tf.zeros([], dtype=x.dtype)
        if self.l1 != 0.0:
            regularization += _tf.cast(self.l1, x.dtype) * _tf.reduce_sum(_tf.abs(x))
        if self.l2 != 0.0:
            regularization += _tf.cast(self.l2, x.dtype) * _tf.reduce_sum(_tf.square(x))
        return regularization

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """``l1 * sum(abs(x))``."""

    def __init__(self, l1=0.01):
        l1 = 0.01 if l1 is None else l1
        self.l1 = _float32(validate_float_arg(l1, name="l1"))

    def __call__(self, x):
        x = _tf.convert_to_tensor(x)
        return _tf.cast(self.l1, x.dtype) * _tf.reduce_sum(_tf.abs(x))

    def get_config(self):
        return {"l1": self.l1}


class L2(Regularizer):
    """``l2 * sum(square(x))``."""

    def __init__(self, l2=0.01):
        l2 = 0.01 if l2 is None else l2
        self.l2 = validate_float_arg(l2, name="l2")

    def __call__(self, x):
        x = _tf.convert_to_tensor(x)
        return _tf.cast(self.l2, x.dtype) * _tf.reduce_sum(_tf.square(x))

    def get_config(self):
        return {"l2": self.l2}


def _l2_normalize(x, axis):
    """``x / norm(x)`` along ``axis`` as Keras' ``ops.normalize`` computes it."""
    square_sum = _tf.reduce_sum(_tf.square(x), axis=axis, keepdims=True)
    inv_norm = _tf.minimum(
        _tf.math.rsqrt(square_sum), _tf.cast(1.0 / backend_config.epsilon(), x.dtype)
    )
    return x * inv_norm


class OrthogonalRegularizer(Regularizer):
    """Penalizes non-orthogonal rows (``mode="rows"``) or columns of a rank-2 weight:
    ``factor * 0.5 * sum(|offdiag(N @ N.T)|) / num_pairs`` for the L2-normalized vectors N."""

    def __init__(self, factor=0.01, mode="rows"):
        validate_float_arg(factor, name="factor")
        self.factor = _float32(factor)
        if mode not in {"rows", "columns"}:
            raise ValueError(
                "Invalid value for argument `mode`. Expected one of "
                f'{{"rows", "columns"}}. Received: mode={mode}'
            )
        self.mode = mode

    def __call__(self, inputs):
        inputs = _tf.convert_to_tensor(inputs)
        if len(inputs.shape) != 2:
            raise ValueError(
                "Inputs to OrthogonalRegularizer must have rank 2. Received: "
                f"inputs.shape={inputs.shape}"
            )
        if self.mode == "rows":
            inputs = _l2_normalize(inputs, axis=1)
            product = _tf.matmul(inputs, _tf.transpose(inputs))
            size = inputs.shape[0]
        else:
            inputs = _l2_normalize(inputs, axis=0)
            product = _tf.matmul(_tf.transpose(inputs), inputs)
            size = inputs.shape[1]
        product_no_diagonal = product * (1.0 - _tf.eye(size, dtype=inputs.dtype))
        num_pairs = size * (size - 1.0) / 2.0
        return (
            _tf.cast(self.factor, inputs.dtype)
            * 0.5
            * _tf.reduce_sum(_tf.abs(product_no_diagonal))
            / num_pairs
        )

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


# Keras exports the classes under snake_case names too.
l1 = L1
l2 = L2
l1_l2 = L1L2
orthogonal_regularizer = OrthogonalRegularizer

_ALL_CLASSES = (Regularizer, L1, L2, L1L2, OrthogonalRegularizer)


def _snake_case(name):
    return _re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


ALL_OBJECTS_DICT = {cls.__name__: cls for cls in _ALL_CLASSES}
ALL_OBJECTS_DICT.update({_snake_case(cls.__name__): cls for cls in _ALL_CLASSES})
ALL_OBJECTS_DICT["l1l2"] = L1L2  # Keras 3's own snake_case of "L1L2"


def _l1_l2_default():
    # The string "l1_l2" means l1 = l2 = 0.01 (Keras' documented default; Keras 3 itself fails
    # to resolve the name, Keras 2 gave this).
    return L1L2(l1=0.01, l2=0.01)


def serialize(regularizer):
    """The regularizer's config in Keras' serialized form."""
    if regularizer is None:
        return None
    return {
        "module": "keras.regularizers",
        "class_name": type(regularizer).__name__,
        "config": regularizer.get_config(),
        "registered_name": None,
    }


def deserialize(config, custom_objects=None):
    """The regularizer described by ``config`` (a name or a ``{"class_name", "config"}``
    dict)."""
    objects = {**ALL_OBJECTS_DICT, **(custom_objects or {})}
    if isinstance(config, str):
        if config == "l1_l2" and "l1_l2" not in (custom_objects or {}):
            return _l1_l2_default()
        config = {"class_name": config, "config": {}}
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Could not interpret regularizer identifier: {config}")
    cls = objects.get(config["class_name"])
    if cls is None:
        raise ValueError(f"Could not interpret regularizer identifier: {config}")
    inner = config.get("config") or {}
    if _inspect.isclass(cls):
        return cls.from_config(inner) if hasattr(cls, "from_config") else cls(**inner)
    return cls


def get(identifier):
    """The regularizer for ``identifier``; None stays None, callables come back as they are
    (a class is instantiated with no arguments)."""
    if isinstance(identifier, str) and identifier == "l1_l2":
        return _l1_l2_default()
    return _identifiers.resolve(identifier, ALL_OBJECTS_DICT, deserialize, "regularizer")
