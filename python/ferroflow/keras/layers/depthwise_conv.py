"""`tf.keras.layers.DepthwiseConv1D` and `DepthwiseConv2D`: each input channel convolved with
its own ``depth_multiplier`` filters, through `tf.nn.depthwise_conv2d`."""

from ferroflow.keras.layers._conv_base import ConvLayerBase, check_positive, subclass_arguments
from ferroflow.keras.layers._conv_ops import (
    depthwise_convolve,
    from_channels_last,
    to_channels_last,
)
from ferroflow.keras.layers._shapes import conv_output_shape

__all__ = ["BaseDepthwiseConv", "DepthwiseConv1D", "DepthwiseConv2D"]


class BaseDepthwiseConv(ConvLayerBase):
    """A ``rank``-D depthwise convolution with a kernel (named ``kernel``, as in Keras 3) of
    shape ``kernel_size + (input_channels, depth_multiplier)``; the output has
    ``input_channels * depth_multiplier`` channels."""

    _weight_names = ("depthwise",)
    _config_keys = (
        "depth_multiplier",
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
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(**subclass_arguments(locals(), "depth_multiplier"))
        self.depth_multiplier = depth_multiplier
        check_positive(depth_multiplier, "depth_multiplier")

    def build(self, input_shape):
        input_channel = self._input_channels(input_shape)
        self.compute_output_shape(input_shape)
        self.kernel = self._add_layer_weight(
            "kernel", (*self.kernel_size, input_channel, self.depth_multiplier), "depthwise"
        )
        self._add_bias(self.depth_multiplier * input_channel)
        self.built = True

    def call(self, inputs):
        # TensorFlow's CPU kernel is channels_last only; Keras transposes around it too.
        channels_first = self.data_format == "channels_first"
        if channels_first:
            inputs = to_channels_last(inputs)
        outputs = depthwise_convolve(
            inputs, self.kernel, self.strides, self.padding, self.dilation_rate
        )
        if channels_first:
            outputs = from_channels_last(outputs)
        return self._finish(outputs)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        channels = input_shape[self._channel_axis]
        return conv_output_shape(
            input_shape,
            None if channels is None else self.depth_multiplier * channels,
            self.kernel_size,
            self.strides,
            self.padding,
            self.data_format,
            self.dilation_rate,
        )


class DepthwiseConv1D(BaseDepthwiseConv):
    """Depthwise 1-D convolution over ``(batch, steps, channels)`` inputs."""

    def __init__(
        self,
        kernel_size,
        strides=1,
        padding="valid",
        depth_multiplier=1,
        data_format=None,
        dilation_rate=1,
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(1, **subclass_arguments(locals()))


class DepthwiseConv2D(BaseDepthwiseConv):
    """Depthwise 2-D convolution over ``(batch, rows, cols, channels)`` inputs."""

    def __init__(
        self,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        depth_multiplier=1,
        data_format=None,
        dilation_rate=(1, 1),
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(2, **subclass_arguments(locals()))
