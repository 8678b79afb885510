"""`tf.keras.layers.RMSNormalization`: ``x * rsqrt(mean(x^2, axis) + epsilon) * scale``
(Zhang and Sennrich, 2019), computed in float32 at least and returned in the input's dtype."""

from ferroflow import array_ops, dtypes
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.layers.layer_normalization import _check_axes
from ferroflow.math import reduce_mean, rsqrt, square

__all__ = ["RMSNormalization"]


class RMSNormalization(Layer):
    """Root-mean-square normalisation over ``axis`` (an int or a list) with a learned
    ``scale`` of the normalised axes' shape."""

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = epsilon

    def build(self, input_shape):
        if isinstance(self.axis, (list, tuple)):
            self.axis = sorted(self.axis)
            shape = tuple(input_shape[dim] for dim in self.axis)
        else:
            shape = (input_shape[self.axis],)
            self.axis = [self.axis]
        self.scale = self.add_weight(name="scale", shape=shape, initializer="ones")
        self.built = True

    def call(self, inputs):
        original = inputs.dtype
        x = array_ops.cast(inputs, dtypes.float64 if original == dtypes.float64 else dtypes.float32)
        if x.shape.rank == 0:
            x = array_ops.expand_dims(x, 0)
        rrms = rsqrt(reduce_mean(square(x), axis=self.axis, keepdims=True) + self.epsilon)
        outputs = x * rrms * array_ops.cast(self.scale, x.dtype)
        return array_ops.cast(outputs, original)

    def compute_output_shape(self, input_shape):
        _check_axes(
            [self.axis] if isinstance(self.axis, int) else self.axis, input_shape, self.axis
        )
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}
