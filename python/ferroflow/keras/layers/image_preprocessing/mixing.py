"""`tf.keras.layers.RandomErasing`, `MixUp` and `CutMix`: augmentations that replace part of
an image by noise or a constant, or mix images (and their labels) with other images of the
same batch, as Keras 3 defines them."""

import ferroflow as tf
from ferroflow.keras import random as keras_random
from ferroflow.keras.layers.image_preprocessing import box_transforms
from ferroflow.keras.layers.image_preprocessing.base import (
    BaseImagePreprocessingLayer,
    bounded_factor_pair,
    unchanged_boxes,
)

__all__ = ["CutMix", "MixUp", "RandomErasing"]


class _BoxLayer(BaseImagePreprocessingLayer):
    """Random axis-aligned boxes, one per image, as boolean masks over the image."""

    def _crop_bounds(self, batch, length, ratio, seed):
        dtype = self.compute_dtype
        crop = tf.cast(ratio * length, dtype)
        start = self._uniform([batch], 0, 1, dtype, seed=seed) * (length - crop)
        return start, start + crop

    def _box_masks(self, images, corners):
        dtype = self.compute_dtype
        height, width = self._height_width(images)
        ys = tf.range(tf.cast(height, dtype), dtype=dtype)
        xs = tf.range(tf.cast(width, dtype), dtype=dtype)
        if self.data_format == "channels_last":
            grid_y, grid_x = ys[None, :, None, None], xs[None, None, :, None]
        else:
            grid_y, grid_x = ys[None, None, :, None], xs[None, None, None, :]
        x0, x1, y0, y1 = (tf.reshape(c, [-1, 1, 1, 1]) for c in corners)
        masks = (grid_x >= x0) & (grid_x < x1) & (grid_y >= y0) & (grid_y < y1)
        channel_axis = 3 if self.data_format == "channels_last" else 1
        multiples = [1, 1, 1, 1]
        multiples[channel_axis] = tf.shape(images)[channel_axis]
        return tf.tile(masks, tf.stack(multiples))


def _permutation(layer, batch, seed=None):
    """A random order of ``range(batch)`` (Keras's ``random.shuffle`` of an int32 range)."""
    order = tf.range(batch, dtype="int32")
    return keras_random.shuffle(order, seed=layer._draw_seed(seed))


def _beta(layer, batch, alpha, dtype="float32", seed=None):
    """``Beta(alpha, alpha)`` draws (Keras's ``random.beta``), seeded by the layer's
    generator."""
    return keras_random.beta((batch,), alpha, alpha, dtype=dtype, seed=layer._draw_seed(seed))


class RandomErasing(_BoxLayer):
    """Replaces a random box (area fraction drawn from ``scale``) of each image by
    ``fill_value`` (or Gaussian noise) with probability drawn from ``factor``, while
    training."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(
        self,
        factor=1.0,
        scale=(0.02, 0.33),
        fill_value=None,
        value_range=(0, 255),
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.scale = bounded_factor_pair(self._FACTOR_BOUNDS, scale, "scale")
        self.fill_value = fill_value
        self.value_range = value_range
        self._seeded(seed)

    def _fill(self, images):
        dtype = self.compute_dtype
        fill = self.fill_value
        if fill is None:
            fill = keras_random.normal(tf.shape(images), dtype=dtype, seed=self.generator)
            fill = fill * self.value_range[1]
        else:
            message = "The `fill_value` argument should be a number (or a list of three numbers) "
            if isinstance(fill, (tuple, list)):
                if len(fill) != 3:
                    raise ValueError(message)
                fill = tf.zeros_like(images, dtype=dtype) + tf.constant(fill, dtype)
            elif isinstance(fill, (int, float)):
                fill = tf.ones(tf.shape(images), dtype) * fill
            else:
                raise ValueError(message)
        return tf.clip_by_value(fill, self.value_range[0], self.value_range[1])

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        images = self._images_of(data)
        if images.shape.rank not in (3, 4):
            raise ValueError(
                "Expected the input image to be rank 3 or 4. Received "
                f"inputs.shape={tuple(images.shape.as_list())}"
            )
        batch = self._batch_size(images)
        height, width = self._height_width(images)
        dtype = self.compute_dtype
        weight = tf.sqrt(self._uniform([batch, 2], self.scale[0], self.scale[1], dtype, seed))
        x0, x1 = self._crop_bounds(batch, tf.cast(width, dtype), weight[:, 0], seed)
        y0, y1 = self._crop_bounds(batch, tf.cast(height, dtype), weight[:, 1], seed)
        probability = self._uniform([batch], self.factor[0], self.factor[1], seed=seed)
        threshold = self._uniform([batch], 0.0, 1.0, seed=seed)
        batched = images if images.shape.rank == 4 else tf.expand_dims(images, 0)
        return {
            "apply_erasing": threshold < probability,
            "batch_masks": self._box_masks(batched, (x0, x1, y0, y1)),
            "fill_value": self._fill(images),
        }

    def transform_images(self, images, transformation=None, training=True):
        images = tf.cast(images, self.compute_dtype)
        if not training:
            return images
        fill = tf.reshape(transformation["fill_value"], tf.shape(images))
        erased = tf.where(transformation["batch_masks"], fill, images)
        apply = tf.reshape(transformation["apply_erasing"], [-1, 1, 1, 1])
        return tf.where(apply, erased, images)

    def transform_segmentation_masks(self, segmentation_masks, transformation, training=True):
        return segmentation_masks

    transform_bounding_boxes = unchanged_boxes

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "scale": self.scale,
            "fill_value": self.fill_value,
            "value_range": self.value_range,
            "seed": self.seed,
        }


class MixUp(BaseImagePreprocessingLayer):
    """Mixes each image (and label) with another of the batch, by a ``Beta(alpha, alpha)``
    weight, while training."""

    _USE_BASE_FACTOR = True

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.alpha = alpha
        self._seeded(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        batch = self._batch_size(self._images_of(data))
        order = tf.cast(_permutation(self, batch, seed), "int64")
        return {"mix_weight": _beta(self, batch, self.alpha, seed=seed), "permutation_order": order}

    def transform_images(self, images, transformation=None, training=True):
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        weight = tf.cast(tf.reshape(transformation["mix_weight"], [-1, 1, 1, 1]), images.dtype)
        others = tf.gather(images, transformation["permutation_order"])
        return weight * images + (1.0 - weight) * others

    def transform_labels(self, labels, transformation, training=True):
        if not training:
            return labels
        weight = tf.reshape(transformation["mix_weight"], [-1, 1])
        others = tf.gather(labels, transformation["permutation_order"])
        return weight * labels + (1.0 - weight) * others

    def transform_segmentation_masks(self, segmentation_masks, transformation, training=True):
        if not training:
            return segmentation_masks
        weight = tf.reshape(transformation["mix_weight"], [-1, 1, 1, 1])
        others = tf.gather(segmentation_masks, transformation["permutation_order"])
        return weight * segmentation_masks + (1.0 - weight) * others

    def transform_bounding_boxes(self, bounding_boxes, transformation, training=True):
        if not training:
            return bounding_boxes
        return box_transforms.mix_up_boxes(bounding_boxes, transformation)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha, "seed": self.seed}


class CutMix(_BoxLayer):
    """Pastes a random box of another image of the batch into each image, mixing the labels
    by the pasted area, while training (unbatched images pass through)."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self._seeded(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        images = self._images_of(data)
        if images.shape.rank == 3:
            return None
        batch = self._batch_size(images)
        height, width = self._height_width(images)
        dtype = self.compute_dtype
        alpha = self._uniform([], self.factor[0], self.factor[1], dtype, seed=seed) + 1e-6
        ratio = tf.sqrt(1.0 - _beta(self, batch, alpha, dtype, seed))
        width_f, height_f = tf.cast(width, dtype), tf.cast(height, dtype)
        x0, x1 = self._crop_bounds(batch, width_f, ratio, seed)
        y0, y1 = self._crop_bounds(batch, height_f, ratio, seed)
        masks = self._box_masks(images, (x0, x1, y0, y1))
        mix_weight = 1.0 - (x1 - x0) * (y1 - y0) / (width_f * height_f)
        return {
            "permutation_order": _permutation(self, batch, seed),
            "batch_masks": masks,
            "mix_weight": tf.reshape(mix_weight, [-1, 1, 1, 1]),
        }

    def transform_images(self, images, transformation=None, training=True):
        images = tf.cast(images, self.compute_dtype)
        if training and transformation is not None:
            others = tf.gather(images, transformation["permutation_order"])
            images = tf.where(transformation["batch_masks"], others, images)
        return images

    def transform_labels(self, labels, transformation, training=True):
        if training and transformation is not None:
            weight = tf.reshape(transformation["mix_weight"], [-1, 1])
            others = tf.gather(labels, transformation["permutation_order"])
            labels = weight * labels + (1.0 - weight) * others
        return labels

    def transform_segmentation_masks(self, segmentation_masks, transformation, training=True):
        return self.transform_images(segmentation_masks, transformation, training)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "seed": self.seed}
