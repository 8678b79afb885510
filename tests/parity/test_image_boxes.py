"""`tf.image.crop_and_resize` and `tf.image.draw_bounding_boxes` against TensorFlow on the CPU
and the GPU: boxes inside, across and outside the image, flipped boxes, one-pixel crops,
extrapolation, dtypes, errors, and crop_and_resize's gradients (image and boxes)."""

import numpy as np
import pytest

from ._image_cases import run_case
from .harness import assert_parity

RNG = np.random.default_rng(5)
IMG = RNG.random((2, 6, 7, 3)).astype(np.float32)
U8 = RNG.integers(0, 256, (1, 5, 5, 1)).astype(np.uint8)
BOXES = np.array(
    [
        [0.1, 0.2, 0.8, 0.9],
        [0.0, 0.0, 1.0, 1.0],
        [-0.3, 0.5, 0.6, 1.4],
        [0.9, 0.8, 0.2, 0.1],
        [0.5, 0.5, 0.5, 0.5],
    ],
    np.float32,
)
IDX = np.array([0, 1, 1, 0, 1], np.int32)

CASES = [
    *[
        ("crop_and_resize", (IMG, BOXES, IDX, s), {"method": m})
        for m in ("bilinear", "nearest")
        for s in ((3, 4), (1, 1), (1, 5), (8, 8))
    ],
    ("crop_and_resize", (IMG, BOXES, IDX, (4, 4)), {"extrapolation_value": -1.5}),
    ("crop_and_resize", (U8, BOXES[:2], IDX[:2] * 0, (3, 3)), {}),
    ("crop_and_resize", (IMG.astype(np.float64), BOXES, IDX, (2, 3)), {"method": "nearest"}),
    ("crop_and_resize", (IMG, np.zeros((0, 4), np.float32), np.zeros(0, np.int32), (2, 2)), {}),
    ("crop_and_resize", (IMG, BOXES, IDX + 1, (2, 2)), {}),
    ("crop_and_resize", (IMG, BOXES, IDX, (0, 2)), {}),
    ("crop_and_resize", (IMG, BOXES, IDX, (2, 2)), {"method": "bicubic"}),
    ("crop_and_resize", (IMG[0], BOXES, IDX, (2, 2)), {}),
    ("crop_and_resize", (IMG, BOXES[:, :3], IDX, (2, 2)), {}),
    ("crop_and_resize", (IMG > 0.5, BOXES, IDX, (2, 2)), {}),
]

DRAW_BOXES = np.array(
    [
        [[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0], [-0.3, 0.5, 0.6, 1.4]],
        [[0.9, 0.8, 0.2, 0.1], [0.3, 0.3, 0.5, 0.6], [1.5, 1.5, 2.0, 2.0]],
    ],
    np.float32,
)
COLORS = np.array([[0.2, 0.4, 0.6, 1.0], [0.9, 0.1, 0.0, 0.5]], np.float32)
DRAW = [
    ("draw_bounding_boxes", (IMG, DRAW_BOXES, None), {}),
    ("draw_bounding_boxes", (IMG, DRAW_BOXES), {}),
    ("draw_bounding_boxes", (IMG, DRAW_BOXES), {"colors": COLORS}),
    ("draw_bounding_boxes", (IMG[..., :1], DRAW_BOXES, None), {}),
    (
        "draw_bounding_boxes",
        (np.concatenate([IMG, IMG[..., :1]], -1), DRAW_BOXES),
        {"colors": COLORS},
    ),
    ("draw_bounding_boxes", (IMG.astype(np.float16), DRAW_BOXES, None), {}),
    ("draw_bounding_boxes", (IMG, DRAW_BOXES[:, :0], None), {}),
    ("draw_bounding_boxes", (IMG[..., :2], DRAW_BOXES, None), {}),
    ("draw_bounding_boxes", (IMG, DRAW_BOXES[:1], None), {}),
    ("draw_bounding_boxes", (IMG, DRAW_BOXES), {"colors": COLORS[:, :2]}),
    ("draw_bounding_boxes", (IMG.astype(np.float64), DRAW_BOXES, None), {}),
]


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("case", range(len(CASES) + len(DRAW)))
def test_image_boxes(tf_oracle, case, device):
    run_case(tf_oracle, CASES + DRAW, case, device, rtol=1e-5, atol=2e-6)


def _crop_gradients(tf, image, boxes, idx, method):
    image, boxes = tf.constant(image), tf.constant(boxes)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([image, boxes])
        y = tf.image.crop_and_resize(image, boxes, idx, (3, 4), method=method)
        w = tf.reshape(tf.range(1.0, tf.cast(tf.size(y), tf.float32) + 1.0), tf.shape(y))
        loss = tf.reduce_sum(y * w)
    return tape.gradient(loss, image), tape.gradient(loss, boxes)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize_gradients(tf_oracle, method):
    assert_parity(tf_oracle, _crop_gradients, (IMG, BOXES, IDX, method), rtol=1e-4, atol=1e-4)
