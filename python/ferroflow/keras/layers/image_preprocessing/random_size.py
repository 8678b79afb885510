"""`tf.keras.layers.RandomHeight` and `RandomWidth`: Keras's deprecated layers (still exported
by `tf.keras` in TensorFlow 2.21) that resize a batch to a random height or width, the same
for the whole batch, while training."""

import ferroflow as tf
from ferroflow.keras import random as keras_random
from ferroflow.keras._seed_generator import SeedGenerator
from ferroflow.keras.layers.layer import Layer

__all__ = ["RandomHeight", "RandomWidth"]


class _RandomSize(Layer):
    """Resizes axis ``_AXIS`` (-3 height, -2 width) by a random ``1 + factor`` while
    training."""

    _AXIS = -3
    _NAME = "height"

    def __init__(self, factor, interpolation="bilinear", seed=None, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor
        if isinstance(factor, (tuple, list)):
            lower, upper = factor[0], factor[1]
        else:
            lower, upper = -factor, factor
        if upper < lower:
            relation = "lesser" if self._NAME == "height" else "less"
            raise ValueError(
                f"`factor` argument cannot have an upper bound {relation} than the lower bound. "
                f"Received: factor={factor}"
            )
        if lower < -1.0 or upper < -1.0:
            raise ValueError(
                f"`factor` argument must have values larger than -1. Received: factor={factor}"
            )
        setattr(self, f"{self._NAME}_lower", lower)
        setattr(self, f"{self._NAME}_upper", upper)
        self._bounds = (lower, upper)
        self.interpolation = interpolation
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def call(self, inputs, training=True):
        inputs = tf.convert_to_tensor(inputs, dtype=self.compute_dtype)
        if not training:
            return inputs
        shape = tf.shape(inputs)
        lower, upper = self._bounds
        factor = keras_random.uniform([], 1.0 + lower, 1.0 + upper, seed=self.generator)
        size = [shape[-3], shape[-2]]
        index = 0 if self._AXIS == -3 else 1
        size[index] = tf.cast(factor * tf.cast(size[index], "float32"), "int32")
        output = tf.image.resize(inputs, tf.stack(size), method=self.interpolation)
        return tf.cast(output, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        input_shape = list(input_shape)
        input_shape[self._AXIS] = None
        return tuple(input_shape)

    def compute_output_spec(self, inputs, training=None):
        from ferroflow.keras.layers.input_layer import KerasTensor

        shape = self.compute_output_shape(tuple(inputs.shape))
        return KerasTensor(shape, dtype=self.compute_dtype)

    def get_config(self):
        return {
            **super().get_config(),
            "factor": self.factor,
            "interpolation": self.interpolation,
            "seed": self.seed,
        }


class RandomHeight(_RandomSize):
    """Resizes the batch to a random height (``1 + factor`` times its own) while training."""

    _AXIS = -3
    _NAME = "height"


class RandomWidth(_RandomSize):
    """Resizes the batch to a random width (``1 + factor`` times its own) while training."""

    _AXIS = -2
    _NAME = "width"
