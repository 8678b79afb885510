"""`tf.keras.utils.bounding_boxes` against Keras under TensorFlow 2.21 on both devices:
format conversions, clipping, affine transforms, crop and pad, anchor deltas both ways (with
variance and levels), IoU matrices (batched, masked, relative) and CIoU, and the errors."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _boxes(tf, device):
    import numpy as np

    B = tf.keras.utils.bounding_boxes
    boxes = np.array(
        [
            [[1.0, 2.0, 5.0, 6.0], [0.0, 0.0, 3.0, 9.0], [-2.0, 4.0, 12.0, 7.5]],
            [[2.5, 1.0, 4.0, 8.0], [6.0, 6.0, 9.0, 9.5], [-1.0, -1.0, -1.0, -1.0]],
        ],
        np.float32,
    )
    other = np.array(
        [
            [[0.5, 1.0, 4.0, 7.0], [2.0, 2.0, 6.0, 5.0]],
            [[3.0, 0.0, 5.0, 9.0], [-1.0, -1.0, -1.0, -1.0]],
        ],
        np.float32,
    )
    anchors = np.array(
        [[1.0, 1.0, 4.0, 5.0], [2.0, 3.0, 8.0, 9.0], [0.0, 0.0, 10.0, 10.0]], np.float32
    )
    out = []
    with tf.device(device):
        formats = [
            "xyxy",
            "yxyx",
            "xywh",
            "center_xywh",
            "center_yxhw",
            "rel_xyxy",
            "rel_yxyx",
            "rel_xywh",
            "rel_center_xywh",
        ]
        for source in formats:
            for target in ("xyxy", "center_yxhw", "rel_xywh"):
                out.append(B.convert_format(boxes, source, target, height=10, width=12))
        labels = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
        clipped = B.clip_to_image_size({"boxes": boxes, "labels": labels}, height=8, width=7)
        out.append((clipped["boxes"], clipped["labels"]))
        out.append(
            B.affine_transform(
                boxes,
                angle=np.array([30.0, -45.0], np.float32),
                translate_x=np.array([0.1, 0.0], np.float32),
                translate_y=np.array([0.0, -0.2], np.float32),
                scale=np.array([1.0, 1.5], np.float32),
                shear_x=np.array([10.0, 0.0], np.float32),
                shear_y=np.array([0.0, 5.0], np.float32),
                height=10,
                width=12,
            )
        )
        out.append(
            B.affine_transform(
                boxes,
                np.array([90.0, 0.0], np.float32),
                0.0,
                0.0,
                1.0,
                0.0,
                0.0,
                10,
                12,
                center_x=0.25,
                center_y=0.75,
            )
        )
        out.append(B.crop(boxes, 1, 2, 5, 6))
        out.append(B.pad(boxes, 3, 1))
        for fmt in ("center_yxhw", "center_xywh"):
            deltas = B.encode_box_to_deltas(anchors, boxes[0], "xyxy", "xyxy", fmt)
            out.append(deltas)
            out.append(B.decode_deltas_to_boxes(anchors, deltas, "xyxy", "xyxy", fmt))
        deltas = B.encode_box_to_deltas(
            anchors,
            boxes[0],
            "xyxy",
            "rel_xyxy",
            variance=[0.1, 0.1, 0.2, 0.2],
            image_shape=(10, 12, 3),
        )
        out.append(deltas)
        out.append(
            B.decode_deltas_to_boxes(
                {"p3": anchors}, {"p3": deltas}, "xyxy", "yxyx", variance=[0.1, 0.1, 0.2, 0.2]
            )
        )
        out.append(B.compute_iou(boxes[0], other[0], "xyxy"))
        out.append(B.compute_iou(boxes, other, "yxyx"))
        out.append(B.compute_iou(boxes, other, "xyxy", use_masking=True, mask_val=-7))
        out.append(
            B.compute_iou(boxes[0] / 20.0, other[0] / 20.0, "rel_xyxy", image_shape=(10, 12, 3))
        )
        out.append(B.compute_ciou(boxes[:, :2], other, "xyxy"))
        out.append(B.compute_ciou(boxes[0, :2], other[0], "xywh"))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_bounding_boxes(tf_oracle, device):
    assert_parity(tf_oracle, _boxes, (device,), rtol=1e-5, atol=1e-5)


def _errors(tf):
    import numpy as np

    B = tf.keras.utils.bounding_boxes
    b = np.ones((2, 4), np.float32)
    return error_classes(
        [
            lambda: B.convert_format(np.ones((2, 3), np.float32), "xyxy", "yxyx"),
            lambda: B.convert_format(b, "xyxy", "cxcy"),
            lambda: B.convert_format(b, "xyxy", "rel_xyxy"),
            lambda: B.clip_to_image_size({"boxes": b}, bounding_box_format="xyxy"),
            lambda: B.clip_to_image_size({"boxes": b}, 2, 2, bounding_box_format="yxyx"),
            lambda: B.crop(b, 0, 0, 1, 1, bounding_box_format="yxyx"),
            lambda: B.pad(b, 0, 0, bounding_box_format="rel_xyxy"),
            lambda: B.affine_transform(
                b[None], np.zeros(1, np.float32), 0, 0, 1, 0, 0, 2, 2, bounding_box_format="xywh"
            ),
            lambda: B.encode_box_to_deltas(b, b, "xyxy", "xyxy", variance=[1.0, 2.0]),
            lambda: B.encode_box_to_deltas(b, b, "xyxy", "xyxy", encoding_format="xyxy"),
            lambda: B.decode_deltas_to_boxes(b, b, "xyxy", "xyxy", encoded_format="yxyx"),
            lambda: B.compute_iou(np.ones(4, np.float32), b, "xyxy"),
            lambda: B.compute_iou(b, np.ones((1, 1, 2, 4), np.float32), "xyxy"),
            lambda: B.compute_iou(b, b, "rel_xyxy"),
            lambda: B.compute_ciou(b, b, "rel_xyxy", image_shape=(2, 2, 3)),
        ]
    )


def test_errors(tf_oracle):
    assert_parity(tf_oracle, _errors, (), helpers=[error_classes])
