"""`keras.ops` math: segment reductions, top-k, FFTs (as (real, imag) pairs), STFT,
special functions, as Keras 3's TensorFlow backend computes them."""

import ferroflow as tf
from ferroflow.keras.ops._dtypes import lazy_op as _op
from ferroflow.keras.ops._dtypes import standardize_dtype as _std
from ferroflow.keras.ops.core import cast, convert_to_tensor

_t = convert_to_tensor

__all__ = [
    "cdist", "erf", "erfc", "erfinv", "extract_sequences", "fft", "fft2", "ifft2", "in_top_k",
    "irfft", "istft", "logdet", "logsumexp", "rfft", "rsqrt", "segment_max", "segment_min",
    "segment_prod", "segment_sum", "stft", "top_k", "view_as_complex", "view_as_real",
]  # fmt: skip


def _check_segments(data, segment_ids):
    if len(segment_ids.shape) > 1:
        raise ValueError(
            "Argument `segment_ids` should be an 1-D vector, got shape: "
            f"{len(segment_ids.shape)}. Consider either flatten input with "
            "segment_ids.reshape((-1)) and data.reshape((-1, ) + "
            "data.shape[len(segment_ids.shape):]) or vectorize with vmap."
        )
    n, m = segment_ids.shape[0], data.shape[0]
    if n is not None and m is not None and n != m:
        raise ValueError(
            "Argument `segment_ids` and `data` should have same leading dimension. Got "
            f"{segment_ids.shape} v.s. {data.shape}."
        )


def _segment(sorted_op, unsorted_op, count_unique):
    def fn(data, segment_ids, num_segments=None, sorted=False):
        _check_segments(data, segment_ids)
        if sorted:
            if num_segments is not None:
                raise ValueError(
                    "Argument `num_segments` cannot be set when sorted is True when using the "
                    f"tensorflow backend.Received: num_segments={num_segments}, sorted={sorted}."
                )
            return sorted_op(data, segment_ids)
        if num_segments is None:
            if count_unique:
                num_segments = tf.shape(tf.unique(segment_ids)[0])[0]
            else:
                num_segments = tf.cast(tf.reduce_max(segment_ids) + 1, tf.int32)
        return unsorted_op(data, segment_ids, num_segments)

    return fn


segment_sum = _segment(_op("math.segment_sum"), _op("math.unsorted_segment_sum"), True)
segment_sum.__doc__ = "Sums of ``data`` rows per segment id."
segment_max = _segment(_op("math.segment_max"), _op("math.unsorted_segment_max"), False)
segment_max.__doc__ = "Maxima of ``data`` rows per segment id."
segment_min = _segment(_op("math.segment_min"), _op("math.unsorted_segment_min"), False)
segment_min.__doc__ = "Minima of ``data`` rows per segment id."
segment_prod = _segment(_op("math.segment_prod"), _op("math.unsorted_segment_prod"), False)
segment_prod.__doc__ = "Products of ``data`` rows per segment id."


def top_k(x, k, sorted=True):
    """The ``k`` largest values of the last axis and their indices."""
    return tf.math.top_k(x, k, sorted=sorted)


def in_top_k(targets, predictions, k):
    """Whether each target is among the ``k`` top predictions."""
    return tf.math.in_top_k(targets, predictions, k)


def logsumexp(x, axis=None, keepdims=False):
    """``log(sum(exp(x)))`` over ``axis``, computed stably."""
    return tf.math.reduce_logsumexp(x, axis=axis, keepdims=keepdims)


def cdist(x, y):
    """Euclidean distances between the rows (last axis) of ``x`` and ``y``."""
    x, y = _t(x), _t(y)
    if x.shape.rank < 2 or y.shape.rank < 2:
        raise ValueError("`cdist` inputs must have rank >= 2")
    if x.shape[-1] != y.shape[-1]:
        raise ValueError("Last dimension of inputs to `cdist` must match")
    diff = tf.expand_dims(x, -2) - tf.expand_dims(y, -3)
    return tf.sqrt(tf.reduce_sum(tf.square(diff), axis=-1))


def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of ``sequence_length`` every ``sequence_stride`` along the last axis."""
    return tf.signal.frame(
        x, frame_length=sequence_length, frame_step=sequence_stride, axis=-1, pad_end=False
    )


def _complex_from(x):
    if not isinstance(x, tuple | list) or len(x) != 2:
        raise ValueError(
            f"Input `x` should be a tuple of two tensors - real and imaginary.Received: x={x}"
        )
    real, imag = _t(x[0]), _t(x[1])
    if real.shape != imag.shape:
        raise ValueError(
            "Input `x` should be a tuple of two tensors - real and imaginary.Both the real and "
            "imaginary parts should have the same shape. Received: "
            f"x[0].shape = {real.shape}, x[1].shape = {imag.shape}"
        )
    if not real.dtype.is_floating or not imag.dtype.is_floating:
        raise ValueError(f"At least one tensor in input `x` is not of type float.Received: x={x}.")
    return tf.dtypes.complex(real, imag)


def _parts(z):
    return tf.math.real(z), tf.math.imag(z)


def fft(x):
    """FFT over the last axis of ``(real, imag)``; returns ``(real, imag)``."""
    return _parts(tf.signal.fft(_complex_from(x)))


def fft2(x):
    """2-D FFT over the last two axes of ``(real, imag)``."""
    return _parts(tf.signal.fft2d(_complex_from(x)))


def ifft2(x):
    """Inverse 2-D FFT over the last two axes of ``(real, imag)``."""
    real, imag = x
    real, imag = _t(real), _t(imag)
    n = cast(tf.shape(real)[-2], real.dtype) * cast(tf.shape(real)[-1], real.dtype)
    fr, fi = fft2((real, -imag))
    return fr / n, -fi / n


def rfft(x, fft_length=None):
    """Real FFT over the last axis; returns ``(real, imag)``."""
    return _parts(tf.signal.rfft(x, fft_length=None if fft_length is None else [fft_length]))


def irfft(x, fft_length=None):
    """Inverse real FFT of ``(real, imag)`` over the last axis."""
    return tf.signal.irfft(_complex_from(x), None if fft_length is None else [fft_length])


def _window(window, sequence_length, dtype, l_pad, r_pad):
    if isinstance(window, str):
        make = tf.signal.hann_window if window == "hann" else tf.signal.hamming_window
        win = make(sequence_length, periodic=True, dtype=dtype)
    else:
        win = _t(window, dtype=dtype)
    if len(win.shape) != 1 or win.shape[-1] != sequence_length:
        raise ValueError(
            "The shape of `window` must be equal to [sequence_length].Received: "
            f"window shape={win.shape}"
        )
    return tf.pad(win, [[l_pad, r_pad]])


def _check_stride(sequence_stride):
    if not isinstance(sequence_stride, int) or sequence_stride <= 0:
        raise ValueError(
            f"`sequence_stride` must be a positive integer. Received: "
            f"sequence_stride={sequence_stride}"
        )


def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """Short-time Fourier transform over the last axis; returns ``(real, imag)``."""
    _check_stride(sequence_stride)
    x = _t(x)
    if _std(x.dtype) not in ("float32", "float64"):
        raise TypeError(
            f"Invalid input type. Expected `float32` or `float64`. Received: input type={x.dtype}"
        )
    if fft_length < sequence_length:
        raise ValueError(
            "`fft_length` must equal or larger than `sequence_length`. Received: "
            f"sequence_length={sequence_length}, fft_length={fft_length}"
        )
    if isinstance(window, str) and window not in ("hann", "hamming"):
        raise ValueError(
            'If a string is passed to `window`, it must be one of `"hann"`, `"hamming"`. '
            f"Received: window={window}"
        )
    if center:
        pads = [(0, 0)] * (len(x.shape) - 1) + [(fft_length // 2, fft_length // 2)]
        x = tf.pad(x, pads, mode="reflect")
    l_pad = (fft_length - sequence_length) // 2
    r_pad = fft_length - sequence_length - l_pad
    fn = None
    if window is not None:
        win = _window(window, sequence_length, x.dtype, l_pad, r_pad)

        def fn(frame_length, dtype):
            return win

    return _parts(
        tf.signal.stft(
            x,
            frame_length=sequence_length + l_pad + r_pad,
            frame_step=sequence_stride,
            fft_length=fft_length,
            window_fn=fn,
        )
    )


def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann", center=True):
    """Inverse short-time Fourier transform of ``(real, imag)``."""
    _check_stride(sequence_stride)
    z = _complex_from(x)
    dtype = tf.math.real(z).dtype
    expected = fft_length + sequence_stride * (z.shape[-2] - 1)
    l_pad = (fft_length - sequence_length) // 2
    r_pad = fft_length - sequence_length - l_pad
    fn = None
    if window is not None:
        win = _window(window, sequence_length, dtype, l_pad, r_pad)
        fn = tf.signal.inverse_stft_window_fn(sequence_stride, lambda frame_length, dtype: win)
    out = tf.signal.inverse_stft(
        z,
        frame_length=sequence_length + l_pad + r_pad,
        frame_step=sequence_stride,
        fft_length=fft_length,
        window_fn=fn,
    )
    start = fft_length // 2 if center else 0
    if length is not None:
        end = start + length
    elif center:
        end = -(fft_length // 2)
    else:
        end = expected
    return out[..., start:end]


def rsqrt(x):
    """Elementwise ``1 / sqrt(x)``."""
    return tf.math.rsqrt(_t(x))


def erf(x):
    """The error function."""
    return tf.math.erf(_t(x))


def erfc(x):
    """The complementary error function."""
    return tf.math.erfc(_t(x))


def erfinv(x):
    """The inverse error function (half floats computed in float32)."""
    x = _t(x)
    name = _std(x.dtype)
    if name in ("bfloat16", "float16"):
        return tf.cast(tf.math.erfinv(tf.cast(x, tf.float32)), name)
    return tf.math.erfinv(x)


def logdet(x):
    """The log-determinant of Hermitian positive-definite matrices."""
    return tf.linalg.logdet(_t(x))


def view_as_complex(x):
    """A ``(..., 2)`` real tensor as complex64 numbers."""
    x = _t(x)
    if len(x.shape) < 1 or x.shape[-1] != 2:
        raise ValueError(
            "Last dimension of input must be size 2 (real and imaginary). Received shape: "
            f"{x.shape}"
        )
    return cast(x[..., 0], "complex64") + 1j * cast(x[..., 1], "complex64")


def view_as_real(x):
    """A complex tensor as ``(..., 2)`` real and imaginary parts."""
    x = _t(x)
    return tf.stack((tf.math.real(x), tf.math.imag(x)), axis=-1)
