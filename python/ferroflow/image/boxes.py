"""Box operations: `crop_and_resize` (TensorFlow's CropAndResize, bilinear or nearest, with
its extrapolation outside the image) and `draw_bounding_boxes` (DrawBoundingBoxes[V2])."""

import ferroflow as tf

from ._checks import dtype_refusal

_CROPPABLE = ("uint8", "uint16", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
_DEFAULT_COLORS = [
    [1, 1, 0, 1],
    [0, 0, 1, 1],
    [1, 0, 0, 1],
    [0, 1, 0, 1],
    [0.5, 0, 0.5, 1],
    [0.5, 0.5, 0, 1],
    [0.5, 0, 0, 1],
    [0, 0, 0.5, 1],
    [0, 1, 1, 1],
    [1, 0, 1, 1],
]


def _invalid(message):
    return tf.errors.InvalidArgumentError(None, None, message)


def _sample_points(lo, hi, size, crop):
    """Sampling positions [boxes, crop] along one axis and whether each lies in the image."""
    extent = tf.cast(size - 1, tf.float32)
    if crop > 1:
        step = (hi - lo) * extent / float(crop - 1)
        pos = lo[:, None] * extent + tf.range(crop, dtype=tf.float32)[None, :] * step[:, None]
    else:
        # TensorFlow computes the centre in double precision.
        mid = (
            0.5 * (tf.cast(lo, tf.float64) + tf.cast(hi, tf.float64)) * tf.cast(extent, tf.float64)
        )
        pos = tf.cast(mid, tf.float32)[:, None]
    return pos, (pos >= 0.0) & (pos <= extent)


def _round_half_up(x):
    """C's roundf for x >= 0 (halves away from zero), exactly."""
    base = tf.floor(x)
    return tf.cast(base, tf.int32) + tf.cast(x - base >= 0.5, tf.int32)


def _clip_index(index, size):
    return tf.clip_by_value(index, 0, size - 1)


def _check_crop_inputs(image, boxes, box_indices, crop_size, method):
    if image.dtype.name not in _CROPPABLE:
        allowed = "uint8, uint16, int8, int16, int32, int64, half, float, double"
        raise dtype_refusal("image", image.dtype, allowed, "CropAndResize")
    if image.shape.rank != 4:
        raise _invalid(f"input image must be 4-D{image.shape}")
    if boxes.shape.rank != 2 or (boxes.shape[1] is not None and boxes.shape[1] != 4):
        raise _invalid(f"boxes must be 2-D[num_boxes, 4]{boxes.shape}")
    if box_indices.shape.rank != 1 or box_indices.shape[0] != boxes.shape[0]:
        raise _invalid(f"box_index has incompatible shape{box_indices.shape}")
    if crop_size.shape.as_list() != [2]:
        raise _invalid("crop_size must be 1-D with two elements")
    if method not in ("bilinear", "nearest"):
        raise _invalid(f"method must be 'bilinear' or 'nearest'{method}")
    if image.shape[1] == 0 or image.shape[2] == 0:
        raise _invalid("image dimensions must be positive")


def crop_and_resize(
    image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0, name=None
):
    """Crops each box ([y1, x1, y2, x2], normalised) of image `box_indices[i]` and resizes it
    to `crop_size`, sampling corners to corners; samples outside the image take
    `extrapolation_value`. The result is float32 [num_boxes, height, width, depth]."""
    image = tf.convert_to_tensor(image, name="image")
    boxes = tf.convert_to_tensor(boxes, dtype=tf.float32, name="boxes")
    box_indices = tf.convert_to_tensor(box_indices, dtype=tf.int32, name="box_indices")
    crop_size = tf.convert_to_tensor(crop_size, dtype=tf.int32, name="crop_size")
    _check_crop_inputs(image, boxes, box_indices, crop_size, method)
    crop_h, crop_w = (int(v) for v in tf.get_static_value(crop_size))
    if crop_h <= 0 or crop_w <= 0:
        raise _invalid("crop dimensions must be positive")
    batch, height, width, _ = image.shape.as_list()
    if tf.executing_eagerly() and boxes.shape[0]:
        idx = box_indices.numpy()
        if idx.min() < 0 or idx.max() >= batch:
            raise tf.errors.OutOfRangeError(
                None, None, "box_index has values outside [0, batch_size)"
            )
    crops = _sample(tf.cast(image, tf.float32), boxes, box_indices, crop_h, crop_w, method)
    if method == "nearest":
        crops = _with_bilinear_box_gradient(image, boxes, box_indices, crop_h, crop_w, crops)
    inside = _inside(boxes, height, width, crop_h, crop_w)
    fill = tf.cast(extrapolation_value, tf.float32)
    return tf.where(inside, crops, tf.broadcast_to(fill, tf.shape(crops)), name=name)


def _inside(boxes, height, width, crop_h, crop_w):
    y1, x1, y2, x2 = tf.unstack(boxes, 4, axis=1)
    _, valid_y = _sample_points(y1, y2, height, crop_h)
    _, valid_x = _sample_points(x1, x2, width, crop_w)
    return (valid_y[:, :, None] & valid_x[:, None, :])[..., None]


def _sample(image, boxes, box_indices, crop_h, crop_w, method):
    """The crops before extrapolation: samples outside the image read a clamped pixel."""
    _, height, width, _ = image.shape.as_list()
    y1, x1, y2, x2 = tf.unstack(boxes, 4, axis=1)
    ys, _ = _sample_points(y1, y2, height, crop_h)
    xs, _ = _sample_points(x1, x2, width, crop_w)
    # gather_nd: its gradient is a dense tensor, as CropAndResize's.
    crops = tf.gather_nd(image, box_indices[:, None])

    def pick(rows, cols):
        picked = tf.gather(crops, _clip_index(rows, height), axis=1, batch_dims=1)
        return tf.gather(picked, _clip_index(cols, width), axis=2, batch_dims=1)

    if method == "nearest":
        return pick(_round_half_up(ys), _round_half_up(xs))
    top, left = tf.floor(ys), tf.floor(xs)
    ly, lx = (ys - top)[:, :, None, None], (xs - left)[:, None, :, None]
    top, left = tf.cast(top, tf.int32), tf.cast(left, tf.int32)
    bottom, right = tf.cast(tf.math.ceil(ys), tf.int32), tf.cast(tf.math.ceil(xs), tf.int32)
    tl, tr = pick(top, left), pick(top, right)
    bl, br = pick(bottom, left), pick(bottom, right)
    upper = tl + (tr - tl) * lx
    lower = bl + (br - bl) * lx
    return upper + (lower - upper) * ly


def _with_bilinear_box_gradient(image, boxes, box_indices, crop_h, crop_w, crops):
    """TensorFlow's CropAndResizeGradBoxes is the bilinear one whatever the method: the nearest
    crops keep their value, their boxes gradient is that of the bilinear sampling."""
    flt = tf.cast(image, tf.float32)

    @tf.custom_gradient
    def nearest(flt, boxes):
        def grad(upstream):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([flt, boxes])
                near = _sample(flt, boxes, box_indices, crop_h, crop_w, "nearest")
                bilinear = _sample(flt, boxes, box_indices, crop_h, crop_w, "bilinear")
            return (
                tape.gradient(near, flt, output_gradients=upstream),
                tape.gradient(bilinear, boxes, output_gradients=upstream),
            )

        return tf.identity(crops), grad

    return nearest(flt, boxes)


def _box_lines(boxes, height, width):
    """[batch, boxes, height, width]: the pixels of each box's outline, as DrawBoundingBoxes
    draws it (corners truncated toward zero; inverted or fully outside boxes not drawn)."""

    def edge(v, size):
        return tf.cast(v * float(size - 1), tf.int64)

    min_row, max_row = edge(boxes[..., 0], height), edge(boxes[..., 2], height)
    min_col, max_col = edge(boxes[..., 1], width), edge(boxes[..., 3], width)
    drawn = (min_row <= max_row) & (min_col <= max_col)
    drawn &= (min_row < height) & (max_row >= 0) & (min_col < width) & (max_col >= 0)
    rows = tf.range(height, dtype=tf.int64)[None, None, :, None]
    cols = tf.range(width, dtype=tf.int64)[None, None, None, :]

    def b(v):
        return v[:, :, None, None]

    in_cols = (cols >= b(tf.maximum(min_col, 0))) & (cols <= b(tf.minimum(max_col, width - 1)))
    in_rows = (rows >= b(tf.maximum(min_row, 0))) & (rows <= b(tf.minimum(max_row, height - 1)))
    lines = (tf.equal(rows, b(min_row)) | tf.equal(rows, b(max_row))) & in_cols
    lines |= (tf.equal(cols, b(min_col)) | tf.equal(cols, b(max_col))) & in_rows
    return lines & b(drawn)


def draw_bounding_boxes(images, boxes, colors, name=None):
    """Draws the outline of each box ([y1, x1, y2, x2], normalised) on its image, box k in
    colour k mod len(colors) (TensorFlow's ten-colour table by default); later boxes on top."""
    images = tf.convert_to_tensor(images, name="images")
    boxes = tf.convert_to_tensor(boxes, dtype=tf.float32, name="boxes")
    if images.dtype.name not in ("float16", "float32"):
        raise dtype_refusal("images", images.dtype, "half, float", "DrawBoundingBoxesV2")
    if images.shape.rank != 4:
        raise _invalid("The rank of the images should be 4")
    if boxes.shape.rank != 3:
        raise _invalid("The rank of the boxes tensor should be 3")
    if images.shape[0] != boxes.shape[0]:
        raise _invalid("The batch sizes should be the same")
    batch, height, width, depth = images.shape.as_list()
    if depth not in (1, 3, 4):
        raise _invalid("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    if boxes.shape[2] != 4:
        raise _invalid(
            f"The size of the third dimension of the box must be 4. Received: {boxes.shape[2]}"
        )
    table = None
    if colors is not None:
        table = tf.convert_to_tensor(colors, dtype=tf.float32)
        if table.shape.rank != 2:
            raise _invalid(f"colors must be a 2-D matrix{table.shape}")
        if table.shape[1] < depth:
            raise _invalid(
                f"colors must have equal or more channels than the image provided: {table.shape}"
            )
        table = table[:, :depth] if table.shape[0] else None
    if table is None:
        default = [[1.0, *c[1:]] for c in _DEFAULT_COLORS] if depth == 1 else _DEFAULT_COLORS
        table = tf.constant(default, tf.float32)[:, :depth]
    count = boxes.shape[1]
    if count == 0 or height == 0 or width == 0:
        return tf.identity(images, name=name)
    lines = _box_lines(boxes, height, width)
    painted = tf.reduce_any(lines, axis=1)
    # The last box drawn over a pixel gives its colour.
    last = count - 1 - tf.argmax(tf.cast(tf.reverse(lines, [1]), tf.int32), axis=1)
    colour = tf.gather(tf.cast(table, images.dtype), tf.math.floormod(last, table.shape[0]))
    return tf.where(painted[..., None], colour, images, name=name)
