"""`tf.keras.utils.array_to_img`, `img_to_array`, `load_img` and `save_img`: NumPy arrays and
PIL images (Pillow is needed for all but `img_to_array`, as in Keras)."""

import io
import pathlib
import warnings

import numpy as np

from ferroflow.keras import _backend_config as backend_config
from ferroflow.keras.layers._shapes import standardize_data_format

try:
    from PIL import Image as pil_image
except ImportError:  # Keras raises ImportError when the functions are called
    pil_image = None

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img"]


def _interpolations():
    resampling = getattr(pil_image, "Resampling", pil_image)
    return {
        "nearest": resampling.NEAREST,
        "bilinear": resampling.BILINEAR,
        "bicubic": resampling.BICUBIC,
        "hamming": resampling.HAMMING,
        "box": resampling.BOX,
        "lanczos": resampling.LANCZOS,
    }


def _require_pil(name):
    if pil_image is None:
        raise ImportError(f"Could not import PIL.Image. The use of `{name}` requires PIL.")


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A PIL image from a rank-3 array (1, 3 or 4 channels); ``scale`` maps the values onto
    0..255 first."""
    data_format = standardize_data_format(data_format)
    _require_pil("array_to_img")
    x = np.asarray(x, dtype=dtype or backend_config.floatx())
    if x.ndim != 3:
        raise ValueError(
            f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}"
        )
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    channels = x.shape[2]
    if channels in (3, 4):
        return pil_image.fromarray(x.astype("uint8"), "RGB" if channels == 3 else "RGBA")
    if channels == 1:
        if np.max(x) > 255:
            return pil_image.fromarray(x[:, :, 0].astype("int32"), "I")
        return pil_image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {channels}")


def img_to_array(img, data_format=None, dtype=None):
    """A rank-3 array from a PIL image (or anything NumPy can read); grey images get a channel
    axis."""
    data_format = standardize_data_format(data_format)
    x = np.asarray(img, dtype=dtype or backend_config.floatx())
    if x.ndim == 3:
        if data_format == "channels_first":
            x = x.transpose(2, 0, 1)
    elif x.ndim == 2:
        shape = (1, *x.shape) if data_format == "channels_first" else (*x.shape, 1)
        x = x.reshape(shape)
    else:
        raise ValueError(f"Unsupported image shape: {x.shape}")
    return x


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Writes the array ``x`` as an image file (format from the suffix unless given)."""
    data_format = standardize_data_format(data_format)
    if file_format is None and isinstance(path, (str, pathlib.Path)):
        file_format = pathlib.Path(path).suffix[1:].lower()
    if file_format and file_format.lower() == "jpg":
        file_format = "jpeg"
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format == "jpeg":
        warnings.warn(
            "The JPEG format does not support RGBA images, converting to RGB.", stacklevel=2
        )
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


def _open(path):
    if isinstance(path, io.BytesIO):
        return pil_image.open(path)
    if isinstance(path, (pathlib.Path, bytes, str)):
        if isinstance(path, pathlib.Path):
            path = str(path.resolve())
        with open(path, "rb") as f:
            return pil_image.open(io.BytesIO(f.read()))
    raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")


def _resize(img, target_size, interpolation, keep_aspect_ratio):
    size = (target_size[1], target_size[0])
    if img.size == size:
        return img
    methods = _interpolations()
    if interpolation not in methods:
        raise ValueError(
            f"Invalid interpolation method {interpolation} specified. Supported methods are "
            f"{', '.join(methods.keys())}"
        )
    if not keep_aspect_ratio:
        return img.resize(size, methods[interpolation])
    width, height = img.size
    crop_height = min(height, width * size[1] // size[0])
    crop_width = min(width, height * size[0] // size[1])
    top = (height - crop_height) // 2
    left = (width - crop_width) // 2
    box = [left, top, left + crop_width, top + crop_height]
    return img.resize(size, methods[interpolation], box=box)


def load_img(
    path, color_mode="rgb", target_size=None, interpolation="nearest", keep_aspect_ratio=False
):
    """A PIL image read from ``path`` (or a BytesIO), in ``color_mode`` ("grayscale", "rgb",
    "rgba"), resized to ``target_size`` (height, width) when given."""
    _require_pil("load_img")
    img = _open(path)
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode == "rgba":
        if img.mode != "RGBA":
            img = img.convert("RGBA")
    elif color_mode == "rgb":
        if img.mode != "RGB":
            img = img.convert("RGB")
    else:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if target_size is not None:
        img = _resize(img, target_size, interpolation, keep_aspect_ratio)
    return img
