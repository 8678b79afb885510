"""Keras 3's noise layers, active only in training: `GaussianNoise` (adds N(0, stddev)),
`GaussianDropout` (multiplies by N(1, sqrt(rate / (1 - rate)))) and `AlphaDropout` (TF 2.21's
``tf.keras.layers.AlphaDropout``, the legacy layer: dropped units are set to SELU's negative
saturation value, then an affine map keeps the mean and variance).

Each training call draws new numbers, eagerly and on every run of a traced function: as in
Keras, a seed generator (a ``[seed, counter]`` variable) seeds stateless random ops, so a
given ``seed`` gives Keras's very numbers."""

import math

import ferroflow as _tf
from ferroflow.keras import _seed_generator as _random
from ferroflow.keras._seed_generator import SeedGenerator
from ferroflow.keras.layers._shapes import dims_of
from ferroflow.keras.layers.layer import Layer

__all__ = ["AlphaDropout", "GaussianDropout", "GaussianNoise"]

# SELU's constants (`tf.keras.activations.selu`).
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check_unit_interval(name, value):
    if not 0 <= value <= 1:
        raise ValueError(
            f"Invalid value received for argument `{name}`. Expected a float value between "
            f"0 and 1. Received: {name}={value}"
        )


class _NoiseLayer(Layer):
    """A weightless layer whose output has its input's shape and that passes masks on."""

    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self.supports_masking = True
        self.built = True

    def compute_output_shape(self, input_shape):
        return input_shape

    def compute_mask(self, inputs, mask=None):
        return mask


class GaussianNoise(_NoiseLayer):
    """In training, adds zero-centred Gaussian noise of standard deviation ``stddev``."""

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        _check_unit_interval("stddev", stddev)
        self.stddev = stddev
        if stddev > 0:
            self.seed_generator = SeedGenerator(seed)

    def call(self, inputs, training=False):
        if not training or self.stddev <= 0:
            return inputs
        noise = _random.normal(dims_of(inputs), self.seed_generator, 0.0, self.stddev, self._dtype)
        return inputs + noise

    def get_config(self):
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}


class GaussianDropout(_NoiseLayer):
    """In training, multiplies by Gaussian noise of mean 1 and standard deviation
    ``sqrt(rate / (1 - rate))``."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        _check_unit_interval("rate", rate)
        self.rate = rate
        if rate > 0:
            self.seed_generator = SeedGenerator(seed)

    def call(self, inputs, training=False):
        if not training or self.rate <= 0:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        noise = _random.normal(dims_of(inputs), self.seed_generator, 1.0, stddev, self._dtype)
        return inputs * noise

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


class AlphaDropout(_NoiseLayer):
    """In training, sets each unit with probability ``rate`` to ``-SELU_ALPHA * SELU_SCALE``
    and maps the result by ``a * x + b`` so that a standardised input stays standardised.
    ``noise_shape``, when given, is the shape of the uniform draw (it must broadcast to the
    input's); like TF 2.21's layer, the config does not carry it and ``rate`` is unchecked."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed_generator = SeedGenerator(seed)

    def call(self, inputs, training=False):
        if not training or self.rate <= 0:
            return inputs
        alpha_p = -_SELU_ALPHA * _SELU_SCALE
        dims = dims_of(inputs) if self.noise_shape is None else list(self.noise_shape)
        uniform = _random.uniform(dims, self.seed_generator)
        kept = _tf.cast(_tf.greater_equal(uniform, self.rate), inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = inputs * kept + alpha_p * (1 - kept)
        return a * x + b

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}
