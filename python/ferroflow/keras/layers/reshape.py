"""`tf.keras.layers.Reshape`: gives each batch element a new shape."""

from ferroflow.array_ops import reshape
from ferroflow.keras.layers._shapes import reshape_output_shape, validate_reshape_shape
from ferroflow.keras.layers.layer import Layer

__all__ = ["Reshape"]


class Reshape(Layer):
    """Reshapes each batch element to ``target_shape`` (the batch axis excluded; one entry
    may be -1, inferred from the input's size)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        target_shape = tuple(target_shape)
        validate_reshape_shape(target_shape, "target_shape")
        self.target_shape = target_shape
        self.built = True

    def call(self, inputs):
        shape = inputs.shape.as_list()
        resolved = reshape_output_shape(shape[1:], self.target_shape, "target_shape")
        batch = -1 if shape[0] is None else shape[0]
        return reshape(inputs, (batch, *(-1 if d is None else d for d in resolved)))

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        return (
            input_shape[0],
            *reshape_output_shape(input_shape[1:], self.target_shape, "target_shape"),
        )

    def get_config(self):
        return {**super().get_config(), "target_shape": self.target_shape}
