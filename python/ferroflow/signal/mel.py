"""`tf.signal.linear_to_mel_weight_matrix` (HTK mel scale, triangular bands, TensorFlow's
arithmetic in the requested dtype) and `mfccs_from_log_mel_spectrograms` (an orthonormal-scaled
type II DCT).

>>> import ferroflow as tf
>>> tf.signal.linear_to_mel_weight_matrix(4, 9, 8000, 100.0, 3800.0).shape
TensorShape([9, 4])
"""

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow import math as _math
from ferroflow.array_ops import cast, convert_to_tensor, linspace, pad, reshape, split
from ferroflow.framework_ops import get_static_value
from ferroflow.signal.dct import dct
from ferroflow.signal.framing import frame

__all__ = ["linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms"]

_BREAK_HERTZ = 700.0
_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(hertz):
    return _HIGH_FREQUENCY_Q * _math.log(1.0 + hertz / _BREAK_HERTZ)


def _validate(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype):
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(
            f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz {upper_edge_hertz:.1f}"
        )
    if not _core.is_tensor(sample_rate):
        if sample_rate <= 0.0:
            raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError(
                "upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). "
                f"Got {upper_edge_hertz} for sample_rate: {sample_rate}"
            )
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")


def linear_to_mel_weight_matrix(
    num_mel_bins=20,
    num_spectrogram_bins=129,
    sample_rate=8000,
    lower_edge_hertz=125.0,
    upper_edge_hertz=3800.0,
    dtype=_dtypes.float32,
    name=None,
):
    """A ``[num_spectrogram_bins, num_mel_bins]`` matrix that maps linear-frequency
    magnitudes to mel bands: triangles between consecutive mel-spaced edges, the DC bin zero."""
    dtype = _dtypes.as_dtype(dtype)
    if _core.is_tensor(sample_rate) and get_static_value(sample_rate) is not None:
        sample_rate = get_static_value(sample_rate)
    _validate(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype)
    sample_rate = cast(sample_rate, dtype)
    lower = convert_to_tensor(lower_edge_hertz, dtype=dtype)
    upper = convert_to_tensor(upper_edge_hertz, dtype=dtype)
    zero = convert_to_tensor(0.0, dtype=dtype)
    # The DC bin carries no band (TensorFlow's bands_to_zero = 1).
    linear = linspace(zero, sample_rate / 2.0, num_spectrogram_bins)[1:]
    bins_mel = reshape(_hertz_to_mel(linear), [-1, 1])
    edges = frame(linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), num_mel_bins + 2), 3, 1)
    low, center, high = (reshape(t, [1, num_mel_bins]) for t in split(edges, 3, axis=1))
    rising = (bins_mel - low) / (center - low)
    falling = (high - bins_mel) / (high - center)
    weights = _math.maximum(zero, _math.minimum(rising, falling))
    return pad(weights, [[1, 0], [0, 0]])


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """Mel-frequency cepstral coefficients: the type II DCT of log mel spectrograms over their
    last axis, scaled by 1/sqrt(2 * num_mel_bins)."""
    x = convert_to_tensor(log_mel_spectrograms)
    bins = list(x.shape)[-1] if len(x.shape) else None
    if bins == 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {x}")
    out = dct(x, type=2)
    return out * _math.rsqrt(cast(bins, out.dtype) * 2.0)
