"""The convolution arithmetic the Keras convolution layers share: data format strings, the
moves to and from ``channels_last``, and the depthwise convolution of any stride and dilation
(Keras's TensorFlow backend computes it the same way)."""

import numpy as np

from ferroflow.array_ops import (
    concat,
    expand_dims,
    gather,
    reshape,
    shape,
    split,
    squeeze,
    transpose,
)
from ferroflow.array_ops import range as range_
from ferroflow.math import maximum
from ferroflow.nn import conv3d, convolution, depthwise_conv2d

__all__ = [
    "convolve",
    "depthwise_convolve",
    "grouped_convolve",
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


def grouped_convolve(inputs, kernel, groups, strides, padding, data_format, dilation_rate):
    """`convolve` with the input channels in ``groups``: each group meets its own slice of
    the filters (the kernel's last axis), and the outputs are concatenated."""
    args = (strides, padding, data_format, dilation_rate)
    if groups == 1:
        return convolve(inputs, kernel, *args)
    if kernel.shape[-2] == 1 and len(strides) in (1, 2):
        # One input channel per group (ConvNeXt's 7x7 convolutions) is a depthwise convolution
        # whose multiplier is filters / groups: output channel g * m + j is group g's j-th
        # filter in both. One op instead of one convolution per channel and a concat.
        filters = kernel.shape[-1]
        depthwise = reshape(kernel, [*kernel.shape[:-2], groups, filters // groups])
        channels_first = data_format == "channels_first"
        x = to_channels_last(inputs) if channels_first else inputs
        out = depthwise_convolve(x, depthwise, strides, padding, dilation_rate)
        return from_channels_last(out) if channels_first else out
    axis = -1 if data_format == "channels_last" else 1
    parts = zip(split(inputs, groups, axis=axis), split(kernel, groups, axis=-1))
    return concat([convolve(x, k, *args) for x, k in parts], axis)


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


def _strided_rows(outputs, axis, size, kernel_size, stride, dilation, padding):
    """The rows of a stride-1 convolution's ``outputs`` along ``axis`` that a ``stride``
    convolution keeps. With "same" padding the stride-1 run pads ``(e - 1) // 2`` before
    (``e`` the dilated window), the strided one ``total // 2`` (TensorFlow's rule); the rows
    start that far apart. ``size`` (the input's, maybe a scalar tensor) fixes both."""
    if padding == "valid":
        return outputs[(slice(None),) * axis + (slice(None, None, stride),)]
    window = (kernel_size - 1) * dilation + 1
    count = (size + stride - 1) // stride
    total = (count - 1) * stride + window - size
    if isinstance(size, int):
        rows = np.arange(count) * stride + (window - 1) // 2 - max(total, 0) // 2
    else:
        rows = range_(count) * stride + (window - 1) // 2 - maximum(total, 0) // 2
    return gather(outputs, rows, axis=axis)


def depthwise_convolve(inputs, kernel, strides, padding, dilation_rate):
    """A depthwise convolution of channels_last ``inputs`` (1 or 2 spatial axes); ``kernel``
    is ``kernel_size + (channels, depth_multiplier)``. `tf.nn.depthwise_conv2d` takes no
    stride and dilation above 1 together: that case runs dilated at stride 1 and keeps the rows
    the strided convolution would compute (Keras pads explicitly instead; the sums are the
    same)."""
    one_d = len(strides) == 1
    if one_d:
        inputs = expand_dims(inputs, 1)
        kernel = expand_dims(kernel, 0)
        strides, dilation_rate = (1, *strides), (1, *dilation_rate)
    if max(strides) > 1 and max(dilation_rate) > 1:
        outputs = depthwise_conv2d(
            inputs, kernel, [1, 1, 1, 1], padding.upper(), dilations=list(dilation_rate)
        )
        static, dynamic = inputs.shape.as_list(), shape(inputs)
        for axis in (a for a in (1, 2) if strides[a - 1] > 1):
            size = dynamic[axis] if static[axis] is None else static[axis]
            outputs = _strided_rows(
                outputs,
                axis,
                size,
                kernel.shape[axis - 1],
                strides[axis - 1],
                dilation_rate[axis - 1],
                padding,
            )
    else:
        outputs = depthwise_conv2d(
            inputs, kernel, [1, *strides, 1], padding.upper(), dilations=list(dilation_rate)
        )
    return squeeze(outputs, [1]) if one_d else outputs
