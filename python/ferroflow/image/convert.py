"""`tf.image.convert_image_dtype`: TensorFlow's scaling between integer and float images."""

import ferroflow as tf


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts `image` to `dtype`, scaling values as TensorFlow does.

    Floats hold [0, 1]; integers [0, MAX]. Integer to integer scales by the ratio of the ranges
    (floor division when narrowing); float to integer multiplies by MAX + 0.5 then casts
    (`saturate` clamps first). Float to float is a plain cast.

    >>> tf.image.convert_image_dtype(tf.constant([0, 255], tf.uint8), tf.float32).numpy()
    array([0., 1.], dtype=float32)
    """
    image = tf.convert_to_tensor(image, name="image")
    dtype = tf.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return tf.identity(image, name=name)
    cast = tf.saturate_cast if saturate else tf.cast
    src = image.dtype
    if src.is_integer and dtype.is_integer:
        if src.max > dtype.max:
            # Narrowing: divide first so MAX lands in [out.max, out.max + 1).
            return cast(tf.math.floordiv(image, (src.max + 1) // (dtype.max + 1)), dtype)
        return tf.multiply(cast(image, dtype), (dtype.max + 1) // (src.max + 1), name=name)
    if src.is_floating and dtype.is_floating:
        return tf.cast(image, dtype, name=name)
    if src.is_integer:
        return tf.multiply(tf.cast(image, dtype), 1.0 / src.max, name=name)
    return cast(tf.multiply(image, dtype.max + 0.5), dtype)
