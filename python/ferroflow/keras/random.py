"""`keras.random`: Keras 3's random functions over TensorFlow's stateless random ops, seeded as
Keras's TensorFlow backend seeds them (an int: the same numbers on every call; a
`SeedGenerator`: the next numbers of its sequence; None: the global generator). Seeded, they
give Keras's very numbers."""

from ferroflow import array_ops as _array_ops
from ferroflow import dtypes as _dtypes
from ferroflow import random as _tf_random
from ferroflow.keras._backend_config import floatx as _floatx
from ferroflow.keras._seed_generator import SeedGenerator, draw_seed
from ferroflow.nn_losses_extra import stateless_dropout as _stateless_dropout

__all__ = [
    "SeedGenerator",
    "beta",
    "binomial",
    "categorical",
    "dropout",
    "gamma",
    "normal",
    "randint",
    "shuffle",
    "truncated_normal",
    "uniform",
]


def _float_dtype(dtype):
    return _dtypes.as_dtype(dtype or _floatx())


def _via_float32(dtype):
    """The dtype to draw in: TensorFlow's gamma and binomial have no bfloat16 kernel."""
    return _dtypes.float32 if dtype == _dtypes.bfloat16 else dtype


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Samples of a normal distribution."""
    return _tf_random.stateless_normal(
        shape, seed=draw_seed(seed), mean=mean, stddev=stddev, dtype=_float_dtype(dtype)
    )


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Samples of a uniform distribution in ``[minval, maxval)`` (a float dtype)."""
    if dtype and not _dtypes.as_dtype(dtype).is_floating:
        raise ValueError(
            f"`keras.random.uniform` requires a floating point `dtype`. Received: dtype={dtype} "
        )
    dtype = _float_dtype(dtype)
    return _tf_random.stateless_uniform(
        shape,
        seed=draw_seed(seed),
        minval=_array_ops.cast(minval, dtype),
        maxval=_array_ops.cast(maxval, dtype),
        dtype=dtype,
    )


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers uniform in ``[minval, maxval)``."""
    if dtype and not _dtypes.as_dtype(dtype).is_integer:
        raise ValueError(
            f"`keras.random.randint` requires an integer `dtype`. Received: dtype={dtype} "
        )
    dtype = _dtypes.as_dtype(dtype)
    drawn = dtype if dtype in (_dtypes.int32, _dtypes.int64) else _dtypes.int64
    out = _tf_random.stateless_uniform(
        shape, seed=draw_seed(seed), minval=minval, maxval=maxval, dtype=drawn
    )
    return _array_ops.cast(out, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples within two standard deviations of the mean."""
    return _tf_random.stateless_truncated_normal(
        shape, seed=draw_seed(seed), mean=mean, stddev=stddev, dtype=_float_dtype(dtype)
    )


def categorical(logits, num_samples, dtype="int32", seed=None):
    """``num_samples`` class indices per row of 2-D ``logits``."""
    logits = _array_ops.convert_to_tensor(logits)
    if logits.shape.rank != 2:
        raise ValueError(
            "`logits` should be a 2-D tensor with shape [batch_size, num_classes]. "
            f"Received: logits={logits}"
        )
    out = _tf_random.stateless_categorical(logits, num_samples, seed=draw_seed(seed))
    return _array_ops.cast(out, dtype)


def _noise_shape(inputs, noise_shape):
    """Keras's concrete noise shape: the input's run-time shape where an entry is None."""
    shape = _array_ops.shape(inputs)
    if noise_shape is None:
        return shape
    return [shape[i] if d is None else d for i, d in enumerate(noise_shape)]


def dropout(inputs, rate, noise_shape=None, seed=None):
    """Zeroes each unit with probability ``rate`` and scales the rest by ``1 / (1 - rate)``
    (TensorFlow's stateless dropout)."""
    inputs = _array_ops.convert_to_tensor(inputs)
    if rate == 1.0:
        return _array_ops.zeros_like(inputs)
    if rate == 0.0:
        return inputs
    return _stateless_dropout(
        inputs, rate=rate, seed=draw_seed(seed), noise_shape=_noise_shape(inputs, noise_shape)
    )


def shuffle(x, axis=0, seed=None):
    """``x`` shuffled along ``axis``."""
    from ferroflow import argsort, gather

    x = _array_ops.convert_to_tensor(x)
    keys = _tf_random.stateless_uniform([_array_ops.shape(x)[axis]], seed=draw_seed(seed))
    return gather(x, argsort(keys), axis=axis)


def gamma(shape, alpha, dtype=None, seed=None):
    """Gamma(alpha) samples."""
    dtype = _float_dtype(dtype)
    out = _tf_random.stateless_gamma(
        shape, alpha=alpha, dtype=_via_float32(dtype), seed=draw_seed(seed)
    )
    return _array_ops.cast(out, dtype)


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Binomial counts of ``counts`` trials with success ``probabilities``."""
    dtype = _float_dtype(dtype)
    out = _tf_random.stateless_binomial(
        shape,
        seed=draw_seed(seed),
        counts=counts,
        probs=probabilities,
        output_dtype=_via_float32(dtype),
    )
    return _array_ops.cast(out, dtype)


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Beta(alpha, beta) samples as ``X / (X + Y)`` of two gamma draws, the second seeded
    with the first's seed plus 12 (Keras's rule)."""
    dtype = _float_dtype(dtype)
    drawn = _via_float32(dtype)
    seed_1 = draw_seed(seed)
    seed_2 = seed_1 + 12
    alpha = _array_ops.broadcast_to(_array_ops.convert_to_tensor(alpha, dtype=drawn), shape)
    beta = _array_ops.broadcast_to(_array_ops.convert_to_tensor(beta, dtype=drawn), shape)
    gamma_a = _array_ops.cast(
        _tf_random.stateless_gamma(shape, seed=seed_1, alpha=alpha, dtype=drawn), dtype
    )
    gamma_b = _array_ops.cast(
        _tf_random.stateless_gamma(shape, seed=seed_2, alpha=beta, dtype=drawn), dtype
    )
    return gamma_a / (gamma_a + gamma_b)
