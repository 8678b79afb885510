"""`tf.keras.layers.Activation`: applies an activation function to its input."""

from ferroflow.keras.layers import _config
from ferroflow.keras.layers.layer import Layer

__all__ = ["Activation"]


class Activation(Layer):
    """Applies ``activation`` (a callable, or the name of a `tf.keras.activations`
    function) element-wise."""

    def __init__(self, activation, **kwargs):
        from ferroflow.keras import activations

        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = activations.get(activation)
        self.built = True

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "activation": _config.serialize_activation(self.activation)}
