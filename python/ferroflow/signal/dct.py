"""`tf.signal.dct` and `idct` (types I-IV, ``norm='ortho'``), composed of real FFTs as
TensorFlow's: type II is the first n outputs of a 2n-point RFFT turned by a half-sample phase,
type III its inverse through an IRFFT, type IV the odd outputs of a 2n-point type II, type I an
RFFT of the evenly mirrored input.

>>> import ferroflow as tf
>>> tf.signal.dct([1.0, 2.0, 3.0]).numpy().round(4)
array([12.    , -3.4641,  0.    ], dtype=float32)
"""

import math as _pymath

from ferroflow import math as _math
from ferroflow.array_ops import cast, concat, convert_to_tensor, ones, pad, range, reshape
from ferroflow.signal.fft_ops import irfft, rfft

__all__ = ["dct", "idct"]


def _validate(x, dct_type, n, axis, norm):
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        last = list(x.shape)[-1] if len(x.shape) else None
        if last is not None and last < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _phase(length, dtype, sign):
    """2 exp(sign i pi k / (2 length)) for k < length, in `dtype`'s complex type."""
    size = cast(length, dtype)
    angle = sign * range(size) * _pymath.pi * 0.5 / size
    return 2.0 * _math.exp(_math.complex(cast(0.0, dtype), angle))


def _weights(first, rest, length):
    """[first, rest, rest, ...] of `length`."""
    return concat([reshape(first, [1]), ones([length - 1], dtype=first.dtype) * rest], axis=0)


def _dct(x, dct_type, n, norm):
    x = convert_to_tensor(x)
    if n is not None:
        length = list(x.shape)[-1]
        if n <= length:
            x = x[..., :n]
        else:
            x = pad(x, [[0, 0]] * (len(x.shape) - 1) + [[0, n - length]])
    length = list(x.shape)[-1]
    size = cast(length, x.dtype)
    if dct_type == 1:
        mirrored = concat([x, x[..., -2:0:-1]], axis=-1)
        return _math.real(rfft(mirrored))
    if dct_type == 2:
        spectrum = rfft(x, fft_length=[2 * length])[..., :length]
        out = _math.real(spectrum * _phase(length, x.dtype, -1.0))
        if norm == "ortho":
            first = 0.5 * _math.rsqrt(size)
            out = out * _weights(first, first * _pymath.sqrt(2.0), length)
        return out
    if dct_type == 3:
        if norm == "ortho":
            first = _math.sqrt(size)
            x = x * _weights(first, first * _pymath.sqrt(0.5), length)
        else:
            x = x * size
        spectrum = _phase(length, x.dtype, 1.0) * _math.complex(x, cast(0.0, x.dtype))
        return _math.real(irfft(spectrum, fft_length=[2 * length]))[..., :length]
    out = _dct(x, 2, 2 * length, None)[..., 1::2]
    if norm == "ortho":
        out = out * (_pymath.sqrt(0.5) * _math.rsqrt(size))
    return out


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TensorFlow's names
    """The discrete cosine transform of type 1-4 over the last axis (``n`` crops or zero-pads
    it first; ``norm='ortho'`` makes types II-IV orthonormal)."""
    x = convert_to_tensor(input)
    _validate(x, type, n, axis, norm)
    return _dct(x, type, n, norm)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TensorFlow's names
    """The inverse of `dct` up to scale: types II and III swap, I and IV are their own
    (``norm='ortho'`` makes it the exact inverse)."""
    x = convert_to_tensor(input)
    _validate(x, type, n, axis, norm)
    return _dct(x, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, norm)
