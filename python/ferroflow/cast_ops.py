"""`tf.saturate_cast`: a cast that clamps to the target's range first.

TensorFlow composes it in Python (clip, then cast), and so does ferroflow, with the same limits:
the target's range, brought into the input type and moved one step towards zero where the
conversion rounded it outside the target (so float32 -> int32 clamps to 2147483520, the largest
float32 below 2**31). Complex inputs clamp their real and imaginary parts (complex targets) or
keep the real part only (real targets, with TensorFlow's warning). As in TensorFlow, bool, string
and quantized types have no range (TypeError), and uint32/uint64 inputs have no clamp kernel
(NotFoundError).
"""

import logging

import numpy as np

from ferroflow import _tracing
from ferroflow import array_ops as _array_ops
from ferroflow import dtypes as _dtypes
from ferroflow import errors as _errors
from ferroflow import math as _math

__all__ = ["saturate_cast"]

_log = logging.getLogger("ferroflow")


def _clamp(value, low, high):
    if value.dtype in (_dtypes.uint32, _dtypes.uint64):
        # Eagerly TensorFlow finds no kernel (NotFoundError); a graph fails to instantiate.
        error = _errors.InvalidArgumentError if _tracing.tracing() else _errors.NotFoundError
        raise error(
            None,
            None,
            f"Could not find device for node: ClipByValue[T={value.dtype.name.upper()}]: "
            "TensorFlow has no clamp kernel for this type",
        )
    low = _array_ops.constant(low, dtype=value.dtype)
    high = _array_ops.constant(high, dtype=value.dtype)
    return _clip(value, low, high)


def _clip(value, low, high):
    # TensorFlow's ClipByValue: min(x, high) then max(., low), so NaN stays NaN.
    return _math.maximum(_math.minimum(value, high), low)


def _limits(in_dtype, out_dtype):
    """The clamp bounds, in the input's numpy type (see the module docstring)."""
    np_type = in_dtype.as_numpy_dtype
    # The bounds computation overflows for some pairs exactly as TensorFlow's does (same numpy).
    with np.errstate(over="ignore", invalid="ignore"):
        return _limits_in(np_type, in_dtype, out_dtype)


def _limits_in(np_type, in_dtype, out_dtype):
    try:
        compare_type = np.promote_types(np_type, out_dtype.as_numpy_dtype)
    except TypeError:  # bfloat16 has no numpy promotion
        compare_type = float
    low = np_type(np.maximum(in_dtype.min, out_dtype.min))
    pair = np.array([low, out_dtype.min], dtype=compare_type)
    if pair[0] < pair[1]:
        low = np.nextafter(low, np_type(0), dtype=np_type)
    high = np_type(np.minimum(float(in_dtype.max), float(out_dtype.max)))
    pair = np.array([high, out_dtype.max], dtype=compare_type)
    if pair[0] > pair[1]:
        high = np.nextafter(high, np_type(0), dtype=np_type)
    return low, high


def saturate_cast(value, dtype, name=None):
    """Casts ``value`` to ``dtype``, clamping values outside ``dtype``'s range to its limits.

    >>> import ferroflow as tf
    >>> tf.saturate_cast(tf.constant([-3.0, 2.7, 300.0]), tf.uint8).numpy().tolist()
    [0, 2, 255]
    """
    value = _array_ops.convert_to_tensor(value)
    dtype = _dtypes.as_dtype(dtype)
    in_dtype = value.dtype
    if in_dtype.is_complex:
        if dtype.is_complex:
            real_in, real_out = in_dtype.real_dtype, dtype.real_dtype
            if real_in.min < real_out.min or real_in.max > real_out.max:
                low = _array_ops.constant(real_out.min, dtype=real_in)
                high = _array_ops.constant(real_out.max, dtype=real_in)
                value = _math.complex(
                    _clip(_math.real(value), low, high), _clip(_math.imag(value), low, high)
                )
            return _array_ops.cast(value, dtype)
        value = _math.real(value)
        _log.warning("Casting complex to real discards imaginary part.")
        in_dtype = in_dtype.real_dtype
    out_real = dtype.real_dtype
    low, high = _limits(in_dtype, out_real)
    value = _clamp(value, low, high)
    return _array_ops.cast(value, dtype)
