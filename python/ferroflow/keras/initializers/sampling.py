"""Stateless random sampling for the random initializers.

Keras 3 draws initial values with stateless ops keyed by the initializer's integer seed, so an
initializer instance returns the same values on every call (seeded or not: an unseeded one
picks its seed once, when it is built). ferroflow's `tf.random.*` ops follow TensorFlow's
stateful op-seed rules (repeated calls with one op seed differ) and there is no
``tf.random.stateless_*`` yet, so the samples are drawn here from NumPy's counter-based Philox
generator keyed by the seed and turned into a tensor. Only the default seed of an unseeded
initializer comes from ferroflow's RNG, so that ``tf.random.set_seed`` makes models
reproducible.
"""

import random as _py_random

import numpy as _np

import ferroflow as _tf
from ferroflow import _tracing

_SEED_LIMIT = 10**9


def make_default_seed():
    """A fresh seed in [1, 1e9), reproducible under ``tf.random.set_seed``."""
    if not _tracing.tracing():
        draw = _tf.random.uniform([], 1, _SEED_LIMIT, dtype=_tf.int64)
        return int(draw.numpy())
    return _py_random.randint(1, _SEED_LIMIT - 1)


def _generator(seed):
    return _np.random.Generator(_np.random.Philox(key=int(seed) % 2**64))


def _float_dtype(dtype, what):
    if not dtype.is_floating:
        raise TypeError(f"{what} needs a floating-point dtype. Received: dtype={dtype.name}")
    return dtype


def _to_tensor(values, dtype):
    return _tf.constant(values, dtype=dtype)


def standard_normal(shape, seed):
    """float64 N(0, 1) samples as a NumPy array."""
    return _generator(seed).standard_normal(shape)


def normal(shape, mean, stddev, dtype, seed):
    dtype = _float_dtype(dtype, "A normal initializer")
    values = standard_normal(shape, seed) * float(stddev) + float(mean)
    return _to_tensor(values, dtype)


def truncated_normal(shape, mean, stddev, dtype, seed):
    """N(mean, stddev) with samples beyond two standard deviations drawn again (as TF does)."""
    dtype = _float_dtype(dtype, "A truncated normal initializer")
    rng = _generator(seed)
    values = rng.standard_normal(shape)
    outside = _np.abs(values) > 2.0
    while outside.any():
        values[outside] = rng.standard_normal(int(outside.sum()))
        outside = _np.abs(values) > 2.0
    return _to_tensor(values * float(stddev) + float(mean), dtype)


def uniform(shape, minval, maxval, dtype, seed):
    """U[minval, maxval); integer dtypes draw integers (bounds truncated to integers)."""
    rng = _generator(seed)
    if dtype.is_integer:
        low, high = int(minval), int(maxval)
        if low >= high:
            raise ValueError(f"Need minval < maxval, got {low} >= {high}")
        return _to_tensor(rng.integers(low, high, size=shape), dtype)
    dtype = _float_dtype(dtype, "A uniform initializer")
    low, high = float(minval), float(maxval)
    return _to_tensor(low + (high - low) * rng.random(shape), dtype)
