"""Per-axis resampling weights: TensorFlow's ScaleAndTranslate spans, the ResizeBicubic table
and ResizeArea overlaps, as dense [out, in] float32 matrices built with tensor ops (so sizes
may be tensors and gradients flow through the matmuls that apply them)."""

import math

import numpy as np

import ferroflow as tf


def _lanczos(radius):
    def kernel(x):
        small = x <= 1e-3
        safe = tf.where(small, tf.ones_like(x), x)
        pi_x = math.pi * safe
        value = radius * tf.sin(pi_x) * tf.sin(pi_x / radius) / (math.pi * math.pi * safe * safe)
        return tf.where(x > radius, tf.zeros_like(x), tf.where(small, tf.ones_like(x), value))

    return kernel, float(radius)


def _gaussian(x):
    sigma = 0.5
    return tf.where(x >= 3.0 * sigma, tf.zeros_like(x), tf.exp(-x * x / (2.0 * sigma * sigma)))


def _triangle(x):
    return tf.where(x >= 1.0, tf.zeros_like(x), 1.0 - x)


def _keys_cubic(x):
    near = ((1.5 * x - 2.5) * x) * x + 1.0
    far = ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return tf.where(x >= 2.0, tf.zeros_like(x), tf.where(x >= 1.0, far, near))


def _mitchell_cubic(x):
    near = (((7.0 / 6.0) * x - 2.0) * x) * x + 8.0 / 9.0
    far = (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0
    return tf.where(x >= 2.0, tf.zeros_like(x), tf.where(x >= 1.0, far, near))


def _box(x):
    half = tf.where(tf.equal(x, 0.5), 0.5 * tf.ones_like(x), tf.zeros_like(x))
    return tf.where(x < 0.5, tf.ones_like(x), half)


KERNELS = {
    "lanczos1": _lanczos(1),
    "lanczos3": _lanczos(3),
    "lanczos5": _lanczos(5),
    "gaussian": (_gaussian, 1.5),
    "box": (_box, 1.0),
    "triangle": (_triangle, 1.0),
    "keyscubic": (_keys_cubic, 2.0),
    "mitchellcubic": (_mitchell_cubic, 2.0),
}


def scale_and_translate_weights(kernel_type, in_size, out_size, scale, translate, antialias):
    """[out, in] weights of TensorFlow's ScaleAndTranslate along one axis.

    Output pixel x samples the input at (x + 0.5) / scale - translate / scale; inputs within
    the kernel's radius (stretched by 1 / scale when antialiasing a downscale) are weighted by
    the kernel and the row normalised; a sample outside [0, in_size] gives a zero row."""
    kernel, radius = KERNELS[kernel_type]
    scale = tf.cast(scale, tf.float32)
    inv_scale = 1.0 / scale
    inv_translate = -inv_scale * tf.cast(translate, tf.float32)
    kernel_scale = tf.maximum(inv_scale, 1.0) if antialias else tf.constant(1.0)
    in_f = tf.cast(in_size, tf.float32)
    sample = (tf.cast(tf.range(out_size), tf.float32) + 0.5) * inv_scale + inv_translate
    sample = sample[:, None]
    reach = radius * kernel_scale
    start = tf.clip_by_value(tf.math.ceil(sample - reach - 0.5), 0.0, in_f - 1.0)
    end = tf.clip_by_value(tf.floor(sample + reach - 0.5), 0.0, in_f - 1.0) + 1.0
    source = tf.cast(tf.range(in_size), tf.float32)[None, :]
    weights = kernel(tf.abs((source + 0.5 - sample) * (1.0 / kernel_scale)))
    inside = (source >= start) & (source < end) & (sample >= 0.0) & (sample <= in_f)
    weights = tf.where(inside, weights, tf.zeros_like(weights))
    total = tf.reduce_sum(weights, axis=1, keepdims=True)
    tiny = 1000.0 * float(np.finfo(np.float32).tiny)
    return tf.where(tf.abs(total) >= tiny, weights * (1.0 / total), weights)


def _keys_table():
    """TensorFlow's ResizeBicubic coefficient table (a = -0.5, 1024 steps), float32."""
    a = -0.5
    x = np.arange(1025, dtype=np.float64) / 1024
    near = (((a + 2) * x - (a + 3)) * x * x + 1).astype(np.float32)
    x1 = (x + 1.0).astype(np.float32).astype(np.float64)
    far = (((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a).astype(np.float32)
    return near, far


_NEAR, _FAR = _keys_table()


def bicubic_weights(in_size, out_size):
    """[out, in] weights of ResizeBicubic with half-pixel centres (Keys, a = -0.5).

    The fractional position is rounded to 1/1024 (the kernel's table); taps outside the image
    get no weight and the four weights are renormalised."""
    scale = tf.cast(in_size, tf.float32) / tf.cast(out_size, tf.float32)
    pos = (tf.cast(tf.range(out_size), tf.float32) + 0.5) * scale - 0.5
    base = tf.floor(pos)
    offset = tf.cast(tf.round((pos - base) * 1024.0), tf.int32)
    taps = [
        tf.gather(_FAR, offset),
        tf.gather(_NEAR, offset),
        tf.gather(_NEAR, 1024 - offset),
        tf.gather(_FAR, 1024 - offset),
    ]
    base = tf.cast(base, tf.int32)
    in_size = tf.cast(in_size, tf.int32)
    cols = []
    for k, w in enumerate(taps):
        idx = base + (k - 1)
        valid = (idx >= 0) & (idx < in_size)
        cols.append((tf.where(valid, w, tf.zeros_like(w)), tf.clip_by_value(idx, 0, in_size - 1)))
    total = tf.add_n([w for w, _ in cols])
    tiny = 1000.0 * float(np.finfo(np.float32).tiny)
    norm = tf.where(tf.abs(total) >= tiny, 1.0 / total, tf.ones_like(total))
    return tf.add_n(
        [tf.one_hot(i, in_size, dtype=tf.float32) * (w * norm)[:, None] for w, i in cols]
    )


def area_weights(in_size, out_size):
    """[out, in] weights of ResizeArea: the overlap of each output cell with each input cell,
    divided by the cell size (in / out)."""
    scale = tf.cast(in_size, tf.float32) / tf.cast(out_size, tf.float32)
    out = tf.cast(tf.range(out_size), tf.float32)[:, None]
    lo, hi = out * scale, (out + 1.0) * scale
    source = tf.cast(tf.range(in_size), tf.float32)[None, :]
    overlap = tf.minimum(source + 1.0, hi) - tf.maximum(source, lo)
    return tf.maximum(overlap, 0.0) / scale
