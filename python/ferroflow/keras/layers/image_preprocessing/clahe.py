"""`tf.keras.layers.ContrastLimitedAdaptiveHistogramEqualization`: per-tile histogram
equalisation with clipped histograms, bilinearly blended between tile centres, computed as
Keras 3 computes it (symmetric padding to whole tiles, edge tiles repeated)."""

import ferroflow as tf
from ferroflow.keras.layers.image_preprocessing.base import BaseImagePreprocessingLayer

__all__ = ["ContrastLimitedAdaptiveHistogramEqualization"]


def _tile_mappings(tiles, tile_pixels, clip_limit):
    """Each tile's 256-entry lookup table, from its (clipped, redistributed) histogram."""
    levels = tf.clip_by_value(tf.cast(tiles, "int32"), 0, 255)
    hists = tf.reduce_sum(tf.one_hot(levels, 256), axis=-2)
    if clip_limit > 0:
        limit = tf.cast(clip_limit * tile_pixels / 256.0, hists.dtype)
        clipped = tf.clip_by_value(hists, 0, limit)
        excess = tf.reduce_sum(hists - clipped, axis=-1, keepdims=True)
        hists = clipped + excess / 256.0
    cdf = tf.cumsum(hists, axis=-1)
    cdf_min = tf.reduce_min(cdf, axis=-1, keepdims=True)
    denominator = tf.cast(tile_pixels, cdf.dtype) - cdf_min
    denominator = tf.where(denominator == 0, tf.ones_like(denominator), denominator)
    return tf.clip_by_value((cdf - cdf_min) * 255.0 / denominator, 0, 255)


def _clahe(images, grid, clip_limit):
    """CLAHE of channels-last ``[batch, height, width, channels]`` values in 0..255."""
    grid_h, grid_w = grid
    batch, height, width, channels = (
        d if d is not None else tf.shape(images)[i] for i, d in enumerate(images.shape)
    )
    tile_h = (height + grid_h - 1) // grid_h
    tile_w = (width + grid_w - 1) // grid_w
    pad_h, pad_w = tile_h * grid_h - height, tile_w * grid_w - width
    padded = images
    if not (isinstance(pad_h, int) and isinstance(pad_w, int) and pad_h == 0 and pad_w == 0):
        padded = tf.pad(images, [[0, 0], [0, pad_h], [0, pad_w], [0, 0]], mode="SYMMETRIC")
    tiled = tf.reshape(padded, [batch, grid_h, tile_h, grid_w, tile_w, channels])
    tiled = tf.reshape(
        tf.transpose(tiled, [0, 1, 3, 5, 2, 4]), [batch, grid_h, grid_w, channels, -1]
    )
    maps = _tile_mappings(tiled, tile_h * tile_w, clip_limit)
    # Edge tiles repeated once on every side, so each pixel has four neighbouring centres.
    maps = tf.concat([maps[:, :1], maps, maps[:, -1:]], axis=1)
    maps = tf.concat([maps[:, :, :1], maps, maps[:, :, -1:]], axis=2)

    def axis_grid(tiles, size, count):
        position = (tf.range(tiles * count, dtype="float32") - size / 2.0) / size + 1.0
        low = tf.floor(position)
        weight = position - low
        low_i = tf.cast(tf.clip_by_value(low, 0, count + 1), "int32")
        high_i = tf.cast(tf.clip_by_value(low + 1.0, 0, count + 1), "int32")
        return low_i, high_i, weight

    y0, y1, wy = axis_grid(tile_h, tile_h, grid_h)
    x0, x1, wx = axis_grid(tile_w, tile_w, grid_w)
    stride_x = 256 * channels
    stride_y = stride_x * (grid_w + 2)
    stride_b = stride_y * (grid_h + 2)
    flat = tf.reshape(maps, [-1])
    pixels = tf.cast(tf.clip_by_value(padded, 0, 255), "int32")
    base = (
        tf.reshape(tf.range(batch) * stride_b, [-1, 1, 1, 1])
        + tf.reshape(tf.range(channels) * 256, [1, 1, 1, -1])
        + pixels
    )
    y0, y1, wy = (tf.reshape(v, [1, -1, 1, 1]) for v in (y0, y1, wy))
    x0, x1, wx = (tf.reshape(v, [1, 1, -1, 1]) for v in (x0, x1, wx))

    def at(y, x):
        return tf.gather(flat, base + y * stride_y + x * stride_x)

    top = at(y0, x0) * (1.0 - wx) + at(y0, x1) * wx
    bottom = at(y1, x0) * (1.0 - wx) + at(y1, x1) * wx
    result = top * (1.0 - wy) + bottom * wy
    return result[:, :height, :width, :]


class ContrastLimitedAdaptiveHistogramEqualization(BaseImagePreprocessingLayer):
    """CLAHE over a ``tile_grid_size`` grid of tiles with histograms clipped at
    ``clip_limit`` times the mean bin count (0: no clipping); applied in every mode."""

    def __init__(
        self,
        value_range=(0, 255),
        clip_limit=4.0,
        tile_grid_size=(8, 8),
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.clip_limit = clip_limit
        self.tile_grid_size = tile_grid_size

    def transform_images(self, images, transformation=None, training=True):
        if self.data_format == "channels_first":
            images = tf.transpose(images, [0, 2, 3, 1])
        dtype = images.dtype
        images = self._transform_value_range(images, self.value_range, (0, 255), "float32")
        images = _clahe(images, self.tile_grid_size, self.clip_limit)
        images = self._transform_value_range(images, (0, 255), self.value_range, "float32")
        images = tf.cast(images, dtype)
        if self.data_format == "channels_first":
            images = tf.transpose(images, [0, 3, 1, 2])
        return images

    def get_config(self):
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "clip_limit": self.clip_limit,
            "tile_grid_size": self.tile_grid_size,
            "data_format": self.data_format,
        }
