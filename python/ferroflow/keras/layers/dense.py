"""`tf.keras.layers.Dense`: ``activation(inputs @ kernel + bias)`` over the last axis."""

from ferroflow.array_ops import cast
from ferroflow.keras import ops, quantizers
from ferroflow.keras.layers import _config, _dense_quantization, _lora
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer
from ferroflow.linalg import tensordot
from ferroflow.sparse_tensor import SparseTensor

__all__ = ["Dense"]


class Dense(Layer):
    """A densely connected layer: ``activation(dot(inputs, kernel) + bias)`` over the last
    axis of inputs of rank 2 or more."""

    def __init__(
        self,
        units,
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
        quantization_config=None,
        **kwargs,
    ):
        from ferroflow.keras import activations, initializers, regularizers

        if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
            raise ValueError(
                "Received an invalid value for `units`, expected a positive integer. "
                f"Received: units={units}"
            )
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.supports_masking = True
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = _config.get_constraint(kernel_constraint)
        self.bias_constraint = _config.get_constraint(bias_constraint)
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.lora_enabled = False
        self.quantization_config = quantization_config
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        last = input_shape[-1] if len(input_shape) else None
        if last is None:
            raise ValueError(
                f"The last dimension of the inputs to a Dense layer should be defined. "
                f"Found None. Full input shape received: {input_shape}"
            )
        kernel_shape = (last, self.units)
        if self.quantization_mode:
            self.quantized_build(kernel_shape, self.quantization_mode, self.quantization_config)
        if self.quantization_mode not in ("int8", "int4"):
            self._kernel = self.add_weight(
                shape=kernel_shape,
                initializer=self.kernel_initializer,
                regularizer=self.kernel_regularizer,
                constraint=self.kernel_constraint,
                name="kernel",
            )
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(self.units,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
        else:
            self.bias = None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        self.built = True
        if self.lora_rank:
            self.enable_lora(self.lora_rank)

    @property
    def kernel(self):
        """The kernel the call uses: the variable, unpacked when int4-quantized, with the
        LoRA delta added (cast to the compute dtype) when LoRA is enabled."""
        if not self.built:
            raise AttributeError("You must build the layer before accessing `kernel`.")
        kernel = self._kernel
        if self.quantization_mode == "int4":
            kernel = quantizers.unpack_int4(kernel, self._orig_output_dim, axis=-1)
        if self.lora_enabled:
            delta = _lora.lora_delta(self, self.lora_kernel_a, self.lora_kernel_b)
            kernel = ops.cast(ops.add(kernel, delta), self.compute_dtype)
        return kernel

    def call(self, inputs, training=None):
        kernel = self.kernel
        if not inputs.dtype.is_floating and not isinstance(inputs, SparseTensor):
            # Keras's `ops.matmul` promotes integer and bool inputs to the kernel's float type
            # (the sparse product promotes its operands itself).
            inputs = cast(inputs, kernel.dtype)
        return self._finish(_matmul(inputs, kernel))

    def _finish(self, outputs):
        if self.use_bias:
            outputs = outputs + self.bias
        return self.activation(outputs)

    def enable_lora(self, rank, lora_alpha=None, a_initializer="he_uniform", b_initializer="zeros"):
        """Freezes the kernel and adds the trainable low-rank delta
        ``(lora_alpha / rank) * lora_kernel_a @ lora_kernel_b`` to it."""
        _lora.check_enable_lora(self, self.kernel_constraint)
        if self.quantization_mode == "int4":
            input_dim = self._orig_input_dim
        else:
            input_dim = self._kernel.shape[0]
        _lora.add_lora_weights(
            self,
            ("lora_kernel_a", "lora_kernel_b"),
            ((input_dim, rank), (rank, self.units)),
            (a_initializer, b_initializer),
            self.kernel_regularizer,
            self._kernel,
            rank,
            lora_alpha,
        )

    # --- saving ---------------------------------------------------------------------------

    @property
    def variable_serialization_spec(self):
        """The variables each quantization mode saves, in Keras's order."""
        return _lora.KERNEL_SPEC

    def save_own_variables(self, store):
        _lora.save_by_spec(self, store, "kernel", self._kernel_with_merged_lora())

    def load_own_variables(self, store):
        _lora.load_by_spec(self, store, "kernel", ("lora_kernel_a", "lora_kernel_b"))

    def _kernel_with_merged_lora(self):
        """``(kernel, scale, zero)`` as saved: the LoRA delta merged into the float kernel,
        or into the dequantized one and quantized again."""
        mode = self.quantization_mode
        if mode in (None, "float8"):
            return (self.kernel if mode is None else self._kernel), None, None
        return _dense_quantization.merged_quantized_kernel(self)

    # --- quantization ---------------------------------------------------------------------

    def quantized_build(self, kernel_shape, mode, config=None):
        _dense_quantization.build(self, kernel_shape, mode, config)
        self._is_quantized = True

    def quantize(self, mode=None, type_check=True, config=None):
        """Replaces the float kernel by its quantized form (``int8``, ``int4``), or adds
        float8 training's scales (``float8``), and sets the layer's policy to
        ``"<mode>_from_<policy>"``."""
        if type_check and type(self) is not Dense:
            raise self._not_implemented_error(self.quantize)
        _dense_quantization.quantize(self, mode, config)

    def _int8_call(self, inputs, training=None):
        return self._finish(_dense_quantization.int8_matmul(self, inputs))

    def _int4_call(self, inputs, training=None):
        return self._finish(_dense_quantization.int4_matmul(self, inputs))

    def _float8_call(self, inputs, training=None):
        outputs = _dense_quantization.float8_matmul(self, inputs, training)
        return self.activation(outputs)

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape)[:-1], self.units)

    def get_config(self):
        return {
            **super().get_config(),
            "units": self.units,
            "activation": _config.serialize_activation(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": _config.serialize_initializer(self.kernel_initializer),
            "bias_initializer": _config.serialize_initializer(self.bias_initializer),
            "kernel_regularizer": _config.serialize_regularizer(self.kernel_regularizer),
            "bias_regularizer": _config.serialize_regularizer(self.bias_regularizer),
            "kernel_constraint": _config.serialize_constraint(self.kernel_constraint),
            "bias_constraint": _config.serialize_constraint(self.bias_constraint),
            **_lora.config_entries(self),
        }

    @classmethod
    def from_config(cls, config):
        return super().from_config(_lora.revived_config(config))


def _matmul(inputs, kernel):
    if isinstance(inputs, SparseTensor):
        # A sparse input (a preprocessing layer's sparse output): Keras's sparse matmul.
        return ops.matmul(inputs, kernel)
    if inputs.shape.rank == 2:
        return inputs @ kernel
    return tensordot(inputs, kernel, [[inputs.shape.rank - 1], [0]])
