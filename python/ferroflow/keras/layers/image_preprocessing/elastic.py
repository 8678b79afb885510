"""`tf.keras.layers.RandomElasticTransform`: images resampled at pixel positions displaced by
smoothed Gaussian noise, as Keras 3's `image.elastic_transform` does on TensorFlow (one
noise field for both axes, a Gaussian blur of size ``6 * int(sigma) | 1``, then
`map_coordinates` with its own fill modes)."""

import ferroflow as tf
from ferroflow.keras._seed_generator import draw_seed
from ferroflow.keras.layers.image_preprocessing.base import (
    BaseImagePreprocessingLayer,
    bounded_factor_pair,
)

__all__ = ["RandomElasticTransform"]


def _fold(index, size, fill_mode):
    """``map_coordinates``'s integer index ``index`` on an axis of ``size``, and whether it
    is inside (only ``constant`` reads outside values)."""
    inside = tf.ones_like(index, dtype="bool")
    if fill_mode == "constant":
        inside = (index >= 0) & (index < size)
        return tf.clip_by_value(index, 0, size - 1), inside
    if fill_mode == "nearest":
        return tf.clip_by_value(index, 0, size - 1), inside
    if fill_mode == "wrap":
        return tf.math.floormod(index, size), inside
    # reflect: |i| folded with period 2 * size, the upper half mirrored back (minus one).
    index = tf.abs(index)
    mod = tf.math.floormod(index, 2 * size)
    under = mod < size
    return tf.where(under, mod, 2 * size - mod - 1), inside


def _sample(images, ys, xs, interpolation, fill_mode, fill_value):
    """``images[b, ys[b], xs[b], :]`` (channels last) by nearest or linear interpolation."""
    shape = tf.shape(images)
    height, width = shape[1], shape[2]
    flat = tf.reshape(images, tf.stack([-1, shape[3]]))
    base = tf.reshape(tf.range(shape[0]) * height * width, [-1, 1, 1])

    def nodes(coordinate):
        if interpolation == "nearest":
            return [(tf.cast(tf.round(coordinate), "int32"), tf.ones_like(coordinate))]
        low = tf.floor(coordinate)
        upper = coordinate - low
        index = tf.cast(low, "int32")
        return [(index, 1 - upper), (index + 1, upper)]

    fill = tf.cast(fill_value, "float32")
    result = None
    for y, wy in nodes(ys):
        y, inside_y = _fold(y, height, fill_mode)
        for x, wx in nodes(xs):
            x, inside_x = _fold(x, width, fill_mode)
            values = tf.cast(tf.gather(flat, base + y * width + x), "float32")
            if fill_mode == "constant":
                values = tf.where((inside_y & inside_x)[..., None], values, fill)
            term = (wy * wx)[..., None] * values
            result = term if result is None else result + term
    if images.dtype.is_integer:
        result = tf.round(result)
    return tf.cast(result, images.dtype)


def _blur(field, sigma, size):
    """Keras's Gaussian blur of a ``[batch, height, width, 1]`` field with a square kernel
    of (dynamic) ``size`` and standard deviation ``sigma``."""
    x = tf.range(tf.cast(size, field.dtype), dtype=field.dtype) - tf.cast(size - 1, field.dtype) / 2
    kernel = tf.exp(-0.5 * (x / sigma) ** 2)
    kernel = kernel / tf.reduce_sum(kernel)
    kernel = tf.reshape(tf.tensordot(kernel, kernel, axes=0), tf.stack([size, size, 1, 1]))
    return tf.nn.depthwise_conv2d(field, kernel, [1, 1, 1, 1], "SAME")


def elastic_transform(images, alpha, sigma, interpolation, fill_mode, fill_value, seed):
    """Keras's `elastic_transform` of channels-last ``[batch, height, width, channels]``."""
    if fill_mode not in ("constant", "nearest", "wrap", "reflect"):
        raise ValueError(
            "Invalid value for argument `fill_mode`. Expected of one "
            f"('constant', 'nearest', 'wrap', 'reflect'). Received: fill_mode={fill_mode}"
        )
    if isinstance(seed, int):  # Keras's `draw_seed` of an integer
        seed = tf.constant([seed, 0], "int64")
    dtype = images.dtype
    alpha = tf.cast(alpha, dtype)
    sigma = tf.cast(sigma, dtype)
    size = tf.bitwise.bitwise_or(6 * tf.cast(sigma, "int32"), 1)
    shape = tf.shape(images)
    # Keras draws both displacement fields from the same seed: they are equal.
    noise = tf.random.stateless_normal(shape[:3], seed=seed, dtype=dtype) * sigma
    field = tf.squeeze(_blur(noise[..., None], sigma, size), -1)
    xs = tf.reshape(tf.range(tf.cast(shape[2], dtype), dtype=dtype), [1, 1, -1])
    ys = tf.reshape(tf.range(tf.cast(shape[1], dtype), dtype=dtype), [1, -1, 1])
    return _sample(
        images, ys + alpha * field, xs + alpha * field, interpolation, fill_mode, fill_value
    )


class RandomElasticTransform(BaseImagePreprocessingLayer):
    """Displaces the pixels of a random subset of the images (probability from ``factor``)
    along a smoothed random field whose strength is drawn from ``scale``, while training."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)
    _SUPPORTED_INTERPOLATION = ("nearest", "bilinear")
    _SUPPORTED_FILL_MODES = {"constant", "nearest", "wrap", "mirror", "reflect"}

    def __init__(
        self,
        factor=1.0,
        scale=1.0,
        interpolation="bilinear",
        fill_mode="reflect",
        fill_value=0.0,
        value_range=(0, 255),
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.scale = bounded_factor_pair(self._FACTOR_BOUNDS, scale, "scale")
        self.interpolation = interpolation
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.value_range = value_range
        self._seeded(seed)
        if interpolation not in self._SUPPORTED_INTERPOLATION:
            raise NotImplementedError(
                f"Unknown `interpolation` {interpolation}. Expected of one "
                f"{self._SUPPORTED_INTERPOLATION}."
            )
        if fill_mode not in self._SUPPORTED_FILL_MODES:
            raise NotImplementedError(
                f"Unknown `fill_mode` {fill_mode}. Expected of one {self._SUPPORTED_FILL_MODES}."
            )

    def get_random_transformation(self, data, training=True, seed=None):
        if not training or self.scale[1] == 0 or self.factor[1] == 0:
            return None
        batch = self._batch_size(self._images_of(data))
        probability = self._uniform([batch], self.factor[0], self.factor[1], seed=seed)
        threshold = self._uniform([batch], 0.0, 1.0, seed=seed)
        distortion = self._uniform([], self.scale[0], self.scale[1], self.compute_dtype, seed)
        return {
            "apply_transform": threshold < probability,
            "distortion_factor": distortion,
            # The stateless seed of the noise draw, as Keras's `random.normal(seed=...)`.
            "seed": draw_seed(self._draw_seed(seed)),
        }

    def _transform_images(self, images, transformation, interpolation):
        if transformation is None:
            return images
        height = images.shape[self._height_axis]
        width = images.shape[self._width_axis]
        factor = transformation["distortion_factor"]
        alpha = max(height, width) * (0.1 * factor)
        sigma = min(height, width) * (0.05 * factor)
        channels_first = self.data_format == "channels_first"
        warped = tf.transpose(images, [0, 2, 3, 1]) if channels_first else images
        warped = elastic_transform(
            warped, alpha, sigma, interpolation, self.fill_mode, self.fill_value,
            transformation["seed"],
        )  # fmt: skip
        if channels_first:
            warped = tf.transpose(warped, [0, 3, 1, 2])
        apply = tf.reshape(transformation["apply_transform"], [-1, 1, 1, 1])
        images = tf.where(apply, warped, images)
        images = tf.clip_by_value(images, self.value_range[0], self.value_range[1])
        return tf.cast(images, self.compute_dtype)

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "scale": self.scale,
            "interpolation": self.interpolation,
            "fill_mode": self.fill_mode,
            "fill_value": self.fill_value,
            "value_range": self.value_range,
            "seed": self.seed,
        }
