"""Image measures and filters: total variation, gradients, Sobel edges, PSNR, SSIM, MS-SSIM."""

import numpy as np

import ferroflow as tf

from ._checks import compatible_images
from .convert import convert_image_dtype

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def total_variation(images, name=None):
    """Sum of absolute differences of neighbouring pixels, per image."""
    rank = images.shape.rank
    if rank == 3:
        dif1 = images[1:, :, :] - images[:-1, :, :]
        dif2 = images[:, 1:, :] - images[:, :-1, :]
        axis = None
    elif rank == 4:
        dif1 = images[:, 1:, :, :] - images[:, :-1, :, :]
        dif2 = images[:, :, 1:, :] - images[:, :, :-1, :]
        axis = [1, 2, 3]
    else:
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    return tf.add(
        tf.reduce_sum(tf.abs(dif1), axis=axis), tf.reduce_sum(tf.abs(dif2), axis=axis), name=name
    )


def image_gradients(image):
    """(dy, dx): forward differences of a 4-D batch, zero in the last row / column."""
    if image.shape.rank != 4:
        raise ValueError(
            f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {image.shape}."
        )
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = tf.concat([dy, tf.zeros_like(image[:, :1, :, :])], 1)
    dx = tf.concat([dx, tf.zeros_like(image[:, :, :1, :])], 2)
    return dy, dx


def sobel_edges(image):
    """Sobel responses [N, H, W, C, 2] (vertical, horizontal), reflect-padded."""
    kernels = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]])
    kernels = np.expand_dims(np.transpose(kernels, (1, 2, 0)), -2)
    filters = tf.tile(tf.constant(kernels, dtype=image.dtype), [1, 1, tf.shape(image)[-1], 1])
    padded = tf.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = tf.nn.depthwise_conv2d(padded, filters, [1, 1, 1, 1], "VALID")
    return tf.reshape(out, tf.concat([tf.shape(image), [2]], 0))


def _to_float(max_val, *images):
    max_val = convert_image_dtype(tf.cast(max_val, images[0].dtype), tf.float32)
    return [max_val] + [convert_image_dtype(x, tf.float32) for x in images]


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio between images `a` and `b`, per image."""
    max_val, a, b = _to_float(max_val, a, b)
    mse = tf.reduce_mean(tf.math.squared_difference(a, b), [-3, -2, -1])
    value = tf.subtract(
        20 * tf.math.log(max_val) / tf.math.log(10.0),
        np.float32(10 / np.log(10)) * tf.math.log(mse),
    )
    compatible_images(a, b)
    return tf.identity(value, name=name)


def _gauss(size, sigma):
    coords = tf.cast(tf.range(size), sigma.dtype)
    coords -= tf.cast(size - 1, sigma.dtype) / 2.0
    g = tf.square(coords) * (-0.5 / tf.square(sigma))
    g = tf.reshape(tf.reshape(g, [1, -1]) + tf.reshape(g, [-1, 1]), [1, -1])
    return tf.reshape(tf.nn.softmax(g), [size, size, 1, 1])


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2, index_map=False):
    sigma = tf.constant(filter_sigma, dtype=img1.dtype)
    for img in (img1, img2):
        if img.shape.rank is not None and any(
            d is not None and d < filter_size for d in img.shape.as_list()[-3:-1]
        ):
            raise tf.errors.InvalidArgumentError(
                None, None, f"assertion failed: [{img.shape.as_list()}] [{filter_size}]"
            )
    kernel = tf.tile(_gauss(filter_size, sigma), [1, 1, tf.shape(img1)[-1], 1])

    def reducer(x):
        shape = tf.shape(x)
        x = tf.reshape(x, tf.concat([[-1], shape[-3:]], 0))
        y = tf.nn.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return tf.reshape(y, tf.concat([shape[:-3], tf.shape(y)[1:]], 0))

    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0, mean1 = reducer(img1), reducer(img2)
    num0 = mean0 * mean1 * 2.0
    den0 = tf.square(mean0) + tf.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(img1 * img2) * 2.0
    den1 = reducer(tf.square(img1) + tf.square(img2))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    if index_map:
        return luminance * cs, cs
    return tf.reduce_mean(luminance * cs, [-3, -2]), tf.reduce_mean(cs, [-3, -2])


def _ssim_inputs(img1, img2, max_val):
    img1 = tf.convert_to_tensor(img1, name="img1")
    img2 = tf.convert_to_tensor(img2, name="img2")
    compatible_images(img1, img2)
    return _to_float(max_val, img1, img2)


def ssim(
    img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False
):
    """Structural similarity (Gaussian window), averaged over channels."""
    max_val, img1, img2 = _ssim_inputs(img1, img2, max_val)
    per_channel, _ = _ssim_per_channel(
        img1, img2, max_val, filter_size, filter_sigma, k1, k2, return_index_map
    )
    return tf.reduce_mean(per_channel, [-1])


def _halve(x):
    """Pads odd sizes symmetrically at the end, then 2x2 average pools (flattened batch)."""
    tail = x.shape.as_list()[-3:]
    flat = tf.reshape(x, [-1] + tail)
    rem = [tail[0] % 2, tail[1] % 2]
    if any(rem):
        flat = tf.pad(flat, [[0, 0], [0, rem[0]], [0, rem[1]], [0, 0]], mode="SYMMETRIC")
    down = tf.nn.avg_pool(flat, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    return tf.reshape(down, x.shape.as_list()[:-3] + down.shape.as_list()[1:])


def ssim_multiscale(
    img1,
    img2,
    max_val,
    power_factors=_MSSSIM_WEIGHTS,
    filter_size=11,
    filter_sigma=1.5,
    k1=0.01,
    k2=0.03,
):
    """Multi-scale SSIM: contrast-structure at each scale, SSIM at the coarsest."""
    max_val, img1, img2 = _ssim_inputs(img1, img2, max_val)
    imgs = [img1, img2]
    mcs = []
    for k in range(len(power_factors)):
        if k > 0:
            imgs = [_halve(x) for x in imgs]
        per_channel, cs = _ssim_per_channel(*imgs, max_val, filter_size, filter_sigma, k1, k2)
        mcs.append(tf.nn.relu(cs))
    mcs.pop()
    stacked = tf.stack(mcs + [tf.nn.relu(per_channel)], axis=-1)
    return tf.reduce_mean(tf.reduce_prod(tf.pow(stacked, power_factors), [-1]), [-1])
