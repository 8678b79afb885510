"""Projective warps of image batches with TensorFlow's ``ImageProjectiveTransformV3``
semantics (what Keras's `affine_transform` runs on TensorFlow), composed from gathers.

A transform row ``[a0, a1, a2, b0, b1, b2, c0, c1]`` maps each *output* pixel ``(x, y)`` to
the input point ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)`` with
``k = c0 x + c1 y + 1``; points outside the image are folded back by ``fill_mode`` (or read
as ``fill_value`` for ``constant``), then sampled by ``nearest`` (round half away from zero)
or ``bilinear`` interpolation, in float32 as the kernel computes."""

import math

import ferroflow as tf

__all__ = ["FILL_MODES", "INTERPOLATIONS", "affine_matrix", "affine_transform"]

INTERPOLATIONS = ("nearest", "bilinear")
FILL_MODES = ("reflect", "wrap", "constant", "nearest")


def _reflect(coord, size):
    size2 = 2.0 * size
    # Below 0: fold by whole periods of 2*size, then mirror about -0.5.
    low = coord + size2 * tf.floor(-coord / size2)
    low = tf.where(low < -size, low + size2, -low - 1.0)
    # Above size-1: remove whole periods, then mirror about size-0.5.
    high = coord - size2 * tf.floor(coord / size2)
    high = tf.where(high >= size, size2 - high - 1.0, high)
    folded = tf.where(coord < 0, low, tf.where(coord > size - 1.0, high, coord))
    return tf.where(size <= 1.0, tf.zeros_like(coord), folded)


def _wrap(coord, size):
    period = size - 1.0
    low = coord + size * (tf.floor(-coord / period) + 1.0)
    high = coord - size * tf.floor(coord / period)
    folded = tf.where(coord < 0, low, tf.where(coord > size - 1.0, high, coord))
    return tf.where(size <= 1.0, tf.zeros_like(coord), folded)


def _map_coordinate(coord, size, fill_mode):
    if fill_mode == "constant":
        return coord
    if fill_mode == "reflect":
        coord = _reflect(coord, size)
    elif fill_mode == "wrap":
        coord = _wrap(coord, size)
    return tf.clip_by_value(coord, 0.0, size - 1.0)


def _round_half_away(x):
    return tf.sign(x) * tf.floor(tf.abs(x) + 0.5)


class _Reader:
    """Reads ``images[b, y, x, :]`` for float coordinate grids, ``fill_value`` outside."""

    def __init__(self, images, fill_value):
        shape = tf.shape(images)
        self.batch, self.height, self.width = shape[0], shape[1], shape[2]
        self.flat = tf.reshape(images, tf.stack([-1, shape[3]]))
        self.fill = tf.cast(fill_value, images.dtype)
        base = tf.range(self.batch) * (self.height * self.width)
        self.base = tf.reshape(base, [-1, 1, 1])

    def __call__(self, y, x):
        # Clipped first: a far-off float coordinate would overflow the integer cast.
        yi = tf.cast(tf.clip_by_value(y, -1.0, tf.cast(self.height, y.dtype)), "int32")
        xi = tf.cast(tf.clip_by_value(x, -1.0, tf.cast(self.width, x.dtype)), "int32")
        inside = (yi >= 0) & (yi < self.height) & (xi >= 0) & (xi < self.width)
        yi = tf.clip_by_value(yi, 0, self.height - 1)
        xi = tf.clip_by_value(xi, 0, self.width - 1)
        values = tf.gather(self.flat, self.base + yi * self.width + xi)
        return tf.where(inside[..., None], values, self.fill)


def affine_transform(
    images, transforms, interpolation="bilinear", fill_mode="constant", fill_value=0.0
):
    """Warps ``images`` ``[batch, height, width, channels]`` by ``transforms``
    ``[batch or 1, 8]`` (see the module docstring); the output has the input's shape."""
    if interpolation not in INTERPOLATIONS:
        raise ValueError(
            "Invalid value for argument `interpolation`. Expected of one "
            f"{INTERPOLATIONS}. Received: interpolation={interpolation}"
        )
    if fill_mode not in FILL_MODES:
        raise ValueError(
            f"Invalid value for argument `fill_mode`. Expected of one {FILL_MODES}. "
            f"Received: fill_mode={fill_mode}"
        )
    dtype = images.dtype
    read = _Reader(tf.cast(images, "float32"), fill_value)
    height = tf.cast(read.height, "float32")
    width = tf.cast(read.width, "float32")
    ys = tf.reshape(tf.range(height), [1, -1, 1])
    xs = tf.reshape(tf.range(width), [1, 1, -1])
    t = tf.reshape(tf.cast(transforms, "float32"), [-1, 8, 1, 1])
    a0, a1, a2, b0, b1, b2, c0, c1 = tf.unstack(t, axis=1)
    k = c0 * xs + c1 * ys + 1.0
    in_x = (a0 * xs + a1 * ys + a2) / k
    in_y = (b0 * xs + b1 * ys + b2) / k
    # A single transform applies to every image of the batch.
    grid = tf.stack([read.batch, read.height, read.width])
    in_x, in_y, k = (tf.broadcast_to(v, grid) for v in (in_x, in_y, k))
    x = _map_coordinate(in_x, width, fill_mode)
    y = _map_coordinate(in_y, height, fill_mode)
    if interpolation == "nearest":
        out = read(_round_half_away(y), _round_half_away(x))
    else:
        y0, x0 = tf.floor(y), tf.floor(x)
        y1, x1 = y0 + 1.0, x0 + 1.0
        wx0, wx1 = (x1 - x)[..., None], (x - x0)[..., None]
        top = wx0 * read(y0, x0) + wx1 * read(y0, x1)
        bottom = wx0 * read(y1, x0) + wx1 * read(y1, x1)
        out = (y1 - y)[..., None] * top + (y - y0)[..., None] * bottom
    out = tf.where((k == 0.0)[..., None], read.fill, out)
    return tf.cast(out, dtype)


def affine_matrix(
    angle,
    translate_x,
    translate_y,
    scale,
    shear_x,
    shear_y,
    height,
    width,
    center_x=0.5,
    center_y=0.5,
):
    """Keras's ``[batch, 8]`` transform rows for a rotation by ``angle`` degrees, a scale, a
    shear (degrees) and a translation (pixels) about the point ``(center_x, center_y)`` given
    as fractions of ``(width - 1, height - 1)``."""
    radians = math.pi / 180.0
    angle = angle * radians
    cx = center_x * (tf.cast(width, angle.dtype) - 1)
    cy = center_y * (tf.cast(height, angle.dtype) - 1)
    cos, sin = tf.cos(angle), tf.sin(angle)
    shear_x = tf.tan(shear_x * radians)
    shear_y = tf.tan(shear_y * radians)
    a0 = scale * (cos + shear_x * sin)
    a1 = scale * (-sin + shear_x * cos)
    a2 = translate_x + cx - cx * a0 - cy * a1
    b0 = scale * (shear_y * cos + sin)
    b1 = scale * (shear_y * -sin + cos)
    b2 = translate_y + cy - cx * b0 - cy * b1
    zeros = tf.zeros_like(a0)
    return tf.stack([a0, a1, a2, b0, b1, b2, zeros, zeros], axis=1)
