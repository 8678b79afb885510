"""`tf.nn` convolution and pooling, and `tf.image.extract_patches`: TensorFlow's argument
spellings (an int, or lists of 1, 2 or 4 values; NHWC or NCHW; padding names or explicit
pads) normalised to the `[rows, cols]` pairs the core takes."""

import operator
import warnings

from ferroflow import _core
from ferroflow.array_ops import convert_to_tensor, expand_dims, squeeze, transpose
from ferroflow.errors import InvalidArgumentError, UnimplementedError

__all__ = [
    "avg_pool",
    "avg_pool1d",
    "avg_pool2d",
    "conv1d",
    "conv2d",
    "convolution",
    "depthwise_conv2d",
    "extract_patches",
    "max_pool",
    "max_pool1d",
    "max_pool2d",
    "separable_conv2d",
]


def _ints(value, name):
    """An int, or a list of ints (numpy integers and 0-d arrays included), as a list."""
    try:
        return [operator.index(value)]
    except TypeError:
        pass
    try:
        return [operator.index(v) for v in value]
    except TypeError:
        raise ValueError(f"{name} must be an int or a list of ints, got {value!r}") from None


def _pair(value, name, channels_first=False):
    """[rows, cols] from an int or a list of 1, 2 or 4 (batch and depth entries must be 1)."""
    if value is None:
        return [1, 1]
    values = _ints(value, name)
    if len(values) == 1:
        return values * 2
    if len(values) == 2:
        return values
    if len(values) == 4:
        outer = (values[0], values[1]) if channels_first else (values[0], values[3])
        if outer != (1, 1):
            raise ValueError(
                f"{name} in the batch and depth dimensions must be 1, got {values}: "
                "the current implementation does not support them"
            )
        return values[2:] if channels_first else values[1:3]
    raise ValueError(f"{name} must be an int or a list of 1, 2 or 4 ints, got {value}")


def _padding(padding, channels_first=False):
    """(name, explicit pads or None)."""
    if isinstance(padding, str):
        name = padding.upper()
        if name not in ("SAME", "VALID"):
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed "
                'values: "SAME", "VALID", "EXPLICIT"',
            )
        return name, None
    pads = [[int(a), int(b)] for a, b in padding]
    if len(pads) != 4:
        raise ValueError(f"explicit padding needs one pair per dimension (4), got {padding}")
    spatial = pads[2:] if channels_first else pads[1:3]
    outer = pads[:2] if channels_first else [pads[0], pads[3]]
    if outer != [[0, 0], [0, 0]]:
        raise ValueError(
            f"explicit padding of the batch and depth dimensions must be 0, got {padding}"
        )
    return "EXPLICIT", [spatial[0][0], spatial[0][1], spatial[1][0], spatial[1][1]]


def _channels_first(data_format, last, first):
    if data_format in (None, last):
        return False
    if data_format == first:
        return True
    raise ValueError(f"data_format must be {last!r} or {first!r}, got {data_format!r}")


def _nhwc(x, channels_first):
    return transpose(x, [0, 2, 3, 1]) if channels_first else x


def _back(y, channels_first):
    return transpose(y, [0, 3, 1, 2]) if channels_first else y


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    first = _channels_first(data_format, "NHWC", "NCHW")
    name_, explicit = _padding(padding, first)
    y = _core.conv2d(
        _nhwc(input, first),
        filters,
        _pair(strides, "strides", first),
        _pair(dilations, "dilations", first),
        name_,
        explicit,
    )
    return _back(y, first)


def conv2d_backprop_input(
    input_sizes, filters, out_backprop, strides, padding, data_format="NHWC", dilations=None
):
    """TensorFlow's Conv2DBackpropInput: the input gradient of `conv2d` for an image of
    `input_sizes` (four ints, in `data_format`'s order), without running the convolution."""
    first = _channels_first(data_format, "NHWC", "NCHW")
    name_, explicit = _padding(padding, first)
    sizes = [int(d) for d in input_sizes]
    if first and len(sizes) == 4:
        sizes = [sizes[0], sizes[2], sizes[3], sizes[1]]
    y = _core.conv2d_backprop_input(
        sizes,
        filters,
        _nhwc(out_backprop, first),
        _pair(strides, "strides", first),
        _pair(dilations, "dilations", first),
        name_,
        explicit,
    )
    return _back(y, first)


def _depthwise_strides(strides, channels_first):
    """[rows, cols] from the native op's list of 4 strides (batch and depth entries 1)."""
    if not isinstance(strides, (list, tuple)):
        raise TypeError(
            "Expected list for 'strides' argument to 'depthwise_conv2d_native' Op, "
            f"not {strides!r}."
        )
    values = _ints(strides, "strides")
    if len(values) != 4:
        raise InvalidArgumentError(
            None, None, "Sliding window strides field must specify 4 or 5 dimensions"
        )
    outer = (values[0], values[1]) if channels_first else (values[0], values[3])
    if outer != (1, 1):
        raise UnimplementedError(
            None,
            None,
            "Current implementation does not yet support strides in the batch and depth "
            "dimensions.",
        )
    return values[2:] if channels_first else values[1:3]


def _dilation_rate(dilations):
    """[rows, cols] from `dilations` (TensorFlow's `rate`: a list of 2 positive ints)."""
    if dilations is None:
        return [1, 1]
    try:
        values = [operator.index(v) for v in dilations]
    except TypeError:
        raise TypeError(f"dilations must be a list of 2 ints, got {dilations!r}") from None
    if len(values) != 2:
        raise ValueError(f"dilations must be a list of 2 ints (rows, cols), got {dilations!r}")
    if min(values) < 1:
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={values}")
    return values


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):
    """Convolves each input channel with its own ``channel_multiplier`` filters.

    ``filter`` is ``[filter_height, filter_width, in_channels, channel_multiplier]``; the output
    has ``in_channels * channel_multiplier`` channels (channel ``k * multiplier + q`` is
    channel ``k`` convolved with ``filter[:, :, k, q]``). One ``DepthwiseConv2dNative`` node.

    >>> import ferroflow as tf
    >>> x = tf.reshape(tf.range(1.0, 7.0), [1, 3, 2, 1])
    >>> kernel = tf.reshape(tf.constant([1.0, 2.0, 3.0, 4.0]), [2, 1, 1, 2])
    >>> tf.nn.depthwise_conv2d(x, kernel, [1, 1, 1, 1], "VALID").numpy().tolist()
    [[[[10.0, 14.0], [14.0, 20.0]], [[18.0, 26.0], [22.0, 32.0]]]]
    """
    first = _channels_first(data_format, "NHWC", "NCHW")
    pair = _depthwise_strides(strides, first)
    rates = _dilation_rate(dilations)
    if max(rates) > 1 and any(s != 1 for s in strides):
        # TensorFlow warns and then computes through space_to_batch, which does not follow its
        # documented formula; ferroflow computes the formula (a strided, dilated window).
        warnings.warn(
            "When dilation rate is greater than 1, then all values of strides must be 1. "
            f"Received: `dilation rate` {list(dilations)} and `strides` {strides}",
            stacklevel=2,
        )
    if isinstance(padding, str) and padding not in ("SAME", "VALID"):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
            '"SAME", "VALID", "EXPLICIT"',
        )
    padding_name, explicit = _padding(padding, first)
    y = _core.depthwise_conv2d(_nhwc(input, first), filter, pair, rates, padding_name, explicit)
    return _back(y, first)


def separable_conv2d(
    input,
    depthwise_filter,
    pointwise_filter,
    strides,
    padding,
    data_format=None,
    dilations=None,
    name=None,
):
    """A depthwise convolution, then a 1x1 convolution mixing its channels (as TensorFlow
    composes it: a ``DepthwiseConv2dNative`` and a ``Conv2D`` node).

    ``pointwise_filter`` is ``[1, 1, in_channels * channel_multiplier, out_channels]``.

    >>> import ferroflow as tf
    >>> x = tf.ones([1, 3, 3, 2])
    >>> y = tf.nn.separable_conv2d(x, tf.ones([2, 2, 2, 1]), tf.ones([1, 1, 2, 3]),
    ...                            [1, 1, 1, 1], "VALID")
    >>> y.shape, float(y[0, 0, 0, 0])
    (TensorShape([1, 2, 2, 3]), 8.0)
    """
    pointwise_filter = convert_to_tensor(pointwise_filter)
    shape = pointwise_filter.shape
    if len(shape) != 4:
        raise ValueError(f"Shape {shape} must have rank 4")
    for size in (shape[0], shape[1]):
        if size != 1:
            raise ValueError(f"Dimensions {size} and 1 are not compatible")
    depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], "VALID", data_format or "NHWC")


def _widen_1d(value, name, channels_first=False):
    """[1, width] from an int or a list of 1 or 3 (batch and channel entries must be 1)."""
    if value is None:
        return [1, 1]
    values = _ints(value, name)
    if len(values) == 1:
        return [1, values[0]]
    if len(values) == 3:
        outer = (values[0], values[1]) if channels_first else (values[0], values[2])
        if outer != (1, 1):
            raise ValueError(f"{name} in the batch and channel dimensions must be 1, got {values}")
        return [1, values[2] if channels_first else values[1]]
    raise ValueError(f"{name} must be an int or a list of 1 or 3 ints, got {value}")


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    first = _channels_first(data_format, "NWC", "NCW")
    if not isinstance(padding, str):
        raise ValueError(f"conv1d padding must be 'SAME' or 'VALID', got {padding!r}")
    x = expand_dims(input, 2 if first else 1)
    y = conv2d(
        x,
        expand_dims(filters, 0),
        _widen_1d(stride, "stride", first),
        padding,
        "NCHW" if first else "NHWC",
        _widen_1d(dilations, "dilations", first),
    )
    return squeeze(y, [2 if first else 1])


def convolution(
    input, filters, strides=None, padding="VALID", data_format=None, dilations=None, name=None
):
    input = convert_to_tensor(input)
    rank = len(input.shape)
    if rank == 3:
        return conv1d(input, filters, strides or 1, padding, data_format or "NWC", dilations)
    if rank == 4:
        return conv2d(input, filters, strides or 1, padding, data_format or "NHWC", dilations)
    raise ValueError(f"convolution supports 1-D and 2-D inputs (rank 3 or 4), got rank {rank}")


def _pool2d(kind, input, ksize, strides, padding, data_format):
    first = _channels_first(data_format, "NHWC", "NCHW")
    if not isinstance(padding, str):
        raise ValueError(f"pooling padding must be 'SAME' or 'VALID', got {padding!r}")
    name, _ = _padding(padding)
    y = _core.pool2d(
        kind,
        _nhwc(input, first),
        _pair(ksize, "ksize", first),
        _pair(strides, "strides", first),
        name,
    )
    return _back(y, first)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    return _pool2d("MAX", input, ksize, strides, padding, data_format)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    return _pool2d("AVG", input, ksize, strides, padding, data_format)


def _pool1d(kind, input, ksize, strides, padding, data_format):
    first = _channels_first(data_format, "NWC", "NCW")
    x = expand_dims(input, 2 if first else 1)
    y = _pool2d(
        kind,
        x,
        _widen_1d(ksize, "ksize", first),
        _widen_1d(strides, "strides", first),
        padding,
        "NCHW" if first else "NHWC",
    )
    return squeeze(y, [2 if first else 1])


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    return _pool1d("MAX", input, ksize, strides, padding, data_format)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    return _pool1d("AVG", input, ksize, strides, padding, data_format)


def _pool(kind, input, ksize, strides, padding, data_format):
    input = convert_to_tensor(input)
    rank = len(input.shape)
    if rank == 3:
        return _pool1d(kind, input, ksize, strides, padding, data_format or "NWC")
    if rank == 4:
        return _pool2d(kind, input, ksize, strides, padding, data_format or "NHWC")
    raise ValueError(f"pooling supports 1-D and 2-D inputs (rank 3 or 4), got rank {rank}")


def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    return _pool("MAX", input, ksize, strides, padding, data_format)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    return _pool("AVG", input, ksize, strides, padding, data_format)


def extract_patches(images, sizes, strides, rates, padding, name=None):
    name_, _ = _padding(padding)
    return _core.extract_patches(
        images,
        _pair(sizes, "sizes"),
        _pair(strides, "strides"),
        _pair(rates, "rates"),
        name_,
    )
