"""`tf.keras.layers.RandomFlip`, `RandomRotation`, `RandomZoom` and `RandomTranslation`:
random geometric augmentations of image batches (flips, or projective warps drawn per image
and applied as TensorFlow's ``ImageProjectiveTransformV3`` applies them)."""

import ferroflow as tf
from ferroflow.keras.layers.image_preprocessing import _affine, box_transforms
from ferroflow.keras.layers.image_preprocessing import bounding_boxes as boxes_lib
from ferroflow.keras.layers.image_preprocessing.base import BaseImagePreprocessingLayer

__all__ = [
    "RandomFlip",
    "RandomPerspective",
    "RandomRotation",
    "RandomShear",
    "RandomTranslation",
    "RandomZoom",
    "homography",
]

HORIZONTAL = "horizontal"
VERTICAL = "vertical"
HORIZONTAL_AND_VERTICAL = "horizontal_and_vertical"


class RandomFlip(BaseImagePreprocessingLayer):
    """Flips each image horizontally and/or vertically (``mode``) with probability 1/2 while
    training; the identity (cast to the layer's dtype) at inference."""

    _USE_BASE_FACTOR = False
    _convert_input_args = False

    def __init__(self, mode=HORIZONTAL_AND_VERTICAL, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._seeded(seed)
        self.mode = mode

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        images = self._images_of(data)
        shape = [self._batch_size(images), 1, 1, 1]
        flips = self._uniform(shape, seed=seed) <= 0.5
        return {"flips": flips, "input_shape": self._shape_of(images)}

    def transform_images(self, images, transformation, training=True):
        images = tf.cast(images, self.compute_dtype)
        if not training or transformation is None:
            return images
        flips = transformation["flips"]
        if self.mode in (HORIZONTAL, HORIZONTAL_AND_VERTICAL):
            images = tf.where(flips, tf.reverse(images, [4 + self._width_axis]), images)
        if self.mode in (VERTICAL, HORIZONTAL_AND_VERTICAL):
            images = tf.where(flips, tf.reverse(images, [4 + self._height_axis]), images)
        return images

    def transform_segmentation_masks(self, segmentation_masks, transformation, training=True):
        return self.transform_images(segmentation_masks, transformation, training=training)

    def transform_bounding_boxes(self, bounding_boxes, transformation, training=True):
        if not training or transformation is None:
            return bounding_boxes
        shape = transformation["input_shape"]
        height, width = shape[self._height_axis], shape[self._width_axis]
        fmt = self.bounding_box_format
        relative = boxes_lib.convert_format(bounding_boxes, fmt, "rel_xyxy", height, width)
        boxes = relative["boxes"]
        flips = tf.squeeze(transformation["flips"], -1)
        x1, y1, x2, y2 = tf.split(boxes, 4, axis=-1)
        if self.mode in (HORIZONTAL, HORIZONTAL_AND_VERTICAL):
            boxes = tf.where(flips, tf.concat([1 - x2, y1, 1 - x1, y2], -1), boxes)
            x1, y1, x2, y2 = tf.split(boxes, 4, axis=-1)
        if self.mode in (VERTICAL, HORIZONTAL_AND_VERTICAL):
            boxes = tf.where(flips, tf.concat([x1, 1 - y2, x2, 1 - y1], -1), boxes)
        # Keras clips the relative boxes against the pixel size (so only negatives move).
        clipped = boxes_lib.clip_to_image_size({**relative, "boxes": boxes}, height, width)
        return boxes_lib.convert_format(clipped, "rel_xyxy", fmt, height, width)

    def get_config(self):
        return {**super().get_config(), "seed": self.seed, "mode": self.mode}


def _check_modes(fill_mode, interpolation):
    if fill_mode not in _affine.FILL_MODES:
        raise NotImplementedError(
            f"Unknown `fill_mode` {fill_mode}. Expected of one {_affine.FILL_MODES}."
        )
    if interpolation not in _affine.INTERPOLATIONS:
        raise NotImplementedError(
            f"Unknown `interpolation` {interpolation}. Expected of one {_affine.INTERPOLATIONS}."
        )


class _AffineLayer(BaseImagePreprocessingLayer):
    """A random warp: subclasses turn their drawn parameters into ``[batch, 8]`` rows."""

    def _warp_settings(self, fill_mode, interpolation, fill_value, seed):
        _check_modes(fill_mode, interpolation)
        self.fill_mode = fill_mode
        self.interpolation = interpolation
        self.fill_value = fill_value
        self._seeded(seed)

    def _matrix(self, transformation, images):
        raise NotImplementedError()

    _move_boxes = None  # a `box_transforms` function: how the warp moves boxes

    def transform_bounding_boxes(self, bounding_boxes, transformation, training=True):
        if not training or transformation is None:
            return bounding_boxes
        return self._move_boxes(bounding_boxes, transformation)

    def _transform_images(self, images, transformation, interpolation):
        if transformation is None:
            return images
        matrix = self._matrix(transformation, images)
        channels_first = self.data_format == "channels_first"
        if channels_first:
            images = tf.transpose(images, [0, 2, 3, 1])
        out = _affine.affine_transform(
            images, matrix, interpolation, self.fill_mode, self.fill_value
        )
        return tf.transpose(out, [0, 3, 1, 2]) if channels_first else out

    def _warp_config(self):
        return {
            "fill_mode": self.fill_mode,
            "interpolation": self.interpolation,
            "seed": self.seed,
            "fill_value": self.fill_value,
        }


class RandomRotation(_AffineLayer):
    """Rotates each image by a random angle of ``factor`` (fractions of a full turn) about its
    centre while training."""

    def __init__(
        self,
        factor,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        data_format=None,
        **kwargs,
    ):
        super().__init__(factor=factor, data_format=data_format, **kwargs)
        self._warp_settings(fill_mode, interpolation, fill_value, seed)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        images = self._images_of(data)
        batch = self._batch_size(images)
        angle = self._uniform([batch], self.factor[0] * 360.0, self.factor[1] * 360.0, seed=seed)
        return {"angle": angle, "input_shape": self._shape_of(images)}

    _move_boxes = box_transforms.rotation_boxes

    def _matrix(self, transformation, images):
        angle = transformation["angle"]
        zeros, ones = tf.zeros_like(angle), tf.ones_like(angle)
        height, width = self._height_width(images)
        return _affine.affine_matrix(angle, zeros, zeros, ones, zeros, zeros, height, width)

    def get_config(self):
        warp = self._warp_config()
        # Keras's own key order for this layer.
        keys = ("fill_mode", "fill_value", "interpolation", "seed")
        return {**super().get_config(), "factor": self.factor, **{k: warp[k] for k in keys}}


class _FactorPairLayer(_AffineLayer):
    """Zoom and translation factors: a number ``f`` (``(-f, f)``) or a pair, each within
    ``_LIMITS``."""

    _USE_BASE_FACTOR = False
    _OPEN_LOWER = False

    def _factor_pair(self, factor, name):
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2:
                raise ValueError(self._FACTOR_VALIDATION_ERROR + f"Received: {name}={factor}")
            self._check_factor_range(factor[0])
            self._check_factor_range(factor[1])
            return tuple(sorted(factor))
        if isinstance(factor, (int, float)) and not isinstance(factor, bool):
            self._check_factor_range(factor)
            return (-abs(factor), abs(factor))
        raise ValueError(self._FACTOR_VALIDATION_ERROR + f"Received: {name}={factor}")

    def _check_factor_range(self, number):
        too_low = number <= -1.0 if self._OPEN_LOWER else number < -1.0
        if number > 1.0 or too_low:
            raise ValueError(self._FACTOR_VALIDATION_ERROR + f"Received: input_number={number}")

    def _set_height_width(self, height_factor, width_factor):
        """Keeps the factors as given (for the config) and their checked bounds; a
        ``width_factor`` of None (RandomZoom only) keeps the aspect ratio."""
        self.height_factor = height_factor
        self.height_lower, self.height_upper = self._factor_pair(height_factor, "height_factor")
        self.width_factor = width_factor
        if width_factor is not None:
            self.width_lower, self.width_upper = self._factor_pair(width_factor, "width_factor")

    def get_config(self):
        return {
            **super().get_config(),
            "height_factor": self.height_factor,
            "width_factor": self.width_factor,
            **self._warp_config(),
        }


class RandomZoom(_FactorPairLayer):
    """Zooms each image by random factors (``1 + factor``, per axis; ``width_factor=None``
    keeps the aspect ratio) about its centre while training."""

    _FACTOR_VALIDATION_ERROR = (
        "The `height_factor` and `width_factor` arguments should be a number (or a list of two "
        "numbers) in the range (-1.0, 1.0]. "
    )
    _OPEN_LOWER = True

    def __init__(
        self,
        height_factor,
        width_factor=None,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self._set_height_width(height_factor, width_factor)
        self._warp_settings(fill_mode, interpolation, fill_value, seed)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        images = self._images_of(data)
        shape = [self._batch_size(images), 1]
        height_zoom = self._uniform(
            shape, 1.0 + self.height_lower, 1.0 + self.height_upper, seed=seed
        )
        width_zoom = height_zoom
        if self.width_factor is not None:
            width_zoom = self._uniform(
                shape, 1.0 + self.width_lower, 1.0 + self.width_upper, seed=seed
            )
        return {
            "height_zoom": height_zoom,
            "width_zoom": width_zoom,
            "input_shape": self._shape_of(images),
        }

    _move_boxes = box_transforms.zoom_boxes

    def _matrix(self, transformation, images):
        height, width = self._height_width(images)
        zx = tf.cast(transformation["width_zoom"], "float32")
        zy = tf.cast(transformation["height_zoom"], "float32")
        x_offset = (tf.cast(width, "float32") - 1.0) / 2.0 * (1.0 - zx)
        y_offset = (tf.cast(height, "float32") - 1.0) / 2.0 * (1.0 - zy)
        zeros = tf.zeros_like(zx)
        return tf.concat([zx, zeros, x_offset, zeros, zy, y_offset, zeros, zeros], axis=1)


class RandomTranslation(_FactorPairLayer):
    """Shifts each image by random fractions of its height and width while training."""

    _FACTOR_VALIDATION_ERROR = (
        "The `factor` argument should be a number (or a list of two numbers) in the range "
        "[-1.0, 1.0]. "
    )

    def __init__(
        self,
        height_factor,
        width_factor,
        fill_mode="reflect",
        interpolation="bilinear",
        seed=None,
        fill_value=0.0,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self._set_height_width(height_factor, width_factor)
        self._warp_settings(fill_mode, interpolation, fill_value, seed)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        images = self._images_of(data)
        shape = [self._batch_size(images), 1]
        height, width = self._height_width(images)
        dy = self._uniform(shape, self.height_lower, self.height_upper, seed=seed)
        dx = self._uniform(shape, self.width_lower, self.width_upper, seed=seed)
        dy = dy * tf.cast(height, dy.dtype)
        dx = dx * tf.cast(width, dx.dtype)
        translations = tf.cast(tf.concat([dx, dy], axis=1), "float32")
        return {"translations": translations, "input_shape": self._shape_of(images)}

    _move_boxes = box_transforms.translation_boxes

    def _matrix(self, transformation, images):
        t = transformation["translations"]
        ones, zeros = tf.ones_like(t[:, :1]), tf.zeros_like(t[:, :1])
        return tf.concat([ones, zeros, -t[:, :1], zeros, ones, -t[:, 1:], zeros, zeros], axis=1)


class RandomShear(_FactorPairLayer):
    """Shears each image along x and y by random factors (with a random sign) while
    training."""

    _USE_BASE_FACTOR = False
    _FACTOR_VALIDATION_ERROR = (
        "The `factor` argument should be a number (or a list of two numbers) in the range "
        "[0, 1.0]. "
    )

    def __init__(
        self,
        x_factor=0.0,
        y_factor=0.0,
        interpolation="bilinear",
        fill_mode="reflect",
        fill_value=0.0,
        data_format=None,
        seed=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.x_factor = self._factor_pair(x_factor, "x_factor")
        self.y_factor = self._factor_pair(y_factor, "y_factor")
        self._warp_settings(fill_mode, interpolation, fill_value, seed)

    def _check_factor_range(self, number):
        if number > 1.0 or number < 0.0:
            raise ValueError(self._FACTOR_VALIDATION_ERROR + f"Received: input_number={number}")

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        images = self._images_of(data)
        shape = [self._batch_size(images), 1]
        dtype = self.compute_dtype
        invert = self._uniform(shape, 0, 1, dtype, seed=seed)
        sign = tf.where(invert > 0.5, -tf.ones_like(invert), tf.ones_like(invert))
        shear_y = self._uniform(shape, self.y_factor[0], self.y_factor[1], dtype, seed=seed)
        shear_x = self._uniform(shape, self.x_factor[0], self.x_factor[1], dtype, seed=seed)
        shear_factor = tf.concat([shear_x, shear_y], axis=1) * sign
        return {"shear_factor": shear_factor, "input_shape": self._shape_of(images)}

    _move_boxes = box_transforms.shear_boxes

    def _matrix(self, transformation, images):
        shear = tf.cast(transformation["shear_factor"], "float32")
        ones, zeros = tf.ones_like(shear[:, 0]), tf.zeros_like(shear[:, 0])
        return tf.stack([ones, shear[:, 0], zeros, shear[:, 1], ones, zeros, zeros, zeros], 1)

    def get_config(self):
        config = _AffineLayer.get_config(self)
        return {
            **config,
            "x_factor": self.x_factor,
            "y_factor": self.y_factor,
            **self._warp_config(),
        }


def homography(start_points, end_points, in_float32=True):
    """The ``[batch, 8]`` projective rows taking ``end_points`` to ``start_points`` (four
    ``(x, y)`` corners each), by solving Keras's 8x8 linear system. Keras solves it in float32
    for images but in the points' own dtype for boxes (``in_float32=False``), where a float16
    policy meets TensorFlow's missing float16 solve kernel."""
    start, end = start_points, end_points
    if in_float32:
        start, end = tf.cast(start, "float32"), tf.cast(end, "float32")
    rows = []
    for i in range(4):
        sx, sy = start[:, i, 0], start[:, i, 1]
        ex, ey = end[:, i, 0], end[:, i, 1]
        one, zero = tf.ones_like(ex), tf.zeros_like(ex)
        rows.append(tf.stack([ex, ey, one, zero, zero, zero, -sx * ex, -sx * ey], -1))
        rows.append(tf.stack([zero, zero, zero, ex, ey, one, -sy * ex, -sy * ey], -1))
    coefficients = tf.stack(rows, axis=1)
    target = tf.reshape(start, [-1, 8, 1])
    return tf.reshape(tf.linalg.solve(coefficients, target), [-1, 8])


class RandomPerspective(_AffineLayer):
    """Moves each image's corners by random fractions (up to ``scale / 2``) of the image
    size and warps the image accordingly (constant fill), with probability drawn from
    ``factor``, while training."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(
        self,
        factor=1.0,
        scale=1.0,
        interpolation="bilinear",
        fill_value=0.0,
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.scale = scale
        if scale < 0.0 or scale > 1.0:
            raise ValueError(
                "The `scale` argument should be a number in the range [0,1]. "
                f"Received: scale={scale}"
            )
        self._warp_settings("constant", interpolation, fill_value, seed)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        images = self._images_of(data)
        batch = self._batch_size(images)
        height = images.shape[self._height_axis]
        width = images.shape[self._width_axis]
        probability = self._uniform([batch], self.factor[0], self.factor[1], seed=seed)
        threshold = self._uniform([batch], 0.0, 1.0, seed=seed)
        dtype = self.compute_dtype
        factor = self._uniform([batch, 4, 2], -0.5 * self.scale, 0.5 * self.scale, dtype, seed)
        corners = [[0.0, 0.0], [width - 1, 0.0], [0.0, height - 1], [width - 1, height - 1]]
        start = tf.repeat(tf.constant([corners], dtype=dtype), batch, axis=0)
        return {
            "apply_perspective": threshold < probability,
            "start_points": start,
            "end_points": start + start * factor,
            "input_shape": self._shape_of(images),
        }

    _move_boxes = box_transforms.perspective_boxes

    def _matrix(self, transformation, images):
        return homography(transformation["start_points"], transformation["end_points"])

    def _transform_images(self, images, transformation, interpolation):
        if transformation is None:
            return images
        warped = super()._transform_images(images, transformation, interpolation)
        apply = tf.reshape(transformation["apply_perspective"], [-1, 1, 1, 1])
        return tf.where(apply, warped, images)

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "scale": self.scale,
            "interpolation": self.interpolation,
            "fill_value": self.fill_value,
            "seed": self.seed,
        }
