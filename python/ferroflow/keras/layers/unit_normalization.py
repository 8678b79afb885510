"""`tf.keras.layers.UnitNormalization` (each slice along ``axis`` scaled to unit L2 norm, as
Keras 3's ``ops.normalize``: ``x * min(rsqrt(sum(x^2)), 1e12)``) and
`tf.keras.layers.ActivityRegularization` (its input unchanged, an L1/L2 penalty of it added to
the layer's losses)."""

import ferroflow as _tf
from ferroflow.keras.layers.layer import Layer

__all__ = ["ActivityRegularization", "UnitNormalization"]


class UnitNormalization(Layer):
    """Scales each slice along ``axis`` (an int or several) to unit L2 norm."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(
                "Invalid value for `axis` argument: expected an int or a list/tuple of ints. "
                f"Received: axis={axis}"
            )
        self.built = True

    def call(self, inputs):
        x = _tf.convert_to_tensor(inputs)
        self._check_axes(tuple(x.shape))
        if x.shape.rank == 0:
            x = _tf.expand_dims(x, 0)
        square_sum = _tf.reduce_sum(_tf.square(x), axis=self.axis, keepdims=True)
        inv_norm = _tf.minimum(_tf.math.rsqrt(square_sum), _tf.cast(1e12, x.dtype))
        return x * inv_norm

    def _check_axes(self, input_shape):
        axes = [self.axis] if isinstance(self.axis, int) else self.axis
        for axis in axes:
            if axis >= len(input_shape) or axis < -len(input_shape):
                raise ValueError(
                    f"Axis {self.axis} is out of bounds for input shape {input_shape}."
                )

    def compute_output_shape(self, input_shape):
        self._check_axes(input_shape)
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class ActivityRegularization(Layer):
    """Passes its input through and adds ``l1 * sum(|x|) + l2 * sum(x^2)`` to its losses."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        from ferroflow.keras import regularizers

        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2
        self.built = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        return {**config, "l1": self.l1, "l2": self.l2}
