"""`tf.keras.layers.RandomContrast`, `RandomBrightness`, `RandomGrayscale`, `RandomInvert`,
`Solarization` and `AutoContrast`: per-image colour changes of pixel values in a
``value_range``."""

import ferroflow as tf
from ferroflow.keras.layers.image_preprocessing.base import (
    BaseImagePreprocessingLayer,
    back_to_dtype,
    same_spec,
    unchanged_boxes,
)

__all__ = [
    "AutoContrast",
    "RandomBrightness",
    "RandomContrast",
    "RandomGrayscale",
    "RandomInvert",
    "Solarization",
]

_VALUE_RANGE_ERROR = "The `value_range` argument should be a list of two numbers. "


def sorted_value_range(value_range):
    """Keras's checked ``value_range``: a sorted list of two numbers."""
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(_VALUE_RANGE_ERROR + f"Received: value_range={value_range}")
    return sorted(value_range)


def _per_image_shape(layer, images):
    rank = images.shape.rank
    if rank not in (3, 4):
        raise ValueError(
            "Expected the input image to be rank 3 or 4. Received "
            f"inputs.shape={tuple(images.shape.as_list())}"
        )
    return [layer._batch_size(images), 1, 1, 1] if rank == 4 else [1, 1, 1]


class _ColorLayer(BaseImagePreprocessingLayer):
    """Colour layers leave labels, boxes and masks alone."""

    def transform_segmentation_masks(self, segmentation_masks, transformation, training=True):
        return segmentation_masks

    transform_bounding_boxes = unchanged_boxes


class RandomContrast(_ColorLayer):
    """Scales each image's deviation from its per-channel mean by a random factor in
    ``[1 - lower, 1 + upper]``, then clips to ``value_range``, while training."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(**kwargs)
        self._set_factor(factor)
        self.value_range = value_range
        self._seeded(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        shape = _per_image_shape(self, self._images_of(data))
        if not training:
            return {"contrast_factor": tf.zeros(shape)}
        factor = self._uniform(
            shape, 1.0 - self.factor[0], 1.0 + self.factor[1], self.compute_dtype, seed=seed
        )
        return {"contrast_factor": factor}

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        mean = tf.reduce_mean(images, axis=4 + self._height_axis, keepdims=True)
        mean = tf.reduce_mean(mean, axis=4 + self._width_axis, keepdims=True)
        outputs = (images - mean) * transformation["contrast_factor"] + mean
        return tf.clip_by_value(outputs, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "value_range": self.value_range,
            "seed": self.seed,
        }


class RandomBrightness(_ColorLayer):
    """Adds a random ``factor * (value_range width)`` to each image and clips to
    ``value_range``, while training."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(factor=factor, **kwargs)
        self._seeded(seed)
        self.value_range = sorted_value_range(value_range)

    def get_random_transformation(self, data, training=True, seed=None):
        shape = _per_image_shape(self, self._images_of(data))
        if not training:
            return {"rgb_delta": tf.zeros(shape)}
        delta = self._uniform(shape, self.factor[0], self.factor[1], seed=seed)
        return {"rgb_delta": delta * (self.value_range[1] - self.value_range[0])}

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        images = images + tf.cast(transformation["rgb_delta"], images.dtype)
        return tf.clip_by_value(images, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "value_range": self.value_range,
            "seed": self.seed,
        }


def rgb_to_grayscale(images, data_format):
    """Keras's luma of RGB images, kept as one channel in the input's dtype (`keras.ops`'s
    `image.rgb_to_grayscale`, imported late: `keras.ops` loads after the layers)."""
    from ferroflow.keras.ops.image import rgb_to_grayscale as luma

    return luma(images, data_format)


class RandomGrayscale(_ColorLayer):
    """Turns each image to grayscale (kept with its channel count) with probability
    ``factor`` while training."""

    _USE_BASE_FACTOR = False

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        if factor < 0 or factor > 1:
            raise ValueError(f"`factor` should be between 0 and 1. Received: factor={factor}")
        self.factor = factor
        self._seeded(seed)

    def get_random_transformation(self, images, training=True, seed=None):
        if isinstance(images, dict):
            # Keras's RandomGrayscale reads ``images.shape`` of whatever it is given, so a
            # dict input fails there.
            raise AttributeError("'dict' object has no attribute 'shape'")
        values = self._uniform([self._batch_size(images)], seed=seed)
        return tf.reshape(values < self.factor, [-1, 1, 1, 1])

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        if transformation is None:
            transformation = self.get_random_transformation(images)
        gray = rgb_to_grayscale(images, self.data_format)
        return tf.where(transformation, gray, images)

    def compute_output_spec(self, inputs, **kwargs):
        return same_spec(inputs)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


class RandomInvert(_ColorLayer):
    """Replaces an image by ``value_range[1] - image`` with a probability drawn from
    ``factor``, while training."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = value_range
        self._seeded(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        shape = _per_image_shape(self, self._images_of(data))[:1]
        probability = self._uniform(shape, self.factor[0], self.factor[1], seed=seed)
        threshold = self._uniform(shape, 0, 1, seed=seed)
        return {"apply_inversion": threshold < probability}

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        apply = tf.reshape(transformation["apply_inversion"], [-1, 1, 1, 1])
        return tf.where(apply, self.value_range[1] - images, images)

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "value_range": self.value_range,
            "seed": self.seed,
        }


class Solarization(_ColorLayer):
    """Adds a random ``addition`` (of ``addition_factor * 255``) and inverts the pixels above
    a random ``threshold`` (of ``threshold_factor * 255``), in a 0-255 view of
    ``value_range``, while training."""

    _USE_BASE_FACTOR = False
    _FACTOR_VALIDATION_ERROR = (
        "The `addition_factor` and `threshold_factor` arguments should be a number (or a list "
        "of two numbers) in the range [0, 1]. "
    )

    def __init__(
        self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255), seed=None, **kwargs
    ):
        super().__init__(**kwargs)
        self._seeded(seed)
        self.addition_factor = self._factor_pair(addition_factor, "addition_factor")
        self.threshold_factor = self._factor_pair(threshold_factor, "threshold_factor")
        self.value_range = sorted_value_range(value_range)

    def _factor_pair(self, factor, name):
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2:
                raise ValueError(self._FACTOR_VALIDATION_ERROR + f"Received: {name}={factor}")
            for number in factor:
                self._check_factor_range(number)
            return tuple(sorted(factor))
        if isinstance(factor, (int, float)) and not isinstance(factor, bool):
            self._check_factor_range(factor)
            return (0, factor)
        raise ValueError(self._FACTOR_VALIDATION_ERROR + f"Received: {name}={factor}")

    def _check_factor_range(self, number):
        if number > 1.0 or number < 0:
            raise ValueError(self._FACTOR_VALIDATION_ERROR + f"Received: input_number={number}")

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        shape = _per_image_shape(self, self._images_of(data))
        low, high = self.addition_factor
        additions = self._uniform(shape, low, high * 255, self.compute_dtype, seed=seed)
        low, high = self.threshold_factor
        thresholds = self._uniform(shape, low, high * 255, self.compute_dtype, seed=seed)
        return {"additions": additions, "thresholds": thresholds}

    def transform_images(self, images, transformation, training=True):
        images = tf.cast(images, self.compute_dtype)
        if not training or transformation is None:
            return images
        dtype = self.compute_dtype
        view = self._transform_value_range(images, self.value_range, (0, 255), dtype)
        results = tf.clip_by_value(view + transformation["additions"], 0, 255)
        results = tf.where(results < transformation["thresholds"], results, 255 - results)
        results = self._transform_value_range(results, (0, 255), self.value_range, dtype)
        return back_to_dtype(results, images.dtype)

    def get_config(self):
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "addition_factor": self.addition_factor,
            "threshold_factor": self.threshold_factor,
            "seed": self.seed,
        }


class AutoContrast(_ColorLayer):
    """Stretches each image's channels to the full ``value_range`` (from their own minimum
    and maximum); constant channels are left as they are."""

    _USE_BASE_FACTOR = False

    def __init__(self, value_range=(0, 255), **kwargs):
        super().__init__(**kwargs)
        self.value_range = sorted_value_range(value_range)

    def transform_images(self, images, transformation=None, training=True):
        original = images
        dtype = self.compute_dtype
        images = tf.cast(
            self._transform_value_range(images, self.value_range, (0, 255), dtype), dtype
        )
        low = tf.reduce_min(images, axis=[1, 2], keepdims=True)
        high = tf.reduce_max(images, axis=[1, 2], keepdims=True)
        scale = 255.0 / (high - low)
        results = tf.clip_by_value(images * scale + -low * scale, 0.0, 255.0)
        results = self._transform_value_range(results, (0, 255), self.value_range, dtype)
        results = tf.where(tf.math.is_nan(results), tf.cast(original, results.dtype), results)
        return back_to_dtype(results, images.dtype)

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range}
