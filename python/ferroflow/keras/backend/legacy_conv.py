"""The legacy Keras 2 ``K.*`` convolutions, poolings and resizes over ferroflow's ops: the
layout comes from ``data_format`` (default `image_data_format`), padding is ``"valid"`` or
``"same"`` (``conv1d`` also takes ``"causal"``)."""

import ferroflow as tf
from ferroflow.keras._backend_config import image_data_format
from ferroflow.keras.backend.legacy_array import repeat_elements, temporal_padding

__all__ = [
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "depthwise_conv2d",
    "pool2d",
    "pool3d",
    "resize_images",
    "resize_volumes",
    "separable_conv2d",
]

_LAYOUTS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def _layout(data_format, spatial):
    """The TensorFlow layout string of ``data_format`` for ``spatial`` dimensions."""
    data_format = image_data_format() if data_format is None else data_format
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    return _LAYOUTS[spatial][data_format == "channels_first"]


def _padding(padding):
    if padding not in ("same", "valid"):
        raise ValueError(f"Invalid padding: {padding}")
    return padding.upper()


def _full(values, layout):
    """Per-spatial-axis ``values`` as the per-axis list of the ``layout``."""
    values = tuple(values)
    return (1, *values, 1) if layout.endswith("C") else (1, 1, *values)


def _convolution(x, kernel, strides, padding, data_format, dilation_rate, spatial):
    layout = _layout(data_format, spatial)
    padding = _padding(padding)
    if spatial == 3:
        # ferroflow's `nn.convolution` stops at 2-D and its `conv3d` computes channels-last
        # only (TensorFlow's CPU kernels take both): transpose around it, which is exact.
        first = layout == "NCDHW"
        x = tf.transpose(x, (0, 2, 3, 4, 1)) if first else x
        out = tf.nn.conv3d(
            x,
            kernel,
            strides=_full(strides, "NDHWC"),
            padding=padding,
            data_format="NDHWC",
            dilations=_full(dilation_rate, "NDHWC"),
        )
        return tf.transpose(out, (0, 4, 1, 2, 3)) if first else out
    return tf.nn.convolution(
        x, kernel, strides=strides, padding=padding, data_format=layout, dilations=dilation_rate
    )


def conv1d(x, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """1-D convolution of ``x`` with ``kernel`` ``(width, in, out)``."""
    _layout(data_format, 1)
    if padding == "causal":
        x = temporal_padding(x, (dilation_rate * (kernel.shape[0] - 1), 0))
        padding = "valid"
    return _convolution(x, kernel, strides, padding, data_format, dilation_rate, 1)


def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    """2-D convolution of ``x`` with ``kernel`` ``(h, w, in, out)``."""
    return _convolution(x, kernel, strides, padding, data_format, dilation_rate, 2)


def conv3d(
    x, kernel, strides=(1, 1, 1), padding="valid", data_format=None, dilation_rate=(1, 1, 1)
):
    """3-D convolution of ``x`` with ``kernel`` ``(d, h, w, in, out)``."""
    return _convolution(x, kernel, strides, padding, data_format, dilation_rate, 3)


def conv2d_transpose(
    x,
    kernel,
    output_shape,
    strides=(1, 1),
    padding="valid",
    data_format=None,
    dilation_rate=(1, 1),
):
    """Transposed 2-D convolution of ``x`` with ``kernel`` ``(h, w, out, in)`` to
    ``output_shape`` (its batch may be None)."""
    layout = _layout(data_format, 2)
    padding = _padding(padding)
    dilated = tuple(dilation_rate) != (1, 1)
    if dilated and dilation_rate[0] != dilation_rate[1]:
        raise ValueError(
            "Expected the 2 dimensions of the `dilation_rate` argument to be equal to each "
            f"other. Received: dilation_rate={dilation_rate}"
        )
    output_shape = tuple(output_shape)
    if dilated and layout == "NCHW":
        # Dilated transposed convolutions exist channels-last only.
        x = tf.transpose(x, (0, 2, 3, 1))
        output_shape = (output_shape[0], *output_shape[2:], output_shape[1])
    if output_shape[0] is None:
        output_shape = (tf.shape(x)[0], *output_shape[1:])
    output_shape = tf.stack(list(output_shape))
    if dilated:
        out = tf.nn.atrous_conv2d_transpose(x, kernel, output_shape, dilation_rate[0], padding)
        return tf.transpose(out, (0, 3, 1, 2)) if layout == "NCHW" else out
    return tf.nn.conv2d_transpose(
        x, kernel, output_shape, _full(strides, layout), padding=padding, data_format=layout
    )


def depthwise_conv2d(
    x, depthwise_kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)
):
    """Depthwise 2-D convolution with ``depthwise_kernel`` ``(h, w, in, multiplier)``."""
    layout = _layout(data_format, 2)
    return tf.nn.depthwise_conv2d(
        x,
        depthwise_kernel,
        strides=_full(strides, layout),
        padding=_padding(padding),
        dilations=dilation_rate,
        data_format=layout,
    )


def separable_conv2d(
    x,
    depthwise_kernel,
    pointwise_kernel,
    strides=(1, 1),
    padding="valid",
    data_format=None,
    dilation_rate=(1, 1),
):
    """A depthwise 2-D convolution followed by a 1x1 ``pointwise_kernel`` one."""
    layout = _layout(data_format, 2)
    if len(strides) != 2:
        raise ValueError("`strides` must be a tuple of 2 integers.")
    return tf.nn.separable_conv2d(
        x,
        depthwise_kernel,
        pointwise_kernel,
        strides=_full(strides, layout),
        padding=_padding(padding),
        dilations=dilation_rate,
        data_format=layout,
    )


def _pool(x, pool_size, strides, padding, layout, pool_mode, ops):
    padding = _padding(padding)
    if pool_mode not in ops:
        raise ValueError(f"Invalid pooling mode: {pool_mode}")
    return ops[pool_mode](
        x, _full(pool_size, layout), _full(strides, layout), padding=padding, data_format=layout
    )


def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    """2-D max (``pool_mode="max"``) or average (``"avg"``) pooling."""
    layout = _layout(data_format, 2)
    if len(pool_size) != 2:
        raise ValueError("`pool_size` must be a tuple of 2 integers.")
    if len(strides) != 2:
        raise ValueError("`strides` must be a tuple of 2 integers.")
    ops = {"max": tf.nn.max_pool2d, "avg": tf.nn.avg_pool2d}
    return _pool(x, pool_size, strides, padding, layout, pool_mode, ops)


def pool3d(x, pool_size, strides=(1, 1, 1), padding="valid", data_format=None, pool_mode="max"):
    """3-D max (``pool_mode="max"``) or average (``"avg"``) pooling."""
    layout = _layout(data_format, 3)
    ops = {"max": tf.nn.max_pool3d, "avg": tf.nn.avg_pool3d}
    return _pool(x, pool_size, strides, padding, layout, pool_mode, ops)


_INTERPOLATIONS = (
    "area",
    "bicubic",
    "bilinear",
    "gaussian",
    "lanczos3",
    "lanczos5",
    "mitchellcubic",
    "nearest",
)


def resize_images(x, height_factor, width_factor, data_format, interpolation="nearest"):
    """A 4-D batch of images resized by integer factors with `tf.image.resize`."""
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Invalid `data_format` argument: {data_format}")
    first = data_format == "channels_first"
    if interpolation not in _INTERPOLATIONS:
        names = '"' + '", "'.join(_INTERPOLATIONS) + '"'
        raise ValueError(
            f'`interpolation` argument should be one of: {names}. Received: "{interpolation}".'
        )
    rows = 2 if first else 1
    dims = x.shape[rows : rows + 2]
    size = list(dims) if None not in dims else tf.shape(x)[rows : rows + 2]
    size = size * tf.constant([height_factor, width_factor], dtype="int32")
    if first:
        x = tf.transpose(x, [0, 2, 3, 1])
    method = "nearest" if interpolation == "nearest" else interpolation
    x = tf.image.resize(x, size, method=method)
    return tf.transpose(x, [0, 3, 1, 2]) if first else x


def resize_volumes(x, depth_factor, height_factor, width_factor, data_format):
    """A 5-D batch of volumes with each voxel repeated by the integer factors."""
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Invalid data_format: {data_format}")
    axis = 2 if data_format == "channels_first" else 1
    for i, factor in enumerate((depth_factor, height_factor, width_factor)):
        x = repeat_elements(x, factor, axis=axis + i)
    return x
