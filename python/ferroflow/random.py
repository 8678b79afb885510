"""`tf.random`: seeded, counter-based (Philox) random tensors."""

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow.dtypes import enum_of as _enum


def set_seed(seed):
    """Sets the global seed: random ops then give the same sequence on every run."""
    _core.set_seed(None if seed is None else int(seed))


def _shape(shape):
    return shape.as_list() if hasattr(shape, "as_list") else shape


def uniform(shape, minval=0, maxval=None, dtype=_dtypes.float32, seed=None, name=None):
    dtype = _dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    return _core.random_uniform(_shape(shape), minval, maxval, _enum(dtype), seed)


def normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    return _core.random_normal("normal", _shape(shape), mean, stddev, _enum(dtype), seed)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    return _core.random_normal("truncated", _shape(shape), mean, stddev, _enum(dtype), seed)


def shuffle(value, seed=None, name=None):
    """Shuffles along the first axis."""
    return _core.shuffle(value, seed)
