"""Random augmentations: the stateful ones draw from `tf.random.uniform`, the stateless ones
from `tf.random.stateless_uniform` exactly as TensorFlow does, so a stateless call gives
TensorFlow's numbers for the same seed."""

import functools

import ferroflow as tf

from ._checks import at_least_3d
from .color import adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation


def _stateful(seed):
    return functools.partial(tf.random.uniform, seed=seed)


def _stateless(seed):
    return functools.partial(tf.random.stateless_uniform, seed=seed)


def _random_flip(image, axis, uniform):
    image = at_least_3d(image)
    rank = image.shape.rank
    if rank == 3:
        flip = tf.less(uniform(shape=[], minval=0, maxval=1.0), 0.5)
        return tf.cond(flip, lambda: tf.reverse(image, [axis]), lambda: image)
    if rank == 4:
        batch = tf.shape(image)[0]
        flips = tf.round(tf.reshape(uniform(shape=[batch], minval=0, maxval=1.0), [batch, 1, 1, 1]))
        flips = tf.cast(flips, image.dtype)
        return flips * tf.reverse(image, [axis + 1]) + (1 - flips) * image
    raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


def random_flip_left_right(image, seed=None):
    """Flips left-right with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, 1, _stateful(seed))


def random_flip_up_down(image, seed=None):
    """Flips up-down with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, 0, _stateful(seed))


def stateless_random_flip_left_right(image, seed):
    """`random_flip_left_right` drawn from the stateless generator with `seed` ([2] ints)."""
    return _random_flip(image, 1, _stateless(seed))


def stateless_random_flip_up_down(image, seed):
    """`random_flip_up_down` drawn from the stateless generator with `seed` ([2] ints)."""
    return _random_flip(image, 0, _stateless(seed))


def _delta(max_delta, uniform):
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return uniform(shape=[], minval=-max_delta, maxval=max_delta)


def _factor(lower, upper, uniform):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return uniform(shape=[], minval=lower, maxval=upper)


def _hue_delta(max_delta, uniform):
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    return _delta(max_delta, uniform)


def random_brightness(image, max_delta, seed=None):
    """`adjust_brightness` by a delta uniform in [-max_delta, max_delta)."""
    return adjust_brightness(image, _delta(max_delta, _stateful(seed)))


def stateless_random_brightness(image, max_delta, seed):
    """`random_brightness` drawn from the stateless generator with `seed`."""
    return adjust_brightness(image, _delta(max_delta, _stateless(seed)))


def random_contrast(image, lower, upper, seed=None):
    """`adjust_contrast` by a factor uniform in [lower, upper)."""
    return adjust_contrast(image, _factor(lower, upper, _stateful(seed)))


def stateless_random_contrast(image, lower, upper, seed):
    """`random_contrast` drawn from the stateless generator with `seed`."""
    return adjust_contrast(image, _factor(lower, upper, _stateless(seed)))


def random_saturation(image, lower, upper, seed=None):
    """`adjust_saturation` by a factor uniform in [lower, upper)."""
    return adjust_saturation(image, _factor(lower, upper, _stateful(seed)))


def stateless_random_saturation(image, lower, upper, seed=None):
    """`random_saturation` drawn from the stateless generator with `seed`."""
    return adjust_saturation(image, _factor(lower, upper, _stateless(seed)))


def random_hue(image, max_delta, seed=None):
    """`adjust_hue` by a delta uniform in [-max_delta, max_delta), max_delta <= 0.5."""
    return adjust_hue(image, _hue_delta(max_delta, _stateful(seed)))


def stateless_random_hue(image, max_delta, seed):
    """`random_hue` drawn from the stateless generator with `seed`."""
    return adjust_hue(image, _hue_delta(max_delta, _stateless(seed)))


def _random_crop(value, size, uniform, name):
    value = tf.convert_to_tensor(value, name="value")
    size = tf.convert_to_tensor(size, dtype=tf.int32, name="size")
    shape = tf.shape(value)
    tf.debugging.Assert(
        tf.reduce_all(shape >= size),
        ["Need value.shape >= size, got ", shape, size],
        summarize=1000,
    )
    limit = shape - size + 1
    offset = uniform(shape=tf.shape(shape), dtype=size.dtype, maxval=size.dtype.max) % limit
    return tf.slice(value, offset, size, name=name)


def random_crop(value, size, seed=None, name=None):
    """A window of shape `size` at a uniformly random offset."""
    return _random_crop(value, size, _stateful(seed), name)


def stateless_random_crop(value, size, seed, name=None):
    """`random_crop` drawn from the stateless generator with `seed`."""
    return _random_crop(value, size, _stateless(seed), name)
