"""`tf.keras.layers.Flatten`: one feature axis per batch element."""

import math

from ferroflow.array_ops import reshape, transpose
from ferroflow.keras.layers._shapes import standardize_data_format
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer

__all__ = ["Flatten"]


class Flatten(Layer):
    """Flattens each batch element into one axis (``(batch,)`` inputs become ``(batch, 1)``).
    With ``data_format="channels_first"`` the channels are moved last first, so the order
    of the features matches channels_last inputs."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)
        self.built = True

    def call(self, inputs):
        shape = inputs.shape.as_list()
        rank = len(shape)
        if self.data_format == "channels_first" and rank > 1:
            inputs = transpose(inputs, (0, *range(2, rank), 1))
        return reshape(inputs, self._target(shape))

    @staticmethod
    def _target(shape):
        batch = -1 if shape[0] is None else shape[0]
        rest = shape[1:]
        if not rest:
            return (batch, 1)
        if None in rest:
            return (batch, -1)
        return (batch, math.prod(rest))

    def compute_output_shape(self, input_shape):
        rest = tuple(input_shape)[1:]
        if not rest:
            return (input_shape[0], 1)
        return (input_shape[0], None if None in rest else math.prod(rest))

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}
