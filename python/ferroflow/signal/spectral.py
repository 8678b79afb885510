"""`tf.signal`'s short-time transforms: `stft` (windowed frames, RFFT), `inverse_stft` (IRFFT,
window, overlap-add) with `inverse_stft_window_fn` (the window that makes it invert `stft`),
and the modified DCT pair `mdct`/`inverse_mdct` (half-overlapping frames, a type IV DCT).

>>> import ferroflow as tf
>>> tf.signal.stft(tf.ones([16]), frame_length=8, frame_step=4).shape
TensorShape([3, 5])
"""

import numpy as np

from ferroflow import math as _math
from ferroflow.array_ops import (
    concat,
    convert_to_tensor,
    pad,
    reshape,
    reverse,
    split,
    tile,
    where,
    zeros_like,
)
from ferroflow.signal.dct import dct
from ferroflow.signal.fft_ops import irfft, rfft
from ferroflow.signal.framing import _static_int, frame, overlap_and_add
from ferroflow.signal.windows import hann_window, vorbis_window

__all__ = ["inverse_mdct", "inverse_stft", "inverse_stft_window_fn", "mdct", "stft"]


def _enclosing_power_of_two(value):
    return int(2 ** np.ceil(np.log(value) / np.log(2.0)))


def stft(
    signals,
    frame_length,
    frame_step,
    fft_length=None,
    window_fn=hann_window,
    pad_end=False,
    name=None,
):
    """The short-time Fourier transform: frames of ``frame_length`` every ``frame_step``
    samples, times ``window_fn``'s window, through an RFFT of ``fft_length`` (default: the
    smallest power of two holding a frame)."""
    signals = convert_to_tensor(signals)
    if len(signals.shape) < 1:
        raise ValueError(f"Shape {signals.shape} must have rank at least 1")
    length = _static_int(frame_length, "frame_length")
    fft_length = (
        _enclosing_power_of_two(length)
        if fft_length is None
        else _static_int(fft_length, "fft_length")
    )
    framed = frame(signals, length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(length, dtype=framed.dtype)
    return rfft(framed, [fft_length])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A ``window_fn`` for `inverse_stft` that inverts `stft` with ``forward_window_fn``: the
    forward window over the sum of its overlapping squares."""

    def window_fn(frame_length, dtype):
        step = _static_int(frame_step, "frame_step")
        length = _static_int(frame_length, "frame_length")
        forward = forward_window_fn(length, dtype=dtype)
        overlaps = -(-length // step)
        denom = pad(_math.square(forward), [[0, overlaps * step - length]])
        denom = _math.reduce_sum(reshape(denom, [overlaps, step]), 0, keepdims=True)
        denom = reshape(tile(denom, [overlaps, 1]), [overlaps * step])[:length]
        return where(denom == 0.0, zeros_like(forward), forward / denom)

    return window_fn


def inverse_stft(
    stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None
):
    """Signals from their STFTs: IRFFT of each frame, cropped or padded to ``frame_length``,
    times ``window_fn``'s window, overlap-added every ``frame_step`` samples."""
    stfts = convert_to_tensor(stfts)
    if len(stfts.shape) < 2:
        raise ValueError(f"Shape {stfts.shape} must have rank at least 2")
    length = _static_int(frame_length, "frame_length")
    fft_length = (
        _enclosing_power_of_two(length)
        if fft_length is None
        else _static_int(fft_length, "fft_length")
    )
    frames = irfft(stfts, [fft_length])
    have = list(frames.shape)[-1]
    if have > length:
        frames = frames[..., :length]
    elif have < length:
        frames = pad(frames, [[0, 0]] * (len(frames.shape) - 1) + [[0, length - have]])
    if window_fn is not None:
        frames = frames * window_fn(length, dtype=stfts.dtype.real_dtype)
    return overlap_and_add(frames, frame_step)


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """The modified DCT of half-overlapping frames of ``frame_length`` (a multiple of 4):
    ``frame_length / 2`` coefficients per frame."""
    signals = convert_to_tensor(signals)
    if len(signals.shape) < 1:
        raise ValueError(f"Shape {signals.shape} must have rank at least 1")
    length = _static_int(frame_length, "frame_length")
    if length % 4 != 0:
        raise ValueError("The frame length must be a multiple of 4.")
    framed = frame(signals, length, length // 2, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(length, dtype=framed.dtype)
    else:
        framed = framed * (1.0 / np.sqrt(2))
    a, b, c, d = split(framed, 4, axis=-1)
    rearranged = concat([-reverse(c, [-1]) - d, a - reverse(b, [-1])], axis=-1)
    return dct(rearranged, type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """Signals from their MDCTs (`mdct` with the same window and ``norm``)."""
    mdcts = convert_to_tensor(mdcts)
    if len(mdcts.shape) < 2:
        raise ValueError(f"Shape {mdcts.shape} must have rank at least 2")
    half = list(mdcts.shape)[-1]
    if norm is None:
        out = 0.5 / convert_to_tensor(float(half), dtype=mdcts.dtype) * dct(mdcts, type=4)
    elif norm == "ortho":
        out = dct(mdcts, type=4, norm="ortho")
    else:
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    first, second = split(out, 2, axis=-1)
    frames = concat([second, -reverse(second, [-1]), -reverse(first, [-1]), -first], axis=-1)
    if window_fn is not None:
        frames = frames * window_fn(2 * half, dtype=mdcts.dtype)
    else:
        frames = frames * (1.0 / np.sqrt(2))
    return overlap_and_add(frames, half)
