"""Random sampling for the random initializers, as Keras 3 draws it: ``keras.random`` with the
initializer's seed (an int: the same values on every call, Keras's very numbers through
TensorFlow's stateless ops; a `SeedGenerator`: its next values). Only the default seed of an
unseeded initializer comes from ferroflow's RNG, so that ``tf.random.set_seed`` makes models
reproducible.
"""

import random as _py_random

import ferroflow as _tf
from ferroflow import _core, _tracing
from ferroflow.dtypes import enum_of as _enum_of

_SEED_LIMIT = 10**9


def make_default_seed():
    """A fresh seed in [1, 1e9), reproducible under ``tf.random.set_seed``."""
    if not _tracing.tracing():
        # Not `tf.random.uniform`: Keras draws this seed from Python's `random`, so it must
        # not use up one of TensorFlow's op seeds (which decide `Dataset.shuffle`'s order).
        draw = _core.random_uniform([], 1, _SEED_LIMIT, _enum_of(_tf.int64), None)
        return int(draw.numpy())
    return _py_random.randint(1, _SEED_LIMIT - 1)


def _random():
    from ferroflow.keras import random

    return random


def _float_dtype(dtype, what):
    if not dtype.is_floating:
        raise TypeError(f"{what} needs a floating-point dtype. Received: dtype={dtype.name}")
    return dtype


def normal(shape, mean, stddev, dtype, seed):
    dtype = _float_dtype(dtype, "A normal initializer")
    return _random().normal(shape, mean=mean, stddev=stddev, dtype=dtype, seed=seed)


def truncated_normal(shape, mean, stddev, dtype, seed):
    """N(mean, stddev) within two standard deviations (TensorFlow's stateless op)."""
    dtype = _float_dtype(dtype, "A truncated normal initializer")
    return _random().truncated_normal(shape, mean=mean, stddev=stddev, dtype=dtype, seed=seed)


def uniform(shape, minval, maxval, dtype, seed):
    """U[minval, maxval): Keras's backend draw (integer dtypes too, the bounds cast to it)."""
    from ferroflow.keras._seed_generator import draw_seed

    return _tf.random.stateless_uniform(
        shape,
        seed=draw_seed(seed),
        minval=_tf.cast(minval, dtype),
        maxval=_tf.cast(maxval, dtype),
        dtype=dtype,
    )
