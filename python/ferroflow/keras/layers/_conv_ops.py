"""The convolution arithmetic the Keras convolution layers share: data format strings, the
moves to and from ``channels_last``, and the depthwise convolution of any stride and dilation
(Keras's TensorFlow backend computes it the same way)."""

from ferroflow.array_ops import expand_dims, pad, shape, squeeze, stack, transpose
from ferroflow.math import maximum
from ferroflow.nn import conv3d, convolution, depthwise_conv2d

__all__ = [
    "convolve",
    "depthwise_convolve",
    "from_channels_last",
    "tf_data_format",
    "to_channels_last",
]

_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def tf_data_format(rank, data_format):
    """The `tf.nn` name of a Keras ``data_format`` for ``rank`` spatial axes."""
    return _FORMATS[rank][data_format == "channels_first"]


def to_channels_last(x):
    """``(batch, channels, *spatial)`` as ``(batch, *spatial, channels)``."""
    rank = len(x.shape)
    return transpose(x, [0, *range(2, rank), 1])


def from_channels_last(x):
    """``(batch, *spatial, channels)`` as ``(batch, channels, *spatial)``."""
    rank = len(x.shape)
    return transpose(x, [0, rank - 1, *range(1, rank - 1)])


def convolve(inputs, kernel, strides, padding, data_format, dilation_rate):
    """A ``len(strides)``-D convolution of ``inputs`` with ``kernel`` (padding "valid" or
    "same"). TensorFlow has no CPU kernel for channels-first 3-D convolutions (Keras compiles
    them with XLA); they run here in channels_last between two transposes."""
    rank = len(strides)
    if rank == 3:
        if data_format == "channels_first":
            outputs = convolve(
                to_channels_last(inputs), kernel, strides, padding, "channels_last", dilation_rate
            )
            return from_channels_last(outputs)
        return conv3d(
            inputs, kernel, [1, *strides, 1], padding.upper(), dilations=[1, *dilation_rate, 1]
        )
    return convolution(
        inputs,
        kernel,
        list(strides),
        padding.upper(),
        data_format=tf_data_format(rank, data_format),
        dilations=list(dilation_rate),
    )


def _same_paddings(inputs, kernel_size, strides, dilation_rate):
    """TensorFlow's "same" padding of a strided, dilated window as explicit pads (the extra
    one after), from the runtime sizes of the channels_last ``inputs``."""
    sizes = shape(inputs)
    paddings = [stack([0, 0])]
    for axis, (k, s, d) in enumerate(zip(kernel_size, strides, dilation_rate)):
        n = sizes[axis + 1]
        total = maximum(((n + s - 1) // s - 1) * s + (k - 1) * d + 1 - n, 0)
        paddings.append(stack([total // 2, total - total // 2]))
    return stack([*paddings, stack([0, 0])])


def depthwise_convolve(inputs, kernel, strides, padding, dilation_rate):
    """A depthwise convolution of channels_last ``inputs`` (1 or 2 spatial axes); ``kernel``
    is ``kernel_size + (channels, depth_multiplier)``. `tf.nn.depthwise_conv2d` takes no
    stride and dilation above 1 together: that case runs dilated at stride 1 on explicitly
    padded inputs and keeps every ``stride``-th output, as Keras does."""
    one_d = len(strides) == 1
    if one_d:
        inputs = expand_dims(inputs, 1)
        kernel = expand_dims(kernel, 0)
        strides, dilation_rate = (1, *strides), (1, *dilation_rate)
    if max(strides) > 1 and max(dilation_rate) > 1:
        if padding == "same":
            kernel_size = tuple(kernel.shape[:2])
            inputs = pad(inputs, _same_paddings(inputs, kernel_size, strides, dilation_rate))
        outputs = depthwise_conv2d(
            inputs, kernel, [1, 1, 1, 1], "VALID", dilations=list(dilation_rate)
        )
        outputs = outputs[:, :: strides[0], :: strides[1], :]
    else:
        outputs = depthwise_conv2d(
            inputs, kernel, [1, *strides, 1], padding.upper(), dilations=list(dilation_rate)
        )
    return squeeze(outputs, [1]) if one_d else outputs
