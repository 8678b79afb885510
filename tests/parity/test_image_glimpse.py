"""`tf.image.extract_glimpse` against TensorFlow on the CPU and the GPU: every combination of
centered / normalized, windows inside, across and larger than the image (zero fill, exact), the
noise fills by what any draw must satisfy, and the errors."""

import itertools

import numpy as np
import pytest

from ._image_cases import run_case
from .harness import assert_parity

IMG = np.arange(1.0, 1 + 2 * 7 * 9 * 2, dtype=np.float32).reshape(2, 7, 9, 2)
OFFSETS = [
    np.array(o, np.float32)
    for o in ([[0.3, -0.5], [-1.2, 0.9]], [[2.0, 3.4], [-2.6, 8.9]], [[0.0, 0.0], [6.5, -3.0]])
]
CASES = [
    ("extract_glimpse", (IMG, size, off), {"centered": c, "normalized": n, "noise": "zero"})
    for c, n in itertools.product([True, False], [True, False])
    for off in OFFSETS
    for size in ((3, 4), (9, 12), (1, 1))
]
CASES += [
    ("extract_glimpse", (IMG[0], (2, 2), OFFSETS[0]), {}),
    ("extract_glimpse", (IMG, (2, 2), OFFSETS[0][:1]), {}),
    ("extract_glimpse", (IMG, (2, 2), OFFSETS[0]), {"noise": "pink"}),
    ("extract_glimpse", (IMG.astype(np.float64), (2, 2), OFFSETS[0]), {}),
]


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_extract_glimpse(tf_oracle, case, device):
    run_case(tf_oracle, CASES, case, device)


def _noisy(tf, image, device):
    import numpy as np

    with tf.device(device):
        x = tf.constant(image)
        out = {}
        for noise in ("uniform", "gaussian"):
            y = tf.image.extract_glimpse(x, (9, 12), [[0.0, 0.0], [0.0, 0.0]], noise=noise).numpy()
            zero = tf.image.extract_glimpse(x, (9, 12), [[0.0, 0.0], [0.0, 0.0]], noise="zero")
            inside = zero.numpy() != 0
            lo = image.min(axis=(1, 2, 3), keepdims=True)
            hi = image.max(axis=(1, 2, 3), keepdims=True)
            out[noise] = (
                y.shape,
                bool(np.array_equal(y[inside], zero.numpy()[inside])),
                bool(((y >= lo - 1e-3) & (y <= hi + 1e-3)).all()),
            )
        return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_extract_glimpse_noise(tf_oracle, device):
    assert_parity(tf_oracle, _noisy, (IMG, device))
