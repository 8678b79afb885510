"""`tf.signal`: Fourier transforms (the FFT primitives), windows, framing, short-time and
cosine transforms, mel filter banks and MFCCs, composed as TensorFlow's."""

from ferroflow.signal.dct import dct, idct
from ferroflow.signal.fft_ops import (
    fft,
    fft2d,
    fft3d,
    fftnd,
    fftshift,
    ifft,
    ifft2d,
    ifft3d,
    ifftnd,
    ifftshift,
    irfft,
    irfft2d,
    irfft3d,
    irfftnd,
    rfft,
    rfft2d,
    rfft3d,
    rfftnd,
)
from ferroflow.signal.framing import frame, overlap_and_add
from ferroflow.signal.mel import linear_to_mel_weight_matrix, mfccs_from_log_mel_spectrograms
from ferroflow.signal.spectral import inverse_mdct, inverse_stft, inverse_stft_window_fn, mdct, stft
from ferroflow.signal.windows import (
    hamming_window,
    hann_window,
    kaiser_bessel_derived_window,
    kaiser_window,
    vorbis_window,
)

__all__ = [
    "dct",
    "fft",
    "fft2d",
    "fft3d",
    "fftnd",
    "fftshift",
    "frame",
    "hamming_window",
    "hann_window",
    "idct",
    "ifft",
    "ifft2d",
    "ifft3d",
    "ifftnd",
    "ifftshift",
    "inverse_mdct",
    "inverse_stft",
    "inverse_stft_window_fn",
    "irfft",
    "irfft2d",
    "irfft3d",
    "irfftnd",
    "kaiser_bessel_derived_window",
    "kaiser_window",
    "linear_to_mel_weight_matrix",
    "mdct",
    "mfccs_from_log_mel_spectrograms",
    "overlap_and_add",
    "rfft",
    "rfft2d",
    "rfft3d",
    "rfftnd",
    "stft",
    "vorbis_window",
]
