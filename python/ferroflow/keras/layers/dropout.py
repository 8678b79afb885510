"""`tf.keras.layers.Dropout`: zeroes a random fraction of its input while training. As in
Keras, the masks come from the layer's `SeedGenerator` through TensorFlow's stateless dropout,
so a seeded layer drops Keras's very units, call after call (eagerly, traced, in `fit`)."""

from ferroflow.keras import random as keras_random
from ferroflow.keras._seed_generator import SeedGenerator
from ferroflow.keras.layers.layer import Layer

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
        if rate > 0:
            self.seed_generator = SeedGenerator(seed)
        self.built = True

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        return keras_random.dropout(
            inputs, self.rate, noise_shape=self.noise_shape, seed=self.seed_generator
        )

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "rate": self.rate,
            "seed": self.seed,
            "noise_shape": self.noise_shape,
        }
