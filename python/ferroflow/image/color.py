"""Colour-space conversions and colour adjustments (TensorFlow's formulas and kernels)."""

import ferroflow as tf

from ._checks import at_least_3d, check, dtype_refusal, without_gradient
from .convert import convert_image_dtype

_RGB_TO_YIQ = [
    [0.299, 0.59590059, 0.2115],
    [0.587, -0.27455667, -0.52273617],
    [0.114, -0.32134392, 0.31119955],
]
_YIQ_TO_RGB = [
    [1, 1, 1],
    [0.95598634, -0.27201283, -1.10674021],
    [0.6208248, -0.64720424, 1.70423049],
]
_RGB_TO_YUV = [
    [0.299, -0.14714119, 0.61497538],
    [0.587, -0.28886916, -0.51496512],
    [0.114, 0.43601035, -0.10001026],
]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _mix(images, kernel):
    images = tf.convert_to_tensor(images, name="images")
    kernel = tf.convert_to_tensor(kernel, dtype=images.dtype, name="kernel")
    return tf.tensordot(images, kernel, axes=[[images.shape.rank - 1], [0]])


def rgb_to_yiq(images):
    """RGB to YIQ (last axis of size 3)."""
    return _mix(images, _RGB_TO_YIQ)


def yiq_to_rgb(images):
    """YIQ to RGB (last axis of size 3)."""
    return _mix(images, _YIQ_TO_RGB)


def rgb_to_yuv(images):
    """RGB to YUV (last axis of size 3)."""
    return _mix(images, _RGB_TO_YUV)


def yuv_to_rgb(images):
    """YUV to RGB (last axis of size 3)."""
    return _mix(images, _YUV_TO_RGB)


def rgb_to_grayscale(images, name=None):
    """Luma with TensorFlow's weights (0.2989, 0.587, 0.114), last axis kept with size 1."""
    images = tf.convert_to_tensor(images, name="images")
    flt = convert_image_dtype(images, tf.float32)
    gray = tf.expand_dims(tf.tensordot(flt, [0.2989, 0.587, 0.114], [-1, -1]), -1)
    return convert_image_dtype(gray, images.dtype, name=name)


def grayscale_to_rgb(images, name=None):
    """Repeats the single channel three times."""
    images = tf.convert_to_tensor(images, name="images")
    shape = images.shape
    if shape.rank is None or shape.rank < 2:
        raise ValueError(f"A grayscale image (shape {shape}) must be at least two-dimensional.")
    if shape.is_fully_defined() and shape[-1] != 1:
        raise ValueError("Last dimension of a grayscale image should be size 1.")
    return tf.tile(images, [1] * (shape.rank - 1) + [3], name=name)


def _float_kernel_input(images, op):
    """The channel checks of TensorFlow's colour kernels (RGBToHSV, AdjustHue...)."""
    images = tf.convert_to_tensor(images, name="images")
    if images.dtype not in (tf.float16, tf.bfloat16, tf.float32, tf.float64):
        raise dtype_refusal("images", images.dtype, "half, bfloat16, float, double", op)
    if images.shape.rank is not None and images.shape.rank < 1:
        raise tf.errors.InvalidArgumentError(None, None, f"input must be at least 1D{images.shape}")
    if images.shape[-1] is not None and images.shape[-1] != 3:
        raise tf.errors.FailedPreconditionError(
            None,
            None,
            f"input must have 3 channels but input only has {images.shape[-1]} channels.",
        )
    return images


def _hsv(rgb):
    """(h, s, v) of float RGB, each [..., 1]; TensorFlow's RGBToHSV formula."""
    r, g, b = tf.split(rgb, 3, axis=-1)
    v = tf.maximum(tf.maximum(r, g), b)
    spread = v - tf.minimum(tf.minimum(r, g), b)
    zero = tf.zeros_like(v)
    s = tf.where(v > 0, tf.math.divide_no_nan(spread, v), zero)
    norm = 1.0 / (6.0 * spread)
    h = tf.where(
        tf.equal(r, v),
        norm * (g - b),
        tf.where(tf.equal(g, v), norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0),
    )
    h = tf.where(spread > 0, h, zero)
    h = tf.where(h < 0, h + 1, h)
    return h, s, v


def _rgb(h, s, v):
    """Float RGB from (h, s, v); TensorFlow's HSVToRGB formula."""
    dh = h * 6
    dr = tf.clip_by_value(tf.abs(dh - 3) - 1, 0, 1)
    dg = tf.clip_by_value(2 - tf.abs(dh - 2), 0, 1)
    db = tf.clip_by_value(2 - tf.abs(dh - 4), 0, 1)
    one_minus_s = 1 - s
    return tf.concat([(one_minus_s + s * d) * v for d in (dr, dg, db)], axis=-1)


def rgb_to_hsv(images, name=None):
    """RGB in [0, 1] to HSV in [0, 1] (float images only, last axis of size 3)."""
    images = _float_kernel_input(images, "RGBToHSV")
    return tf.concat(_hsv(images), axis=-1, name=name)


def hsv_to_rgb(images, name=None):
    """HSV in [0, 1] to RGB in [0, 1] (float images only, last axis of size 3)."""
    images = _float_kernel_input(images, "HSVToRGB")
    h, s, v = tf.split(images, 3, axis=-1)
    # TensorFlow's HSVToRGB gradient is None.
    return tf.stop_gradient(_rgb(h, s, v), name=name)


def _as_float(image):
    image = tf.convert_to_tensor(image, name="image")
    if image.dtype in (tf.float16, tf.float32):
        return image, image
    return image, convert_image_dtype(image, tf.float32)


def _hsv_kernel(flt, adjust, op):
    """TensorFlow's AdjustHue / AdjustSaturation: float32 arithmetic, the input's dtype out."""
    rgb = _float_kernel_input(flt, op)

    def kernel(rgb):
        h, s, v = _hsv(tf.cast(rgb, tf.float32))
        return tf.cast(_rgb(*adjust(h, s, v)), rgb.dtype)

    return without_gradient(op, kernel, rgb)


def adjust_hue(image, delta, name=None):
    """Rotates the hue by `delta` (in [-1, 1]) turns."""
    # TensorFlow checks the range eagerly only (a Python number or an eager tensor).
    if tf.executing_eagerly() and (delta < -1 or delta > 1):
        raise ValueError("delta must be in the interval [-1, 1]")
    image, flt = _as_float(image)
    delta = tf.cast(delta, tf.float32)

    def shift(h, s, v):
        h = h + delta
        return h - tf.floor(h), s, v

    return convert_image_dtype(_hsv_kernel(flt, shift, "AdjustHue"), image.dtype, name=name)


def adjust_saturation(image, saturation_factor, name=None):
    """Multiplies the saturation by `saturation_factor`, clamped to [0, 1]."""
    image, flt = _as_float(image)
    factor = tf.cast(saturation_factor, tf.float32)

    def scale(h, s, v):
        return h, tf.clip_by_value(s * factor, 0.0, 1.0), v

    return convert_image_dtype(_hsv_kernel(flt, scale, "AdjustSaturation"), image.dtype, name=name)


def adjust_brightness(image, delta):
    """Adds `delta` in the float domain, saturating back to the image's dtype."""
    image, flt = _as_float(image)
    adjusted = tf.add(flt, tf.cast(delta, flt.dtype))
    return convert_image_dtype(adjusted, image.dtype, saturate=True)


def adjust_contrast(images, contrast_factor):
    """(x - mean) * contrast_factor + mean, the mean per image and channel."""
    images, flt = _as_float(images)
    if flt.shape.rank is not None and flt.shape.rank < 3:
        raise tf.errors.InvalidArgumentError(
            None, None, f"input must be at least 3-D, got shape{flt.shape}"
        )
    factor = tf.convert_to_tensor(contrast_factor)
    if factor.shape.rank not in (None, 0):
        raise tf.errors.InvalidArgumentError(
            None, None, f"contrast_factor must be scalar: {factor.shape}"
        )

    def kernel(flt):
        work = tf.cast(flt, tf.float32)
        mean = tf.reduce_mean(work, axis=[-3, -2], keepdims=True)
        return tf.cast((work - mean) * tf.cast(factor, tf.float32) + mean, flt.dtype)

    adjusted = without_gradient("AdjustContrastv2", kernel, flt)
    return convert_image_dtype(adjusted, images.dtype, saturate=True)


def adjust_gamma(image, gamma=1, gain=1):
    """gain * image ** gamma in the float domain (gamma must be >= 0)."""
    image, flt = _as_float(image)
    check(gamma >= 0, "Gamma should be a non-negative real number.")
    adjusted = gain * flt**gamma
    return convert_image_dtype(adjusted, image.dtype, saturate=True)


def per_image_standardization(image):
    """(x - mean) / max(stddev, 1 / sqrt(pixels)) over each image's last three axes."""
    image = tf.cast(at_least_3d(image), tf.float32)
    num_pixels = tf.reduce_prod(tf.shape(image)[-3:])
    mean = tf.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
    stddev = tf.math.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
    adjusted = tf.maximum(stddev, tf.math.rsqrt(tf.cast(num_pixels, tf.float32)))
    return tf.divide(image - mean, adjusted)
