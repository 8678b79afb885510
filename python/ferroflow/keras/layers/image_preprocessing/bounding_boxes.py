"""Keras 3's bounding-box helpers, for the preprocessing layers and
`keras.utils.bounding_boxes`: conversions between the box formats (through ``xyxy``) and
clipping to the image, with the labels of boxes left empty set to -1."""

import ferroflow as tf

__all__ = ["SUPPORTED_FORMATS", "clip_to_image_size", "convert_format"]

SUPPORTED_FORMATS = (
    "xyxy",
    "yxyx",
    "xywh",
    "center_xywh",
    "center_yxhw",
    "rel_xyxy",
    "rel_yxyx",
    "rel_xywh",
    "rel_center_xywh",
)


def _split(boxes):
    return tf.split(boxes, 4, axis=-1)


def _join(*parts):
    return tf.concat(parts, axis=-1)


def _corners_from_center(cx, cy, w, h):
    half_w, half_h = w / 2.0, h / 2.0
    return cx - half_w, cy - half_h, cx + half_w, cy + half_h


def _to_xyxy(boxes, source, height, width):
    a, b, c, d = _split(boxes)
    if source == "xyxy":
        return boxes
    if source == "yxyx":
        return _join(b, a, d, c)
    if source == "xywh":
        return _join(a, b, a + c, b + d)
    if source == "center_xywh":
        return _join(*_corners_from_center(a, b, c, d))
    if source == "center_yxhw":
        return _join(*_corners_from_center(b, a, d, c))
    if source == "rel_xyxy":
        return _join(a * width, b * height, c * width, d * height)
    if source == "rel_yxyx":
        return _join(b * width, a * height, d * width, c * height)
    if source == "rel_xywh":
        return _join(a * width, b * height, (a + c) * width, (b + d) * height)
    x1, y1, x2, y2 = _corners_from_center(a, b, c, d)  # rel_center_xywh
    return _join(x1 * width, y1 * height, x2 * width, y2 * height)


def _from_xyxy(boxes, target, height, width):
    x1, y1, x2, y2 = _split(boxes)
    if target == "xyxy":
        return boxes
    if target == "yxyx":
        return _join(y1, x1, y2, x2)
    if target == "xywh":
        return _join(x1, y1, x2 - x1, y2 - y1)
    cx, cy = x1 + (x2 - x1) / 2.0, y1 + (y2 - y1) / 2.0
    if target == "center_xywh":
        return _join(cx, cy, x2 - x1, y2 - y1)
    if target == "center_yxhw":
        return _join(cy, cx, y2 - y1, x2 - x1)
    if target == "rel_xyxy":
        return _join(x1 / width, y1 / height, x2 / width, y2 / height)
    if target == "rel_yxyx":
        return _join(y1 / height, x1 / width, y2 / height, x2 / width)
    if target == "rel_xywh":
        return _join(x1 / width, y1 / height, (x2 - x1) / width, (y2 - y1) / height)
    return _join(cx / width, cy / height, (x2 - x1) / width, (y2 - y1) / height)


def convert_format(boxes, source, target, height=None, width=None, dtype="float32"):
    """``boxes`` (a tensor, or a dict with ``boxes``) from format ``source`` to ``target``;
    relative formats need the image ``height`` and ``width``."""
    if isinstance(boxes, dict):
        converted = convert_format(boxes["boxes"], source, target, height, width, dtype)
        return {**boxes, "boxes": converted}
    if boxes.shape[-1] != 4:
        raise ValueError(
            "`boxes` must be a tensor with the last dimension of 4. "
            f"Received: boxes.shape={tuple(boxes.shape)}"
        )
    source, target = source.lower(), target.lower()
    if source not in SUPPORTED_FORMATS or target not in SUPPORTED_FORMATS:
        raise ValueError(f"Invalid source or target format. Supported formats: {SUPPORTED_FORMATS}")
    relative = source.startswith("rel_") or target.startswith("rel_")
    if relative and (width is None or height is None):
        raise ValueError(
            "convert_format() must receive `height` and `width` transforming between relative "
            f"and absolute formats.convert_format() received source=`{source}`, "
            f"target=`{target}, but height={height} and width={width}."
        )
    boxes = tf.cast(boxes, dtype)
    if source == target:
        return boxes
    width = None if width is None else tf.cast(width, dtype)
    height = None if height is None else tf.cast(height, dtype)
    if source.startswith("rel_") and target.startswith("rel_"):
        source, target = source[4:], target[4:]
    return _from_xyxy(_to_xyxy(boxes, source, height, width), target, height, width)


def clip_to_image_size(bounding_boxes, height=None, width=None, bounding_box_format="xyxy"):
    """Boxes clipped to ``[0, width] x [0, height]`` (``[0, 1]`` for ``rel_xyxy``); boxes
    left with no area get the label -1."""
    if bounding_box_format not in ("xyxy", "rel_xyxy"):
        raise NotImplementedError
    if bounding_box_format == "xyxy" and (height is None or width is None):
        raise ValueError("`height` and `width` must be set if `format='xyxy'`.")
    boxes = bounding_boxes["boxes"]
    labels = bounding_boxes.get("labels")
    if bounding_box_format == "xyxy":
        high_x, high_y = tf.cast(width, boxes.dtype), tf.cast(height, boxes.dtype)
    else:
        high_x = high_y = tf.constant(1.0, boxes.dtype)
    x1, y1, x2, y2 = _split(boxes)
    x1, x2 = tf.clip_by_value(x1, 0, high_x), tf.clip_by_value(x2, 0, high_x)
    y1, y2 = tf.clip_by_value(y1, 0, high_y), tf.clip_by_value(y2, 0, high_y)
    boxes = _join(x1, y1, x2, y2)
    result = {**bounding_boxes, "boxes": boxes}
    if labels is not None:
        areas = tf.squeeze((x2 - x1) * (y2 - y1), -1)
        result["labels"] = tf.where(areas > 0, labels, tf.cast(-1, labels.dtype))
    return result
