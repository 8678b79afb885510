"""tf.signal's compositions against TensorFlow: windows, frame/overlap_and_add, stft and its
inverse, mel weight matrices, MFCCs, DCT types I-IV and the MDCT pair, with gradients, on
CPU:0 and GPU:0 and traced."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]
TOL = {"rtol": 1e-4, "atol": 1e-4}


def _signal(tf, shape, dtype, seed):
    import numpy as np

    return tf.constant(np.random.default_rng(seed).uniform(-1, 1, shape).astype(dtype))


def _windows(tf, dtype, device):
    dtype = getattr(tf, dtype)
    out = []
    with tf.device(device):
        for n in (0, 1, 2, 7, 8, 64):
            for periodic in (True, False):
                out.append(tf.signal.hann_window(n, periodic=periodic, dtype=dtype))
                out.append(tf.signal.hamming_window(n, periodic=periodic, dtype=dtype))
            out.append(tf.signal.vorbis_window(n, dtype=dtype))
            out.append(tf.signal.kaiser_bessel_derived_window(n, beta=4.0, dtype=dtype))
            if n == 0:
                continue  # TensorFlow's Range refuses the empty Kaiser window (test below)
            out.append(tf.signal.kaiser_window(n, dtype=dtype))
            out.append(tf.signal.kaiser_window(n, beta=2.5, dtype=dtype))
        out.append(tf.function(tf.signal.hann_window)(16))
        out.append(tf.signal.kaiser_window(9, beta=30.0, dtype=dtype))
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows(tf_oracle, dtype, device):
    assert_parity(tf_oracle, _windows, (dtype, device), rtol=1e-5, atol=1e-6)


def _window_errors(tf):
    out = []
    for fn in (
        lambda: tf.signal.hann_window(4, dtype=tf.int32),
        lambda: tf.signal.kaiser_window(4, dtype=tf.int32),
        lambda: tf.signal.vorbis_window([4]),
        lambda: tf.signal.kaiser_window(0),
    ):
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_window_errors(tf_oracle):
    assert_parity(tf_oracle, _window_errors)


def _framing(tf, device):
    with tf.device(device):
        x = tf.reshape(tf.range(2 * 11 * 3), [2, 11, 3])
        out = [
            tf.signal.frame(x, 4, 2, axis=1),
            tf.signal.frame(x, 4, 3, pad_end=True, pad_value=-1, axis=-2),
            tf.signal.frame(tf.range(10.0), 3, 1),
            tf.signal.frame(tf.range(10.0), 12, 4),
            tf.signal.frame(tf.range(10.0), 12, 4, pad_end=True),
            tf.signal.frame(tf.range(5), 2, 5, pad_end=True, axis=0),
            tf.function(lambda s: tf.signal.frame(s, 3, 2))(tf.range(9.0)),
        ]
        frames = tf.reshape(tf.range(4 * 6 * 1.0), [2, 2, 6]) + 1.0
        for step in (1, 2, 4, 6, 8):
            out.append(tf.signal.overlap_and_add(frames, step))
        out.append(tf.signal.overlap_and_add(tf.ones([5, 3]), 2))
        out.append(tf.function(lambda f: tf.signal.overlap_and_add(f, 3))(frames))
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_frame_and_overlap_and_add(tf_oracle, device):
    assert_parity(tf_oracle, _framing, (device,))


def _framing_errors(tf):
    out = []
    for fn in (
        lambda: tf.signal.frame(tf.constant(1.0), 2, 1),
        lambda: tf.signal.overlap_and_add(tf.ones([4]), 2),
        lambda: tf.signal.overlap_and_add(tf.ones([2, 4]), 2.0),
    ):
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_framing_errors(tf_oracle):
    assert_parity(tf_oracle, _framing_errors)


def _stft(tf, dtype, device):
    with tf.device(device):
        x = _signal(tf, [2, 300], dtype, 3)
        out = [
            tf.signal.stft(x, 64, 16),
            tf.signal.stft(x, 50, 20, fft_length=60, pad_end=True),
            tf.signal.stft(x, 32, 8, window_fn=tf.signal.hamming_window),
            tf.signal.stft(x, 32, 8, window_fn=None),
        ]
        s = tf.signal.stft(x, 64, 16)
        out.append(tf.signal.inverse_stft(s, 64, 16))
        window = tf.signal.inverse_stft_window_fn(16)
        out.append(tf.signal.inverse_stft(s, 64, 16, window_fn=window))
        out.append(tf.signal.inverse_stft(s, 48, 16, fft_length=64, window_fn=window))
        out.append(
            tf.signal.inverse_stft(tf.signal.stft(x, 50, 25, fft_length=40), 50, 25, fft_length=40)
        )
        out.append(window(64, dtype=x.dtype))
        out.append(tf.function(lambda v: tf.signal.stft(v, 32, 8))(x))
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.abs(tf.signal.stft(x, 32, 8)))
        out.append(tape.gradient(loss, x))
        return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stft(tf_oracle, dtype, device):
    assert_parity(tf_oracle, _stft, (dtype, device), helpers=[_signal], **TOL)


def _mel(tf, dtype_name, device):
    dtype = getattr(tf, dtype_name)
    with tf.device(device):
        out = [
            tf.signal.linear_to_mel_weight_matrix(dtype=dtype),
            tf.signal.linear_to_mel_weight_matrix(40, 257, 16000, 20.0, 8000.0, dtype=dtype),
            tf.signal.linear_to_mel_weight_matrix(3, 5, 100, 0.0, 50.0, dtype=dtype),
        ]
        logmel = _signal(tf, [2, 5, 40], dtype_name, 7)
        out.append(tf.signal.mfccs_from_log_mel_spectrograms(logmel))
        out.append(tf.function(tf.signal.mfccs_from_log_mel_spectrograms)(logmel))
        with tf.GradientTape() as tape:
            tape.watch(logmel)
            loss = tf.reduce_sum(tf.signal.mfccs_from_log_mel_spectrograms(logmel) ** 2)
        out.append(tape.gradient(loss, logmel))
        return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mel_and_mfcc(tf_oracle, dtype, device):
    assert_parity(tf_oracle, _mel, (dtype, device), helpers=[_signal], **TOL)


def _mel_errors(tf):
    out = []
    for kwargs in (
        {"num_mel_bins": 0},
        {"lower_edge_hertz": -1.0},
        {"lower_edge_hertz": 500.0, "upper_edge_hertz": 400.0},
        {"sample_rate": 0},
        {"upper_edge_hertz": 5000.0},
        {"dtype": tf.int32},
    ):
        try:
            out.append(tf.signal.linear_to_mel_weight_matrix(**kwargs))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    try:
        out.append(tf.signal.mfccs_from_log_mel_spectrograms(tf.zeros([2, 0])))
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        out.append(type(e).__name__)
    return out


def test_mel_errors(tf_oracle):
    assert_parity(tf_oracle, _mel_errors)


def _dct(tf, dtype, n, device):
    with tf.device(device):
        x = _signal(tf, [3, n], dtype, n)
        out = []
        for kind in (1, 2, 3, 4):
            if kind == 1 and n < 2:
                continue
            out.append(tf.signal.dct(x, type=kind))
            out.append(tf.signal.idct(x, type=kind))
            if kind != 1:
                out.append(tf.signal.dct(x, type=kind, norm="ortho"))
                out.append(tf.signal.idct(x, type=kind, norm="ortho"))
            out.append(tf.signal.dct(x, type=kind, n=n + 3))
            if n > 2:
                out.append(tf.signal.dct(x, type=kind, n=n - 1))
        out.append(tf.function(lambda v: tf.signal.dct(v, norm="ortho"))(x))
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(
                tf.signal.dct(x) * tf.signal.dct(x, type=4) + tf.signal.idct(x, type=3)
            )
        out.append(tape.gradient(loss, x))
        return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [1, 2, 7, 16])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dct(tf_oracle, dtype, n, device):
    assert_parity(tf_oracle, _dct, (dtype, n, device), helpers=[_signal], **TOL)


def _dct_errors(tf):
    out = []
    for kwargs in (
        {"type": 5},
        {"type": 1, "norm": "ortho"},
        {"norm": "forward"},
        {"n": 0},
        {"axis": 0},
    ):
        try:
            out.append(tf.signal.dct(tf.ones([2, 4]), **kwargs))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    try:
        out.append(tf.signal.dct(tf.ones([2, 1]), type=1))
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        out.append(type(e).__name__)
    return out


def test_dct_errors(tf_oracle):
    assert_parity(tf_oracle, _dct_errors)


def _mdct(tf, dtype, device):
    with tf.device(device):
        x = _signal(tf, [2, 64], dtype, 11)
        out = []
        for window in (tf.signal.vorbis_window, tf.signal.kaiser_bessel_derived_window, None):
            for norm in (None, "ortho"):
                m = tf.signal.mdct(x, 16, window_fn=window, norm=norm)
                out += [m, tf.signal.inverse_mdct(m, window_fn=window, norm=norm)]
        out.append(tf.signal.mdct(x[:, :60], 8, pad_end=True))
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.signal.mdct(x, 16) ** 2)
        out.append(tape.gradient(loss, x))
        try:
            out.append(tf.signal.mdct(x, 10))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
        return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mdct(tf_oracle, dtype, device):
    assert_parity(tf_oracle, _mdct, (dtype, device), helpers=[_signal], **TOL)
