"""The element-wise merge layers beside `Add`: `Subtract` (exactly two inputs), `Multiply`,
`Average`, `Maximum`, `Minimum`, and their functional forms. Inputs of different ranks are
broadcast as `Merge` does."""

import ferroflow as _tf
from ferroflow.keras.layers.merging import Merge

__all__ = [
    "Average",
    "Maximum",
    "Minimum",
    "Multiply",
    "Subtract",
    "average",
    "maximum",
    "minimum",
    "multiply",
    "subtract",
]


def _fold(op, inputs):
    output = inputs[0]
    for x in inputs[1:]:
        output = op(output, x)
    return output


class Subtract(Merge):
    """``inputs[0] - inputs[1]``."""

    def build(self, input_shape):
        super().build(input_shape)
        if len(input_shape) != 2:
            raise ValueError(
                "A `Subtract` layer should be called on exactly 2 inputs. "
                f"Received: input_shape={input_shape}"
            )

    def _merge_function(self, inputs):
        if len(inputs) != 2:
            raise ValueError(
                "A `Subtract` layer should be called on exactly 2 inputs. "
                f"Received: inputs={inputs}"
            )
        return _tf.subtract(inputs[0], inputs[1])


class Multiply(Merge):
    """The element-wise product of the inputs."""

    def _merge_function(self, inputs):
        return _fold(_tf.multiply, inputs)


class Average(Merge):
    """The element-wise mean of the inputs."""

    def _merge_function(self, inputs):
        return _fold(_tf.add, inputs) / len(inputs)


class Maximum(Merge):
    """The element-wise maximum of the inputs."""

    def _merge_function(self, inputs):
        return _fold(_tf.maximum, inputs)


class Minimum(Merge):
    """The element-wise minimum of the inputs."""

    def _merge_function(self, inputs):
        return _fold(_tf.minimum, inputs)


def subtract(inputs, **kwargs):
    """``inputs[0] - inputs[1]`` through a `Subtract` layer."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """The element-wise product of ``inputs`` through a `Multiply` layer."""
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """The element-wise mean of ``inputs`` through an `Average` layer."""
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    """The element-wise maximum of ``inputs`` through a `Maximum` layer."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    """The element-wise minimum of ``inputs`` through a `Minimum` layer."""
    return Minimum(**kwargs)(inputs)
