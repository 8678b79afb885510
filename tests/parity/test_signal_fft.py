"""tf.signal's Fourier transforms against TensorFlow: FFT/IFFT 1-3D (complex64/complex128),
RFFT/IRFFT 1-3D with fft_length cropping and padding, power-of-two, mixed-radix and prime
lengths, odd and even, batched and empty, on CPU:0 and GPU:0 (float32/complex64 with lengths
whose prime factors are at most 13 run the WGSL Stockham kernels there, the rest the host's),
traced, with TensorFlow's gradients and errors.
TensorFlow 2.21's CPU build has no FFTND kernels (NotFoundError), so the N-D ops are checked
against numpy."""

import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]
SIZES = [1, 2, 5, 8, 12, 17, 30, 97, 128, 210]
# float32 transforms of unit-scale data: both libraries round differently inside the FFT.
TOL = {"rtol": 1e-4, "atol": 1e-4}


def _complex(tf, shape, dtype, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    values = rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)
    return tf.constant(values.astype(dtype))


def _real(tf, shape, dtype, seed):
    import numpy as np

    return tf.constant(np.random.default_rng(seed).uniform(-1, 1, shape).astype(dtype))


def _complex_transforms(tf, n, dtype, device):
    with tf.device(device):
        x = _complex(tf, [3, n], dtype, n)
        cube = _complex(tf, [2, 3, n, 2], dtype, n + 1)
        return [
            tf.signal.fft(x),
            tf.signal.ifft(x),
            tf.signal.fft2d(x),
            tf.signal.ifft2d(x),
            tf.signal.fft3d(cube),
            tf.signal.ifft3d(cube),
            tf.function(tf.signal.fft)(x),
        ]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("n", SIZES)
def test_complex_transforms(tf_oracle, n, dtype, device):
    assert_parity(tf_oracle, _complex_transforms, (n, dtype, device), helpers=[_complex], **TOL)


def _real_transforms(tf, n, dtype, device):
    with tf.device(device):
        x = _real(tf, [2, n], dtype, n)
        grid = _real(tf, [2, 3, n], dtype, n + 1)
        spectrum = tf.signal.rfft(x)
        # n = 1 leaves one frequency, whose default inverse length 0 aborts TensorFlow.
        out = [spectrum, tf.signal.irfft(spectrum, [n])]
        out += [tf.signal.irfft(spectrum)] if n > 1 else []
        out += [tf.signal.rfft(x, [max(n - 1, 1)]), tf.signal.rfft(x, [n + 3])]
        out += [tf.signal.irfft(spectrum, [n + 2]), tf.signal.irfft(spectrum, [max(n // 2, 1)])]
        out += [tf.signal.rfft2d(grid), tf.signal.irfft2d(tf.signal.rfft2d(grid), [3, n])]
        out += [tf.signal.rfft3d(grid), tf.signal.irfft3d(tf.signal.rfft3d(grid), [2, 3, n])]
        out += [tf.function(tf.signal.rfft)(x, [n])]
        return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", SIZES)
def test_real_transforms(tf_oracle, n, dtype, device):
    assert_parity(tf_oracle, _real_transforms, (n, dtype, device), helpers=[_real], **TOL)


def _empty_and_scalar_cases(tf, device):
    with tf.device(device):
        out = [
            tf.signal.fft(tf.zeros([0, 4], tf.complex64)),
            tf.signal.fft(tf.zeros([3, 0], tf.complex64)),
        ]
        out += [tf.signal.rfft(tf.zeros([0, 6])), tf.signal.irfft(tf.zeros([2, 0], tf.complex64))]
        out += [tf.signal.rfft2d(tf.zeros([0, 2, 6]), [2, 6])]
        out += [tf.signal.rfft([1.0, 2.0, 3.0]), tf.signal.irfft([1.0 + 0j, 2.0, 3.0])]
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_empty_and_python_inputs(tf_oracle, device):
    assert_parity(tf_oracle, _empty_and_scalar_cases, (device,))


def _errors(tf):
    out = []
    for fn in (
        lambda: tf.signal.fft(tf.constant([1.0, 2.0])),
        lambda: tf.signal.fft(tf.constant(1.0 + 0j)),
        lambda: tf.signal.fft2d(tf.constant([1.0, 2.0], tf.complex64)),
        lambda: tf.signal.rfft(tf.constant([1, 2, 3])),
        lambda: tf.signal.rfft(tf.constant(1.0)),
        lambda: tf.signal.rfft(tf.constant([1.0, 2.0]), [-1]),
        lambda: tf.signal.rfft(tf.constant([1.0, 2.0]), [2, 2]),
        lambda: tf.signal.irfft(tf.constant([1.0, 2.0])),
        lambda: tf.signal.irfft3d(tf.zeros([2, 2], tf.complex64)),
        lambda: tf.function(tf.signal.fft)(tf.constant([1.0, 2.0])),
    ):
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_errors(tf_oracle):
    assert_parity(tf_oracle, _errors)


def _gradients(tf, n, dtype, device):
    real = "float64" if dtype == "complex128" else "float32"
    with tf.device(device):
        z = _complex(tf, [2, n], dtype, n)
        grid = _complex(tf, [2, 3, n], dtype, n + 2)
        x = _real(tf, [2, 3, n], real, n + 1)
        out = []
        for op, arg in (
            (tf.signal.fft, z),
            (tf.signal.ifft, z),
            (tf.signal.fft2d, grid),
            (tf.signal.ifft2d, grid),
        ):
            with tf.GradientTape() as tape:
                tape.watch(arg)
                y = op(arg)
                loss = tf.reduce_sum(tf.math.real(y) * tf.math.imag(y) + tf.math.abs(y))
            out.append(tape.gradient(loss, arg))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            weights = tf.cast(tf.range(1, n // 2 + 2), tf.as_dtype(dtype))
            y1 = tf.signal.rfft(x) * weights
            y2 = tf.signal.rfft2d(x)
            loss = tf.reduce_sum(tf.math.real(y1) + 2.0 * tf.math.imag(y1)) + tf.reduce_sum(
                tf.math.abs(y2)
            )
        out.append(tape.gradient(loss, x))
        spectrum = tf.signal.rfft(x)
        grid_spectrum = tf.signal.rfft2d(x)
        with tf.GradientTape() as tape:
            tape.watch([spectrum, grid_spectrum])
            loss = tf.reduce_sum(tf.signal.irfft(spectrum, [n]) * x) + tf.reduce_sum(
                tf.signal.irfft2d(grid_spectrum, [3, n]) ** 2
            )
        out += tape.gradient(loss, [spectrum, grid_spectrum])
        return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("n", [1, 4, 5, 8, 9])
def test_gradients(tf_oracle, n, dtype, device):
    assert_parity(tf_oracle, _gradients, (n, dtype, device), helpers=[_complex, _real], **TOL)


def _missing_gradients(tf):
    x = tf.ones([2, 2, 4])
    out = []
    for op in (tf.signal.rfft3d,):
        try:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.math.real(op(x))
            out.append(tape.gradient(y, x))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_rfft3d_has_no_gradient(tf_oracle):
    assert_parity(tf_oracle, _missing_gradients)


def _shifts(tf, device):
    with tf.device(device):
        x = tf.reshape(tf.range(30.0), [5, 6])
        return [
            tf.signal.fftshift(x),
            tf.signal.ifftshift(x),
            tf.signal.fftshift(x, axes=1),
            tf.signal.ifftshift(x, axes=0),
            tf.signal.fftshift(x, axes=[0, -1]),
            tf.signal.ifftshift(tf.range(7)),
            tf.function(tf.signal.fftshift)(x),
        ]


@pytest.mark.parametrize("device", DEVICES)
def test_fftshift(tf_oracle, device):
    assert_parity(tf_oracle, _shifts, (device,))


def test_nd_transforms_match_numpy():
    import ferroflow as tf

    rng = np.random.default_rng(0)
    z = (rng.uniform(-1, 1, [3, 4, 5]) + 1j * rng.uniform(-1, 1, [3, 4, 5])).astype(np.complex128)
    x = rng.uniform(-1, 1, [3, 4, 6])
    # numpy arrays keep their dtype through tf.constant (a dtype hint would narrow them).
    z, x = tf.constant(z), tf.constant(x)
    z_np, x_np = z.numpy(), x.numpy()
    np.testing.assert_allclose(
        tf.signal.fftnd(z).numpy(), np.fft.fftn(z_np), rtol=1e-10, atol=1e-10
    )
    np.testing.assert_allclose(
        tf.signal.fftnd(z, fft_length=[6, 3], axes=[0, 2]).numpy(),
        np.fft.fftn(z_np, [6, 3], axes=[0, 2]),
        atol=1e-10,
    )
    np.testing.assert_allclose(
        tf.signal.ifftnd(z, axes=[1], norm="ortho").numpy(),
        np.fft.ifftn(z_np, axes=[1], norm="ortho"),
        atol=1e-10,
    )
    np.testing.assert_allclose(tf.signal.rfftnd(x).numpy(), np.fft.rfftn(x_np), atol=1e-10)
    np.testing.assert_allclose(
        tf.signal.rfftnd(x, axes=[2, 0]).numpy(), np.fft.rfftn(x_np, axes=[2, 0]), atol=1e-10
    )
    spectrum = np.fft.rfftn(x_np, axes=[0, 2])
    np.testing.assert_allclose(
        tf.signal.irfftnd(tf.constant(spectrum), fft_length=[3, 6], axes=[0, 2]).numpy(),
        np.fft.irfftn(spectrum, [3, 6], axes=[0, 2]),
        atol=1e-10,
    )
    with tf.device("GPU:0"):
        np.testing.assert_allclose(
            tf.signal.fftnd(tf.cast(z, tf.complex64)).numpy(), np.fft.fftn(z_np), atol=1e-4
        )


def test_large_prime_and_mixed_radix_lengths_match_numpy():
    import ferroflow as tf

    rng = np.random.default_rng(1)
    for n in [2**12, 3**7, 5**5, 2 * 3 * 5 * 7 * 11, 4099, 65537]:
        z = rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n)
        z = tf.constant(z)
        z_np = z.numpy()
        np.testing.assert_allclose(
            tf.signal.fft(z).numpy(), np.fft.fft(z_np), atol=1e-8 * np.sqrt(n)
        )
        np.testing.assert_allclose(tf.signal.ifft(z).numpy(), np.fft.ifft(z_np), atol=1e-12)


def _gpu_ran(tf, value):
    return value.device.endswith("GPU:0")


def test_gpu_kernels_run_and_match_numpy():
    """The WGSL kernels (not the host's by soft placement) give float32-accurate transforms of
    long mixed-radix signals along every axis, and lengths with a prime factor above 13 still
    answer (on the host)."""
    import ferroflow as tf

    rng = np.random.default_rng(2)
    with tf.device("GPU:0"):
        for shape, axes in [([2**16], [0]), ([3, 4 * 3 * 5 * 7 * 11 * 13], [1]), ([17, 64], [1])]:
            z = rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)
            zt = tf.constant(z.astype(np.complex64))
            n = shape[axes[0]]
            bound = 2e-6 * np.sqrt(n) * np.log2(n)
            y = tf.signal.fft(zt)
            assert _gpu_ran(tf, y)
            np.testing.assert_allclose(y.numpy(), np.fft.fft(z), atol=bound)
            np.testing.assert_allclose(tf.signal.ifft(zt).numpy(), np.fft.ifft(z), atol=bound / n)
        grid = rng.uniform(-1, 1, [6, 10, 12]) + 1j * rng.uniform(-1, 1, [6, 10, 12])
        y = tf.signal.fft3d(tf.constant(grid.astype(np.complex64)))
        assert _gpu_ran(tf, y)
        np.testing.assert_allclose(y.numpy(), np.fft.fftn(grid), atol=1e-4)
        x = rng.uniform(-1, 1, [4, 6, 1000])
        spectrum = tf.signal.rfft2d(tf.constant(x.astype(np.float32)))
        assert _gpu_ran(tf, spectrum)
        np.testing.assert_allclose(spectrum.numpy(), np.fft.rfft2(x), atol=1e-3)
        back = tf.signal.irfft2d(spectrum, [6, 1000])
        assert _gpu_ran(tf, back)
        np.testing.assert_allclose(back.numpy(), x, atol=1e-5)
        prime = tf.signal.fft(tf.constant(rng.uniform(-1, 1, [2, 17]).astype(np.complex64)))
        assert not _gpu_ran(tf, prime)
