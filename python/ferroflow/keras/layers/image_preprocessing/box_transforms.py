"""How Keras 3's geometric preprocessing layers move bounding boxes with their images.

Each function takes the layer, the batch's dense ``{"boxes", "labels"}`` dict and the
layer's drawn transformation, and returns the moved boxes the way Keras's
``transform_bounding_boxes`` of that layer computes them (step for step, including the
formats Keras works in: a layer that returns ``xyxy`` whatever its format, or that shifts x
by the vertical offset, does so here too)."""

import ferroflow as tf
from ferroflow.keras.layers.image_preprocessing import bounding_boxes as boxes_lib

__all__ = [
    "center_crop_boxes",
    "mix_up_boxes",
    "perspective_boxes",
    "rand_augment_boxes",
    "random_crop_boxes",
    "rotation_boxes",
    "shear_boxes",
    "translation_boxes",
    "zoom_boxes",
]

convert_format = boxes_lib.convert_format
clip_to_image_size = boxes_lib.clip_to_image_size


def _split(boxes):
    return tf.split(boxes, 4, axis=-1)


def _join(*parts):
    return tf.concat(parts, axis=-1)


def _promoted(*values):
    """``values`` cast to one dtype as Keras's ops promote them: the widest float (float32
    for float16 with bfloat16), else float32 for mixed kinds."""
    dtypes = {v.dtype for v in values}
    if len(dtypes) == 1:
        return values
    if all(d.is_floating for d in dtypes):
        sizes = sorted({d.size for d in dtypes})
        widest = [d for d in dtypes if d.size == sizes[-1]]
        dtype = widest[0] if len(widest) == 1 else tf.float32
        dtype = tf.float32 if dtype.size < 4 else dtype
    else:
        dtype = tf.float32
    return tuple(tf.cast(v, dtype) for v in values)


def _input_size(layer, transformation):
    """The image height and width recorded in ``transformation["input_shape"]``."""
    shape = transformation["input_shape"]
    return shape[layer._height_axis], shape[layer._width_axis]


def _crop_window(bounding_boxes, top, bottom, left, right):
    """``xyxy`` boxes clipped to a window and moved to its origin."""
    x1, y1, x2, y2 = _split(bounding_boxes["boxes"])
    boxes = _join(
        tf.clip_by_value(x1, left, right) - left,
        tf.clip_by_value(y1, top, bottom) - top,
        tf.clip_by_value(x2, left, right) - left,
        tf.clip_by_value(y2, top, bottom) - top,
    )
    return {**bounding_boxes, "boxes": boxes}


def center_crop_boxes(layer, bounding_boxes, transformation):
    """CenterCrop: boxes cut to the central window; when the image is smaller than the
    target, to the aspect-ratio crop, then scaled to the target size."""
    height, width = _input_size(layer, transformation)
    fmt = layer.bounding_box_format
    bounding_boxes = convert_format(bounding_boxes, fmt, "xyxy", height, width)
    h_diff, w_diff = height - layer.height, width - layer.width
    if h_diff >= 0 and w_diff >= 0:
        top, left = int(h_diff / 2), int(w_diff / 2)
        bounding_boxes = _crop_window(
            bounding_boxes, top, top + layer.height, left, left + layer.width
        )
    else:
        crop_height = max(min(height, int(float(width * layer.height) / layer.width)), 1)
        crop_width = max(min(width, int(float(height * layer.width) / layer.height)), 1)
        top = int(float(height - crop_height) / 2)
        left = int(float(width - crop_width) / 2)
        bounding_boxes = _crop_window(
            bounding_boxes, top, top + crop_height, left, left + crop_width
        )
        bounding_boxes = convert_format(bounding_boxes, "xyxy", "rel_xyxy", crop_height, crop_width)
        bounding_boxes = convert_format(
            bounding_boxes, "rel_xyxy", "xyxy", layer.height, layer.width
        )
    bounding_boxes = clip_to_image_size(bounding_boxes, layer.height, layer.width, "xyxy")
    return convert_format(bounding_boxes, "xyxy", fmt, layer.height, layer.width)


def random_crop_boxes(layer, bounding_boxes, transformation):
    """RandomCrop: Keras subtracts the crop's top from x and its left from y, keeps the
    results non-negative, and converts with the target size both ways."""
    top, left = transformation
    fmt = layer.bounding_box_format
    boxes = convert_format(bounding_boxes["boxes"], fmt, "xyxy", layer.height, layer.width)
    top, left = tf.cast(top, boxes.dtype), tf.cast(left, boxes.dtype)
    shifts = (top, left, top, left)
    boxes = tf.stack([tf.maximum(boxes[..., i] - shifts[i], 0) for i in range(4)], axis=-1)
    boxes = convert_format(boxes, "xyxy", fmt, layer.height, layer.width)
    return {"boxes": boxes, "labels": bounding_boxes["labels"]}


def zoom_boxes(layer, bounding_boxes, transformation):
    """RandomZoom: boxes cut to the zoomed window (its corners are where the zoom matrix
    sends the image corners), made relative to that window, clipped, and scaled back to
    the image size."""
    height, width = _input_size(layer, transformation)
    if tf.is_tensor(height) or tf.is_tensor(width):
        # Keras multiplies the float32 zoom matrix by the integer run-time size.
        raise TypeError(
            "Keras's RandomZoom cannot move bounding boxes of images whose height or width "
            "is known only at run time."
        )
    fmt = layer.bounding_box_format
    bounding_boxes = convert_format(bounding_boxes, fmt, "xyxy", height, width)
    zx = tf.cast(transformation["width_zoom"], "float32")
    zy = tf.cast(transformation["height_zoom"], "float32")
    # The zoom matrix's offsets are its image of (0, 0); (width, height) maps to
    # zoom * size + offset.
    w_start = (tf.cast(width, "float32") - 1.0) / 2.0 * (1.0 - zx)
    h_start = (tf.cast(height, "float32") - 1.0) / 2.0 * (1.0 - zy)
    w_end = zx * tf.cast(width, "float32") + w_start
    h_end = zy * tf.cast(height, "float32") + h_start
    w_start, h_start, w_end, h_end = (v[..., None] for v in (w_start, h_start, w_end, h_end))
    bounding_boxes = _crop_window(bounding_boxes, h_start, h_end, w_start, w_end)
    zoomed_h, zoomed_w = h_end - h_start, w_end - w_start
    bounding_boxes = convert_format(bounding_boxes, "xyxy", "rel_xyxy", zoomed_h, zoomed_w)
    bounding_boxes = clip_to_image_size(bounding_boxes, zoomed_h, zoomed_w, "rel_xyxy")
    return convert_format(bounding_boxes, "rel_xyxy", fmt, height, width)


def translation_boxes(layer, bounding_boxes, transformation):
    """RandomTranslation: boxes shifted by the drawn pixel offsets and clipped."""
    height, width = _input_size(layer, transformation)
    fmt = layer.bounding_box_format
    bounding_boxes = convert_format(bounding_boxes, fmt, "xyxy", height, width)
    translations = transformation["translations"]
    # Keras shifts by minus the matrix's image of (0, 0), which is the offset itself.
    dx = tf.cast(-translations[:, 0:1], "float32")[..., None]
    dy = tf.cast(-translations[:, 1:], "float32")[..., None]
    x1, y1, x2, y2 = _split(bounding_boxes["boxes"])
    bounding_boxes = {**bounding_boxes, "boxes": _join(x1 - dx, y1 - dy, x2 - dx, y2 - dy)}
    bounding_boxes = clip_to_image_size(bounding_boxes, height, width, "xyxy")
    return convert_format(bounding_boxes, "xyxy", fmt, height, width)


def shear_boxes(layer, bounding_boxes, transformation):
    """RandomShear: relative box corners sheared by the drawn factors (x first, then y
    from the new x), clipped to ``[0, 1]``."""
    height, width = _input_size(layer, transformation)
    fmt, dtype = layer.bounding_box_format, layer.compute_dtype
    bounding_boxes = convert_format(bounding_boxes, fmt, "rel_xyxy", height, width, dtype)
    shear = tf.cast(transformation["shear_factor"], dtype)
    shear_x, shear_y = shear[:, 0:1], shear[:, 1:2]
    x1, y1, x2, y2 = (tf.squeeze(v, -1) for v in _split(bounding_boxes["boxes"]))
    x1 = tf.where(shear_x < 0, x1 - shear_x * y1, x1 - shear_x * y2)
    x2 = tf.where(shear_x < 0, x2 - shear_x * y2, x2 - shear_x * y1)
    y1 = tf.where(shear_y > 0, y1 - shear_y * x2, y1 - shear_y * x1)
    y2 = tf.where(shear_y > 0, y2 - shear_y * x1, y2 - shear_y * x2)
    boxes = tf.stack([x1, y1, x2, y2], axis=-1)
    bounding_boxes = clip_to_image_size(
        {**bounding_boxes, "boxes": boxes}, height, width, "rel_xyxy"
    )
    return convert_format(bounding_boxes, "rel_xyxy", fmt, height, width, dtype)


def rotation_boxes(layer, bounding_boxes, transformation):
    """RandomRotation: Keras takes the boxes as ``xyxy`` whatever the layer's format,
    rotates their corners about the image centre, clips, and converts to the format."""
    from ferroflow.keras.utils.bounding_boxes.box_transforms import affine_transform

    height, width = _input_size(layer, transformation)
    # Keras's matrix multiplies the sizes by float centres: a run-time size becomes float.
    height, width = (tf.cast(v, "float32") if tf.is_tensor(v) else v for v in (height, width))
    angle = transformation["angle"]
    zeros, ones = tf.zeros_like(angle), tf.ones_like(angle)
    boxes = affine_transform(
        bounding_boxes["boxes"], angle, zeros, zeros, ones, zeros, zeros, height, width
    )
    bounding_boxes = clip_to_image_size({**bounding_boxes, "boxes": boxes}, height, width)
    return convert_format(bounding_boxes, "xyxy", layer.bounding_box_format, height, width)


def _projected(x, y, inverse):
    """``(x, y)`` ``[batch, n, 1]`` mapped by the ``[batch, 3, 3]`` matrix ``inverse``."""
    points = tf.concat([x, y, tf.ones_like(x)], axis=-1)
    inverse, points = _promoted(inverse, points)
    mapped = tf.transpose(tf.matmul(inverse, tf.transpose(points, [0, 2, 1])), [0, 2, 1])
    return mapped[..., 0] / mapped[..., 2], mapped[..., 1] / mapped[..., 2]


def perspective_boxes(layer, bounding_boxes, transformation):
    """RandomPerspective: the bounding box of the four corners mapped by the inverse
    homography, for the images the warp applies to; Keras returns them ``xyxy``."""
    from ferroflow.keras.layers.image_preprocessing.geometric import homography

    height, width = _input_size(layer, transformation)
    fmt = layer.bounding_box_format
    bounding_boxes = convert_format(bounding_boxes, fmt, "xyxy", height, width)
    x0, y0, x1, y1 = _split(bounding_boxes["boxes"])
    rows = homography(
        transformation["start_points"], transformation["end_points"], in_float32=False
    )
    rows = tf.cast(rows, layer.compute_dtype)
    matrix = tf.reshape(tf.concat([rows, tf.ones_like(rows[:, :1])], axis=-1), [-1, 3, 3])
    inverse = tf.linalg.inv(matrix)
    corners = [_projected(x, y, inverse) for x, y in ((x0, y0), (x1, y1), (x0, y1), (x1, y0))]
    xs = tf.stack([c[0] for c in corners], axis=-1)
    ys = tf.stack([c[1] for c in corners], axis=-1)
    warped = tf.stack(
        [
            tf.reduce_min(xs, -1),
            tf.reduce_min(ys, -1),
            tf.reduce_max(xs, -1),
            tf.reduce_max(ys, -1),
        ],
        axis=-1,
    )
    apply = tf.reshape(transformation["apply_perspective"], [-1, 1, 1])
    boxes = tf.where(apply, *_promoted(warped, bounding_boxes["boxes"]))
    return clip_to_image_size({**bounding_boxes, "boxes": boxes}, height, width, "xyxy")


def mix_up_boxes(bounding_boxes, transformation):
    """MixUp: each image's boxes followed by its partner's; Keras joins the labels along
    the batch axis, so they come back ``[2 * batch, n]``."""
    if not tf.executing_eagerly():
        # Keras reads the permutation as a NumPy array, which a traced tensor is not.
        raise NotImplementedError(
            "Cannot convert a symbolic tf.Tensor (the MixUp permutation) to a numpy array: "
            "Keras's MixUp moves bounding boxes only eagerly."
        )
    order = transformation["permutation_order"]
    boxes, labels = bounding_boxes["boxes"], bounding_boxes["labels"]
    return {
        "boxes": tf.concat([boxes, tf.gather(boxes, order)], axis=1),
        "labels": tf.concat([labels, tf.gather(labels, order)], axis=0),
    }


def rand_augment_boxes(layer, bounding_boxes, transformation):
    """RandAugment: every augmentation's boxes are computed from the boxes so far, and kept
    where one of the ``num_ops`` picks chose that augmentation."""
    picks = transformation["layer_idxes"]
    bounding_boxes = dict(bounding_boxes)
    for index, (name, value) in enumerate(transformation["transforms"].items()):
        changed = getattr(layer, name).transform_bounding_boxes(dict(bounding_boxes), value)
        for i in range(layer.num_ops):
            for key in ("boxes", "labels"):
                pair = _promoted(changed[key], bounding_boxes[key])
                bounding_boxes[key] = tf.where(picks[i] == index, *pair)
    return bounding_boxes
