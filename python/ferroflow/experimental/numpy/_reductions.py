"""Reductions of `tf.experimental.numpy`: sum/prod/mean/var/std/amax/amin/all/any with NumPy's
integer promotion (narrow ints to int64, means of ints in float), nan-reductions, cumulative
sums and products, average, ptp, count_nonzero, trace."""

import numpy as np

import ferroflow as tf
from ferroflow.experimental.numpy import _dtypes
from ferroflow.experimental.numpy._arrays import array, asarray, astype, is_inexact
from ferroflow.experimental.numpy._indexing import diagonal, where
from ferroflow.experimental.numpy._math import isnan, logical_not
from ferroflow.experimental.numpy._shape import ravel

_TO_INT = 0
_TO_FLOAT = 1


def _reduce(fn, a, axis=None, dtype=None, keepdims=None, promote_int=_TO_INT, bool_fn=None,
            preserve_bool=False):  # fmt: skip
    if dtype:
        dtype = _dtypes.result_type(dtype)
    keepdims = bool(keepdims)
    a = asarray(a, dtype=dtype)
    if bool_fn is not None and (
        (dtype is not None and dtype == tf.bool) or (preserve_bool and a.dtype == tf.bool)
    ):
        return bool_fn(a, axis=axis, keepdims=keepdims)
    if dtype is None:
        np_dtype = a.dtype.as_numpy_dtype
        if np.issubdtype(np_dtype, np.integer) or np_dtype == np.bool_:
            if promote_int == _TO_INT:
                if np_dtype == np.bool_:
                    signed, width = True, 8
                else:
                    signed = np.issubdtype(np_dtype, np.signedinteger)
                    width = np.iinfo(np_dtype).bits
                if width < np.iinfo(np.int_).bits:
                    np_dtype = np.int_ if signed else np.uint
                a = tf.cast(a, tf.as_dtype(np_dtype))
            elif promote_int == _TO_FLOAT:
                a = tf.cast(a, tf.as_dtype(_dtypes.result_type(float)))
    if isinstance(axis, tf.Tensor) and axis.dtype not in (tf.int32, tf.int64):
        axis = tf.cast(axis, tf.int64)
    return fn(a, axis=axis, keepdims=keepdims)


def sum(a, axis=None, dtype=None, keepdims=None):  # noqa: A001 - NumPy's name
    """Sum of elements; ints narrower than int64 (and bools) sum in int64."""
    return _reduce(tf.reduce_sum, a, axis, dtype, keepdims, bool_fn=tf.reduce_any)


def prod(a, axis=None, dtype=None, keepdims=None):
    """Product of elements; ints narrower than int64 (and bools) multiply in int64."""
    return _reduce(tf.reduce_prod, a, axis, dtype, keepdims, bool_fn=tf.reduce_all)


def mean(a, axis=None, dtype=None, out=None, keepdims=None):
    """Mean of elements; integers average in the default float type."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(tf.reduce_mean, a, axis, dtype, keepdims, promote_int=_TO_FLOAT)


def amax(a, axis=None, out=None, keepdims=None):
    """Largest element (logical any for bools)."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(tf.reduce_max, a, axis, None, keepdims, None, tf.reduce_any, True)


def amin(a, axis=None, out=None, keepdims=None):
    """Smallest element (logical all for bools)."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(tf.reduce_min, a, axis, None, keepdims, None, tf.reduce_all, True)


def max(a, axis=None, keepdims=None):  # noqa: A001 - NumPy's name
    """Same as `amax`."""
    return amax(a, axis=axis, keepdims=keepdims)


def min(a, axis=None, keepdims=None):  # noqa: A001 - NumPy's name
    """Same as `amin`."""
    return amin(a, axis=axis, keepdims=keepdims)


def _variance_ddof(ddof, dtype):
    def reduce_fn(x, axis, keepdims):
        means = tf.reduce_mean(x, axis=axis, keepdims=True)
        centered = x - means
        if x.dtype in (tf.complex64, tf.complex128):
            centered = tf.cast(tf.math.real(centered * tf.math.conj(centered)), x.dtype)
        else:
            centered = tf.square(centered)
        deviations = tf.reduce_sum(centered, axis=axis, keepdims=keepdims)
        if axis is None:
            n = tf.size(x)
        else:
            if axis < 0:
                axis += x.shape.rank
            n = tf.reduce_prod(tf.gather(tf.shape(x), axis))
        n = tf.cast(n - ddof, x.dtype)
        if dtype is None:
            # TensorFlow casts to the `dtype` argument even when it is None.
            raise TypeError("Cannot convert the argument `type_value`: None to a TensorFlow DType.")
        return tf.cast(tf.math.divide(deviations, n), dtype)

    return reduce_fn


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=None):
    """Variance (divided by N - ddof); integers in the default float type."""
    working = _dtypes.result_type(a, dtype) if dtype else None
    if out is not None:
        raise ValueError("Setting out is not supported.")
    fn = _variance_ddof(ddof, dtype and tf.as_dtype(_dtypes.result_type(dtype)))
    if ddof == 0:
        fn = tf.math.reduce_variance
    result = _reduce(fn, a, axis, working, keepdims, promote_int=_TO_FLOAT)
    if dtype:
        result = tf.cast(result, tf.as_dtype(_dtypes.result_type(dtype)))
    return result


def std(a, axis=None, keepdims=None):
    """Standard deviation; integers in the default float type."""
    return _reduce(tf.math.reduce_std, a, axis, None, keepdims, promote_int=_TO_FLOAT)


def all(a, axis=None, keepdims=None):  # noqa: A001 - NumPy's name
    """Whether every element is true."""
    return tf.reduce_all(asarray(a, dtype=bool), axis=axis, keepdims=bool(keepdims))


def any(a, axis=None, keepdims=None):  # noqa: A001 - NumPy's name
    """Whether some element is true."""
    return tf.reduce_any(asarray(a, dtype=bool), axis=axis, keepdims=bool(keepdims))


def _promote_to_int(a):
    if a.dtype.is_integer:
        np_dtype = a.dtype.as_numpy_dtype
        promoted = np.promote_types(np_dtype, int)
        if promoted != np_dtype:
            a = asarray(a, dtype=promoted)
    return a


def _cumulative(fn, a, axis, dtype):
    a = asarray(a, dtype=dtype)
    if dtype is None:
        a = _promote_to_int(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    elif axis < 0:
        axis += a.shape.rank
    return fn(a, axis)


def cumsum(a, axis=None, dtype=None):
    """Cumulative sum (flattened when axis is None); narrow ints accumulate in int64."""
    return _cumulative(tf.math.cumsum, a, axis, dtype)


def cumprod(a, axis=None, dtype=None):
    """Cumulative product (flattened when axis is None); narrow ints accumulate in int64."""
    return _cumulative(tf.math.cumprod, a, axis, dtype)


def _nan_reduction(name, reduction, init):
    def f(a, axis=None, dtype=None, keepdims=False):
        a = array(a)
        v = array(init, dtype=a.dtype)
        return reduction(where(isnan(a), v, a), axis=axis, dtype=dtype, keepdims=keepdims)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`{reduction.__name__}` with NaNs counted as {init}."
    return f


nansum = _nan_reduction("nansum", sum, 0)
nanprod = _nan_reduction("nanprod", prod, 1)


def nanmean(a, axis=None, dtype=None, keepdims=None):
    """Mean of the non-NaN elements."""
    a = array(a)
    np_dtype = a.dtype.as_numpy_dtype
    if np.issubdtype(np_dtype, np.bool_) or np.issubdtype(np_dtype, np.integer):
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    mask = logical_not(isnan(a))
    if dtype is None:
        dtype = np_dtype
    normalizer = sum(mask, axis=axis, dtype=dtype, keepdims=keepdims)
    return nansum(a, axis=axis, dtype=dtype, keepdims=keepdims) / normalizer


def ptp(a, axis=None, keepdims=None):
    """Range (max - min) of elements."""
    return amax(a, axis=axis, keepdims=keepdims) - amin(a, axis=axis, keepdims=keepdims)


def count_nonzero(a, axis=None):
    """The number of non-zero elements (int64)."""
    return tf.math.count_nonzero(array(a), axis)


def average(a, axis=None, weights=None, returned=False):
    """The (weighted) mean along `axis`; with `returned`, also the sum of weights."""
    if axis is not None and not isinstance(axis, int):
        raise ValueError(
            f"Argument `axis` must be an integer. Received axis={axis} (of type {type(axis)})"
        )
    a = array(a)
    default_float = _dtypes.result_type(float)
    if weights is None:
        if not is_inexact(a.dtype):
            a = astype(a, _dtypes.result_type(a.dtype, default_float))
        avg = tf.reduce_mean(a, axis=axis)
        if returned:
            count = tf.size(a) if axis is None else tf.shape(a)[axis]
            weights_sum = tf.cast(count, a.dtype)
    else:
        if is_inexact(a.dtype):
            out_dtype = _dtypes.result_type(a.dtype, weights)
        else:
            out_dtype = _dtypes.result_type(a.dtype, weights, default_float)
        a = array(a, out_dtype)
        weights = array(weights, out_dtype)
        if axis is None or a.shape.rank == weights.shape.rank:
            if a.shape.as_list() != weights.shape.as_list():
                raise tf.errors.InvalidArgumentError(
                    None, None, "assertion failed: shapes of a and weights differ"
                )
            weights_sum = tf.reduce_sum(weights, axis=axis)
            avg = tf.reduce_sum(a * weights, axis=axis) / weights_sum
        else:
            if weights.shape.rank != 1:
                raise tf.errors.InvalidArgumentError(None, None, "assertion failed: weights rank")
            weights_sum = tf.reduce_sum(weights)
            avg = tf.tensordot(a, weights, [[axis], [0]]) / weights_sum
    avg = array(avg)
    if returned:
        return avg, tf.broadcast_to(weights_sum, tf.shape(avg))
    return avg


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """Sum along a diagonal; the last two axes of a matrix keep the input dtype (TensorFlow's
    `tf.linalg.trace`), other planes sum with `sum`'s integer promotion."""
    if dtype:
        dtype = _dtypes.result_type(dtype)
    a = asarray(a, dtype)
    if offset == 0 and a.shape.rank is not None:
        rank = a.shape.rank
        if axis1 in (-2, rank - 2) and axis2 in (-1, rank - 1):
            return tf.reduce_sum(diagonal(a, 0, -2, -1), axis=-1)
    return sum(diagonal(a, offset, axis1, axis2), -1, dtype)
