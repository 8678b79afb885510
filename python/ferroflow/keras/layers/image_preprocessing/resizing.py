"""`tf.keras.layers.Resizing`, `CenterCrop` and `RandomCrop`: images brought to a fixed
height and width by interpolation (optionally cropping or padding to the target aspect ratio
first, as Keras's `image.resize` does on TensorFlow) or by cropping."""

import numpy as np

import ferroflow as tf
from ferroflow.keras.layers.image_preprocessing import bounding_boxes as boxes_lib
from ferroflow.keras.layers.image_preprocessing import box_transforms
from ferroflow.keras.layers.image_preprocessing.base import (
    BaseImagePreprocessingLayer,
    back_to_dtype,
)

__all__ = ["CenterCrop", "RandomCrop", "Resizing", "resize_images"]

RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def _int(x):
    """float32 -> int32 truncation, as Keras computes its crop and pad sizes."""
    return tf.cast(x, "int32")


def _aspect_window(height, width, target_height, target_width):
    """The sizes of the largest window with the target aspect ratio, and of the smallest
    frame with it (crop and pad sizes), from float32 arithmetic like Keras's."""
    fh = tf.cast(width * target_height, "float32") / target_width
    fw = tf.cast(height * target_width, "float32") / target_height
    return _int(fh), _int(fw)


def _crop_to_aspect(images, size):
    height, width = tf.shape(images)[-3], tf.shape(images)[-2]
    crop_h, crop_w = _aspect_window(height, width, *size)
    crop_h = tf.maximum(tf.minimum(height, crop_h), 1)
    crop_w = tf.maximum(tf.minimum(width, crop_w), 1)
    top = _int(tf.cast(height - crop_h, "float32") / 2)
    left = _int(tf.cast(width - crop_w, "float32") / 2)
    return images[..., top : top + crop_h, left : left + crop_w, :]


def _pad_band(images, axis, start, fill_value):
    """``start`` rows (or columns) of ``fill_value`` on both sides of ``axis``."""
    shape = tf.unstack(tf.shape(images))
    shape[axis] = start
    band = tf.ones(tf.stack(shape), images.dtype) * tf.cast(fill_value, images.dtype)
    return tf.concat([band, images, band], axis=axis)


def _pad_to_aspect(images, size, fill_value):
    rank = images.shape.rank
    height, width = tf.shape(images)[-3], tf.shape(images)[-2]
    pad_h, pad_w = _aspect_window(height, width, *size)
    pad_h = tf.maximum(height, pad_h)
    pad_w = tf.maximum(width, pad_w)
    top = _int(tf.cast(pad_h - height, "float32") / 2)
    left = _int(tf.cast(pad_w - width, "float32") / 2)
    images = tf.cond(top > 0, lambda: _pad_band(images, rank - 3, top, fill_value), lambda: images)
    return tf.cond(left > 0, lambda: _pad_band(images, rank - 2, left, fill_value), lambda: images)


def resize_images(
    images,
    size,
    interpolation="bilinear",
    antialias=False,
    crop_to_aspect_ratio=False,
    pad_to_aspect_ratio=False,
    fill_mode="constant",
    fill_value=0.0,
    data_format="channels_last",
):
    """Keras's `image.resize` (TensorFlow backend) of a rank 3 or 4 ``images``."""
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError(
            "Invalid value for argument `interpolation`. Expected of one "
            f"{RESIZE_INTERPOLATIONS}. Received: interpolation={interpolation}"
        )
    if fill_mode != "constant":
        raise ValueError(
            "Invalid value for argument `fill_mode`. Only `'constant'` is supported. "
            f"Received: fill_mode={fill_mode}"
        )
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError(
            "Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`."
        )
    if len(size) != 2:
        raise ValueError(
            "Argument `size` must be a tuple of two elements (height, width). "
            f"Received: size={size}"
        )
    rank = images.shape.rank
    if rank not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received input with shape: images.shape={images.shape}"
        )
    channels_first = data_format == "channels_first"
    if channels_first:
        images = tf.transpose(images, [0, 2, 3, 1] if rank == 4 else [1, 2, 0])
    if crop_to_aspect_ratio:
        images = _crop_to_aspect(images, size)
    elif pad_to_aspect_ratio:
        images = _pad_to_aspect(images, size, fill_value)
    resized = tf.image.resize(images, size, method=interpolation, antialias=antialias)
    if channels_first:
        resized = tf.transpose(resized, [0, 3, 1, 2] if rank == 4 else [2, 0, 1])
    return resized


def _sized_shape(layer, input_shape):
    shape = list(input_shape)
    shape[layer._height_axis] = layer.height
    shape[layer._width_axis] = layer.width
    return tuple(shape)


class Resizing(BaseImagePreprocessingLayer):
    """Resizes images to ``(height, width)`` with ``interpolation``; integer images come back
    rounded in their own dtype. ``crop_to_aspect_ratio`` / ``pad_to_aspect_ratio`` keep the
    aspect ratio by cropping the largest centred window or padding evenly first."""

    _USE_BASE_FACTOR = False

    def __init__(
        self,
        height,
        width,
        interpolation="bilinear",
        crop_to_aspect_ratio=False,
        pad_to_aspect_ratio=False,
        fill_mode="constant",
        fill_value=0.0,
        antialias=False,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.height = height
        self.width = width
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.antialias = bool(antialias)

    def get_random_transformation(self, data, training=True, seed=None):
        # Keras reads the input's height and width here (IndexError below rank 3).
        shape = tuple(self._images_of(data).shape.as_list())
        return shape[self._height_axis], shape[self._width_axis]

    def _transform_images(self, images, transformation, interpolation):
        resized = resize_images(
            images,
            (self.height, self.width),
            interpolation=interpolation,
            antialias=self.antialias,
            crop_to_aspect_ratio=self.crop_to_aspect_ratio,
            pad_to_aspect_ratio=self.pad_to_aspect_ratio,
            fill_mode=self.fill_mode,
            fill_value=self.fill_value,
            data_format=self.data_format,
        )
        return back_to_dtype(resized, images.dtype)

    def transform_images(self, images, transformation=None, training=True):
        return self._transform_images(images, transformation, self.interpolation)

    def transform_segmentation_masks(self, segmentation_masks, transformation=None, training=True):
        return self._transform_images(segmentation_masks, transformation, "nearest")

    def transform_bounding_boxes(self, bounding_boxes, transformation, training=True):
        input_height, input_width = transformation
        boxes = bounding_boxes["boxes"]
        # Padding entries (all -1 or all 0) stay zero boxes.
        padding = tf.reduce_all(boxes == -1, axis=-1) | tf.reduce_all(boxes == 0, axis=-1)
        fmt = self.bounding_box_format
        xyxy = boxes_lib.convert_format(bounding_boxes, fmt, "xyxy", input_height, input_width)
        moved = self._resized_boxes(xyxy["boxes"], input_height, input_width)
        clipped = boxes_lib.clip_to_image_size({**xyxy, "boxes": moved}, self.height, self.width)
        zeros = tf.zeros([4], clipped["boxes"].dtype)
        clipped["boxes"] = tf.where(padding[..., None], zeros, clipped["boxes"])
        return boxes_lib.convert_format(clipped, "xyxy", fmt, self.height, self.width)

    def _resized_boxes(self, boxes, input_height, input_width):
        """``xyxy`` boxes moved as the image is: stretched, or scaled and offset by the
        aspect-ratio padding or crop."""
        dtype = boxes.dtype
        in_h, in_w = tf.cast(input_height, dtype), tf.cast(input_width, dtype)
        x1, y1, x2, y2 = tf.split(boxes, 4, axis=-1)
        if self.pad_to_aspect_ratio:
            ratio = tf.minimum(self.height / in_h, self.width / in_w)
            dx = tf.math.floordiv(self.width - in_w * ratio, 2)
            dy = tf.math.floordiv(self.height - in_h * ratio, 2)
            sx = sy = ratio
        elif self.crop_to_aspect_ratio:
            source_ratio = in_w / in_h
            wider = source_ratio > self.width / self.height
            new_w = tf.where(wider, self.height * source_ratio, tf.cast(self.width, dtype))
            new_h = tf.where(wider, tf.cast(self.height, dtype), self.width / source_ratio)
            sx, sy = new_w / in_w, new_h / in_h
            dx = -tf.math.floordiv(new_w - self.width, 2)
            dy = -tf.math.floordiv(new_h - self.height, 2)
        else:
            sx, sy = self.width / in_w, self.height / in_h
            dx = dy = tf.constant(0.0, dtype)
        return tf.concat([x1 * sx + dx, y1 * sy + dy, x2 * sx + dx, y2 * sy + dy], -1)

    def compute_output_shape(self, input_shape):
        return _sized_shape(self, input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "height": self.height,
            "width": self.width,
            "interpolation": self.interpolation,
            "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
            "pad_to_aspect_ratio": self.pad_to_aspect_ratio,
            "fill_mode": self.fill_mode,
            "fill_value": self.fill_value,
            "antialias": self.antialias,
            "data_format": self.data_format,
        }


class CenterCrop(BaseImagePreprocessingLayer):
    """Crops the central ``(height, width)`` window; an image smaller than that is first
    cropped to the target aspect ratio and resized (bilinear), as Keras's `smart_resize`."""

    _USE_BASE_FACTOR = False

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height = height
        self.width = width

    def transform_images(self, images, transformation=None, training=True):
        images = tf.cast(images, self.compute_dtype)
        height, width = self._height_width(images)
        h_diff, w_diff = height - self.height, width - self.width
        if (not isinstance(h_diff, int) or h_diff >= 0) and (
            not isinstance(w_diff, int) or w_diff >= 0
        ):
            top, left = h_diff // 2, w_diff // 2
            index = [slice(None)] * 4
            index[self._height_axis] = slice(top, top + self.height)
            index[self._width_axis] = slice(left, left + self.width)
            return images[tuple(index)]
        return resize_images(
            images,
            (self.height, self.width),
            crop_to_aspect_ratio=True,
            data_format=self.data_format,
        )

    def get_random_transformation(self, data, training=True, seed=None):
        return {"input_shape": self._shape_of(self._images_of(data))}

    def transform_segmentation_masks(self, segmentation_masks, transformation, training=True):
        return self.transform_images(segmentation_masks, transformation, training=training)

    def transform_bounding_boxes(self, bounding_boxes, transformation, training=True):
        return box_transforms.center_crop_boxes(self, bounding_boxes, transformation)

    def compute_output_shape(self, input_shape):
        input_shape = list(input_shape)
        if len(input_shape) not in (3, 4) or isinstance(input_shape[0], (list, tuple)):
            raise ValueError(
                "`input_shape` must be a non-nested tuple or list of rank-1 with size 3 "
                "(unbatched) or 4 (batched). "
            )
        return _sized_shape(self, input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "height": self.height,
            "width": self.width,
            "data_format": self.data_format,
        }


class RandomCrop(BaseImagePreprocessingLayer):
    """While training, crops a random ``(height, width)`` window (the same one for the whole
    batch); at inference, or when the image is not larger on both axes, it crops to the
    target aspect ratio at the centre and resizes, as Keras does."""

    _USE_BASE_FACTOR = False
    _convert_input_args = False

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        super().__init__(name=name, data_format=data_format, **kwargs)
        self.height = height
        self.width = width
        # Keras draws a default seed when none is given and keeps it in the config.
        self._seeded(int(np.random.randint(1, 1_000_000_000)) if seed is None else seed)

    def get_random_transformation(self, data, training=True, seed=None):
        images = self._images_of(data)
        height, width = images.shape[self._height_axis], images.shape[self._width_axis]
        if height is None or width is None:
            raise ValueError(
                "RandomCrop requires the input to have a fully defined height and width. "
                f"Received: images.shape={tuple(images.shape.as_list())}"
            )
        if training and height > self.height and width > self.width:
            top = self._uniform([], 0, float(height - self.height + 1), seed=seed)
            left = self._uniform([], 0, float(width - self.width + 1), seed=seed)
            return tf.cast(top, "int32"), tf.cast(left, "int32")
        crop_h = max(min(height, int(float(width * self.height) / self.width)), 1)
        crop_w = max(min(width, int(float(height * self.width) / self.height)), 1)
        return int(float(height - crop_h) / 2), int(float(width - crop_w) / 2)

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        top, left = transformation
        index = [slice(None)] * 4
        index[self._height_axis] = slice(top, top + self.height)
        index[self._width_axis] = slice(left, left + self.width)
        images = images[tuple(index)]
        height, width = images.shape[self._height_axis], images.shape[self._width_axis]
        if height != self.height or width != self.width:
            images = resize_images(images, (self.height, self.width), data_format=self.data_format)
            images = tf.cast(images, self.compute_dtype)
        return images

    def transform_segmentation_masks(self, segmentation_masks, transformation, training=True):
        return self.transform_images(segmentation_masks, transformation)

    def transform_bounding_boxes(self, bounding_boxes, transformation, training=True):
        if not training:
            return bounding_boxes
        return box_transforms.random_crop_boxes(self, bounding_boxes, transformation)

    def compute_output_shape(self, input_shape, *args, **kwargs):
        return _sized_shape(self, input_shape)

    def get_config(self):
        return {
            **super().get_config(),
            "height": self.height,
            "width": self.width,
            "seed": self.seed,
            "data_format": self.data_format,
        }
