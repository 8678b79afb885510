"""Keras's legacy NumPy augmentation functions of `tf.keras.preprocessing.image`: affine
transforms (SciPy's ``ndimage``, absent: Keras's ``ImportError``, unless there is nothing to
transform), channel and brightness shifts (PIL), and their ``random_*`` forms, which draw from
NumPy's global random state as Keras's do."""

import numpy as np

from ferroflow.keras.utils.image_utils import array_to_img, img_to_array

__all__ = [
    "apply_affine_transform",
    "apply_brightness_shift",
    "apply_channel_shift",
    "flip_axis",
    "random_brightness",
    "random_channel_shift",
    "random_rotation",
    "random_shear",
    "random_shift",
    "random_zoom",
]


def flip_axis(x, axis):
    """``x`` reversed along ``axis``."""
    return np.flip(np.asarray(x), axis)


def _scipy_ndimage():
    try:
        import scipy.ndimage
    except ImportError:
        raise ImportError(
            "This requires the scipy module. You can install it via `pip install scipy`"
        ) from None
    return scipy.ndimage


def _offset_center(matrix, x, y):
    o_x, o_y = float(x) / 2 - 0.5, float(y) / 2 - 0.5
    offset = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return offset @ matrix @ reset


def apply_affine_transform(
    x,
    theta=0,
    tx=0,
    ty=0,
    shear=0,
    zx=1,
    zy=1,
    row_axis=1,
    col_axis=2,
    channel_axis=0,
    fill_mode="nearest",
    cval=0.0,
    order=1,
):
    """Rotates (degrees), shifts, shears and zooms one 3-D image with SciPy's
    ``affine_transform`` per channel (the identity needs no SciPy)."""
    if np.unique([row_axis, col_axis, channel_axis]).size != 3:
        raise ValueError("'row_axis', 'col_axis', and 'channel_axis' must be distinct")
    axes = {row_axis, col_axis, channel_axis}
    if axes != {0, 1, 2}:
        raise ValueError(f"Invalid axis' indices: {axes - {0, 1, 2}}")
    if x.ndim != 3:
        raise ValueError("Input arrays must be multi-channel 2D images.")
    if channel_axis not in [0, 2]:
        raise ValueError("Channels are allowed and the first and last dimensions.")
    matrices = []
    if theta != 0:
        t = np.deg2rad(theta)
        matrices.append(
            np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
        )
    if tx != 0 or ty != 0:
        matrices.append(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        s = np.deg2rad(shear)
        matrices.append(np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        matrices.append(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if not matrices:
        return x
    ndimage = _scipy_ndimage()
    matrix = matrices[0]
    for m in matrices[1:]:
        matrix = np.dot(matrix, m)
    matrix = _offset_center(matrix, x.shape[row_axis], x.shape[col_axis])
    x = np.rollaxis(x, channel_axis, 0)
    if col_axis > row_axis:
        matrix[:, [0, 1]] = matrix[:, [1, 0]]
        matrix[[0, 1]] = matrix[[1, 0]]
    channels = [
        ndimage.affine_transform(
            c, matrix[:2, :2], matrix[:2, 2], order=order, mode=fill_mode, cval=cval
        )
        for c in x
    ]
    return np.rollaxis(np.stack(channels, axis=0), 0, channel_axis + 1)


def _affine(x, transform, arguments):
    """`apply_affine_transform` of ``transform`` with the axes and filling of a ``random_*``
    function's ``arguments``."""
    return apply_affine_transform(
        x,
        **transform,
        row_axis=arguments["row_axis"],
        col_axis=arguments["col_axis"],
        channel_axis=arguments["channel_axis"],
        fill_mode=arguments["fill_mode"],
        cval=arguments["cval"],
        order=arguments["interpolation_order"],
    )


def random_rotation(
    x,
    rg,
    row_axis=1,
    col_axis=2,
    channel_axis=0,
    fill_mode="nearest",
    cval=0.0,
    interpolation_order=1,
):
    """`apply_affine_transform` with a rotation drawn from U(-rg, rg) degrees."""
    theta = np.random.uniform(-rg, rg)
    return _affine(x, dict(theta=theta), locals())


def random_shift(
    x,
    wrg,
    hrg,
    row_axis=1,
    col_axis=2,
    channel_axis=0,
    fill_mode="nearest",
    cval=0.0,
    interpolation_order=1,
):
    """`apply_affine_transform` with a shift drawn as fractions of the height and width."""
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return _affine(x, dict(tx=tx, ty=ty), locals())


def random_shear(
    x,
    intensity,
    row_axis=1,
    col_axis=2,
    channel_axis=0,
    fill_mode="nearest",
    cval=0.0,
    interpolation_order=1,
):
    """`apply_affine_transform` with a shear drawn from U(-intensity, intensity) degrees."""
    shear = np.random.uniform(-intensity, intensity)
    return _affine(x, dict(shear=shear), locals())


def random_zoom(
    x,
    zoom_range,
    row_axis=1,
    col_axis=2,
    channel_axis=0,
    fill_mode="nearest",
    cval=0.0,
    interpolation_order=1,
):
    """`apply_affine_transform` with zooms drawn from U(*zoom_range) (none for (1, 1))."""
    if len(zoom_range) != 2:
        raise ValueError(
            f"`zoom_range` should be a tuple or list of two floats. Received: {zoom_range}"
        )
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1, 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return _affine(x, dict(zx=zx, zy=zy), locals())


def apply_channel_shift(x, intensity, channel_axis=0):
    """Adds ``intensity`` to every channel, clipped to the image's own min and max."""
    x = np.rollaxis(x, channel_axis, 0)
    low, high = np.min(x), np.max(x)
    x = np.stack([np.clip(c + intensity, low, high) for c in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


def random_channel_shift(x, intensity_range, channel_axis=0):
    """`apply_channel_shift` by U(-intensity_range, intensity_range)."""
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


def apply_brightness_shift(x, brightness, scale=True):
    """PIL's ``ImageEnhance.Brightness(brightness)`` of the image ``x``."""
    from PIL import ImageEnhance

    low, high = np.min(x), np.max(x)
    local_scale = (low < 0) or (high > 255)
    img = array_to_img(x, scale=local_scale or scale)
    x = img_to_array(ImageEnhance.Brightness(img).enhance(brightness))
    if not scale and local_scale:
        x = x / 255 * (high - low) + low
    return x


def random_brightness(x, brightness_range, scale=True):
    """`apply_brightness_shift` by U(*brightness_range)."""
    if len(brightness_range) != 2:
        raise ValueError(
            f"`brightness_range should be tuple or list of two floats. Received: {brightness_range}"
        )
    return apply_brightness_shift(
        x, np.random.uniform(brightness_range[0], brightness_range[1]), scale
    )
