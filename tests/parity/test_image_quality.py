"""`tf.image` measures and filters (total variation, gradients, Sobel edges, PSNR, SSIM,
MS-SSIM) against TensorFlow on the CPU and the GPU, with gradients."""

import numpy as np
import pytest

from ._image_cases import run_case
from .harness import assert_parity

RNG = np.random.default_rng(2)
A = RNG.random((2, 16, 18, 3)).astype(np.float32)
B = np.clip(A + RNG.normal(0, 0.1, A.shape), 0, 1).astype(np.float32)
BIG_A = RNG.random((1, 180, 170, 1)).astype(np.float32)
BIG_B = np.clip(BIG_A + RNG.normal(0, 0.2, BIG_A.shape), 0, 1).astype(np.float32)
U8A = (A * 255).astype(np.uint8)
U8B = (B * 255).astype(np.uint8)

CASES = [
    ("total_variation", (A,), {}),
    ("total_variation", (A[0],), {}),
    ("total_variation", (A[0, 0],), {}),
    ("image_gradients", (A,), {}),
    ("image_gradients", (A[0],), {}),
    ("sobel_edges", (A,), {}),
    ("psnr", (A, B, 1.0), {}),
    ("psnr", (U8A, U8B, 255), {}),
    ("psnr", (A[0], B[0], 1.0), {}),
    ("ssim", (A, B, 1.0), {}),
    ("ssim", (U8A, U8B, 255), {}),
    ("ssim", (A, B, 1.0), {"filter_size": 5, "filter_sigma": 1.0, "k1": 0.02}),
    ("ssim", (A[0], B[0], 1.0), {"return_index_map": True}),
    ("ssim", (A[:, :8], B[:, :8], 1.0), {}),
    ("ssim_multiscale", (BIG_A, BIG_B, 1.0), {}),
    ("ssim_multiscale", (A, B, 1.0), {"power_factors": (0.5, 0.5), "filter_size": 3}),
]


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_image_quality(tf_oracle, case, device):
    run_case(tf_oracle, CASES, case, device, rtol=1e-4, atol=1e-5)


def _gradients(tf, name, a, b, kwargs):
    a, b = tf.constant(a), tf.constant(b)
    with tf.GradientTape() as tape:
        tape.watch(a)
        if name in ("total_variation", "sobel_edges"):
            y = tf.reduce_sum(getattr(tf.image, name)(a) ** 2)
        elif name == "image_gradients":
            dy, dx = tf.image.image_gradients(a)
            y = tf.reduce_sum(dy * dx)
        else:
            y = tf.reduce_sum(getattr(tf.image, name)(a, b, 1.0, **kwargs))
    return tape.gradient(y, a)


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("total_variation", {}),
        ("image_gradients", {}),
        ("sobel_edges", {}),
        ("psnr", {}),
        ("ssim", {}),
        ("ssim_multiscale", {"power_factors": (0.5, 0.5), "filter_size": 3}),
    ],
)
def test_image_quality_gradients(tf_oracle, name, kwargs):
    assert_parity(tf_oracle, _gradients, (name, A, B, kwargs), rtol=1e-3, atol=1e-5)
