"""`tf.keras.layers.Dense`: ``activation(inputs @ kernel + bias)`` over the last axis."""

from ferroflow.array_ops import cast
from ferroflow.keras.layers import _config
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer
from ferroflow.linalg import tensordot

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
        if lora_rank is not None or quantization_config is not None:
            raise NotImplementedError(
                "ferroflow's Dense does not implement LoRA or quantization; leave `lora_rank` "
                "and `quantization_config` as None."
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
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        last = input_shape[-1] if len(input_shape) else None
        if last is None:
            raise ValueError(
                f"The last dimension of the inputs to a Dense layer should be defined. "
                f"Found None. Full input shape received: {input_shape}"
            )
        self.kernel = self.add_weight(
            shape=(last, self.units),
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

    def call(self, inputs, training=None):
        if not inputs.dtype.is_floating:
            # Keras's `ops.matmul` promotes integer and bool inputs to the kernel's float type.
            inputs = cast(inputs, self.kernel.dtype)
        if inputs.shape.rank == 2:
            outputs = inputs @ self.kernel
        else:
            outputs = tensordot(inputs, self.kernel, [[inputs.shape.rank - 1], [0]])
        if self.use_bias:
            outputs = outputs + self.bias
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
            "quantization_config": None,
        }
