"""`tf.image` colour conversions and adjustments, against TensorFlow on the CPU and the GPU:
float and uint8 images, one image and batches, gradients where TensorFlow has them."""

import numpy as np
import pytest

from ._image_cases import run_case
from .harness import assert_parity

RNG = np.random.default_rng(1)
RGB = RNG.random((4, 5, 3)).astype(np.float32)
RGB[0, 0] = [0.5, 0.5, 0.5]  # grey: no hue, no saturation
RGB[0, 1] = [0.0, 0.0, 0.0]
RGB[0, 2] = [1.0, 0.2, 0.2]
RGB[0, 3] = [0.2, 1.0, 0.2]
BATCH = RNG.random((2, 3, 4, 3)).astype(np.float32)
U8 = RNG.integers(0, 256, (3, 4, 3)).astype(np.uint8)
F64 = RNG.random((2, 2, 3)).astype(np.float64)
F16 = RNG.random((2, 3, 3)).astype(np.float16)
GRAY = RNG.random((2, 3, 4, 1)).astype(np.float32)

CASES = [
    *[
        (n, (x,), {})
        for n in ("rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb")
        for x in (RGB, BATCH, F64)
    ],
    *[(n, (x,), {}) for n in ("rgb_to_hsv", "hsv_to_rgb") for x in (RGB, BATCH, F64, F16, U8)],
    ("hsv_to_rgb", (RGB[..., :2],), {}),
    *[("rgb_to_grayscale", (x,), {}) for x in (RGB, BATCH, U8, F64)],
    *[("grayscale_to_rgb", (x,), {}) for x in (GRAY, GRAY[0], RGB)],
    *[("adjust_brightness", (x, d), {}) for x in (RGB, U8, F16) for d in (0.2, -0.5)],
    # TensorFlow's CPU build has no half kernel for AdjustContrastv2 / AdjustHue /
    # AdjustSaturation (NotFoundError); ferroflow computes them in float32 as its GPU kernels do.
    *[("adjust_contrast", (x, f), {}) for x in (RGB, BATCH, U8) for f in (0.5, 2.0)],
    ("adjust_contrast", (RGB[0], 2.0), {}),
    *[
        ("adjust_gamma", (x, g, gain), {})
        for x in (RGB, U8)
        for g, gain in ((1, 1), (0.5, 2.0), (2.2, 0.8))
    ],
    ("adjust_gamma", (RGB, -1.0), {}),
    *[("adjust_hue", (x, d), {}) for x in (RGB, BATCH, U8) for d in (0.2, -0.7, 1.0)],
    ("adjust_hue", (RGB, 1.5), {}),
    *[("adjust_saturation", (x, f), {}) for x in (RGB, BATCH, U8) for f in (0.0, 0.5, 3.0)],
    *[
        ("per_image_standardization", (x,), {})
        for x in (RGB, BATCH, U8, np.ones((2, 2, 1), np.float32))
    ],
    ("per_image_standardization", (RGB[0],), {}),
]


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_image_color(tf_oracle, case, device):
    run_case(tf_oracle, CASES, case, device, rtol=2e-5, atol=2e-6)


def _color_gradients(tf, name, args):
    x = tf.constant(args[0])
    weights = tf.reshape(tf.range(1.0, tf.cast(tf.size(x), tf.float32) + 1.0) / 7.0, x.shape)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(getattr(tf.image, name)(x, *args[1:]) * weights)
    try:
        return tape.gradient(y, x)
    except LookupError as e:
        return type(e).__name__


GRADIENTS = [
    ("rgb_to_yiq", (RGB,)),
    ("yuv_to_rgb", (RGB,)),
    ("rgb_to_grayscale", (RGB,)),
    ("grayscale_to_rgb", (GRAY,)),
    ("adjust_brightness", (RGB, 0.3)),
    ("adjust_contrast", (BATCH, 1.7)),
    ("adjust_hue", (BATCH, 0.3)),
    ("adjust_saturation", (BATCH, 0.3)),
    ("adjust_gamma", (RGB + 0.1, 1.5, 2.0)),
    ("per_image_standardization", (BATCH,)),
    ("rgb_to_hsv", (RGB[1:],)),
    ("hsv_to_rgb", (RGB,)),
]


@pytest.mark.parametrize("case", range(len(GRADIENTS)))
def test_image_color_gradients(tf_oracle, case):
    name, args = GRADIENTS[case]
    assert_parity(tf_oracle, _color_gradients, (name, args), rtol=1e-4, atol=1e-5)
