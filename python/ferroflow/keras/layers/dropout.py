"""`tf.keras.layers.Dropout`: zeroes a random fraction of its input while training."""

from ferroflow.array_ops import zeros_like
from ferroflow.keras.layers.layer import Layer
from ferroflow.nn import dropout

__all__ = ["Dropout"]


def _validate_noise_shape(noise_shape):
    if noise_shape is None:
        return None
    if isinstance(noise_shape, str):
        raise ValueError(
            "Invalid value received for argument `noise_shape`. Expected a tuple or list of "
            f"integers. Received: noise_shape={noise_shape}"
        )
    try:
        noise_shape = tuple(noise_shape)
    except TypeError:
        raise ValueError(
            "Invalid value received for argument `noise_shape`. Expected an iterable of "
            f"integers (e.g., a tuple or list). Received: noise_shape={noise_shape}"
        ) from None
    for i, dim in enumerate(noise_shape):
        if dim is None:
            continue
        if not isinstance(dim, int):
            raise ValueError(
                "Invalid value received for argument `noise_shape`. Expected all elements "
                f"to be integers or None. Received element at index {i}: {dim} "
                f"(type: {type(dim).__name__})"
            )
        if dim <= 0:
            raise ValueError(
                "Invalid value received for argument `noise_shape`. Expected all dimensions "
                "to be positive integers or None. Received negative or zero value at index "
                f"{i}: {dim}"
            )
    return noise_shape


class Dropout(Layer):
    """In training, sets each input unit to 0 with probability ``rate`` and scales the
    others by ``1 / (1 - rate)``; in inference it is the identity. ``noise_shape`` (None
    entries take the input's size) shares the drop decision along axes of size 1; ``seed``
    makes the sequence of masks reproducible."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        if not 0 <= rate <= 1:
            raise ValueError(
                "Invalid value received for argument `rate`. Expected a float value between "
                f"0 and 1. Received: rate={rate}"
            )
        self.rate = rate
        self.seed = seed
        self.noise_shape = _validate_noise_shape(noise_shape)
        self.built = True

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        if self.rate == 1:
            return zeros_like(inputs)
        noise_shape = None
        if self.noise_shape is not None:
            noise_shape = [
                size if dim is None else dim
                for size, dim in zip(inputs.shape.as_list(), self.noise_shape)
            ]
        return dropout(inputs, self.rate, noise_shape=noise_shape, seed=self.seed)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "rate": self.rate,
            "seed": self.seed,
            "noise_shape": self.noise_shape,
        }
