"""`tf.keras.preprocessing.image`: the image helpers of `keras.utils` (`load_img`,
`img_to_array`...), `smart_resize`, Keras's legacy NumPy augmentation functions
(`_image_augment`) and its legacy generator, `ImageDataGenerator`, with its iterators
(`_image_iterators`)."""

import numpy as np

from ferroflow.keras.preprocessing._image_augment import (
    apply_affine_transform,
    apply_brightness_shift,
    apply_channel_shift,
    random_brightness,
    random_channel_shift,
    random_rotation,
    random_shear,
    random_shift,
    random_zoom,
)
from ferroflow.keras.preprocessing._image_data_generator import ImageDataGenerator
from ferroflow.keras.preprocessing._image_iterators import (
    DirectoryIterator,
    Iterator,
    NumpyArrayIterator,
)
from ferroflow.keras.utils.image_utils import array_to_img, img_to_array, load_img, save_img

__all__ = [
    "DirectoryIterator",
    "ImageDataGenerator",
    "Iterator",
    "NumpyArrayIterator",
    "apply_affine_transform",
    "apply_brightness_shift",
    "apply_channel_shift",
    "array_to_img",
    "img_to_array",
    "load_img",
    "random_brightness",
    "random_channel_shift",
    "random_rotation",
    "random_shear",
    "random_shift",
    "random_zoom",
    "save_img",
    "smart_resize",
]


def smart_resize(x, size, interpolation="bilinear", data_format="channels_last", **kwargs):
    """``x`` (one image or a batch) cropped to the aspect ratio of ``size`` around its
    centre, then resized to ``size``; a NumPy array for a NumPy input."""
    from ferroflow.array_ops import convert_to_tensor
    from ferroflow.keras.layers.image_preprocessing.resizing import resize_images

    kwargs.pop("backend_module", None)
    if kwargs:
        raise TypeError(f"smart_resize() got unexpected keyword arguments: {list(kwargs.keys())}")
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    img = convert_to_tensor(x)
    if len(img.shape) < 3 or len(img.shape) > 4:
        raise ValueError(
            "Expected an image array with shape `(height, width, channels)`, or "
            "`(batch_size, height, width, channels)`, but got input with incorrect rank, of "
            f"shape {img.shape}."
        )
    img = resize_images(
        img,
        tuple(size),
        interpolation=interpolation,
        crop_to_aspect_ratio=True,
        data_format=data_format,
    )
    return np.array(img) if isinstance(x, np.ndarray) else img
