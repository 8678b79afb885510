"""`tf.experimental.numpy.random`: NumPy-style random sampling on TensorFlow's global seed.
Floats are float64 (float32 under prefer_float32); integers int64."""

import numpy as _np

import ferroflow as _tf
from ferroflow.experimental.numpy import _dtypes
from ferroflow.experimental.numpy._arrays import asarray as _asarray
from ferroflow.experimental.numpy._arrays import is_ndarray as _is_ndarray
from ferroflow.experimental.numpy._arrays import numpy_method as _numpy_method


def seed(s):
    """Sets the global seed (`tf.random.set_seed`)."""
    try:
        s = int(s)
    except TypeError:
        raise ValueError(
            f"Argument `s` got an invalid value {s}. Only integers are supported."
        ) from None
    _tf.random.set_seed(s)


def _size(size):
    """`size` as a shape: None is (), a scalar n is (n,). As TensorFlow's `isscalar`, a Tensor is
    read through `Tensor.data` (AttributeError before experimental_enable_numpy_behavior)."""
    if size is None:
        return ()
    if _is_ndarray(size):
        scalar = _numpy_method(size, "data").shape.rank == 0
    else:
        scalar = _np.isscalar(size)
    return (size,) if scalar else size


def standard_normal(size=None):
    """Samples of N(0, 1) of shape `size`."""
    return _tf.random.normal(_size(size), dtype=_dtypes.default_float_type())


def randn(*args):
    """Samples of N(0, 1) of shape `args`."""
    return standard_normal(size=args)


def uniform(low=0.0, high=1.0, size=None):
    """Samples of U[low, high) of shape `size` (the broadcast shape of low and high when None)."""
    dtype = _dtypes.default_float_type()
    low = _asarray(low, dtype=dtype)
    high = _asarray(high, dtype=dtype)
    if size is None:
        size = _tf.broadcast_static_shape(low.shape, high.shape).as_list()
    elif _np.ndim(size) == 0:
        # TensorFlow passes `size` on as the shape, which must be a vector.
        raise _tf.errors.InvalidArgumentError(
            None, None, "shape must be a vector of {int32,int64}, got shape []"
        )
    if low.shape.rank == 0 and high.shape.rank == 0:
        return _tf.random.uniform(size, minval=low, maxval=high, dtype=dtype)
    # TensorFlow's random_uniform with tensor bounds: U[0, 1) scaled and shifted.
    return _tf.random.uniform(size, dtype=dtype) * (high - low) + low


def random(size=None):
    """Samples of U[0, 1) of shape `size`."""
    return uniform(0.0, 1.0, size)


def rand(*size):
    """Samples of U[0, 1) of shape `size`."""
    return uniform(0.0, 1.0, size)


def poisson(lam=1.0, size=None):
    """int64 samples of Poisson(lam) of shape `size`."""
    return _tf.random.poisson(_size(size), lam=lam, dtype=_tf.int64)


def randint(low, high=None, size=None, dtype=_np.int64):
    """Integers in [low, high) (in [0, low) without `high`); dtype int32 or int64."""
    low = int(low)
    if high is None:
        high, low = low, 0
    if size is None:
        size = ()
    elif isinstance(size, int):
        size = (size,)
    accepted = (_np.int32, _np.int64)
    resolved = _dtypes.result_type(dtype)
    if resolved.as_numpy_dtype not in accepted:
        raise ValueError(
            f"Argument `dtype` got an invalid value {dtype}. Only those convertible to "
            f"{accepted} are supported."
        )
    return _tf.random.uniform(size, minval=low, maxval=high, dtype=resolved)
