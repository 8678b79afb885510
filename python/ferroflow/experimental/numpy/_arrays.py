"""Conversion to ferroflow Tensors (TensorFlow's ND arrays are `tf.Tensor`) and dtype promotion
of several operands, shared by every `tf.experimental.numpy` module."""

import numpy as np

import ferroflow as tf
from ferroflow.experimental.numpy import _dtypes

ndarray = tf.Tensor

_NO_NUMPY_METHODS = (
    " object has no attribute '{}'. \n"
    """        If you are looking for numpy-related methods, please run the following:
        tf.experimental.numpy.experimental_enable_numpy_behavior()
      """
)


def is_ndarray(x):
    """Whether `x` is a ferroflow Tensor (TensorFlow's `tnp.ndarray`)."""
    return isinstance(x, tf.Tensor)


def numpy_method(x, name):
    """`x.<name>` where TensorFlow's numpy API calls a NumPy method of a Tensor: those exist
    only after `experimental_enable_numpy_behavior`, and TensorFlow raises AttributeError
    without it."""
    if is_ndarray(x) and not _dtypes._config.numpy_behavior:
        raise AttributeError("EagerTensor" + _NO_NUMPY_METHODS.format(name))
    return getattr(x, name)


def astype(x, dtype):
    """`x.astype(dtype)` as TensorFlow's numpy functions call it."""
    numpy_method(x, "astype")
    return tf.cast(x, tf.as_dtype(dtype))


def same_dtype(tensor, dtype):
    return tf.as_dtype(dtype) == tensor.dtype


def _cast_leaves(value, dtype):
    """A nested sequence with its tensors cast to `dtype` (TensorFlow packs a list of tensors of
    several dtypes into the one `array` asks for)."""
    if isinstance(value, (list, tuple)):
        return [_cast_leaves(v, dtype) for v in value]
    if is_ndarray(value) and value.dtype != dtype:
        return tf.cast(value, dtype)
    return value


def array_internal(val, dtype=None, copy=True, ndmin=0):
    """`tnp.array` once `dtype` is resolved."""
    result = val
    if not is_ndarray(result):
        dtype = tf.as_dtype(_dtypes.result_type_unary(result, dtype))
        result = tf.convert_to_tensor(_cast_leaves(result, dtype), dtype_hint=dtype)
        result = tf.cast(result, dtype)
    elif dtype:
        result = tf.cast(result, tf.as_dtype(dtype))
    if copy:
        result = tf.identity(result)
    if ndmin > 32:
        raise ValueError("ndmin bigger than allowable number of dimensions: 32.")
    rank = result.shape.rank
    if ndmin > rank:
        ones = tf.ones([ndmin - rank], tf.int32)
        result = tf.reshape(result, tf.concat([ones, tf.shape(result)], 0))
    return result


def array(val, dtype=None, copy=True, ndmin=0):
    """A new Tensor of `val` (a Tensor, NumPy array, nested sequence or scalar); Python floats
    become float64 and ints int64, as in NumPy.

    >>> import ferroflow.experimental.numpy as tnp
    >>> tnp.array([1, 2.5]).dtype
    tf.float64
    """
    if dtype:
        dtype = _dtypes.result_type(dtype)
    return array_internal(val, dtype, copy, ndmin)


def asarray(a, dtype=None):
    """`a` itself when it is a Tensor of `dtype`, else `array(a, dtype, copy=False)`."""
    if dtype:
        dtype = _dtypes.result_type(dtype)
    if is_ndarray(a) and (not dtype or same_dtype(a, dtype)):
        return a
    return array(a, dtype, copy=False)


def asanyarray(a, dtype=None):
    """Same as `asarray`."""
    return asarray(a, dtype)


def ascontiguousarray(a, dtype=None):
    """`array(a, dtype, ndmin=1)`."""
    return array(a, dtype, ndmin=1)


def copy(a):
    """A copy of `a`."""
    return array(a, copy=True)


def promote(*arrays):
    """The arrays converted to their common (NumPy-promoted) dtype."""
    dtype = _dtypes.result_type(*arrays)
    return [
        a if is_ndarray(a) and a.dtype == dtype else array_internal(a, dtype=dtype, copy=False)
        for a in arrays
    ]


def promote_binary(t1, t2):
    """`promote` for two operands."""
    dtype = _dtypes.result_type_binary(t1, t2)
    if not (is_ndarray(t1) and t1.dtype == dtype):
        t1 = array_internal(t1, dtype=dtype, copy=False)
    if not (is_ndarray(t2) and t2.dtype == dtype):
        t2 = array_internal(t2, dtype=dtype, copy=False)
    return t1, t2


def static_shape(a):
    """The static shape of a Tensor as a list of ints (ferroflow shapes are always known in eager
    mode; under tracing a dimension may be None)."""
    return a.shape.as_list()


def is_inexact(dtype):
    return np.issubdtype(tf.as_dtype(dtype).as_numpy_dtype, np.inexact)


def is_integer(dtype):
    return np.issubdtype(tf.as_dtype(dtype).as_numpy_dtype, np.integer)
