"""`keras.ops.image` as Keras's TensorFlow backend computes it: colour conversions, resizing,
padding and cropping, affine and perspective warps, `map_coordinates`, Gaussian blur, Sobel
edges, patches and SSIM. Not written: `elastic_transform`, `scale_and_translate`."""

import functools
import itertools
import math
import operator

import ferroflow as tf
from ferroflow.keras import _backend_config as backend_config
from ferroflow.keras.ops._dtypes import lazy_op as _op
from ferroflow.keras.ops._dtypes import result_type
from ferroflow.keras.ops._dtypes import standardize_dtype as _std
from ferroflow.keras.ops.core import convert_to_tensor

__all__ = [
    "affine_transform", "crop_images", "extract_patches", "extract_patches_3d", "gaussian_blur",
    "hsv_to_rgb",
    "map_coordinates",
    "pad_images", "perspective_transform", "resize", "rgb_to_grayscale", "rgb_to_hsv",
    "sobel_edges", "ssim",
]  # fmt: skip


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


def _two_of(a, b, target, names):
    if [a, b, target].count(None) != 1:
        raise ValueError(
            f"Must specify exactly two of {names[0]}, {names[1]}, {names[2]}. Received: "
            f"{names[0]}={a}, {names[1]}={b}, {names[2]}={target}"
        )
    _non_negative(**{n: v for n, v in zip(names, (a, b, target), strict=True) if v is not None})


def _non_negative(suffix="", **values):
    for name, value in values.items():
        if value < 0:
            name += suffix if not name.startswith("target") else ""
            raise ValueError(f"{name} must be >= 0. Received: {name}={value}")


def _image_dims(images, data_format):
    if len(images.shape) not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received: images.shape={tuple(images.shape)}"
        )
    last = _data_format(data_format) == "channels_last"
    return (images.shape[-3], images.shape[-2]) if last else (images.shape[-2], images.shape[-1])


def _spatial(pairs, images, data_format, rest):
    # ``pairs`` for height and width, ``rest`` for the channel and batch axes.
    out = list(pairs)
    out = out + [rest] if _data_format(data_format) == "channels_last" else [rest] + out
    return [rest] + out if len(images.shape) == 4 else out


def pad_images(
    images, top_padding=None, left_padding=None, bottom_padding=None, right_padding=None,
    target_height=None, target_width=None, data_format=None,
):  # fmt: skip
    """Zero-pads images; each axis takes two of its paddings and target size."""
    images = convert_to_tensor(images)
    height, width = _image_dims(images, data_format)
    _two_of(top_padding, bottom_padding, target_height,
            ("top_padding", "bottom_padding", "target_height"))  # fmt: skip
    _two_of(left_padding, right_padding, target_width,
            ("left_padding", "right_padding", "target_width"))  # fmt: skip
    top = target_height - bottom_padding - height if top_padding is None else top_padding
    bottom = target_height - top - height if bottom_padding is None else bottom_padding
    left = target_width - right_padding - width if left_padding is None else left_padding
    right = target_width - left - width if right_padding is None else right_padding
    _non_negative(top=top, left=left, right=right, bottom=bottom, suffix="_padding")
    widths = _spatial([[top, bottom], [left, right]], images, data_format, [0, 0])
    return tf.pad(images, widths)


def crop_images(
    images, top_cropping=None, left_cropping=None, bottom_cropping=None, right_cropping=None,
    target_height=None, target_width=None, data_format=None,
):  # fmt: skip
    """Crops images; each axis takes two of its croppings and target size."""
    images = convert_to_tensor(images)
    height, width = _image_dims(images, data_format)
    _two_of(top_cropping, bottom_cropping, target_height,
            ("top_cropping", "bottom_cropping", "target_height"))  # fmt: skip
    _two_of(left_cropping, right_cropping, target_width,
            ("left_cropping", "right_cropping", "target_width"))  # fmt: skip
    top = height - target_height - bottom_cropping if top_cropping is None else top_cropping
    rows = height - bottom_cropping - top if target_height is None else target_height
    left = width - target_width - right_cropping if left_cropping is None else left_cropping
    cols = width - right_cropping - left if target_width is None else target_width
    _non_negative(top_cropping=top, target_height=rows, left_cropping=left, target_width=cols)
    channels = (
        images.shape[-1] if _data_format(data_format) == "channels_last" else images.shape[-3]
    )
    starts = _spatial([top, left], images, data_format, 0)
    sizes = _spatial([rows, cols], images, data_format, channels)
    if len(images.shape) == 4:
        sizes[0] = images.shape[0]
    return tf.slice(images, starts, sizes)


def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Blurs each channel with a Gaussian kernel of ``kernel_size`` and ``sigma`` (per axis)."""
    images = convert_to_tensor(images)
    dtype = images.dtype
    size = convert_to_tensor(kernel_size, dtype=dtype)
    sigma = convert_to_tensor(sigma, dtype=dtype)

    def one_d(n, s):
        x = tf.range(n, dtype=dtype) - (n - 1) / 2
        k = tf.exp(-0.5 * (x / s) ** 2)
        return k / tf.reduce_sum(k)

    def blur(x):
        batch = x if len(x.shape) == 4 else x[None]
        kernel = tf.tensordot(one_d(size[1], sigma[1]), one_d(size[0], sigma[0]), axes=0)
        kernel = tf.reshape(kernel, (kernel_size[0], kernel_size[1], 1, 1))
        kernel = tf.cast(tf.tile(kernel, [1, 1, batch.shape[-1], 1]), dtype)
        out = tf.nn.depthwise_conv2d(batch, kernel, strides=[1, 1, 1, 1], padding="SAME")
        return out if len(x.shape) == 4 else out[0]

    return _channels_last(images, data_format, blur)


def sobel_edges(images, data_format=None):
    """`tf.image.sobel_edges` of a batch: ``(..., channels, 2)`` with dy then dx."""
    images = convert_to_tensor(images)
    if _data_format(data_format) == "channels_first":
        edges = tf.image.sobel_edges(tf.transpose(images, (0, 2, 3, 1)))
        return tf.transpose(edges, (0, 3, 1, 2, 4))
    return tf.image.sobel_edges(images)


def _identity_patches(images, size, strides, dilation_rate, padding, data_format):
    # Keras's patches: a convolution with an identity kernel over ``len(size)`` spatial axes.
    from ferroflow.keras.ops.nn import conv

    rank = len(size)
    last = _data_format(data_format) == "channels_last"
    channels = images.shape[-1] if last else images.shape[-rank - 1]
    depth = math.prod(size) * channels
    kernel = tf.reshape(tf.eye(depth, dtype=images.dtype), (*size, channels, depth))
    batched = len(images.shape) == rank + 2
    out = conv(images if batched else images[None], kernel, strides=strides, padding=padding,
               data_format=_data_format(data_format), dilation_rate=dilation_rate)  # fmt: skip
    return out if batched else out[0]


def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid",
                    data_format=None):  # fmt: skip
    """Patches of ``size`` (2-D, or 3-D volumes for a 3-tuple) as the channels of the output."""
    if not isinstance(size, int):
        if not isinstance(size, tuple | list):
            raise TypeError(
                "Invalid `size` argument. Expected an int or a tuple. Received: "
                f"size={size} of type {type(size).__name__}"
            )
        if len(size) not in (2, 3):
            raise ValueError(
                "Invalid `size` argument. Expected a tuple of length 2 or 3. Received: "
                f"size={size} with length {len(size)}"
            )
        if len(size) == 3:
            return extract_patches_3d(images, size, strides, dilation_rate, padding, data_format)
    images = convert_to_tensor(images)
    size2 = (size, size) if isinstance(size, int) else tuple(size)
    return _identity_patches(images, size2, strides or size, dilation_rate, padding, data_format)


def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid",
                       data_format=None):  # fmt: skip
    """3-D patches of ``size`` as the channels of the output."""
    size = (size,) * 3 if isinstance(size, int) else size
    if len(size) != 3:
        raise TypeError(
            "Invalid `size` argument. Expected an int or a tuple of length 3. Received: "
            f"size={size}"
        )
    strides = size if strides is None else strides
    strides = (strides,) * 3 if isinstance(strides, int) else strides
    if len(strides) != 3:
        raise ValueError(f"Invalid `strides` argument. Got: {strides}")
    return _identity_patches(
        convert_to_tensor(volumes), tuple(size), strides, dilation_rate, padding, data_format
    )


def _homography(start, end):
    # Two rows per point pair of the 8x8 system whose solution maps end points to start
    # points (the projective transform's [a0, a1, a2, b0, b1, b2, c0, c1]).
    rows, targets = [], []
    for i in range(4):
        ex, ey, sx, sy = end[:, i, 0], end[:, i, 1], start[:, i, 0], start[:, i, 1]
        one, zero = tf.ones_like(ex), tf.zeros_like(ex)
        rows.append(tf.stack([ex, ey, one, zero, zero, zero, -sx * ex, -sx * ey], axis=-1))
        rows.append(tf.stack([zero, zero, zero, ex, ey, one, -sy * ex, -sy * ey], axis=-1))
        targets += [sx, sy]
    system = tf.stack(rows, axis=1)
    solution = tf.linalg.solve(system, tf.expand_dims(tf.stack(targets, axis=-1), -1))
    return tf.reshape(solution, [-1, 8])


def perspective_transform(images, start_points, end_points, interpolation="bilinear",
                          fill_value=0, data_format=None):  # fmt: skip
    """Warps images so the quadrilateral ``start_points`` (4 x (x, y), or a batch) lands on
    ``end_points``."""
    from ferroflow.keras.layers.image_preprocessing import _affine

    images = convert_to_tensor(images)
    start = convert_to_tensor(start_points, dtype="float32")
    end = convert_to_tensor(end_points, dtype="float32")
    if interpolation not in _affine.INTERPOLATIONS:
        raise ValueError(
            "Invalid value for argument `interpolation`. Expected of one "
            f"{_affine.INTERPOLATIONS}. Received: interpolation={interpolation}"
        )
    rank = len(images.shape)
    if rank not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received input with shape: images.shape={images.shape}"
        )
    for points, name in ((start, "start_points"), (end, "end_points")):
        if points.shape.rank not in (2, 3) or tuple(points.shape[-2:]) != (4, 2):
            raise ValueError(
                f"Invalid {name} shape: expected (4,2) for a single image or (N,4,2) for a "
                f"batch. Received shape: {points.shape}"
            )
    if start.shape != end.shape:
        raise ValueError(
            "start_points and end_points must have the same shape. Received "
            f"start_points.shape={start.shape}, end_points.shape={end.shape}"
        )
    if start.shape.rank == 2:
        start, end = start[None], end[None]
    transform = _homography(start, end)

    def warp(x):
        batch = x if rank == 4 else x[None]
        out = _affine.affine_transform(
            batch, transform, interpolation, "constant", float(fill_value)
        )
        return out if rank == 4 else out[0]

    return _channels_last(images, data_format, warp)


_MAP_FILL_MODES = {"constant", "nearest", "wrap", "mirror", "reflect"}


def _map_index(coords, size, fill_mode):
    # The in-range index a sample position reads, and whether it is inside the input.
    if fill_mode == "constant":
        return tf.clip_by_value(coords, 0, size - 1), (coords >= 0) & (coords < size)
    inside = tf.ones_like(coords, dtype=tf.bool)
    if fill_mode == "nearest":
        return tf.clip_by_value(coords, 0, size - 1), inside
    if fill_mode == "wrap":
        return tf.math.mod(coords, size), inside
    coords = tf.abs(coords)
    folded = tf.math.mod(coords, size * 2)
    coords = tf.where(folded < size, folded, size * 2 - folded)
    if fill_mode == "reflect":
        coords = tf.where(folded >= size, coords - 1, coords)
    return coords, inside


def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0.0):
    """Samples ``inputs`` at ``coordinates`` (one array per input axis) with nearest
    (``order=0``) or linear (``order=1``) interpolation."""
    inputs, coordinates = convert_to_tensor(inputs), convert_to_tensor(coordinates)
    if coordinates.shape[0] != len(inputs.shape):
        raise ValueError(
            "First dim of `coordinates` must be the same as the rank of `inputs`. Received "
            f"inputs with shape: {inputs.shape} and coordinate leading dim of "
            f"{coordinates.shape[0]}"
        )
    if len(coordinates.shape) < 2:
        raise ValueError(
            "Invalid coordinates rank: expected at least rank 2. Received input with shape: "
            f"{coordinates.shape}"
        )
    if fill_mode not in _MAP_FILL_MODES:
        raise ValueError(
            f"Invalid value for argument `fill_mode`. Expected one of {_MAP_FILL_MODES}. "
            f"Received: fill_mode={fill_mode}"
        )
    if order not in (0, 1):
        raise NotImplementedError("map_coordinates currently requires order<=1")
    fill_value = convert_to_tensor(fill_value, dtype=inputs.dtype)
    per_axis = []
    for coord, size in zip(tf.unstack(coordinates, axis=0), inputs.shape, strict=False):
        if order == 0:
            coord = coord if coord.dtype.is_integer else tf.round(coord)
            nodes = [(tf.cast(coord, tf.int32), tf.constant(1, coord.dtype))]
        else:
            lower = tf.floor(coord)
            upper_weight = coord - lower
            index = tf.cast(lower, tf.int32)
            nodes = [(index, 1 - upper_weight), (index + 1, upper_weight)]
        per_axis.append([(*_map_index(i, size, fill_mode), w) for i, w in nodes])
    terms = []
    for corner in itertools.product(*per_axis):
        indices, valid, weights = zip(*corner, strict=True)
        dtype = weights[0].dtype
        values = tf.cast(tf.gather_nd(inputs, tf.stack(indices, axis=-1)), dtype)
        if fill_mode == "constant":
            values = tf.where(tf.reduce_all(valid, axis=0), values, tf.cast(fill_value, dtype))
        terms.append(functools.reduce(operator.mul, weights) * values)
    result = functools.reduce(operator.add, terms)
    if inputs.dtype.is_integer:
        result = tf.round(result)
    return tf.cast(result, inputs.dtype)


def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         data_format=None):  # fmt: skip
    """Structural similarity of two images (or batches), averaged over pixels and channels,
    with a ``filter_size`` Gaussian window ("valid" positions only)."""
    from ferroflow.keras.ops.nn import conv

    image1, image2 = convert_to_tensor(image1), convert_to_tensor(image2)
    dtype = image1.dtype
    compute = result_type(image1.dtype, float)
    x, y = tf.cast(image1, compute), tf.cast(image2, compute)
    for name, image in (("image1", x), ("image2", y)):
        if len(image.shape) not in (3, 4):
            raise ValueError(
                f"Invalid {name} rank: expected rank 3 (single image) or rank 4 (batch of "
                f"images). Received input with shape: {name}.shape={image.shape}"
            )
    single = len(x.shape) == 3
    if single:
        x, y = x[None], y[None]
    if _data_format(data_format) == "channels_first":
        x, y = tf.transpose(x, (0, 2, 3, 1)), tf.transpose(y, (0, 2, 3, 1))
    batch, height, width, channels = x.shape
    g = tf.range(filter_size, dtype=compute) - (filter_size - 1) / 2.0
    g = tf.exp(-(g**2) / (2.0 * filter_sigma**2))
    g = g / tf.reduce_sum(g)
    kernel = tf.reshape(g[:, None] * g[None, :], (filter_size, filter_size, 1, 1))
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2

    def per_channel(t):
        return tf.reshape(tf.transpose(t, (0, 3, 1, 2)), [-1, height, width, 1])

    def window(t):
        return conv(t, kernel, strides=1, padding="valid")

    a, b = per_channel(x), per_channel(y)
    mu1, mu2 = window(a), window(b)
    s11 = window(a * a) - mu1 * mu1
    s22 = window(b * b) - mu2 * mu2
    s12 = window(a * b) - mu1 * mu2
    ssim_map = ((2.0 * mu1 * mu2 + c1) * (2.0 * s12 + c2)) / (
        (mu1 * mu1 + mu2 * mu2 + c1) * (s11 + s22 + c2)
    )
    per_image = tf.reshape(tf.reduce_mean(ssim_map, axis=[1, 2, 3]), [batch, channels])
    out = tf.reduce_mean(per_image, axis=-1)
    return tf.cast(out[0] if single else out, dtype)
