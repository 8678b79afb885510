"""`tf.keras.layers.MelSpectrogram` and `STFTSpectrogram`: audio features as Keras 3 computes
them on TensorFlow (a centred, reflect-padded `tf.signal.stft` through Keras's own mel filter
bank; a strided convolution with fixed cosine/sine kernels)."""

import math
import warnings

import numpy as np

import ferroflow as tf
from ferroflow.keras import _backend_config as backend_config
from ferroflow.keras.layers._shapes import standardize_data_format
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer

__all__ = ["MelSpectrogram", "STFTSpectrogram"]

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(hertz):
    return _MEL_HIGH_FREQUENCY_Q * tf.math.log(1.0 + hertz / _MEL_BREAK_FREQUENCY_HERTZ)


def mel_weight_matrix(num_mel_bins, num_spectrogram_bins, sampling_rate, lower_hz, upper_hz):
    """Keras's ``[num_spectrogram_bins, num_mel_bins]`` triangular filter bank (the DC bin
    is all zeros)."""
    dtype = "float32"
    zero = tf.constant(0.0, dtype)
    nyquist = tf.cast(sampling_rate, dtype) / 2.0
    linear = tf.linspace(zero, nyquist, num_spectrogram_bins)[1:]
    bins_mel = tf.expand_dims(_hertz_to_mel(linear), 1)
    edges = tf.linspace(
        _hertz_to_mel(tf.constant(lower_hz, dtype)),
        _hertz_to_mel(tf.constant(upper_hz, dtype)),
        num_mel_bins + 2,
    )
    frames = tf.signal.frame(edges, 3, 1)
    lower, center, upper = (tf.reshape(t, [1, num_mel_bins]) for t in tf.split(frames, 3, 1))
    lower_slopes = (bins_mel - lower) / (center - lower)
    upper_slopes = (upper - bins_mel) / (upper - center)
    weights = tf.maximum(zero, tf.minimum(lower_slopes, upper_slopes))
    return tf.pad(weights, [[1, 0], [0, 0]])


def _stft(x, sequence_length, sequence_stride, fft_length, window):
    """Keras's `ops.stft` with ``center=True``: real and imaginary parts."""
    if window is not None and isinstance(window, str) and window not in ("hann", "hamming"):
        raise ValueError(
            'If a string is passed to `window`, it must be one of `"hann"`, `"hamming"`. '
            f"Received: window={window}"
        )
    pad = [[0, 0]] * (x.shape.rank - 1) + [[fft_length // 2, fft_length // 2]]
    x = tf.pad(x, pad, mode="REFLECT")
    left = (fft_length - sequence_length) // 2
    right = fft_length - sequence_length - left
    window_fn = None
    if window is not None:
        if window == "hann":
            values = tf.signal.hann_window(sequence_length, periodic=True, dtype=x.dtype)
        elif window == "hamming":
            values = tf.signal.hamming_window(sequence_length, periodic=True, dtype=x.dtype)
        else:
            values = tf.convert_to_tensor(window, dtype=x.dtype)
        if values.shape.rank != 1 or values.shape[-1] != sequence_length:
            raise ValueError(
                "The shape of `window` must be equal to [sequence_length]."
                f"Received: window shape={values.shape}"
            )
        values = tf.pad(values, [[left, right]])

        def window_fn(length, dtype):
            return values

    result = tf.signal.stft(
        x,
        frame_length=fft_length,
        frame_step=sequence_stride,
        fft_length=fft_length,
        window_fn=window_fn,
    )
    return tf.math.real(result), tf.math.imag(result)


class MelSpectrogram(Layer):
    """The mel spectrogram of ``[batch, samples]`` (or ``[samples]``) audio: power
    ``|STFT|^mag_exp`` through ``num_mel_bins`` mel filters, in decibels (floored
    ``top_db`` below the batch maximum) when ``power_to_db``; ``[batch, mels, frames]``."""

    def __init__(
        self,
        fft_length=2048,
        sequence_stride=512,
        sequence_length=None,
        window="hann",
        sampling_rate=16000,
        num_mel_bins=128,
        min_freq=20.0,
        max_freq=None,
        power_to_db=True,
        top_db=80.0,
        mag_exp=2.0,
        min_power=1e-10,
        ref_power=1.0,
        **kwargs,
    ):
        self.fft_length = fft_length
        self.sequence_stride = sequence_stride
        self.sequence_length = sequence_length or fft_length
        if self.fft_length < self.sequence_length:
            raise ValueError(
                "`fft_length` must be greater than or equal to   `sequence_length`. Received: "
                f"`sequence_length`={self.sequence_length}, `fft_length`={self.fft_length}."
            )
        self.window = window
        self.sampling_rate = sampling_rate
        self.num_mel_bins = num_mel_bins
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db = power_to_db
        self.top_db = top_db
        self.mag_exp = mag_exp
        self.min_power = min_power
        self.ref_power = ref_power
        super().__init__(**kwargs)
        self.built = True

    def call(self, inputs):
        dtype = self.compute_dtype if self.compute_dtype in ("float32", "float64") else "float32"
        inputs = tf.cast(inputs, dtype)
        real, imag = _stft(
            inputs, self.sequence_length, self.sequence_stride, self.fft_length, self.window
        )
        spectrum = tf.pow(tf.sqrt(real * real + imag * imag), self.mag_exp)
        matrix = mel_weight_matrix(
            self.num_mel_bins,
            spectrum.shape[-1],
            self.sampling_rate,
            self.min_freq,
            self.max_freq,
        )
        outputs = tf.tensordot(spectrum, tf.cast(matrix, spectrum.dtype), axes=1)
        if self.power_to_db:
            log_spec = 10.0 * _log10(tf.maximum(outputs, self.min_power))
            reference = abs(self.ref_power)
            log_spec -= 10.0 * _log10(
                tf.maximum(tf.constant(reference, outputs.dtype), self.min_power)
            )
            outputs = tf.maximum(log_spec, tf.reduce_max(log_spec) - self.top_db)
        rank = outputs.shape.rank
        perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        return tf.cast(tf.transpose(outputs, perm), self.compute_dtype)

    def compute_output_shape(self, input_shape):
        def frames(length):
            return (
                None
                if length is None
                else (length + self.sequence_stride + 1) // self.sequence_stride
            )

        if len(input_shape) == 1:
            return [self.num_mel_bins, frames(input_shape[0])]
        return [input_shape[0], self.num_mel_bins, frames(input_shape[1])]

    def get_config(self):
        return {
            **super().get_config(),
            "fft_length": self.fft_length,
            "sequence_stride": self.sequence_stride,
            "sequence_length": self.sequence_length,
            "window": self.window,
            "sampling_rate": self.sampling_rate,
            "num_mel_bins": self.num_mel_bins,
            "min_freq": self.min_freq,
            "max_freq": self.max_freq,
            "power_to_db": self.power_to_db,
            "top_db": self.top_db,
            "mag_exp": self.mag_exp,
            "min_power": self.min_power,
            "ref_power": self.ref_power,
        }


def _log10(x):
    return tf.math.log(x) / tf.math.log(tf.constant(10.0, x.dtype))


_WINDOWS = {
    "hann": (0.5, 0.5),
    "hanning": (0.5, 0.5),
    "hamming": (0.54, 0.46),
    "boxcar": (1.0, 0.0),
    "ones": (1.0, 0.0),
    "rectangular": (1.0, 0.0),
}


def _window_values(window, length, periodic):
    """SciPy's `get_window(window, length, fftbins=periodic)`: the cosine windows computed here,
    any other name by SciPy itself, as Keras does (so an unknown name is SciPy's ValueError, and
    without SciPy Keras's ImportError)."""
    if window not in _WINDOWS:
        try:
            import scipy.signal
        except ImportError:
            raise ImportError(
                "This requires the scipy module. You can install it via `pip install scipy`"
            ) from None
        return scipy.signal.get_window(window, length, fftbins=periodic)
    a, b = _WINDOWS[window]
    if length == 1:
        return np.ones(1)
    span = length if periodic else length - 1
    return a - b * np.cos(2.0 * np.pi * np.arange(length) / span)


def stft_kernel(side, window, scaling, periodic, shape, dtype="float32"):
    """Keras's `initializers.STFT` kernel ``[frame_length, 1, bins]``: ``cos`` (real) or
    ``sin`` (imaginary) of ``-2 pi t f / fft_length``, windowed and scaled."""
    frame_length, _, bins = shape
    scale = None
    win = None
    if window is not None:
        values = (
            _window_values(window, frame_length, periodic) if isinstance(window, str) else window
        )
        win = tf.convert_to_tensor(values, dtype=dtype)
        if win.shape.rank != 1 or win.shape[-1] != frame_length:
            raise ValueError(
                "The shape of `window` must be equal to [frame_length]."
                f"Received: window shape={win.shape}"
            )
        win = tf.reshape(win, [frame_length, 1, 1])
        if scaling == "density":
            scale = tf.sqrt(tf.reduce_sum(tf.square(win)))
        elif scaling == "spectrum":
            scale = tf.reduce_sum(tf.abs(win))
        else:
            scale = tf.constant(1.0, dtype)
    freq = tf.reshape(tf.range(bins, dtype=dtype), [1, 1, bins]) / tf.cast((bins - 1) * 2, dtype)
    time = tf.reshape(tf.range(frame_length, dtype=dtype), [frame_length, 1, 1])
    args = (-2.0 * time) * freq * tf.acos(tf.constant(-1.0, dtype))
    kernel = tf.cos(args) if side == "real" else tf.sin(args)
    if win is not None:
        kernel = kernel * win / scale
    return kernel


class STFTSpectrogram(Layer):
    """The short-time Fourier transform of ``[batch, time, channels]`` signals (per channel)
    as a strided convolution with fixed kernels: ``log``/``magnitude``/``psd`` spectra,
    ``real``/``imag``/``angle`` parts or both (``stft``)."""

    _MODES = ["log", "magnitude", "psd", "real", "imag", "angle", "stft"]

    def __init__(
        self,
        mode="log",
        frame_length=256,
        frame_step=None,
        fft_length=None,
        window="hann",
        periodic=False,
        scaling="density",
        padding="valid",
        expand_dims=False,
        data_format=None,
        **kwargs,
    ):
        if frame_step is not None and (frame_step > frame_length or frame_step < 1):
            raise ValueError(
                "`frame_step` should be a positive integer not greater than `frame_length`. "
                f"Received frame_step={frame_step}, frame_length={frame_length}"
            )
        if fft_length is not None and fft_length < frame_length:
            raise ValueError(
                "`fft_length` should be not less than `frame_length`. "
                f"Received fft_length={fft_length}, frame_length={frame_length}"
            )
        if fft_length is not None and fft_length & -fft_length != fft_length:
            warnings.warn(
                "`fft_length` is recommended to be a power of two. "
                f"Received fft_length={fft_length}",
                stacklevel=2,
            )
        if mode not in self._MODES:
            raise ValueError(
                f"Output mode is invalid, it must be one of {', '.join(self._MODES)}. "
                f"Received: mode={mode}"
            )
        if scaling is not None and scaling not in ["density", "spectrum"]:
            raise ValueError(
                "Scaling is invalid, it must be `None`, 'density' or 'spectrum'. "
                f"Received scaling={scaling}"
            )
        if padding not in ["valid", "same"]:
            raise ValueError(
                f"Padding is invalid, it should be 'valid', 'same'. Received: padding={padding}"
            )
        if isinstance(window, str):
            _window_values(window, 1, periodic)
        super().__init__(**kwargs)
        self.mode = mode
        self.frame_length = frame_length
        self.frame_step = frame_step
        self._frame_step = frame_step or frame_length // 2
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** int(math.ceil(math.log2(frame_length)))
        self.window = window
        self.periodic = periodic
        self.scaling = scaling
        self.padding = padding
        self.expand_dims = expand_dims
        self.data_format = standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape):
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        for side in ("real", "imag"):
            if self.mode != ("imag" if side == "real" else "real"):
                kernel = stft_kernel(side, self.window, self.scaling, self.periodic, shape)
                weight = self.add_weight(
                    name=f"{side}_kernel",
                    shape=shape,
                    initializer=lambda s, dtype=None, k=kernel: tf.cast(k, dtype),
                )
                setattr(self, f"{side}_kernel", weight)
        self.built = True

    def _conv(self, inputs, kernel):
        """``[batch, channels, bins, frames]`` from each channel convolved alone."""
        if self.data_format == "channels_first":
            inputs = tf.transpose(inputs, [0, 2, 1])
        shape = tf.shape(inputs)
        time, channels = shape[1], shape[2]
        signals = tf.reshape(tf.transpose(inputs, [0, 2, 1]), tf.stack([-1, time, 1]))
        outputs = tf.nn.convolution(
            signals,
            tf.cast(kernel, inputs.dtype),
            strides=self._frame_step,
            padding=self.padding.upper(),
        )
        outputs = tf.transpose(outputs, [0, 2, 1])
        out_shape = tf.shape(outputs)
        return tf.reshape(outputs, tf.stack([-1, channels, out_shape[1], out_shape[2]]))

    def _adjust(self, outputs):
        shape = tf.shape(outputs)
        channels, bins, frames = shape[1], shape[2], shape[3]
        if self.expand_dims:
            perm = [0, 3, 2, 1] if self.data_format == "channels_last" else [0, 1, 3, 2]
            return tf.transpose(outputs, perm)
        outputs = tf.reshape(outputs, tf.stack([-1, channels * bins, frames]))
        return tf.transpose(outputs, [0, 2, 1]) if self.data_format == "channels_last" else outputs

    def call(self, inputs):
        if inputs.dtype.name not in ("float16", "float32", "float64"):
            raise TypeError(
                "Invalid input type. Expected `float16`, `float32` or `float64`. "
                f"Received: input type={inputs.dtype.name}"
            )
        real = self._conv(inputs, self.real_kernel) if self.mode != "imag" else None
        imag = self._conv(inputs, self.imag_kernel) if self.mode != "real" else None
        if self.mode == "real":
            return self._adjust(real)
        if self.mode == "imag":
            return self._adjust(imag)
        if self.mode == "angle":
            return self._adjust(tf.math.atan2(imag, real))
        if self.mode == "stft":
            return self._adjust(tf.concat([real, imag], axis=2))
        power = tf.square(real) + tf.square(imag)
        if self.mode == "psd":
            return self._adjust(
                power + tf.pad(power[:, :, 1:-1, :], [[0, 0], [0, 0], [1, 1], [0, 0]])
            )
        linear = self._adjust(tf.sqrt(tf.maximum(power, backend_config.epsilon())))
        if self.mode == "magnitude":
            return linear
        return tf.math.log(tf.maximum(linear, backend_config.epsilon()))

    def compute_output_shape(self, input_shape):
        channels_last = self.data_format == "channels_last"
        channels = input_shape[-1] if channels_last else input_shape[1]
        time = input_shape[1] if channels_last else input_shape[2]
        bins = self._fft_length // 2 + 1
        if self.mode == "stft":
            bins *= 2
        if time is None:
            frames = None
        elif self.padding == "valid":
            frames = (time - self.frame_length) // self._frame_step + 1
        else:
            frames = -(-time // self._frame_step)
        batch = input_shape[0]
        if self.expand_dims:
            return (
                (batch, frames, bins, channels)
                if channels_last
                else (batch, channels, frames, bins)
            )
        features = None if channels is None else bins * channels
        return (batch, frames, features) if channels_last else (batch, features, frames)

    def get_config(self):
        return {
            **super().get_config(),
            "mode": self.mode,
            "frame_length": self.frame_length,
            "frame_step": self.frame_step,
            "fft_length": self.fft_length,
            "window": self.window,
            "periodic": self.periodic,
            "scaling": self.scaling,
            "padding": self.padding,
            "data_format": self.data_format,
            "expand_dims": self.expand_dims,
        }
