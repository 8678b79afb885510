"""`tf.keras.layers.Equalization`, `RandomHue`, `RandomSaturation`, `RandomColorDegeneration`,
`RandomPosterization`, `RandomSharpness` and `RandomColorJitter`: histogram equalisation and
random HSV, grayscale-blend, bit-depth and sharpness changes, computed as Keras computes them
on TensorFlow (including its quirks, e.g. `RandomSaturation` works on the raw pixel values)."""

import ferroflow as tf
from ferroflow.keras import _backend_config as backend_config
from ferroflow.keras.layers.image_preprocessing.base import (
    BaseImagePreprocessingLayer,
    bounded_factor_pair,
    same_spec,
    unchanged_boxes,
)
from ferroflow.keras.layers.image_preprocessing.color import (
    RandomBrightness,
    RandomContrast,
    _ColorLayer,
    rgb_to_grayscale,
    sorted_value_range,
)

__all__ = [
    "Equalization",
    "RandomColorDegeneration",
    "RandomColorJitter",
    "RandomGaussianBlur",
    "RandomHue",
    "RandomPosterization",
    "RandomSaturation",
    "RandomSharpness",
]


def _batch_of(layer, images):
    rank = images.shape.rank
    if rank not in (3, 4):
        raise ValueError(
            "Expected the input image to be rank 3 or 4. Received: "
            f"inputs.shape={tuple(images.shape.as_list())}"
        )
    return layer._batch_size(images)


def _channels_last(layer, images, fn):
    """``fn`` applied to ``images`` seen as channels-last, returned in the layer's format."""
    if layer.data_format != "channels_first":
        return fn(images)
    return tf.transpose(fn(tf.transpose(images, [0, 2, 3, 1])), [0, 3, 1, 2])


class _RangedColorLayer(_ColorLayer):
    """A colour layer with a random per-image ``factor`` and a sorted ``value_range``."""

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = sorted_value_range(value_range)
        self._seeded(seed)

    def _draw_factor(self, data, seed, shape_tail=()):
        batch = _batch_of(self, self._images_of(data))
        return self._uniform([batch, *shape_tail], self.factor[0], self.factor[1], seed=seed)

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "value_range": self.value_range,
            "seed": self.seed,
        }


class RandomHue(_RangedColorLayer):
    """Rotates each image's hue by a random ``±factor / 2`` of a turn while training."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(factor, value_range, data_format, seed, **kwargs)
        self.value_range = value_range  # Keras keeps it as given here

    def get_random_transformation(self, data, training=True, seed=None):
        batch = _batch_of(self, self._images_of(data))
        invert = self._uniform([batch], seed=seed)
        sign = tf.where(invert > 0.5, -tf.ones_like(invert), tf.ones_like(invert))
        factor = self._uniform([batch], self.factor[0], self.factor[1], seed=seed)
        return {"factor": sign * factor * 0.5}

    def transform_images(self, images, transformation=None, training=True):
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        images = self._transform_value_range(images, self.value_range, (0, 1))
        shift = tf.reshape(tf.cast(transformation["factor"], images.dtype), [-1, 1, 1])

        def rotate(rgb):
            hsv = tf.image.rgb_to_hsv(rgb)
            hue = hsv[..., 0] + shift
            hue = tf.where(hue > 1.0, hue - 1.0, hue)
            hue = tf.where(hue < 0.0, hue + 1.0, hue)
            hsv = tf.stack([hue, hsv[..., 1], hsv[..., 2]], axis=-1)
            return tf.image.hsv_to_rgb(hsv)

        images = tf.clip_by_value(_channels_last(self, images, rotate), 0, 1)
        images = self._transform_value_range(images, (0, 1), self.value_range)
        return tf.cast(images, self.compute_dtype)


class RandomSaturation(_RangedColorLayer):
    """Scales each image's HSV saturation by ``f / (1 - f)`` for a random ``f`` in
    ``factor`` while training."""

    def get_random_transformation(self, data, training=True, seed=None):
        factor = self._draw_factor(data, seed)
        return {"factor": factor / (1 - factor + backend_config.epsilon())}

    def transform_images(self, images, transformation=None, training=True):
        if not training:
            return images
        if not images.dtype.is_floating:  # Keras's rgb_to_hsv check
            raise ValueError(
                "Invalid images dtype: expected float dtype. "
                f"Received: images.dtype={images.dtype.name}"
            )
        scale = tf.reshape(tf.cast(transformation["factor"], self.compute_dtype), [-1, 1, 1])

        def saturate(rgb):
            hsv = tf.image.rgb_to_hsv(rgb)
            saturation = tf.clip_by_value(hsv[..., 1] * scale, *self.value_range)
            return tf.image.hsv_to_rgb(tf.stack([hsv[..., 0], saturation, hsv[..., 2]], -1))

        return _channels_last(self, images, saturate)


class RandomColorDegeneration(_RangedColorLayer):
    """Blends each image towards its grayscale version by a random ``factor`` while
    training."""

    def get_random_transformation(self, data, training=True, seed=None):
        return {"factor": self._draw_factor(data, seed, (1, 1, 1))}

    def transform_images(self, images, transformation=None, training=True):
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        factor = tf.cast(transformation["factor"], self.compute_dtype)
        gray = rgb_to_grayscale(images, self.data_format)
        images = images + factor * (gray - images)
        return tf.clip_by_value(images, self.value_range[0], self.value_range[1])


class RandomPosterization(_RangedColorLayer):
    """Keeps a random number (in ``[1, factor]``) of the high bits of each 8-bit pixel while
    training."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (1, 8)
    _MAX_FACTOR = 8

    def get_random_transformation(self, data, training=True, seed=None):
        batch = _batch_of(self, self._images_of(data))
        low, high = self.factor
        if low != high:
            bits = self._uniform([batch], low, high, "int32", seed=seed)
        else:
            bits = tf.fill([batch], low)
        return {"shift_factor": tf.cast(self._MAX_FACTOR - bits, "uint8")}

    def transform_images(self, images, transformation=None, training=True):
        if not training:
            return images
        dtype = self.compute_dtype
        shift = tf.reshape(tf.cast(transformation["shift_factor"], dtype), [-1, 1, 1, 1])
        images = self._transform_value_range(images, self.value_range, (0, 255), dtype)
        pixels = tf.cast(tf.cast(images, "uint8"), dtype)
        # (p >> s) << s on 8-bit values, exactly, in floats.
        step = tf.pow(tf.constant(2.0, dtype), shift)
        images = tf.floor(pixels / step) * step
        return self._transform_value_range(images, (0, 255), self.value_range, dtype)


class RandomSharpness(_RangedColorLayer):
    """Blends each image with a 3x3 smoothed copy: ``2 * factor`` (random) below 1 blurs,
    above 1 sharpens, while training."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def get_random_transformation(self, data, training=True, seed=None):
        return {"factor": self._draw_factor(data, seed)}

    def transform_images(self, images, transformation=None, training=True):
        images = tf.cast(images, self.compute_dtype)
        if not training:
            return images
        dtype = self.compute_dtype
        sharpness = tf.reshape(tf.cast(transformation["factor"] * 2, dtype), [-1, 1, 1, 1])

        def sharpen(x):
            a, b = 1.0 / 13.0, 5.0 / 13.0
            kernel = tf.constant([[a, a, a], [a, b, a], [a, a, a]], dtype=dtype)
            channels = x.shape[-1] if x.shape[-1] is not None else tf.shape(x)[-1]
            kernel = tf.tile(tf.reshape(kernel, [3, 3, 1, 1]), [1, 1, channels, 1])
            smoothed = tf.nn.depthwise_conv2d(x, kernel, [1, 1, 1, 1], "SAME")
            x = x + (1.0 - sharpness) * (smoothed - x)
            return tf.clip_by_value(x, self.value_range[0], self.value_range[1])

        return _channels_last(self, images, sharpen)


class Equalization(_ColorLayer):
    """Histogram equalisation of each channel (over the whole batch, ``bins`` bins) while
    training; a channel whose values fall in one bin is left alone."""

    _USE_BASE_FACTOR = False

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.bins = bins
        self.value_range = sorted_value_range(value_range)

    @staticmethod
    def _rescale(values, source, target):
        scale = (target[1] - target[0]) / (source[1] - source[0])
        return values * scale + (target[0] - source[0] * scale)

    def _equalize(self, channel):
        channel = self._rescale(channel, self.value_range, (0, 255))
        bins = self.bins
        index = tf.cast((tf.cast(channel, "float32") - 0.0) * (bins - 1) / (255.0 - 0.0), "int32")
        index = tf.clip_by_value(tf.reshape(index, [-1]), 0, bins - 1)
        hist = tf.math.unsorted_segment_sum(tf.ones_like(index), index, bins)
        cdf = tf.cumsum(hist)
        cdf_min = tf.gather(cdf, tf.where(cdf > 0)[0, 0])
        denominator = cdf[-1] - cdf_min
        denominator = tf.where(denominator == 0, tf.ones_like(denominator), denominator)
        # Integer counts divided as TensorFlow divides them: in float64.
        lut = tf.cast((cdf - cdf_min) * 255, "float64") / tf.cast(denominator, "float64")
        lut = tf.clip_by_value(tf.round(lut), 0, 255)
        scaled = channel / 255.0 * (bins - 1)
        positions = tf.cast(tf.clip_by_value(scaled, 0, bins - 1), "int32")
        equalized = tf.cast(tf.gather(lut, positions), channel.dtype)
        nonzero = tf.math.count_nonzero(hist)
        equalized = tf.where(nonzero <= 1, channel, equalized)
        return self._rescale(equalized, (0, 255), self.value_range)

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        axis = -3 if self.data_format == "channels_first" else -1
        channels = tf.unstack(images, axis=axis)
        return tf.cast(tf.stack([self._equalize(c) for c in channels], axis=axis), images.dtype)

    def compute_output_spec(self, inputs, **kwargs):
        return same_spec(inputs)

    def get_config(self):
        return {**super().get_config(), "bins": self.bins, "value_range": self.value_range}


class RandomColorJitter(BaseImagePreprocessingLayer):
    """Random brightness, contrast, saturation and hue, in that order, each only when its
    factor is given, while training."""

    _USE_BASE_FACTOR = False

    def __init__(
        self,
        value_range=(0, 255),
        brightness_factor=None,
        contrast_factor=None,
        saturation_factor=None,
        hue_factor=None,
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.brightness_factor = brightness_factor
        self.contrast_factor = contrast_factor
        self.saturation_factor = saturation_factor
        self.hue_factor = hue_factor
        self._seeded(seed)
        # Sublayers as Keras's attributes (their generators are the layer's variables too);
        # their draws come from this layer's generator, as in Keras.
        parts = [
            ("random_brightness", brightness_factor, RandomBrightness),
            ("random_contrast", contrast_factor, RandomContrast),
            ("random_saturation", saturation_factor, RandomSaturation),
            ("random_hue", hue_factor, RandomHue),
        ]
        self._parts = []
        for name, factor, cls in parts:
            part = None
            if factor is not None:
                part = cls(factor=factor, value_range=value_range, seed=seed)
                self._parts.append(part)
            setattr(self, name, part)

    transform_bounding_boxes = unchanged_boxes

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        for part in self._parts:
            drawn = part.get_random_transformation(images, seed=self.generator)
            images = part.transform_images(images, drawn)
        return tf.cast(images, self.compute_dtype)

    def get_config(self):
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "brightness_factor": self.brightness_factor,
            "contrast_factor": self.contrast_factor,
            "saturation_factor": self.saturation_factor,
            "hue_factor": self.hue_factor,
            "seed": self.seed,
        }


def _gaussian_kernel(kernel_size, sigma, channels, dtype):
    """Keras's separable Gaussian kernel ``[k0, k1, channels, 1]`` (its reshape of the
    ``y x x`` outer product included)."""

    def one_d(size, s):
        x = tf.range(size, dtype=dtype) - (size - 1) / 2
        kernel = tf.exp(-0.5 * (x / s) ** 2)
        return kernel / tf.reduce_sum(kernel)

    kx = one_d(float(kernel_size[0]), sigma[0])
    ky = one_d(float(kernel_size[1]), sigma[1])
    kernel = tf.reshape(tf.tensordot(ky, kx, axes=0), [kernel_size[0], kernel_size[1], 1, 1])
    return tf.tile(kernel, [1, 1, channels, 1])


class RandomGaussianBlur(_ColorLayer):
    """Blurs each image with a Gaussian kernel (``kernel_size``, a random ``sigma`` shared by
    the batch) with probability drawn from ``factor``, while training."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(
        self,
        factor=1.0,
        kernel_size=3,
        sigma=1.0,
        value_range=(0, 255),
        data_format=None,
        seed=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.kernel_size = self._odd_pair(kernel_size, "kernel_size")
        self.sigma = bounded_factor_pair(self._FACTOR_BOUNDS, sigma, "sigma")
        self.value_range = value_range
        self._seeded(seed)

    @staticmethod
    def _odd_pair(size, name):
        message = f"{name} must be an odd number. Received: {name}={size}"
        if isinstance(size, (tuple, list)):
            if len(size) != 2:
                raise ValueError(
                    f"The `{name}` argument should be a number (or a list of two numbers) "
                    f"Received: {name}={size}"
                )
            if size[0] % 2 == 0 or size[1] % 2 == 0:
                raise ValueError(message)
            return tuple(size)
        if isinstance(size, (int, float)) and not isinstance(size, bool):
            if size % 2 == 0:
                raise ValueError(message)
            return (size, size)
        raise ValueError(message)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        batch = _batch_of(self, self._images_of(data))
        probability = self._uniform([batch], self.factor[0], self.factor[1], seed=seed)
        threshold = self._uniform([batch], 0.0, 1.0, seed=seed)
        sigma = self._uniform([2], self.sigma[0], self.sigma[1], self.compute_dtype, seed)
        return {"should_apply_blur": threshold < probability, "blur_factor": sigma + 1e-6}

    def transform_images(self, images, transformation=None, training=True):
        images = tf.cast(images, self.compute_dtype)
        if not training or transformation is None:
            return images
        sigma = tf.cast(transformation["blur_factor"], images.dtype)

        def blur(x):
            kernel = _gaussian_kernel(self.kernel_size, sigma, tf.shape(x)[-1], x.dtype)
            return tf.nn.depthwise_conv2d(x, kernel, [1, 1, 1, 1], "SAME")

        blurred = _channels_last(self, images, blur)
        apply = tf.reshape(transformation["should_apply_blur"], [-1, 1, 1, 1])
        images = tf.where(apply, blurred, images)
        return tf.clip_by_value(images, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "kernel_size": self.kernel_size,
            "sigma": self.sigma,
            "value_range": self.value_range,
            "seed": self.seed,
        }
