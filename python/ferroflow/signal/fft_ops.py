"""`tf.signal`'s Fourier transforms: the FFT primitives (`FFT` ... `IRFFTND`, one Rust
declaration) behind TensorFlow's Python wrappers, which infer `fft_length` from the input and
pad the input up to it (the ops themselves only crop), and `fftshift`/`ifftshift`.

>>> import ferroflow as tf
>>> tf.signal.rfft([1.0, 2.0, 3.0]).numpy().round(3)
array([ 6. +0.j   , -1.5+0.866j], dtype=complex64)
"""

import json

import numpy as np

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor, pad
from ferroflow.backprop import custom_gradient
from ferroflow.errors import InvalidArgumentError
from ferroflow.framework_ops import get_static_value
from ferroflow.manip_ops import roll

__all__ = [
    "fft",
    "fft2d",
    "fft3d",
    "fftnd",
    "fftshift",
    "ifft",
    "ifft2d",
    "ifft3d",
    "ifftnd",
    "ifftshift",
    "irfft",
    "irfft2d",
    "irfft3d",
    "irfftnd",
    "rfft",
    "rfft2d",
    "rfft3d",
    "rfftnd",
]

# TensorFlow registers gradients for these only; the others raise its LookupError.
_DIFFERENTIABLE = {
    "FFT",
    "IFFT",
    "FFT2D",
    "IFFT2D",
    "FFT3D",
    "IFFT3D",
    "RFFT",
    "IRFFT",
    "RFFT2D",
    "IRFFT2D",
}


def _attrs(name):
    """The Rust declaration's attributes of the op TensorFlow calls `name`."""
    rank = {"2D": 2, "3D": 3, "ND": None}.get(name[-2:], 1)
    real = name.lstrip("I").startswith("R")
    return json.dumps({"real": real, "inverse": name.startswith("I"), "rank": rank})


def _op(name, inputs):
    """The primitive `name` on `inputs`; a missing TensorFlow gradient is its LookupError."""
    if name in _DIFFERENTIABLE:
        return _core.raw_op(name, inputs, _attrs(name))[0]

    @custom_gradient
    def transform(x):
        def no_gradient(upstream):
            raise LookupError(f"gradient registry has no entry for: {name}")

        return _core.raw_op(name, [x, *inputs[1:]], _attrs(name))[0], no_gradient

    return transform(inputs[0])


def _complex_op(name):
    def transform(input, name=None):  # noqa: A002 - TensorFlow's argument name
        return _op(op_name, [convert_to_tensor(input)])

    op_name = name
    transform.__name__ = name.lower()
    transform.__doc__ = (
        f"TensorFlow's `{name}`: the {'inverse ' if name.startswith('I') else ''}discrete Fourier "
        "transform over the innermost axes of a complex64/complex128 tensor"
        f"{', scaled by 1/n' if name.startswith('I') else ''}."
    )
    return transform


fft = _complex_op("FFT")
ifft = _complex_op("IFFT")
fft2d = _complex_op("FFT2D")
ifft2d = _complex_op("IFFT2D")
fft3d = _complex_op("FFT3D")
ifft3d = _complex_op("IFFT3D")


def _static_dims(x):
    return list(x.shape)


def _lengths(fft_length):
    """`fft_length` as an int32 tensor and its values where known (None in a graph)."""
    lengths = convert_to_tensor(fft_length, dtype=_dtypes.int32)
    value = get_static_value(lengths)
    return lengths, None if value is None else [int(v) for v in np.reshape(value, [-1])]


def _pad_to(x, axes, lengths, reverse=False):
    """TensorFlow's `_maybe_pad_for_rfft`: zero-pads ``x`` on ``axes`` up to ``lengths`` (the
    last axis to n/2+1 for an inverse real transform); an empty input stays as it is."""
    dims = _static_dims(x)
    if lengths is None or any(d == 0 for d in dims) or any(dims[a] is None for a in axes):
        return x
    want = list(lengths)
    if reverse and want:
        want[-1] = want[-1] // 2 + 1
    paddings = [[0, 0] for _ in dims]
    for a, n in zip(axes, want):
        paddings[a][1] = max(n - dims[a], 0)
    if any(after for _, after in paddings):
        return pad(x, paddings)
    return x


def _check_rank(x, rank):
    if len(x.shape) < rank:
        raise ValueError(f"Shape {x.shape} must have rank at least {rank}")


def _real_input(input_tensor, what):
    x = convert_to_tensor(input_tensor, dtype_hint=_dtypes.float32)
    if x.dtype not in (_dtypes.float32, _dtypes.float64):
        raise ValueError(f"{what} requires tf.float32 or tf.float64 inputs, got: {x}")
    return x


def _complex_input(input_tensor, what):
    x = convert_to_tensor(input_tensor, dtype_hint=_dtypes.complex64)
    if x.dtype not in (_dtypes.complex64, _dtypes.complex128):
        raise ValueError(f"{what} requires tf.complex64 or tf.complex128 inputs, got: {x}")
    return x


def _rfft_wrapper(op_name, rank):
    def transform(input_tensor, fft_length=None, name=None):
        x = _real_input(input_tensor, "RFFT")
        _check_rank(x, rank)
        axes = list(range(len(x.shape) - rank, len(x.shape)))
        if fft_length is None:
            fft_length = [d if d is not None else 0 for d in _static_dims(x)[len(x.shape) - rank :]]
        lengths, static = _lengths(fft_length)
        x = _pad_to(x, axes, static)
        return _op(op_name, [x, lengths])

    transform.__name__ = op_name.lower()
    transform.__doc__ = (
        f"TensorFlow's `{op_name}`: the real-input Fourier transform over the innermost {rank} "
        "axes, cropped or zero-padded to `fft_length`; the last axis keeps fft_length[-1]//2+1 "
        "frequencies (float32 -> complex64, float64 -> complex128)."
    )
    return transform


def _irfft_wrapper(op_name, rank):
    def transform(input_tensor, fft_length=None, name=None):
        x = _complex_input(input_tensor, "IRFFT")
        _check_rank(x, rank)
        axes = list(range(len(x.shape) - rank, len(x.shape)))
        if fft_length is None:
            fft_length = [d if d is not None else 0 for d in _static_dims(x)[len(x.shape) - rank :]]
            if fft_length:
                fft_length[-1] = max(0, 2 * (fft_length[-1] - 1))
        lengths, static = _lengths(fft_length)
        x = _pad_to(x, axes, static, reverse=True)
        return _op(op_name, [x, lengths])

    transform.__name__ = op_name.lower()
    transform.__doc__ = (
        f"TensorFlow's `{op_name}`: the inverse of `{op_name[1:].lower()}`, a real signal of "
        "`fft_length` from the non-negative frequencies (complex64 -> float32, complex128 -> "
        "float64)."
    )
    return transform


rfft = _rfft_wrapper("RFFT", 1)
irfft = _irfft_wrapper("IRFFT", 1)
rfft2d = _rfft_wrapper("RFFT2D", 2)
irfft2d = _irfft_wrapper("IRFFT2D", 2)
rfft3d = _rfft_wrapper("RFFT3D", 3)
irfft3d = _irfft_wrapper("IRFFT3D", 3)


def _nd_wrapper(op_name, real, inverse):
    def transform(input_tensor, fft_length=None, axes=None, norm=None, name=None):
        if real and not inverse:
            x = _real_input(input_tensor, "RFFT")
        elif real:
            x = _complex_input(input_tensor, "IRFFT")
        else:
            x = convert_to_tensor(input_tensor, dtype_hint=_dtypes.complex64)
        rank = len(x.shape)
        axes = list(range(rank)) if axes is None else [int(a) for a in np.reshape(axes, [-1])]
        _check_rank(x, len(axes))
        if real and not axes:
            raise InvalidArgumentError(
                None, None, f"a real FFT needs at least one axis [Op:{op_name}]"
            )
        axes_t = convert_to_tensor(axes, dtype=_dtypes.int32)
        positive = [a % rank if rank else a for a in axes]
        if fft_length is None:
            fft_length = [d if d is not None else 0 for d in (_static_dims(x)[a] for a in positive)]
            if real and inverse and fft_length:
                fft_length[-1] = max(0, 2 * (fft_length[-1] - 1))
        lengths, static = _lengths(fft_length)
        if static is not None and len(static) == len(positive):
            x = _pad_to(x, positive, static, reverse=real and inverse)
        if norm not in (None, "backward"):
            if static is None:
                raise NotImplementedError(f"norm={norm!r} needs a constant fft_length")
            scale = float(np.prod(static, dtype=np.float64))
            scale = scale if norm == "forward" else float(np.sqrt(scale))
            if norm not in ("forward", "ortho"):
                raise ValueError(
                    f"Invalid norm value {norm}; should be 'backward', 'ortho' or 'forward'."
                )
            x = x * scale if inverse else x / scale
        return _op(op_name, [x, lengths, axes_t])

    transform.__name__ = op_name.lower()
    transform.__doc__ = (
        f"TensorFlow's `{op_name}` over ``axes`` (default: every axis) with lengths "
        "``fft_length`` and ``norm`` ('backward', 'forward' or 'ortho'). TensorFlow 2.21 has "
        "GPU kernels only for it; ferroflow runs it on the CPU."
    )
    return transform


fftnd = _nd_wrapper("FFTND", False, False)
ifftnd = _nd_wrapper("IFFTND", False, True)
rfftnd = _nd_wrapper("RFFTND", True, False)
irfftnd = _nd_wrapper("IRFFTND", True, True)


def _shift(x, axes, sign):
    x = convert_to_tensor(x)
    dims = _static_dims(x)
    if axes is None:
        axes = list(range(len(dims)))
    elif isinstance(axes, int):
        axes = [axes]
    else:
        axes = [int(a) for a in np.reshape(axes, [-1])]
    if not axes:
        return x
    shifts = [sign * (dims[a] // 2) for a in axes]
    return roll(x, shifts, axes)


def fftshift(x, axes=None, name=None):
    """Moves the zero frequency to the centre of each axis in ``axes`` (default: all), as
    ``numpy.fft.fftshift``.

    >>> import ferroflow as tf
    >>> tf.signal.fftshift([0.0, 1.0, 2.0, -2.0, -1.0]).numpy()
    array([-2., -1.,  0.,  1.,  2.], dtype=float32)
    """
    return _shift(x, axes, 1)


def ifftshift(x, axes=None, name=None):
    """The inverse of `fftshift` (they differ by one sample on odd lengths)."""
    return _shift(x, axes, -1)
