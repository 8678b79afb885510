"""`around`/`round` of `tf.experimental.numpy` (also `Tensor.__round__`, as TensorFlow sets it
when its numpy API is imported)."""

import math

import ferroflow as tf
from ferroflow.experimental.numpy import _dtypes
from ferroflow.experimental.numpy._arrays import asarray, astype, is_inexact


def around(a, decimals=0):
    """`a` rounded half to even at `decimals` decimal places, in `a`'s dtype. As in TensorFlow
    the result goes through `Tensor.astype`, which exists only after
    `experimental_enable_numpy_behavior` (AttributeError before)."""
    a = asarray(a)
    dtype = a.dtype
    factor = math.pow(10, decimals)
    if is_inexact(dtype):
        factor = tf.cast(factor, dtype)
    else:
        float_dtype = tf.as_dtype(_dtypes.result_type(float))
        a = astype(a, float_dtype)
        factor = tf.cast(factor, float_dtype)
    a = tf.math.divide(tf.round(tf.multiply(a, factor)), factor)
    return astype(a, dtype)


def round(a, decimals=0):  # noqa: A001 - NumPy's name
    """Same as `around`."""
    return around(a, decimals=decimals)
