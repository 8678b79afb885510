"""`tf.image.stateless_sample_distorted_bounding_box` gives TensorFlow's crop for the same seed
(many seeds, attribute combinations, image_size dtypes); the stateful
`sample_distorted_bounding_box` is checked by what any draw must satisfy; errors of both."""

import numpy as np
import pytest

from ._image_cases import outcomes
from .harness import assert_parity

BOXES = np.array([[[0.1, 0.2, 0.6, 0.7], [0.3, 0.1, 0.9, 0.4]]], np.float32)
ATTRS = [
    {},
    {"min_object_covered": 0.5, "area_range": (0.2, 0.9)},
    {"aspect_ratio_range": (0.3, 3.0), "min_object_covered": 0.0},
    {"min_object_covered": 0.99, "max_attempts": 3},
    {"area_range": (0.9, 1.0), "aspect_ratio_range": (2.5, 4.0)},
]


def _stateless(tf, boxes, attrs, dtype):
    out = []
    for s in range(25):
        size = tf.constant([37, 53, 3], getattr(tf, dtype))
        out.append(
            tf.image.stateless_sample_distorted_bounding_box(
                size, boxes, seed=[s, 7 * s - 3], **attrs
            )
        )
    return out


@pytest.mark.parametrize("attrs", range(len(ATTRS)))
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_stateless_sample_distorted_bounding_box(tf_oracle, attrs, dtype):
    assert_parity(tf_oracle, _stateless, (BOXES, ATTRS[attrs], dtype))


def _traced(tf, boxes):
    fn = tf.function(
        lambda b, s: tf.image.stateless_sample_distorted_bounding_box(
            [37, 53, 3], b, seed=s, min_object_covered=0.2
        )
    )
    return [fn(tf.constant(boxes), tf.constant([s, s + 1])) for s in range(5)]


def test_stateless_traced(tf_oracle):
    assert_parity(tf_oracle, _traced, (BOXES,))


def _no_boxes(tf):
    empty = tf.zeros([1, 0, 4])
    return tf.image.stateless_sample_distorted_bounding_box(
        [20, 30, 3], empty, seed=[4, 5], use_image_if_no_bounding_boxes=True
    )


def test_stateless_without_boxes(tf_oracle):
    assert_parity(tf_oracle, _no_boxes)


def _errors(tf, boxes):
    fn = tf.image.stateless_sample_distorted_bounding_box
    return outcomes(
        lambda: fn([20, 30, 3], tf.zeros([1, 0, 4]), seed=[1, 2]),
        lambda: fn([20, 30, 3], boxes * 2, seed=[1, 2]),
        lambda: fn([20, 30], boxes, seed=[1, 2]),
        lambda: fn([20, 30, 3], boxes[0], seed=[1, 2]),
        lambda: fn([20, 30, 3], boxes, seed=[1, 2], area_range=(0.0, 1.0)),
        lambda: fn([20, 30, 3], boxes, seed=[1, 2], area_range=(0.1, 1.5)),
        lambda: fn([20, 30, 3], boxes, seed=[1, 2], aspect_ratio_range=(0.1,)),
        lambda: fn([20, 30, 3], boxes, seed=[1, 2], max_attempts=0),
        lambda: fn([20, 30, 3], boxes, seed=[1, 2], min_object_covered=-0.5),
        lambda: fn([20.0, 30.0, 3.0], boxes, seed=[1, 2]),
    )


def test_sample_distorted_bounding_box_errors(tf_oracle):
    assert_parity(tf_oracle, _errors, (BOXES,), helpers=[outcomes])


def _stateful(tf, boxes):
    import numpy as np

    ok = []
    for seed in range(10):
        begin, size, bbox = tf.image.sample_distorted_bounding_box(
            [37, 53, 3], boxes, seed=seed, min_object_covered=0.3, area_range=(0.1, 1.0)
        )
        b, z, bb = begin.numpy(), size.numpy(), bbox.numpy()
        inside = b[0] + z[0] <= 37 and b[1] + z[1] <= 53 and b[2] == 0 and z[2] == -1
        area = z[0] * z[1] / (37 * 53)
        box = np.array([[[b[0] / 37, b[1] / 53, (b[0] + z[0]) / 37, (b[1] + z[1]) / 53]]])
        ok.append(bool(inside and 0.1 - 1e-3 <= area <= 1.0 and np.allclose(box, bb, atol=1e-6)))
    return begin.dtype.name, size.shape.as_list(), bbox.shape.as_list(), ok


def test_sample_distorted_bounding_box_stateful(tf_oracle):
    assert_parity(tf_oracle, _stateful, (BOXES,))
