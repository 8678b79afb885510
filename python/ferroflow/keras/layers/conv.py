"""`tf.keras.layers.Conv1D` and `Conv2D`: learned filters slid over the spatial axes, through
`tf.nn.conv1d` / `tf.nn.conv2d`."""

from ferroflow.array_ops import concat, pad, reshape, split
from ferroflow.keras.layers import _config
from ferroflow.keras.layers._shapes import (
    conv_output_shape,
    standardize_data_format,
    standardize_padding,
    standardize_tuple,
)
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer
from ferroflow.nn import conv1d, conv2d

__all__ = ["BaseConv", "Conv1D", "Conv2D"]


class BaseConv(Layer):
    """A ``rank``-D convolution: ``activation(conv(inputs, kernel) + bias)``, with the kernel
    of shape ``kernel_size + (input_channels // groups, filters)``. ``groups`` splits the
    channels into independent convolutions."""

    def __init__(
        self,
        rank,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        groups=1,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        from ferroflow.keras import activations, initializers, regularizers

        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.filters = filters
        self.groups = groups
        self.kernel_size = standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = standardize_tuple(strides, rank, "strides")
        self.dilation_rate = standardize_tuple(dilation_rate, rank, "dilation_rate")
        self.padding = standardize_padding(padding, allow_causal=rank == 1)
        self.data_format = standardize_data_format(data_format)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = _config.get_constraint(kernel_constraint)
        self.bias_constraint = _config.get_constraint(bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2)
        if filters is not None and filters <= 0:
            raise ValueError(
                "Invalid value for argument `filters`. Expected a strictly positive value. "
                f"Received filters={filters}."
            )
        if groups <= 0:
            raise ValueError(
                f"The number of groups must be a positive integer. Received: groups={groups}."
            )
        if filters is not None and filters % groups != 0:
            raise ValueError(
                "The number of filters must be evenly divisible by the number of groups. "
                f"Received: groups={groups}, filters={filters}."
            )
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                f"Received: strides={self.strides} and dilation_rate={self.dilation_rate}"
            )

    @property
    def _channel_axis(self):
        return -1 if self.data_format == "channels_last" else 1

    def build(self, input_shape):
        input_channel = input_shape[self._channel_axis]
        self.input_spec = InputSpec(
            min_ndim=self.rank + 2, axes={self._channel_axis: input_channel}
        )
        if input_channel % self.groups != 0:
            raise ValueError(
                "The number of input channels must be evenly divisible by the number of "
                f"groups. Received groups={self.groups}, but the input has {input_channel} "
                f"channels (full input shape is {tuple(input_shape)})."
            )
        self.compute_output_shape(input_shape)
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, input_channel // self.groups, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias",
                shape=(self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    def _convolve(self, inputs, kernel, padding):
        """One convolution of ``inputs`` with ``kernel`` (the `tf.nn` op of this rank)."""
        raise NotImplementedError

    def _grouped_convolution(self, inputs, padding):
        if self.groups == 1:
            return self._convolve(inputs, self.kernel, padding)
        # Each group of input channels meets its own slice of the filters.
        input_groups = split(inputs, self.groups, axis=self._channel_axis)
        kernel_groups = split(self.kernel, self.groups, axis=-1)
        outputs = [self._convolve(x, k, padding) for x, k in zip(input_groups, kernel_groups)]
        return concat(outputs, self._channel_axis)

    def _finish(self, outputs):
        """Adds the bias and applies the activation."""
        if self.use_bias:
            bias = self.bias
            if self.data_format == "channels_first":
                bias = reshape(bias, (1, self.filters) + (1,) * self.rank)
            outputs = outputs + bias
        return self.activation(outputs)

    def call(self, inputs):
        return self._finish(self._grouped_convolution(inputs, self.padding))

    def compute_output_shape(self, input_shape):
        # Causal padding keeps the length, as "same" does.
        return conv_output_shape(
            tuple(input_shape),
            self.filters,
            self.kernel_size,
            self.strides,
            "same" if self.padding == "causal" else self.padding,
            self.data_format,
            self.dilation_rate,
        )

    def get_config(self):
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "groups": self.groups,
            "activation": _config.serialize_activation(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": _config.serialize_initializer(self.kernel_initializer),
            "bias_initializer": _config.serialize_initializer(self.bias_initializer),
            "kernel_regularizer": _config.serialize_regularizer(self.kernel_regularizer),
            "bias_regularizer": _config.serialize_regularizer(self.bias_regularizer),
            "activity_regularizer": _config.serialize_regularizer(self.activity_regularizer),
            "kernel_constraint": _config.serialize_constraint(self.kernel_constraint),
            "bias_constraint": _config.serialize_constraint(self.bias_constraint),
        }


class Conv1D(BaseConv):
    """1-D convolution over ``(batch, steps, channels)`` inputs (``channels_last``).
    ``padding="causal"`` pads the start only, so an output never sees later steps."""

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        groups=1,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            rank=1,
            filters=filters,
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            groups=groups,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            **kwargs,
        )

    def _convolve(self, inputs, kernel, padding):
        return conv1d(
            inputs,
            kernel,
            self.strides[0],
            padding.upper(),
            data_format="NWC" if self.data_format == "channels_last" else "NCW",
            dilations=self.dilation_rate[0],
        )

    def call(self, inputs):
        if self.padding != "causal":
            return super().call(inputs)
        left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
        steps_axis = 1 if self.data_format == "channels_last" else 2
        paddings = [[0, 0], [0, 0], [0, 0]]
        paddings[steps_axis] = [left, 0]
        return self._finish(self._grouped_convolution(pad(inputs, paddings), "valid"))


class Conv2D(BaseConv):
    """2-D convolution over ``(batch, rows, cols, channels)`` inputs (``channels_last``;
    ``(batch, channels, rows, cols)`` with ``channels_first``)."""

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        data_format=None,
        dilation_rate=(1, 1),
        groups=1,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            rank=2,
            filters=filters,
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            groups=groups,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            **kwargs,
        )

    def _convolve(self, inputs, kernel, padding):
        return conv2d(
            inputs,
            kernel,
            list(self.strides),
            padding.upper(),
            data_format="NHWC" if self.data_format == "channels_last" else "NCHW",
            dilations=list(self.dilation_rate),
        )
