"""`tf.keras.layers.Conv1D`, `Conv2D` and `Conv3D` (and their `Convolution*` aliases): learned
filters slid over the spatial axes."""

from ferroflow.array_ops import pad
from ferroflow.keras import ops
from ferroflow.keras.layers import _lora
from ferroflow.keras.layers._conv_base import ConvLayerBase, check_positive, subclass_arguments
from ferroflow.keras.layers._conv_ops import grouped_convolve
from ferroflow.keras.layers._shapes import conv_output_shape

__all__ = [
    "BaseConv",
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "Convolution1D",
    "Convolution2D",
    "Convolution3D",
]


class BaseConv(ConvLayerBase):
    """A ``rank``-D convolution: ``activation(conv(inputs, kernel) + bias)``, with the kernel
    of shape ``kernel_size + (input_channels // groups, filters)``. ``groups`` splits the
    channels into independent convolutions."""

    _config_keys = (
        "filters",
        "kernel_size",
        "strides",
        "padding",
        "data_format",
        "dilation_rate",
        "groups",
    )

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
        lora_rank=None,
        lora_alpha=None,
        **kwargs,
    ):
        super().__init__(
            allow_causal=rank == 1,
            **subclass_arguments(locals(), "filters", "groups", "lora_rank", "lora_alpha"),
        )
        self.filters = filters
        self.groups = groups
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.lora_enabled = False
        check_positive(filters, "filters")
        if groups <= 0:
            raise ValueError(
                f"The number of groups must be a positive integer. Received: groups={groups}."
            )
        if filters is not None and filters % groups != 0:
            raise ValueError(
                "The number of filters must be evenly divisible by the number of groups. "
                f"Received: groups={groups}, filters={filters}."
            )
        self._check_strides_and_dilation()

    def build(self, input_shape):
        input_channel = self._input_channels(input_shape)
        if input_channel % self.groups != 0:
            raise ValueError(
                "The number of input channels must be evenly divisible by the number of "
                f"groups. Received groups={self.groups}, but the input has {input_channel} "
                f"channels (full input shape is {tuple(input_shape)})."
            )
        self.compute_output_shape(input_shape)
        self._kernel = self._add_layer_weight(
            "kernel", (*self.kernel_size, input_channel // self.groups, self.filters), "kernel"
        )
        self._add_bias(self.filters)
        self.built = True
        if self.lora_rank:
            self.enable_lora(self.lora_rank, lora_alpha=self.lora_alpha)

    @property
    def kernel(self):
        """The kernel the call uses: the variable, plus the LoRA delta (cast to the compute
        dtype) when LoRA is enabled."""
        if not self.built:
            raise AttributeError("You must build the layer before accessing `kernel`.")
        kernel = self._kernel
        if self.lora_enabled:
            delta = _lora.lora_delta(self, self.lora_kernel_a, self.lora_kernel_b)
            kernel = ops.cast(ops.add(kernel, delta), self.compute_dtype)
        return kernel

    def enable_lora(self, rank, lora_alpha=None, a_initializer="he_uniform", b_initializer="zeros"):
        """Freezes the kernel and adds the trainable low-rank delta
        ``(lora_alpha / rank) * lora_kernel_a @ lora_kernel_b`` (``a`` has the kernel's
        shape with ``rank`` output channels)."""
        _lora.check_enable_lora(self, self.kernel_constraint)
        _lora.add_lora_weights(
            self,
            ("lora_kernel_a", "lora_kernel_b"),
            ((*self._kernel.shape.as_list()[:-1], rank), (rank, self.filters)),
            (a_initializer, b_initializer),
            self.kernel_regularizer,
            self._kernel,
            rank,
            lora_alpha,
        )

    @property
    def variable_serialization_spec(self):
        """The variables a weights file holds, in Keras's order."""
        return {None: ["kernel", "bias"]}

    def save_own_variables(self, store):
        _lora.save_by_spec(self, store, "kernel", (self.kernel, None, None))

    def load_own_variables(self, store):
        _lora.load_by_spec(self, store, "kernel", ("lora_kernel_a", "lora_kernel_b"))

    def get_config(self):
        config = super().get_config()
        if self.lora_rank:
            config.update(lora_rank=self.lora_rank, lora_alpha=self.lora_alpha)
        return config

    def _grouped_convolution(self, inputs, padding):
        return grouped_convolve(
            inputs,
            self.kernel,
            self.groups,
            self.strides,
            padding,
            self.data_format,
            self.dilation_rate,
        )

    def call(self, inputs):
        padding = self.padding
        if padding == "causal":
            # Causal padding pads the start only, so an output never sees later steps.
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            paddings = [[0, 0], [0, 0], [0, 0]]
            paddings[1 if self.data_format == "channels_last" else 2] = [left, 0]
            inputs, padding = pad(inputs, paddings), "valid"
        return self._finish(self._grouped_convolution(inputs, padding))

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
        super().__init__(1, **subclass_arguments(locals()))


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
        super().__init__(2, **subclass_arguments(locals()))


class Conv3D(BaseConv):
    """3-D convolution over ``(batch, depth, rows, cols, channels)`` inputs
    (``channels_last``; channels after the batch with ``channels_first``)."""

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1, 1),
        padding="valid",
        data_format=None,
        dilation_rate=(1, 1, 1),
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
        super().__init__(3, **subclass_arguments(locals()))


# Keras exports each class under both names.
Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D
