"""`tf.keras.layers.RepeatVector` (a 2-D input repeated `n` times along a new axis 1) and
`tf.keras.layers.Permute` (the non-batch axes reordered), with Keras 3's argument checks."""

import ferroflow as _tf
from ferroflow.keras.layers._shapes import positive_int
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer

__all__ = ["Permute", "RepeatVector"]


class RepeatVector(Layer):
    """``[batch, features]`` to ``[batch, n, features]``."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = positive_int(n, "n")
        self.input_spec = InputSpec(ndim=2)
        self.built = True

    def call(self, inputs):
        return _tf.repeat(_tf.expand_dims(inputs, 1), self.n, axis=1)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self):
        return {**super().get_config(), "n": self.n}


class Permute(Layer):
    """Reorders the non-batch axes: ``dims`` is a permutation of 1..rank-1."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError(
                "Invalid permutation argument `dims` for Permute Layer. "
                "The set of indices in `dims` must be consecutive and start "
                f"from 1. Received dims={dims}"
            )
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)
        self.built = True

    def call(self, inputs):
        return _tf.transpose(inputs, perm=(0, *self.dims))

    def compute_output_shape(self, input_shape):
        return (input_shape[0], *(input_shape[d] for d in self.dims))

    def get_config(self):
        return {**super().get_config(), "dims": self.dims}
