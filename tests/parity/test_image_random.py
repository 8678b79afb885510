"""`tf.image` random augmentations against TensorFlow, on the CPU and the GPU. The stateless ones
give TensorFlow's numbers for the same seed; the stateful ones are checked by what any draw must
satisfy (one of the allowed outcomes, the dtype and shape, the argument errors)."""

import numpy as np
import pytest

from ._image_cases import outcomes, run_case
from .harness import assert_parity

RNG = np.random.default_rng(4)
IMG = RNG.random((4, 5, 3)).astype(np.float32)
BATCH = RNG.random((6, 3, 4, 3)).astype(np.float32)
U8 = RNG.integers(0, 256, (3, 4, 3)).astype(np.uint8)
SEEDS = [(1, 2), (0, 0), (123, -7)]

STATELESS = [
    *[("stateless_random_flip_left_right", (x,), {"seed": s}) for x in (IMG, BATCH) for s in SEEDS],
    *[
        ("stateless_random_flip_up_down", (x,), {"seed": s})
        for x in (IMG, BATCH, U8)
        for s in SEEDS
    ],
    *[("stateless_random_brightness", (x, 0.3), {"seed": s}) for x in (IMG, U8) for s in SEEDS],
    *[
        ("stateless_random_contrast", (x, 0.2, 1.8), {"seed": s})
        for x in (BATCH, U8)
        for s in SEEDS
    ],
    *[
        ("stateless_random_saturation", (x, 0.2, 1.8), {"seed": s})
        for x in (IMG, U8)
        for s in SEEDS
    ],
    *[("stateless_random_hue", (x, 0.4), {"seed": s}) for x in (IMG, BATCH) for s in SEEDS],
    *[
        ("stateless_random_crop", (x, z), {"seed": s})
        for x, z in ((IMG, [2, 3, 3]), (BATCH, [2, 2, 2, 3]))
        for s in SEEDS
    ],
    ("stateless_random_crop", (IMG, [5, 3, 3]), {"seed": (1, 2)}),
    ("stateless_random_brightness", (IMG, -0.1), {"seed": (1, 2)}),
    ("stateless_random_contrast", (IMG, 0.5, 0.5), {"seed": (1, 2)}),
    ("stateless_random_contrast", (IMG, -0.5, 0.5), {"seed": (1, 2)}),
    ("stateless_random_hue", (IMG, 0.6), {"seed": (1, 2)}),
    ("stateless_random_flip_left_right", (IMG[0],), {"seed": (1, 2)}),
]


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("case", range(len(STATELESS)))
def test_image_stateless_random(tf_oracle, case, device):
    run_case(tf_oracle, STATELESS, case, device, rtol=2e-5, atol=2e-6)


def _stateful(tf, device):
    import numpy as np

    with tf.device(device):
        img = tf.reshape(tf.range(24.0), [2, 4, 3, 1]) / 24.0
        out = {}
        for name, flip in (("left_right", 2), ("up_down", 1)):
            outcomes = []
            for seed in range(6):
                y = getattr(tf.image, f"random_flip_{name}")(img, seed=seed).numpy()
                flipped = np.flip(img.numpy(), flip)
                outcomes.append(
                    all(
                        np.array_equal(y[i], img.numpy()[i]) or np.array_equal(y[i], flipped[i])
                        for i in range(2)
                    )
                )
            out[name] = all(outcomes)
        b = tf.image.random_brightness(img, 0.2, seed=3)
        out["brightness"] = (
            b.dtype.name,
            bool(np.ptp((b - img).numpy()) < 1e-5),
            bool(abs((b - img).numpy().max()) <= 0.2),
        )
        c = tf.image.random_contrast(img, 0.5, 1.5, seed=1)
        out["contrast"] = (c.dtype.name, c.shape.as_list())
        s = tf.image.random_saturation(tf.ones([2, 2, 3]), 0.5, 1.5, seed=1)
        out["saturation"] = s.numpy().tolist()
        h = tf.image.random_hue(tf.ones([2, 2, 3]) * 0.5, 0.3, seed=1)
        out["hue"] = h.numpy().tolist()
        crop = tf.image.random_crop(tf.reshape(tf.range(60), [4, 5, 3]), [2, 2, 3], seed=5).numpy()
        out["crop"] = bool((crop[:, :, 1] - crop[:, :, 0] == 1).all() and crop.shape == (2, 2, 3))
        out["errors"] = outcomes(
            lambda: tf.image.random_brightness(img, -1.0),
            lambda: tf.image.random_contrast(img, 1.0, 0.5),
            lambda: tf.image.random_hue(img, 0.7),
            lambda: tf.image.random_saturation(img, -1.0, 0.5),
            lambda: tf.image.random_crop(img, [5, 1, 1, 1]),
            lambda: tf.image.random_flip_left_right(tf.ones([2, 2])),
        )
        return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_image_stateful_random(tf_oracle, device):
    assert_parity(tf_oracle, _stateful, (device,), helpers=[outcomes])
