"""The rest of `tf.nn`'s convolutions: the transposed convolutions (TensorFlow's
Conv2DBackpropInput and its 1-D/3-D kin), conv3d, atrous convolutions and the depthwise
backprops, composed of ferroflow's conv2d and depthwise_conv2d.

A transposed convolution is the gradient of the forward convolution with respect to its input:
it is taken here with a private `GradientTape` over the forward op on a zero image of the output
shape (a broadcast, not a buffer), so its own gradients (to the input and the filters) follow
from the composition, as TensorFlow's Conv2DBackpropInput gradients do."""

import operator

import ferroflow as _tf
from ferroflow import nn_windows as _w
from ferroflow.array_ops import convert_to_tensor
from ferroflow.backprop import GradientTape
from ferroflow.errors import InvalidArgumentError

__all__ = [
    "atrous_conv2d",
    "atrous_conv2d_transpose",
    "conv1d_transpose",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "conv_transpose",
    "depthwise_conv2d_backprop_filter",
    "depthwise_conv2d_backprop_input",
]


def _sequence(value, n, channel_index, name):
    """TensorFlow's nn_ops._get_sequence: an int or a list of 1, n or n + 2 entries as the full
    list of n + 2 (batch and channel entries 1)."""
    if value is None:
        value = 1
    try:
        values = [operator.index(value)]
    except TypeError:
        values = [operator.index(v) for v in value]
    if len(values) == n + 2:
        return values
    if len(values) == 1:
        values = values * n
    elif len(values) != n:
        raise ValueError(
            f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} of "
            f"length {len(values)}"
        )
    return [1, 1, *values] if channel_index == 1 else [1, *values, 1]


def _output_shape(output_shape):
    """The output shape as a list of ints (eager) or a 1-D int tensor (traced)."""
    if isinstance(output_shape, _tf.Tensor):
        shape = output_shape
    else:
        shape = convert_to_tensor(list(output_shape))
    if shape.dtype not in (_tf.int32, _tf.int64):
        raise TypeError(
            f"Value passed to parameter 'input_sizes' has DataType {shape.dtype.name} not in "
            "list of allowed values: int32, int64"
        )
    if shape.shape.rank != 1:
        raise InvalidArgumentError(
            None, None, f"input_sizes must be 1-dimensional, got shape {shape.shape}"
        )
    return shape


def _input_gradient(forward, output_shape, dtype, out_backprop):
    """d forward(x) / d x applied to `out_backprop`, for x of `output_shape`."""
    shape = _output_shape(output_shape)
    image = _tf.broadcast_to(_tf.zeros([], dtype), _tf.cast(shape, _tf.int32))
    with GradientTape() as tape:
        tape.watch(image)
        y = forward(image)
    dy = convert_to_tensor(out_backprop, dtype=dtype)
    if y.shape.is_fully_defined() and dy.shape.is_fully_defined() and y.shape != dy.shape:
        # TensorFlow 2.21's CPU (oneDNN) kernel refuses with AbortedError.
        raise _tf.errors.AbortedError(
            None,
            None,
            f"Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: "
            f"out_backprop shape {dy.shape.as_list()}, computed {y.shape.as_list()}",
        )
    return tape.gradient(y, image, output_gradients=dy)


def _filter_gradient(forward, image, filter_sizes, out_backprop):
    """d forward(w) / d w applied to `out_backprop`, for a filter of `filter_sizes`."""
    image = convert_to_tensor(image)
    shape = _output_shape(filter_sizes)
    w = _tf.broadcast_to(_tf.zeros([], image.dtype), _tf.cast(shape, _tf.int32))
    with GradientTape() as tape:
        tape.watch(w)
        y = forward(image, w)
    dy = convert_to_tensor(out_backprop, dtype=image.dtype)
    return tape.gradient(y, w, output_gradients=dy)


def conv2d_transpose(
    input,  # noqa: A002 - TensorFlow's name
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format="NHWC",
    dilations=None,
    name=None,
):
    """The transpose (input gradient) of `tf.nn.conv2d`: `filters` is
    ``[height, width, output_channels, in_channels]``, the result has `output_shape`.

    >>> import ferroflow as tf
    >>> y = tf.nn.conv2d_transpose(tf.ones([1, 2, 2, 1]), tf.ones([3, 3, 1, 1]),
    ...                            [1, 4, 4, 1], strides=2)
    >>> y.shape
    TensorShape([1, 4, 4, 1])
    """
    data_format = data_format or "NHWC"
    channel_index = 1 if data_format.startswith("NC") else 3
    strides = _sequence(strides, 2, channel_index, "strides")
    dilations = _sequence(dilations, 2, channel_index, "dilations")
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype=x.dtype)
    sizes = _static_ints(output_shape)
    if sizes is None and _tf.executing_eagerly():
        sizes = _static_ints(_output_shape(output_shape).numpy().tolist())
    if sizes is not None and len(sizes) == 4:
        # TensorFlow's Conv2DBackpropInput itself: no forward convolution runs.
        try:
            return _w.conv2d_backprop_input(sizes, w, x, strides, padding, data_format, dilations)
        except InvalidArgumentError as e:
            if "Size of out_backprop" not in str(e):
                raise
            # TensorFlow 2.21's CPU (oneDNN) kernel refuses with AbortedError.
            raise _tf.errors.AbortedError(None, None, str(e)) from None
    return _transpose2d(x, w, output_shape, strides, padding, data_format, dilations)


def _transpose2d(x, w, output_shape, strides, padding, data_format, dilations):
    def forward(image):
        return _w.conv2d(image, w, strides, padding, data_format, dilations)

    return _input_gradient(forward, output_shape, x.dtype, x)


def _static_ints(values):
    """`values` as a tuple of Python ints, or None when it is a tensor or holds one."""
    if isinstance(values, _tf.Tensor):
        return None
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        return None


def conv1d_transpose(
    input,  # noqa: A002 - TensorFlow's name
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format="NWC",
    dilations=None,
    name=None,
):
    """The transpose of `tf.nn.conv1d`: a `conv2d_transpose` over a unit height."""
    if data_format is None or data_format == "NWC":
        fmt, spatial, channel_index = "NHWC", 1, 2
    elif data_format == "NCW":
        fmt, spatial, channel_index = "NCHW", 2, 1
    else:
        raise ValueError(
            f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}"
        )
    strides = [1, *_sequence(strides, 1, channel_index, "stride")]
    dilations = [1, *_sequence(dilations, 1, channel_index, "dilations")]
    x = _tf.expand_dims(input, spatial)
    w = _tf.expand_dims(filters, 0)
    if isinstance(output_shape, _tf.Tensor):
        shape = _tf.concat([output_shape[:spatial], [1], output_shape[spatial:]], 0)
    else:
        shape = list(output_shape)
        shape = [*shape[:spatial], 1, *shape[spatial:]]
    y = conv2d_transpose(x, w, shape, strides, padding, fmt, dilations)
    return _tf.squeeze(y, [spatial])


def _conv3d_strides(strides, dilations, data_format):
    first = data_format == "NCDHW"
    if data_format not in ("NDHWC", "NCDHW"):
        raise InvalidArgumentError(None, None, f"Invalid data format: {data_format}")
    strides = [operator.index(s) for s in strides]
    if len(strides) != 5:
        raise InvalidArgumentError(
            None, None, "Sliding window strides field must specify 5 dimensions"
        )
    dilations = [operator.index(d) for d in (dilations or [1] * 5)]
    if len(dilations) != 5:
        raise InvalidArgumentError(None, None, "Dilation rates field must specify 5 dimensions")
    outer = (strides[0], strides[1]) if first else (strides[0], strides[4])
    if outer != (1, 1):
        raise _tf.errors.UnimplementedError(
            None,
            None,
            "Current implementation does not yet support strides in the batch and depth "
            "dimensions.",
        )
    if min(strides) < 1:
        raise InvalidArgumentError(None, None, "Sliding window strides must be positive")
    return first, strides, dilations


def conv3d(
    input,  # noqa: A002 - TensorFlow's name
    filters,
    strides,
    padding,
    data_format="NDHWC",
    dilations=None,
    name=None,
):
    """A 3-D convolution: `filters` is ``[depth, height, width, in_channels, out_channels]``;
    each filter plane is a conv2d over every output depth at once (depth folded into the
    batch), summed, so gradients follow from conv2d's."""
    data_format = data_format or "NDHWC"
    first, strides, dilations = _conv3d_strides(strides, dilations, data_format)
    if first:
        # TensorFlow's CPU Conv3D has no NCDHW kernel.
        raise _tf.errors.UnimplementedError(
            None,
            None,
            "The Conv3D op currently only supports the NDHWC tensor format on the CPU.",
        )
    from ferroflow.nn_pool_extra import check_padding

    padding = check_padding(padding.upper() if isinstance(padding, str) else padding)
    if min(dilations) < 1:
        raise InvalidArgumentError(None, None, "Dilated rates should be larger than 0.")
    if (dilations[0], dilations[4]) != (1, 1):
        raise _tf.errors.UnimplementedError(
            None,
            None,
            "Current implementation does not yet support dilations in the batch and depth "
            "dimensions.",
        )
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype=x.dtype)
    if x.shape.rank != 5 or w.shape.rank != 5:
        raise ValueError(
            f"input and filter must be 5-dimensional, got shapes {x.shape} and {w.shape}"
        )
    if x.shape[4] is not None and w.shape[3] is not None and x.shape[4] != w.shape[3]:
        raise InvalidArgumentError(
            None,
            None,
            f"Input depth must be evenly divisible by filter depth: {x.shape[4]} vs {w.shape[3]}",
        )
    from ferroflow.top_level_more import _conv3d

    return _conv3d(x, w, strides[1:4], padding, None, dilations[1:4])


def conv3d_transpose(
    input,  # noqa: A002 - TensorFlow's name
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format="NDHWC",
    dilations=None,
    name=None,
):
    """The transpose (input gradient) of `tf.nn.conv3d`."""
    data_format = data_format or "NDHWC"
    channel_index = 1 if data_format.startswith("NC") else 4
    strides = _sequence(strides, 3, channel_index, "strides")
    dilations = _sequence(dilations, 3, channel_index, "dilations")
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype=x.dtype)

    def forward(image):
        return conv3d(image, w, strides, padding, data_format, dilations)

    return _input_gradient(forward, output_shape, x.dtype, x)


def conv_transpose(
    input,  # noqa: A002 - TensorFlow's name
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format=None,
    dilations=None,
    name=None,
):
    """`conv1d_transpose`, `conv2d_transpose` or `conv3d_transpose` by the output's rank."""
    if isinstance(output_shape, _tf.Tensor):
        n = output_shape.shape[0]
    else:
        n = len(output_shape)
    if n is None:
        raise ValueError("output_shape must have a known length")
    op = {3: conv1d_transpose, 4: conv2d_transpose, 5: conv3d_transpose}.get(n)
    if op is None:
        raise ValueError(
            "`output_shape` must be of length 3, 4 or 5. "
            f"Received: output_shape={output_shape} of length {n}."
        )
    return op(input, filters, output_shape, strides, padding, data_format, dilations)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """A conv2d with dilation `rate` in both spatial axes, stride 1 (NHWC)."""
    rate = operator.index(rate)
    if rate < 1:
        raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
    return _w.conv2d(value, filters, 1, padding, "NHWC", [rate, rate])


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of `atrous_conv2d`: a conv2d_transpose with dilation `rate`, stride 1."""
    value = convert_to_tensor(value)
    filters = convert_to_tensor(filters, dtype=value.dtype)
    if value.shape.rank != 4 or filters.shape.rank != 4:
        raise ValueError(
            f"`value` and `filters` must have rank 4. Received: value.shape={value.shape}, "
            f"filters.shape={filters.shape}"
        )
    channels, filter_in = value.shape[3], filters.shape[3]
    if channels is not None and filter_in is not None and channels != filter_in:
        raise ValueError(
            "`value` channel count must be compatible with `filters` input channel count. "
            f"Received: value.shape={value.shape} with channel count {channels} and "
            f"filters.shape={filters.shape} with input channel count {filter_in}."
        )
    rate = operator.index(rate)
    if rate < 1:
        raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"`padding` must be either 'VALID' or 'SAME'. Received: padding={padding}")
    if not isinstance(output_shape, _tf.Tensor):
        output_shape = list(output_shape)
        if len(output_shape) != 4:
            raise ValueError(
                f"`output_shape` must have shape (4,). Received: output_shape={output_shape}"
            )
        if filters.shape[2] is not None and filters.shape[2] != output_shape[3]:
            raise ValueError(
                "`output_shape` channel count must be compatible with `filters` output channel "
                f"count. Received: output_shape={output_shape} with channel count "
                f"{output_shape[3]} and filters.shape={filters.shape} with output channel "
                f"count {filters.shape[3]}."
            )
    return conv2d_transpose(value, filters, output_shape, 1, padding, "NHWC", rate)


def _depthwise_forward(strides, padding, data_format, dilations):
    rates = None if dilations is None else list(dilations)
    if rates is not None and len(rates) == 4:
        rates = rates[2:] if data_format == "NCHW" else rates[1:3]

    def forward(image, w):
        return _w.depthwise_conv2d(image, w, strides, padding, data_format, rates)

    return forward


def depthwise_conv2d_backprop_input(
    input_sizes,
    filter,  # noqa: A002 - TensorFlow's name
    out_backprop,
    strides,
    padding,
    data_format="NHWC",
    dilations=(1, 1, 1, 1),
    name=None,
):
    """The gradient of `tf.nn.depthwise_conv2d` with respect to its input, of `input_sizes`."""
    w = convert_to_tensor(filter)
    forward = _depthwise_forward(strides, padding, data_format, dilations)
    return _input_gradient(lambda image: forward(image, w), input_sizes, w.dtype, out_backprop)


def depthwise_conv2d_backprop_filter(
    input,  # noqa: A002 - TensorFlow's name
    filter_sizes,
    out_backprop,
    strides,
    padding,
    data_format="NHWC",
    dilations=(1, 1, 1, 1),
    name=None,
):
    """The gradient of `tf.nn.depthwise_conv2d` with respect to its filter, of `filter_sizes`."""
    forward = _depthwise_forward(strides, padding, data_format, dilations)
    return _filter_gradient(forward, input, filter_sizes, out_backprop)
