"""Transcendental functions accurate to a few float32 ulp on both devices, at the inputs where
approximations fail: near the zeros of sin/cos/tan, near 1 for log, over exp's whole range.

WGSL lets drivers approximate exp/log/sin/cos; NVIDIA's Vulkan driver does (an H200 ran a
chain of ten sin steps 1e-4 off the CPU's, and float16 floormod of exact multiples gave the
divisor instead of 0), so the GPU kernels carry their own (shaders/precise_math.wgsl). The
reference is float64 numpy rounded to float32, which is what TensorFlow's kernels give to an
ulp or two.
"""

import ferroflow as tf
import numpy as np
import pytest

F32 = np.float32


def ulps(got, want):
    """Distance in units of the reference's last place (zero references: absolute / tiny)."""
    got = np.asarray(got, np.float64)
    want64 = np.asarray(want, np.float64)
    spacing = np.spacing(np.abs(want.astype(F32))).astype(np.float64)
    spacing = np.maximum(spacing, np.float64(np.finfo(F32).smallest_subnormal))
    both_inf = np.isinf(got) & np.isinf(want64) & (np.sign(got) == np.sign(want64))
    both_nan = np.isnan(got) & np.isnan(want64)
    distance = np.abs(got - want64) / spacing
    return np.where(both_inf | both_nan, 0.0, distance)


def near_multiples(step, count):
    """float32 values at and one ulp around k * step: where sin/cos/tan lose digits."""
    centres = (np.arange(-count, count + 1) * step).astype(F32)
    return np.concatenate(
        [centres, np.nextafter(centres, F32(np.inf)), np.nextafter(centres, F32(-np.inf))]
    )


def near_multiples_large():
    """float32 values at and one ulp around k * pi/2 for k from 1e3 to 1e37."""
    centres = (np.floor(np.geomspace(1e3, 1e37, 400)) * (np.pi / 2)).astype(F32)
    return np.concatenate(
        [centres, np.nextafter(centres, F32(np.inf)), -np.nextafter(centres, F32(-np.inf))]
    )


TRIG_INPUTS = np.concatenate(
    [
        near_multiples(np.pi / 2, 40),
        np.linspace(-100, 100, 2001, dtype=F32),
        np.array([1e-30, -1e-30, 1e-7, 3.0, 1000.5, -2047.25], F32),
        # Large arguments (positional encodings reach them): the reduction must stay exact,
        # up to float32's largest values, and next to multiples of pi/2 there too.
        np.array([1e4, -3e4, 1e5, 123456.7, 7.7e5, -1e6, 1e7, 6484471.5, 3.4e38], F32),
        np.geomspace(4e3, 3.4e38, 3000).astype(F32) * np.resize(F32([1, -1]), 3000),
        near_multiples_large(),
    ]
)
EXP_INPUTS = np.concatenate(
    [np.linspace(-87, 88.5, 4001, dtype=F32), np.array([-1e-6, 1e-7, 0.0, 0.5, -0.5], F32)]
)
LOG_INPUTS = np.concatenate(
    [
        1 + np.arange(-64, 65, dtype=F32) * np.finfo(F32).eps,
        np.geomspace(1e-37, 1e38, 2000).astype(F32),
        np.array([1e-40, 3e-45, 0.5, 2.0], F32),
    ]
)
SMALL = np.concatenate(
    [np.linspace(-3, 3, 1201, dtype=F32), np.array([1e-4, -1e-3, 3e-3, 0.01, 0.3], F32)]
)

CASES = [
    ("sin", tf.sin, np.sin, TRIG_INPUTS, 3),
    ("cos", tf.cos, np.cos, TRIG_INPUTS, 3),
    ("tan", tf.tan, np.tan, TRIG_INPUTS, 4),
    ("exp", tf.exp, np.exp, EXP_INPUTS, 3),
    ("log", tf.math.log, np.log, LOG_INPUTS, 3),
    ("expm1", tf.math.expm1, np.expm1, SMALL, 4),
    ("log1p", tf.math.log1p, np.log1p, SMALL[SMALL > -1], 4),
    ("sinh", tf.sinh, np.sinh, SMALL * 20, 4),
    ("cosh", tf.cosh, np.cosh, SMALL * 20, 4),
    # TensorFlow's CPU tanh is Eigen's rational fit (within 5 ulp), saturating past 7.9.
    ("tanh", tf.tanh, np.tanh, SMALL * 2.5, 8),
    ("sigmoid", tf.sigmoid, lambda x: 1 / (1 + np.exp(-x)), SMALL * 20, 4),
]


@pytest.mark.parametrize("name,fn,reference,inputs,tolerance", CASES, ids=[c[0] for c in CASES])
def test_within_a_few_ulp_of_float64(device, name, fn, reference, inputs, tolerance):
    want = reference(inputs.astype(np.float64))
    got = fn(tf.constant(inputs)).numpy()
    assert got.dtype == F32
    error = ulps(got, want)
    worst = int(np.argmax(error))
    assert error[worst] <= tolerance, (
        f"{name}({inputs[worst]!r}) = {got[worst]!r}, float64 gives {want[worst]!r} "
        f"({error[worst]:.1f} ulp)"
    )


def test_ten_chained_sin_steps_agree_across_devices(device):
    x = np.linspace(-3, 3, 100_000).astype(F32)
    y = tf.constant(x)
    want = x.astype(np.float64)
    for _ in range(10):
        y = tf.sin(y) * 1.5 + 0.25
        want = (np.sin(want) * 1.5 + 0.25).astype(F32).astype(np.float64)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_floormod_of_exact_multiples_is_zero(device, dtype):
    y = np.array([2.56, 0.1, 3.0, -0.7, 1e-3], dtype)
    k = np.arange(-300, 301, dtype=np.float64)[:, None]
    x = (k * y.astype(np.float64)).astype(dtype)
    exact = (x.astype(np.float64) / y.astype(np.float64)) == np.round(
        x.astype(np.float64) / y.astype(np.float64)
    )
    got = tf.math.floormod(tf.constant(x), tf.constant(y)).numpy()
    assert np.all(got[exact] == 0), got[exact][got[exact] != 0]
    divisor = np.broadcast_to(y, x.shape)
    assert np.all(np.abs(got) < np.abs(divisor))
    assert np.all((got == 0) | (np.sign(got) == np.sign(divisor)))


def test_softmax_and_log_softmax_are_accurate(device):
    logits = np.linspace(-20, 20, 4000, dtype=F32).reshape(4, 1000)
    shifted = logits.astype(np.float64) - logits.max(axis=1, keepdims=True)
    want = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    got = tf.nn.softmax(tf.constant(logits)).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-30)
    want_log = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    got_log = tf.nn.log_softmax(tf.constant(logits)).numpy()
    np.testing.assert_allclose(got_log, want_log, rtol=2e-6, atol=2e-6)
