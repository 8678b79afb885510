"""The legacy Keras 2 ``K.random_*`` functions and ``K.dropout``: draws from ferroflow's
random ops, seeded from NumPy's global generator when no seed is given (as Keras 2 does)."""

import numpy as np

import ferroflow as tf
from ferroflow.keras._backend_config import floatx
from ferroflow.keras.backend.legacy_variables import variable

__all__ = [
    "dropout",
    "random_bernoulli",
    "random_normal",
    "random_normal_variable",
    "random_uniform",
    "random_uniform_variable",
    "truncated_normal",
]


def _seed(seed, high=10e6):
    return np.random.randint(high) if seed is None else seed


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal draws of ``shape`` (floatx by default)."""
    dtype = floatx() if dtype is None else dtype
    return tf.random.normal(shape, mean=mean, stddev=stddev, dtype=dtype, seed=_seed(seed))


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Uniform draws in ``[minval, maxval)`` of ``shape`` (floatx by default)."""
    dtype = floatx() if dtype is None else dtype
    return tf.random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype, seed=_seed(seed))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal draws within two standard deviations of ``mean`` (floatx by default)."""
    dtype = floatx() if dtype is None else dtype
    return tf.random.truncated_normal(shape, mean, stddev, dtype=dtype, seed=_seed(seed))


def random_bernoulli(shape, p=0.0, dtype=None, seed=None):
    """Ones with probability ``p``, else zeros (floatx by default)."""
    dtype = floatx() if dtype is None else dtype
    draws = tf.random.uniform(shape, dtype=dtype, seed=_seed(seed))
    return tf.where(draws <= p, tf.ones(shape, dtype=dtype), tf.zeros(shape, dtype=dtype))


def random_normal_variable(shape, mean, scale, dtype=None, name=None, seed=None):
    """A variable initialised with normal draws (mean ``mean``, standard deviation
    ``scale``)."""
    dtype = floatx() if dtype is None else dtype
    value = tf.random_normal_initializer(mean, scale, seed=_seed(seed, 10e8))(
        shape, dtype=tf.as_dtype(dtype)
    )
    return variable(value, dtype=dtype, name=name)


def random_uniform_variable(shape, low, high, dtype=None, name=None, seed=None):
    """A variable initialised with uniform draws in ``[low, high)``."""
    dtype = floatx() if dtype is None else dtype
    value = tf.random_uniform_initializer(low, high, seed=_seed(seed, 10e8))(
        shape, dtype=tf.as_dtype(dtype)
    )
    return variable(value, dtype=dtype, name=name)


def dropout(x, level, noise_shape=None, seed=None):
    """``x`` with entries zeroed at rate ``level`` and the rest scaled by
    ``1 / (1 - level)``."""
    return tf.nn.dropout(x, rate=level, noise_shape=noise_shape, seed=_seed(seed))
