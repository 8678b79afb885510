"""Dtypes and type promotion of `tf.experimental.numpy`.

TensorFlow's numpy API names NumPy's own scalar types (`tnp.float32 is numpy.float32`) and
promotes with NumPy's `result_type` on the arrays' NumPy dtypes, with Python scalars weak as in
NumPy 2. A Python float is float64 unless `experimental_enable_numpy_behavior(prefer_float32=True)`
asked for float32 (`_config.prefer_float32`)."""

import numbers

import numpy as np

from ferroflow import _core
from ferroflow.dtypes import DType, as_dtype

bool_ = np.bool_
complex_ = np.complex128
complex128 = np.complex128
complex64 = np.complex64
float_ = np.float64
float16 = np.float16
float32 = np.float32
float64 = np.float64
inexact = np.inexact
int_ = np.int64
int16 = np.int16
int32 = np.int32
int64 = np.int64
int8 = np.int8
object_ = np.object_
string_ = np.bytes_
uint16 = np.uint16
uint32 = np.uint32
uint64 = np.uint64
uint8 = np.uint8
unicode_ = np.str_

iinfo = np.iinfo
issubdtype = np.issubdtype


class _Config:
    """The switches `experimental_enable_numpy_behavior` sets (TensorFlow's cannot be unset)."""

    prefer_float32 = False
    numpy_behavior = False
    promotion = False


_config = _Config()


def _to_numpy_type(dtype):
    """A NumPy dtype for a ferroflow DType, a NumPy type or a type name."""
    if isinstance(dtype, DType):
        return dtype.as_numpy_dtype
    return np.dtype(dtype).type


def _is_tensor_like(x):
    return isinstance(x, _core.Tensor) or (
        isinstance(getattr(x, "dtype", None), DType) and not isinstance(x, np.ndarray)
    )


def _maybe_get_dtype(x):
    """What `np.result_type` should see for one argument (TensorFlow's `_maybe_get_dtype`)."""
    if isinstance(x, numbers.Real):
        return x
    if _is_tensor_like(x):
        return x.dtype.as_numpy_dtype
    if isinstance(x, DType):
        return x.as_numpy_dtype
    if isinstance(x, (list, tuple)):
        raise ValueError(
            "Cannot find dtype for type inference from argument `x` of a sequence "
            f"type {type(x)}. For sequences, please call this function on each "
            "element individually."
        )
    return x


def _flatten(values):
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(_flatten(v))
        elif isinstance(v, dict):
            out.extend(_flatten([v[k] for k in sorted(v)]))
        else:
            out.append(v)
    return out


def _np_result_type(*values):
    if _config.prefer_float32:
        values = [
            np.float32(v)
            if isinstance(v, float)
            else np.complex64(v)
            if isinstance(v, complex)
            else v
            for v in values
        ]
    return as_dtype(np.result_type(*values))


def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives these arrays, scalars and dtypes, as a ferroflow DType.

    >>> import ferroflow.experimental.numpy as tnp
    >>> tnp.result_type(1, 2.0)
    tf.float64
    """
    values = [_maybe_get_dtype(x) for x in _flatten(arrays_and_dtypes)]
    if not values:
        values = [np.asarray([])]
    return _np_result_type(*values)


def result_type_unary(a, dtype):
    """The dtype of `array(a, dtype)`: `dtype` when given, else the promotion of `a`'s values."""
    if dtype:
        return result_type(dtype)
    if isinstance(a, str):
        return np.str_
    if isinstance(a, bytes):
        return np.bytes_
    return result_type(a)


def result_type_binary(t1, t2):
    """`result_type` of two arguments; sequences go through the general path."""
    try:
        return _np_result_type(_maybe_get_dtype(t1), _maybe_get_dtype(t2))
    except ValueError:
        return result_type(t1, t2)


def promote_types(type1, type2):
    """NumPy's `promote_types` of two dtypes (ferroflow DTypes, NumPy types or names).

    >>> import ferroflow.experimental.numpy as tnp
    >>> tnp.promote_types("int32", "float32")
    dtype('float64')
    """
    return np.promote_types(_to_numpy_type(type1), _to_numpy_type(type2))


def finfo(dtype):
    """NumPy's `finfo` of the NumPy type of `dtype`."""
    return np.finfo(_to_numpy_type(dtype))


def default_float_type():
    """float32 under `prefer_float32`, else float64."""
    return as_dtype(np.float32 if _config.prefer_float32 else np.float64)
