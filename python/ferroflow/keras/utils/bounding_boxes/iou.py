"""Keras 3's `bounding_boxes.compute_iou` (pairwise IoU matrices, with masking of padded
boxes) and `compute_ciou` (elementwise complete IoU)."""

import math

import ferroflow as tf
from ferroflow.keras.layers.image_preprocessing.bounding_boxes import convert_format

__all__ = ["compute_ciou", "compute_iou"]

_EPSILON = 1e-7  # keras.backend.epsilon()


def _area(boxes):
    y1, x1, y2, x2 = tf.split(boxes[..., :4], 4, axis=-1)
    return tf.squeeze((y2 - y1) * (x2 - x1), axis=-1)


def _pairwise_intersection(boxes1, boxes2):
    y1a, x1a, y2a, x2a = tf.split(boxes1[..., :4], 4, axis=-1)
    y1b, x1b, y2b, x2b = tf.split(boxes2[..., :4], 4, axis=-1)
    perm = [1, 0] if boxes2.shape.rank == 2 else [0, 2, 1]
    heights = tf.minimum(y2a, tf.transpose(y2b, perm)) - tf.maximum(y1a, tf.transpose(y1b, perm))
    widths = tf.minimum(x2a, tf.transpose(x2b, perm)) - tf.maximum(x1a, tf.transpose(x1b, perm))
    zero = tf.cast(0, heights.dtype)
    return tf.maximum(zero, heights) * tf.maximum(zero, widths)


def _check_rank(name, rank1, rank2):
    rank = rank1 if name == "boxes1" else rank2
    if rank not in (2, 3):
        raise ValueError(
            f"compute_iou() expects {name} to be batched, or to be unbatched. Received "
            f"len(boxes1.shape)={rank1}, len(boxes2.shape)={rank2}. Expected either "
            f"len({name}.shape)=2 AND or len({name}.shape)=3."
        )


def compute_iou(
    boxes1, boxes2, bounding_box_format, use_masking=False, mask_val=-1, image_shape=None
):
    """IoU of every box of ``boxes1`` (``[n, 4]`` or ``[batch, n, 4]``) with every box of
    ``boxes2``; with ``use_masking``, pairs with a box whose coordinates are all negative get
    ``mask_val``."""
    boxes1, boxes2 = tf.convert_to_tensor(boxes1), tf.convert_to_tensor(boxes2)
    rank1, rank2 = boxes1.shape.rank, boxes2.shape.rank
    _check_rank("boxes1", rank1, rank2)
    _check_rank("boxes2", rank1, rank2)
    if "rel" in bounding_box_format and image_shape is None:
        raise ValueError(
            "When using relative bounding box formats (e.g. `rel_yxyx`) the `image_shape` "
            f"argument must be provided.Received `image_shape`: {image_shape}"
        )
    height, width = (None, None) if image_shape is None else tuple(image_shape)[:2]
    boxes1 = convert_format(boxes1, bounding_box_format, "yxyx", height, width)
    boxes2 = convert_format(boxes2, bounding_box_format, "yxyx", height, width)
    intersection = _pairwise_intersection(boxes1, boxes2)
    area2 = _area(boxes2)
    area1 = tf.expand_dims(_area(boxes1), axis=-1)
    area2 = tf.expand_dims(area2, axis=1 if area2.shape.rank == 2 else 0)
    result = intersection / (area1 + area2 - intersection + _EPSILON)
    if not use_masking:
        return result
    perm = [1, 0] if rank1 == 2 else [0, 2, 1]
    fill = tf.cast(mask_val, result.dtype) * tf.ones_like(result)
    mask1 = tf.reduce_max(boxes1, axis=-1, keepdims=True) < 0.0
    mask2 = tf.reduce_max(boxes2, axis=-1, keepdims=True) < 0.0
    return tf.where(tf.logical_or(mask1, tf.transpose(mask2, perm)), fill, result)


def compute_ciou(boxes1, boxes2, bounding_box_format, image_shape=None):
    """Complete IoU of matching boxes: IoU less the normalised squared centre distance and
    Keras's aspect-ratio term."""
    if "rel" in bounding_box_format:
        raise ValueError(
            "When using relative bounding box formats (e.g. `rel_yxyx`) the `image_shape` "
            f"argument must be provided.Received `image_shape`: {image_shape}"
        )
    height, width = (None, None) if image_shape is None else tuple(image_shape)[:2]
    boxes1 = convert_format(
        tf.convert_to_tensor(boxes1), bounding_box_format, "xyxy", height, width
    )
    boxes2 = convert_format(
        tf.convert_to_tensor(boxes2), bounding_box_format, "xyxy", height, width
    )
    x1a, y1a, x2a, y2a = tf.split(boxes1[..., :4], 4, axis=-1)
    x1b, y1b, x2b, y2b = tf.split(boxes2[..., :4], 4, axis=-1)
    w1, h1 = x2a - x1a, y2a - y1a + _EPSILON
    w2, h2 = x2b - x1b, y2b - y1b + _EPSILON
    inter = tf.maximum(tf.minimum(x2a, x2b) - tf.maximum(x1a, x1b), 0.0) * tf.maximum(
        tf.minimum(y2a, y2b) - tf.maximum(y1a, y1b), 0.0
    )
    union = w1 * h1 + w2 * h2 - inter + _EPSILON
    iou = tf.squeeze(inter / (union + _EPSILON), axis=-1)
    convex_w = tf.maximum(x2a, x2b) - tf.minimum(x1a, x1b)
    convex_h = tf.maximum(y2a, y2b) - tf.minimum(y1a, y1b)
    diagonal = tf.squeeze(convex_w**2 + convex_h**2 + _EPSILON, axis=-1)
    centres = tf.squeeze(
        ((x1a + x2a) / 2 - (x1b + x2b) / 2) ** 2 + ((y1a + y2a) / 2 - (y1b + y2b) / 2) ** 2,
        axis=-1,
    )
    v = tf.squeeze(4 / math.pi**2 * tf.pow(tf.atan(w2 / h2) - tf.atan(w1 / h1), 2), axis=-1)
    alpha = v / (v - iou + (1 + _EPSILON))
    return iou - (centres / diagonal + v * alpha)
