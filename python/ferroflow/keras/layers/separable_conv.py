"""`tf.keras.layers.SeparableConv1D` and `SeparableConv2D` (and their `SeparableConvolution*`
aliases): a depthwise convolution followed by a pointwise (1x1) one."""

from ferroflow.keras.layers._conv_base import ConvLayerBase, check_positive, subclass_arguments
from ferroflow.keras.layers._conv_ops import (
    convolve,
    depthwise_convolve,
    from_channels_last,
    to_channels_last,
)
from ferroflow.keras.layers._shapes import conv_output_shape

__all__ = [
    "BaseSeparableConv",
    "SeparableConv1D",
    "SeparableConv2D",
    "SeparableConvolution1D",
    "SeparableConvolution2D",
]


class BaseSeparableConv(ConvLayerBase):
    """A ``rank``-D separable convolution: ``depthwise_kernel`` of shape
    ``kernel_size + (input_channels, depth_multiplier)``, then ``pointwise_kernel`` of shape
    ``(1,) * rank + (input_channels * depth_multiplier, filters)``."""

    _weight_names = ("depthwise", "pointwise")
    _config_keys = (
        "depth_multiplier",
        "filters",
        "kernel_size",
        "strides",
        "padding",
        "data_format",
        "dilation_rate",
    )

    def __init__(
        self,
        rank,
        depth_multiplier,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        pointwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(**subclass_arguments(locals(), "depth_multiplier", "filters"))
        self.depth_multiplier = depth_multiplier
        self.filters = filters
        check_positive(depth_multiplier, "depth_multiplier")
        check_positive(filters, "filters")

    def build(self, input_shape):
        input_channel = self._input_channels(input_shape)
        self.compute_output_shape(input_shape)
        self.depthwise_kernel = self._add_layer_weight(
            "depthwise_kernel",
            (*self.kernel_size, input_channel, self.depth_multiplier),
            "depthwise",
        )
        self.pointwise_kernel = self._add_layer_weight(
            "pointwise_kernel",
            (*(1,) * self.rank, self.depth_multiplier * input_channel, self.filters),
            "pointwise",
        )
        self._add_bias(self.filters)
        self.built = True

    def call(self, inputs):
        # TensorFlow's CPU kernel is channels_last only; Keras transposes around it too.
        channels_first = self.data_format == "channels_first"
        if channels_first:
            inputs = to_channels_last(inputs)
        outputs = depthwise_convolve(
            inputs, self.depthwise_kernel, self.strides, self.padding, self.dilation_rate
        )
        ones = (1,) * self.rank
        outputs = convolve(outputs, self.pointwise_kernel, ones, "valid", "channels_last", ones)
        if channels_first:
            outputs = from_channels_last(outputs)
        return self._finish(outputs)

    def compute_output_shape(self, input_shape):
        return conv_output_shape(
            tuple(input_shape),
            self.filters,
            self.kernel_size,
            self.strides,
            self.padding,
            self.data_format,
            self.dilation_rate,
        )


class SeparableConv1D(BaseSeparableConv):
    """Separable 1-D convolution over ``(batch, steps, channels)`` inputs."""

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        depth_multiplier=1,
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        pointwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(1, **subclass_arguments(locals()))


class SeparableConv2D(BaseSeparableConv):
    """Separable 2-D convolution over ``(batch, rows, cols, channels)`` inputs."""

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        data_format=None,
        dilation_rate=(1, 1),
        depth_multiplier=1,
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        pointwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(2, **subclass_arguments(locals()))


# Keras exports each class under both names.
SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D
