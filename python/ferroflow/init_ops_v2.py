"""TensorFlow's own initializers (`tf.zeros_initializer`, `tf.ones_initializer`,
`tf.constant_initializer`, `tf.random_normal_initializer`, `tf.random_uniform_initializer`): called
with a shape and dtype they return a tensor. With a seed the random ones draw TensorFlow's stateless
numbers for ``[seed, 0]``, so they equal TensorFlow's."""

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow import random as _random
from ferroflow.array_ops import constant, ones, zeros

__all__ = [
    "Constant",
    "Initializer",
    "Ones",
    "RandomNormal",
    "RandomUniform",
    "Zeros",
]

_PARTITION_SHAPE, _PARTITION_OFFSET = "partition_shape", "partition_offset"


class Initializer:
    """Base class: ``__call__(shape, dtype=None, **kwargs)`` returns the initial tensor."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        config.pop("dtype", None)
        return cls(**config)

    def _validate_kwargs(self, kwargs, support_partition=True):
        for key in kwargs:
            if key not in (_PARTITION_SHAPE, _PARTITION_OFFSET):
                raise TypeError(
                    f"Keyword argument should be one of {[_PARTITION_SHAPE, _PARTITION_OFFSET]}. "
                    f"Received: {key}"
                )
            if not support_partition:
                raise ValueError(
                    f"{type(self).__name__} initializer doesn't support partition-related arguments"
                )


def _numeric(dtype):
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_numpy_compatible or dtype.name == "string":
        raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received {dtype}.")
    return dtype


def _floating(dtype):
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: {dtype}.")
    return dtype


class Zeros(Initializer):
    """Tensors of zeros."""

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        self._validate_kwargs(kwargs)
        return zeros(kwargs.get(_PARTITION_SHAPE, shape), _numeric(dtype))


class Ones(Initializer):
    """Tensors of ones."""

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        self._validate_kwargs(kwargs)
        return ones(kwargs.get(_PARTITION_SHAPE, shape), _numeric(dtype))


class Constant(Initializer):
    """Tensors holding ``value`` (a scalar broadcast, or exactly the shape's elements)."""

    def __init__(self, value=0, support_partition=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(
                f"Invalid type for initial value: {type(value).__name__}. Expected Python scalar, "
                "list or tuple of values, or numpy.ndarray."
            )
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape, dtype=None, **kwargs):
        self._validate_kwargs(kwargs, support_partition=self.support_partition)
        if dtype is not None:
            dtype = _dtypes.as_dtype(dtype)
        size = int(np.size(self.value))
        wanted = int(np.prod(shape)) if shape is not None else size
        if size not in (1, wanted):
            raise TypeError(
                f"Eager execution of tf.constant with unsupported shape. Tried to convert value "
                f"of shape {np.shape(self.value)} to a Tensor with shape {tuple(shape)}: value has "
                f"{size} elements, shape is {tuple(shape)} with {wanted} elements."
            )
        return constant(self.value, dtype=dtype, shape=shape)

    def get_config(self):
        return {"value": self.value}


class _Random(Initializer):
    def __init__(self, seed):
        self.seed = seed

    def _stateless_seed(self):
        return None if self.seed is None else [self.seed, 0]


class RandomUniform(_Random):
    """Uniform values in ``[minval, maxval)``."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        self._validate_kwargs(kwargs)
        dtype = _dtypes.as_dtype(dtype)
        if not dtype.is_floating and not dtype.is_integer:
            raise ValueError(
                f"Argument `dtype` is expected to be floating or integer. Received: {dtype}."
            )
        shape = kwargs.get(_PARTITION_SHAPE, shape)
        seed = self._stateless_seed()
        if seed is None:
            return _random.uniform(shape, self.minval, self.maxval, dtype=dtype)
        return _random.stateless_uniform(shape, seed, self.minval, self.maxval, dtype=dtype)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class RandomNormal(_Random):
    """Normal values with ``mean`` and ``stddev``."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        self._validate_kwargs(kwargs)
        dtype = _floating(dtype)
        shape = kwargs.get(_PARTITION_SHAPE, shape)
        seed = self._stateless_seed()
        if seed is None:
            return _random.normal(shape, self.mean, self.stddev, dtype=dtype)
        return _random.stateless_normal(shape, seed, self.mean, self.stddev, dtype=dtype)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}
