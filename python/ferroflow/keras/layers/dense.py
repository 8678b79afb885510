"""`tf.keras.layers.Dense`: ``activation(inputs @ kernel + bias)`` over the last axis."""

from ferroflow.keras.layers.layer import Layer
from ferroflow.linalg import tensordot

__all__ = ["Dense"]


class Dense(Layer):
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
        **kwargs,
    ):
        from ferroflow.keras import activations

        super().__init__(**kwargs)
        if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
            raise ValueError(
                "Received an invalid value for `units`, expected a positive integer. "
                f"Received: units={units}"
            )
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer

    def build(self, input_shape):
        last = input_shape[-1] if input_shape.rank else None
        if last is None:
            raise ValueError(
                f"The last dimension of the inputs to a Dense layer should be defined. "
                f"Found None. Full input shape received: {input_shape}"
            )
        self.kernel = self.add_weight(
            shape=(last, self.units),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            name="kernel",
        )
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(self.units,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                name="bias",
            )
        self.built = True

    def call(self, inputs):
        if inputs.shape.rank == 2:
            outputs = inputs @ self.kernel
        else:
            outputs = tensordot(inputs, self.kernel, [[inputs.shape.rank - 1], [0]])
        if self.use_bias:
            outputs = outputs + self.bias
        return self.activation(outputs)

    def get_config(self):
        return {"name": self.name, "units": self.units, "use_bias": self.use_bias}
