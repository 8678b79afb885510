"""`tf.keras.utils.bounding_boxes`: Keras 3's box helpers (format conversion, clipping,
affine transforms, crop and pad offsets, anchor deltas, IoU and CIoU)."""

from ferroflow.keras.layers.image_preprocessing.bounding_boxes import (
    clip_to_image_size,
    convert_format,
)
from ferroflow.keras.utils.bounding_boxes.box_transforms import (
    affine_transform,
    crop,
    decode_deltas_to_boxes,
    encode_box_to_deltas,
    pad,
)
from ferroflow.keras.utils.bounding_boxes.iou import compute_ciou, compute_iou

__all__ = [
    "affine_transform",
    "clip_to_image_size",
    "compute_ciou",
    "compute_iou",
    "convert_format",
    "crop",
    "decode_deltas_to_boxes",
    "encode_box_to_deltas",
    "pad",
]
