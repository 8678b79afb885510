"""`keras.ops.image`: colour-space conversions, `resize` and `affine_transform` (the other
Keras image ops are not yet written; see `__all__`)."""

import ferroflow as tf
from ferroflow.keras import _backend_config as backend_config
from ferroflow.keras.ops._dtypes import lazy_op as _op
from ferroflow.keras.ops._dtypes import result_type
from ferroflow.keras.ops._dtypes import standardize_dtype as _std
from ferroflow.keras.ops.core import convert_to_tensor

__all__ = ["affine_transform", "hsv_to_rgb", "resize", "rgb_to_grayscale", "rgb_to_hsv"]


def _data_format(data_format):
    return (data_format or backend_config.image_data_format()).lower()


def _channels_last(images, data_format, fn):
    images = convert_to_tensor(images)
    if len(images.shape) not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received input with shape: images.shape={images.shape}"
        )
    if _data_format(data_format) == "channels_first":
        rank = len(images.shape)
        moved = tf.transpose(images, [*range(rank - 3), rank - 2, rank - 1, rank - 3])
        out = fn(moved)
        return tf.transpose(out, [*range(rank - 3), rank - 1, rank - 3, rank - 2])
    return fn(images)


def rgb_to_grayscale(images, data_format=None):
    """Luma of RGB images (weights 0.2989, 0.587, 0.114), computed in float and cast back to
    the input dtype; one-channel images are returned unchanged."""
    images = convert_to_tensor(images)
    axis = -1 if _data_format(data_format) == "channels_last" else -3
    if len(images.shape) not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received input with shape: images.shape={images.shape}"
        )
    if images.shape[axis] not in (1, 3):
        raise ValueError(
            "Invalid channel size: expected 3 (RGB) or 1 (Grayscale). Received input with "
            f"shape: images.shape={images.shape}"
        )
    if images.shape[axis] == 1:
        return tf.identity(images)
    dtype = images.dtype
    x = tf.cast(images, result_type(dtype, float))
    weights = convert_to_tensor([0.2989, 0.587, 0.114], dtype=x.dtype)
    gray = tf.expand_dims(tf.tensordot(x, weights, axes=(axis, -1)), axis=axis)
    return tf.cast(gray, dtype)


def _float_only(fn, name):
    def convert(images, data_format=None):
        images = convert_to_tensor(images)
        if not images.dtype.is_floating:
            raise ValueError(
                "Invalid images dtype: expected float dtype. Received: "
                f"images.dtype={_std(images.dtype)}"
            )
        return _channels_last(images, data_format, fn)

    convert.__name__ = name
    return convert


rgb_to_hsv = _float_only(_op("image.rgb_to_hsv"), "rgb_to_hsv")
rgb_to_hsv.__doc__ = "RGB float images as HSV."
hsv_to_rgb = _float_only(_op("image.hsv_to_rgb"), "hsv_to_rgb")
hsv_to_rgb.__doc__ = "HSV float images as RGB."


def resize(
    images,
    size,
    interpolation="bilinear",
    antialias=False,
    crop_to_aspect_ratio=False,
    pad_to_aspect_ratio=False,
    fill_mode="constant",
    fill_value=0.0,
    data_format=None,
):
    """Resizes images to ``size`` (height, width), optionally cropping or padding to the
    target aspect ratio first."""
    from ferroflow.keras.layers.image_preprocessing.resizing import resize_images

    return resize_images(
        convert_to_tensor(images),
        size,
        interpolation=interpolation,
        antialias=antialias,
        crop_to_aspect_ratio=crop_to_aspect_ratio,
        pad_to_aspect_ratio=pad_to_aspect_ratio,
        fill_mode=fill_mode,
        fill_value=fill_value,
        data_format=_data_format(data_format),
    )


def affine_transform(
    images, transform, interpolation="bilinear", fill_mode="constant", fill_value=0,
    data_format=None,
):  # fmt: skip
    """Warps images by projective transforms ``[a0, a1, a2, b0, b1, b2, c0, c1]`` (one, or
    one per image), mapping output points to input points."""
    from ferroflow.keras.layers.image_preprocessing import _affine

    images, transform = convert_to_tensor(images), convert_to_tensor(transform)
    if interpolation not in _affine.INTERPOLATIONS:
        raise ValueError(
            "Invalid value for argument `interpolation`. Expected of one "
            f"{_affine.INTERPOLATIONS}. Received: interpolation={interpolation}"
        )
    if fill_mode not in _affine.FILL_MODES:
        raise ValueError(
            f"Invalid value for argument `fill_mode`. Expected of one {_affine.FILL_MODES}. "
            f"Received: fill_mode={fill_mode}"
        )
    rank = len(images.shape)
    if rank not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received input with shape: images.shape={images.shape}"
        )
    if len(transform.shape) not in (1, 2):
        raise ValueError(
            "Invalid transform rank: expected rank 1 (single transform) or rank 2 (batch of "
            f"transforms). Received input with shape: transform.shape={transform.shape}"
        )

    def warp(x):
        batch = x if rank == 4 else x[None]
        out = _affine.affine_transform(
            batch, transform, interpolation, fill_mode, float(fill_value)
        )
        return out if rank == 4 else out[0]

    return _channels_last(images, data_format, warp)
