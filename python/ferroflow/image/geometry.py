"""Flips, rotations, crops and pads of images ([H, W, C] or [N, H, W, C])."""

import ferroflow as tf

from ._checks import as_batch, at_least_3d, check, dims, is_tensor, rank_3_or_4


def _flip(image, axis):
    image = at_least_3d(image)
    rank = rank_3_or_4(image)
    return tf.reverse(image, [axis + rank - 3])


def flip_left_right(image):
    """Reverses the width axis of an image or a batch of images."""
    return _flip(image, 1)


def flip_up_down(image):
    """Reverses the height axis of an image or a batch of images."""
    return _flip(image, 0)


def transpose(image, name=None):
    """Swaps height and width."""
    image = at_least_3d(image)
    perm = [1, 0, 2] if rank_3_or_4(image) == 3 else [0, 2, 1, 3]
    return tf.transpose(image, perm, name=name)


def _rot90_static(image, k, h):
    if k == 1:
        return transpose(tf.reverse(image, [h + 1]))
    if k == 2:
        return tf.reverse(image, [h, h + 1])
    if k == 3:
        return tf.reverse(transpose(image), [h + 1])
    return image


def rot90(image, k=1, name=None):
    """Rotates by `k` quarter turns counter-clockwise."""
    image = at_least_3d(image)
    k = tf.convert_to_tensor(k, dtype=tf.int32, name="k")
    if k.shape.rank != 0:
        raise ValueError(f"Shape {k.shape} must have rank 0")
    k = tf.math.floormod(k, 4)
    h = rank_3_or_4(image) - 3
    try:
        static = int(tf.get_static_value(k))
    except TypeError:
        static = None
    if static is not None:
        return tf.identity(_rot90_static(image, static, h), name=name)
    branches = [lambda q=q: _rot90_static(image, q, h) for q in range(4)]
    return tf.switch_case(k, branches, name=name)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The [target_height, target_width] window at (offset_height, offset_width)."""
    image, batched = as_batch(image)
    at_least_3d(image)
    _, height, width, _ = dims(image)
    check(offset_width >= 0, "offset_width must be >= 0.")
    check(offset_height >= 0, "offset_height must be >= 0.")
    check(target_width > 0, "target_width must be > 0.")
    check(target_height > 0, "target_height must be > 0.")
    check(width >= target_width + offset_width, "width must be >= target + offset.")
    check(height >= target_height + offset_height, "height must be >= target + offset.")
    cropped = tf.slice(
        image,
        tf.stack([0, offset_height, offset_width, 0]),
        tf.stack([-1, target_height, target_width, -1]),
    )
    return cropped if batched else tf.squeeze(cropped, axis=[0])


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Pads with zeros to [target_height, target_width], the image at the offsets."""
    image, batched = as_batch(image)
    _, height, width, _ = dims(image)
    after_width = target_width - offset_width - width
    after_height = target_height - offset_height - height
    at_least_3d(image)
    check(offset_height >= 0, "offset_height must be >= 0")
    check(offset_width >= 0, "offset_width must be >= 0")
    check(after_width >= 0, "width must be <= target - offset")
    check(after_height >= 0, "height must be <= target - offset")
    paddings = tf.reshape(
        tf.stack([0, 0, offset_height, after_height, offset_width, after_width, 0, 0]), [4, 2]
    )
    padded = tf.pad(image, paddings)
    return padded if batched else tf.squeeze(padded, axis=[0])


def _max(x, y):
    return tf.maximum(x, y) if is_tensor(x) or is_tensor(y) else max(x, y)


def _min(x, y):
    return tf.minimum(x, y) if is_tensor(x) or is_tensor(y) else min(x, y)


def resize_with_crop_or_pad(image, target_height, target_width):
    """Crops centrally or pads evenly with zeros to [target_height, target_width]."""
    image, batched = as_batch(image)
    at_least_3d(image)
    check(target_width > 0, "target_width must be > 0.")
    check(target_height > 0, "target_height must be > 0.")
    _, height, width, _ = dims(image)
    width_diff = target_width - width
    height_diff = target_height - height
    cropped = crop_to_bounding_box(
        image,
        _max(-height_diff // 2, 0),
        _max(-width_diff // 2, 0),
        _min(target_height, height),
        _min(target_width, width),
    )
    resized = pad_to_bounding_box(
        cropped, _max(height_diff // 2, 0), _max(width_diff // 2, 0), target_height, target_width
    )
    return resized if batched else tf.squeeze(resized, axis=[0])


def _start(size, fraction):
    if is_tensor(size) or is_tensor(fraction):
        size = tf.cast(size, tf.float64)
        return tf.cast((size - size * tf.cast(fraction, tf.float64)) / 2, tf.int32)
    return int((float(size) - float(size) * fraction) / 2)


def central_crop(image, central_fraction):
    """The central `central_fraction` of each spatial axis."""
    image = tf.convert_to_tensor(image, name="image")
    fraction = tf.get_static_value(central_fraction) if is_tensor(central_fraction) else None
    fraction = central_fraction if not is_tensor(central_fraction) else fraction
    if fraction is not None:
        if fraction <= 0.0 or fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if fraction == 1.0:
            return image
    at_least_3d(image)
    rank = image.shape.rank
    if rank not in (3, 4):
        raise ValueError(
            f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}."
        )
    frac = central_fraction if fraction is None else fraction
    sizes = dims(image)[rank - 3 : rank - 1]
    starts = [_start(s, frac) for s in sizes]
    lengths = [s - 2 * b for s, b in zip(sizes, starts)]
    lead = [0] if rank == 4 else []
    lead_size = [-1] if rank == 4 else []
    return tf.slice(image, tf.stack(lead + starts + [0]), tf.stack(lead_size + lengths + [-1]))
