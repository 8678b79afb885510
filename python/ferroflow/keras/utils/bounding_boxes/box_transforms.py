"""Keras 3's `bounding_boxes` transforms of ``xyxy`` boxes (affine maps, crop and pad
offsets) and the anchor encoding of boxes as centre/size deltas."""

import math

import ferroflow as tf
from ferroflow.keras.layers.image_preprocessing.bounding_boxes import convert_format

__all__ = ["affine_transform", "crop", "decode_deltas_to_boxes", "encode_box_to_deltas", "pad"]

_EPSILON = 1e-7  # keras.backend.epsilon()


def _xyxy_only(bounding_box_format):
    if bounding_box_format != "xyxy":
        raise NotImplementedError


def _inverse_affine_matrix(center_x, center_y, angle, tx, ty, scale, shear_x, shear_y, h, w):
    """Keras's ``[batch, 3, 3]`` matrix that maps box corners as the image is transformed
    (the inverse of the image's sampling matrix)."""
    to_radians = 1.0 / 180.0 * math.pi
    cx = center_x * (w - 1)
    cy = center_y * (h - 1)
    rot = -angle * to_radians
    tx = -tx * (w - 1)
    ty = -ty * (h - 1)
    sx = -shear_x * to_radians
    sy = -shear_y * to_radians
    cos_sy, tan_sx = tf.cos(sy), tf.tan(sx)
    a = tf.cos(rot - sy) / cos_sy
    b = a * tan_sx + tf.sin(rot)
    c = -tf.sin(rot - sy) / cos_sy
    d = tf.cos(rot) - c * tan_sx
    a0, a1, b0, b1 = d * scale, -b * scale, -c * scale, a * scale
    a2 = cx - a0 * (cx + tx) - a1 * (cy + ty)
    b2 = cy - b0 * (cx + tx) - b1 * (cy + ty)
    zeros, ones = tf.zeros_like(a0), tf.ones_like(a0)
    return tf.reshape(tf.stack([a0, a1, a2, b0, b1, b2, zeros, zeros, ones], axis=-1), [-1, 3, 3])


def affine_transform(
    boxes,
    angle,
    translate_x,
    translate_y,
    scale,
    shear_x,
    shear_y,
    height,
    width,
    center_x=None,
    center_y=None,
    bounding_box_format="xyxy",
):
    """``[batch, n, 4]`` ``xyxy`` boxes moved by the per-image affine transform (rotation
    ``angle`` and shears in degrees, translations as fractions of the size, ``scale``) about
    ``(center_x, center_y)`` (fractions, 0.5 by default): the bounding box of the four
    mapped corners."""
    _xyxy_only(bounding_box_format)
    angle = tf.convert_to_tensor(angle)
    center = (0.5 if center_x is None else center_x, 0.5 if center_y is None else center_y)
    shift_scale_shear = (translate_x, translate_y, scale, shear_x, shear_y)
    matrix = _inverse_affine_matrix(*center, angle, *shift_scale_shear, height, width)
    boxes = tf.cast(boxes, matrix.dtype)
    shape = tf.shape(boxes)
    x1, y1, x2, y2 = (boxes[..., i] for i in range(4))
    corners = tf.reshape(
        tf.stack([x1, y1, x2, y1, x2, y2, x1, y2], axis=-1), [shape[0], shape[1], 4, 2]
    )
    corners = tf.concat([corners, tf.ones([shape[0], shape[1], 4, 1], corners.dtype)], axis=-1)
    mapped = tf.einsum("bnxy,byz->bnxz", corners, tf.transpose(matrix[:, :2, :], [0, 2, 1]))
    return tf.concat([tf.reduce_min(mapped, axis=2), tf.reduce_max(mapped, axis=2)], axis=-1)


def _clip(x, high):
    return tf.clip_by_value(x, tf.cast(0, x.dtype), tf.cast(high, x.dtype))


def crop(boxes, top, left, height, width, bounding_box_format="xyxy"):
    """``xyxy`` boxes in the frame of the crop at ``(top, left)`` of size
    ``height x width``, clipped to it."""
    _xyxy_only(bounding_box_format)
    x1, y1, x2, y2 = tf.split(tf.convert_to_tensor(boxes), 4, axis=-1)
    return tf.concat(
        [
            _clip(x1 - left, width),
            _clip(y1 - top, height),
            _clip(x2 - left, width),
            _clip(y2 - top, height),
        ],
        axis=-1,
    )


def pad(boxes, top, left, height=None, width=None, bounding_box_format="xyxy"):
    """``xyxy`` boxes shifted by the ``top``/``left`` padding of their image."""
    _xyxy_only(bounding_box_format)
    x1, y1, x2, y2 = tf.split(tf.convert_to_tensor(boxes), 4, axis=-1)
    return tf.concat([x1 + left, y1 + top, x2 + left, y2 + top], axis=-1)


def _variance(variance):
    if variance is None:
        return None
    variance = tf.convert_to_tensor(variance, "float32")
    if variance.shape[-1] != 4:
        raise ValueError(f"`variance` must be length 4, got {variance}")
    return variance


def _size(image_shape):
    return (None, None) if image_shape is None else tuple(image_shape)[:2]


def encode_box_to_deltas(
    anchors,
    boxes,
    anchor_format,
    box_format,
    encoding_format="center_yxhw",
    variance=None,
    image_shape=None,
):
    """Boxes as deltas from their anchors: centre offsets over the anchor size and log size
    ratios (in ``encoding_format``), divided by ``variance`` when given."""
    variance = _variance(variance)
    if encoding_format not in ["center_xywh", "center_yxhw"]:
        raise ValueError(
            "`encoding_format` should be one of 'center_xywh' or 'center_yxhw', got "
            f"{encoding_format}"
        )
    height, width = _size(image_shape)
    anchors = convert_format(anchors, anchor_format, encoding_format, height, width)
    boxes = convert_format(boxes, box_format, encoding_format, height, width)
    anchor_sizes = tf.maximum(anchors[..., 2:], _EPSILON)
    box_sizes = tf.maximum(boxes[..., 2:], _EPSILON)
    deltas = tf.concat(
        [(boxes[..., :2] - anchors[..., :2]) / anchor_sizes, tf.math.log(box_sizes / anchor_sizes)],
        axis=-1,
    )
    return deltas if variance is None else deltas / variance


def decode_deltas_to_boxes(
    anchors,
    boxes_delta,
    anchor_format,
    box_format,
    encoded_format="center_yxhw",
    variance=None,
    image_shape=None,
):
    """The inverse of `encode_box_to_deltas`: boxes in ``box_format`` from anchors and
    deltas (dicts of levels map level by level)."""
    variance = _variance(variance)
    if encoded_format not in ["center_xywh", "center_yxhw"]:
        raise ValueError(
            "`encoded_format` should be 'center_xywh' or 'center_yxhw', but got "
            f"'{encoded_format}'."
        )
    height, width = _size(image_shape)

    def decode(anchor, delta):
        anchor = convert_format(anchor, anchor_format, encoded_format, height, width)
        if variance is not None:
            delta = delta * variance
        box = tf.concat(
            [
                delta[..., :2] * anchor[..., 2:] + anchor[..., :2],
                tf.exp(delta[..., 2:]) * anchor[..., 2:],
            ],
            axis=-1,
        )
        return convert_format(box, encoded_format, box_format, height, width)

    if isinstance(anchors, dict) and isinstance(boxes_delta, dict):
        return {level: decode(anchor, boxes_delta[level]) for level, anchor in anchors.items()}
    return decode(anchors, boxes_delta)
