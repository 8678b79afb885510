"""`tf.keras.layers.Conv1DTranspose`, `Conv2DTranspose` and `Conv3DTranspose` (and their
`Convolution*Transpose` aliases): the transpose (input gradient) of a convolution, through
`tf.nn.conv_transpose`."""

from ferroflow.array_ops import shape, stack
from ferroflow.keras.layers._conv_base import ConvLayerBase, check_positive, subclass_arguments
from ferroflow.keras.layers._conv_ops import (
    from_channels_last,
    tf_data_format,
    to_channels_last,
)
from ferroflow.keras.layers._shapes import standardize_tuple
from ferroflow.nn import conv_transpose

__all__ = [
    "BaseConvTranspose",
    "Conv1DTranspose",
    "Conv2DTranspose",
    "Conv3DTranspose",
    "Convolution1DTranspose",
    "Convolution2DTranspose",
    "Convolution3DTranspose",
]


def _output_size(size, kernel_size, stride, padding, output_padding, dilation):
    """One spatial output size as Keras computes it (``size`` may be a scalar tensor)."""
    if size is None:
        return None
    kernel_size = (kernel_size - 1) * dilation + 1
    if padding == "valid":
        if output_padding is None:
            output_padding = max(kernel_size, stride) - kernel_size
        return (size - 1) * stride + kernel_size + output_padding
    if output_padding is None:
        return size * stride
    return (size - 1) * stride + kernel_size % 2 + output_padding


class BaseConvTranspose(ConvLayerBase):
    """A ``rank``-D transposed convolution with a kernel of shape
    ``kernel_size + (filters, input_channels)``; ``output_padding`` (less than the stride)
    adds to the output's size where several sizes convolve to the input's."""

    _config_keys = (
        "filters",
        "kernel_size",
        "strides",
        "padding",
        "output_padding",
        "data_format",
        "dilation_rate",
    )

    def __init__(
        self,
        rank,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        output_padding=None,
        data_format=None,
        dilation_rate=1,
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
        super().__init__(**subclass_arguments(locals(), "filters", "output_padding"))
        self.filters = filters
        self.output_padding = (
            None
            if output_padding is None
            else standardize_tuple(output_padding, rank, "output_padding", allow_zero=True)
        )
        check_positive(filters, "filters")
        for i, (op, s) in enumerate(zip(self.output_padding or (), self.strides)):
            if op >= s:
                raise ValueError(
                    "`output_padding` must be strictly less than `strides` for all "
                    f"dimensions. At dimension {i}, `output_padding` is {op} but `strides` is "
                    f"{s}. Received: output_padding={self.output_padding}, "
                    f"strides={self.strides}"
                )
        self._check_strides_and_dilation()

    def build(self, input_shape):
        input_channel = self._input_channels(input_shape)
        self.kernel = self._add_layer_weight(
            "kernel", (*self.kernel_size, self.filters, input_channel), "kernel"
        )
        self._add_bias(self.filters)
        self.built = True

    def _spatial_output(self, input_sizes):
        output_padding = self.output_padding or (None,) * self.rank
        return [
            _output_size(n, k, s, self.padding, op, d)
            for n, k, s, op, d in zip(
                input_sizes, self.kernel_size, self.strides, output_padding, self.dilation_rate
            )
        ]

    def call(self, inputs):
        channels_first = self.data_format == "channels_first"
        # TensorFlow has no CPU kernel for channels-first 3-D convolutions (Keras compiles
        # them with XLA): they run in channels_last between two transposes.
        transposed = channels_first and self.rank == 3
        if transposed:
            inputs = to_channels_last(inputs)
        static = inputs.shape.as_list()
        dynamic = shape(inputs)
        sizes = [dynamic[i] if d is None else d for i, d in enumerate(static)]
        native_first = channels_first and not transposed
        spatial = self._spatial_output(sizes[2:] if native_first else sizes[1:-1])
        dims = [sizes[0], self.filters, *spatial] if native_first else [sizes[0], *spatial]
        if not native_first:
            dims.append(self.filters)
        output_shape = dims if all(isinstance(d, int) for d in dims) else stack(dims)
        outputs = conv_transpose(
            inputs,
            self.kernel,
            output_shape,
            list(self.strides),
            padding=self.padding.upper(),
            data_format=tf_data_format(
                self.rank, "channels_first" if native_first else "channels_last"
            ),
            dilations=list(self.dilation_rate),
        )
        if transposed:
            outputs = from_channels_last(outputs)
        return self._finish(outputs)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.data_format == "channels_last":
            return (input_shape[0], *self._spatial_output(input_shape[1:-1]), self.filters)
        return (input_shape[0], self.filters, *self._spatial_output(input_shape[2:]))


class Conv1DTranspose(BaseConvTranspose):
    """Transposed 1-D convolution over ``(batch, steps, channels)`` inputs."""

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        output_padding=None,
        data_format=None,
        dilation_rate=1,
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
        super().__init__(1, **subclass_arguments(locals()))


class Conv2DTranspose(BaseConvTranspose):
    """Transposed 2-D convolution over ``(batch, rows, cols, channels)`` inputs."""

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        output_padding=None,
        data_format=None,
        dilation_rate=(1, 1),
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
        super().__init__(2, **subclass_arguments(locals()))


class Conv3DTranspose(BaseConvTranspose):
    """Transposed 3-D convolution over ``(batch, depth, rows, cols, channels)`` inputs.
    (Keras puts ``data_format`` before ``output_padding`` here.)"""

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1, 1),
        padding="valid",
        data_format=None,
        output_padding=None,
        dilation_rate=(1, 1, 1),
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
        super().__init__(3, **subclass_arguments(locals()))


# Keras exports each class under both names.
Convolution1DTranspose = Conv1DTranspose
Convolution2DTranspose = Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose
