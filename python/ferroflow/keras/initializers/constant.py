"""Deterministic initializers: `Zeros`, `Ones`, `Constant` and `Identity`."""

import numpy as _np

import ferroflow as _tf
from ferroflow.keras.initializers.initializer import (
    Initializer,
    standardize_dtype,
    standardize_shape,
)


class Zeros(Initializer):
    """Initializer that generates tensors of zeros."""

    def __call__(self, shape, dtype=None):
        return _tf.zeros(standardize_shape(shape), dtype=standardize_dtype(dtype))


class Ones(Initializer):
    """Initializer that generates tensors of ones."""

    def __call__(self, shape, dtype=None):
        return _tf.ones(standardize_shape(shape), dtype=standardize_dtype(dtype))


def _plain(value):
    """``value`` as a JSON-friendly Python object (tensors and arrays become lists)."""
    if _tf.is_tensor(value) or isinstance(value, (_np.ndarray, _np.generic)):
        return _np.asarray(value).tolist()
    return value


class Constant(Initializer):
    """Initializer that fills tensors with ``value`` (a scalar, or anything that broadcasts to
    the requested shape)."""

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        dtype = standardize_dtype(dtype)
        # Like Keras' `ops.cast(value, dtype)`, a Python float becomes a float32 tensor first.
        value = _tf.cast(self.value, dtype)
        return _tf.broadcast_to(value, standardize_shape(shape))

    def get_config(self):
        return {"value": _plain(self.value)}

    @classmethod
    def from_config(cls, config):
        # Keras 3 raises KeyError for a config without "value" (so `get("constant")` fails
        # there); the constructor's default is friendlier.
        return cls(config.get("value", 0.0))


class Identity(Initializer):
    """Initializer that generates ``gain`` times the identity matrix (2D shapes only)."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        shape = standardize_shape(shape)
        if len(shape) != 2:
            raise ValueError(
                "Identity matrix initializer can only be used for 2D matrices. "
                f"Received: shape={shape} of rank {len(shape)}."
            )
        dtype = standardize_dtype(dtype)
        eye = _tf.eye(shape[0], shape[1], dtype=dtype)
        if self.gain == 1:
            return eye
        return self.gain * eye

    def get_config(self):
        return {"gain": self.gain}
