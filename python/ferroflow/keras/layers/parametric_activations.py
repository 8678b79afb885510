"""`tf.keras.layers.PReLU` (a leaky ReLU whose negative slope ``alpha`` is learned, per unit
or shared along ``shared_axes``) and `tf.keras.layers.ThresholdedReLU` (TF 2.21's legacy
layer: ``x`` where ``x > theta``, else 0)."""

import ferroflow as _tf
from ferroflow.keras.layers import _config
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer

__all__ = ["PReLU", "ThresholdedReLU"]


class PReLU(Layer):
    """``x`` for ``x >= 0``, ``alpha * x`` otherwise, with ``alpha`` a weight of the input's
    non-batch shape (1 along ``shared_axes``)."""

    def __init__(
        self,
        alpha_initializer="Zeros",
        alpha_regularizer=None,
        alpha_constraint=None,
        shared_axes=None,
        **kwargs,
    ):
        from ferroflow.keras import initializers, regularizers

        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = _config.get_constraint(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif not isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [shared_axes]
        else:
            self.shared_axes = list(shared_axes)

    def build(self, input_shape):
        param_shape = list(input_shape[1:])
        for axis in self.shared_axes or ():
            param_shape[axis - 1] = 1
        self.alpha = self.add_weight(
            shape=param_shape,
            name="alpha",
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
        )
        axes = {}
        if self.shared_axes:
            axes = {
                i: input_shape[i] for i in range(1, len(input_shape)) if i not in self.shared_axes
            }
        self.input_spec = InputSpec(ndim=len(input_shape), axes=axes)
        self.built = True

    def call(self, inputs):
        return _tf.nn.relu(inputs) - self.alpha * _tf.nn.relu(-inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "alpha_initializer": _config.serialize_initializer(self.alpha_initializer),
            "alpha_regularizer": _config.serialize_regularizer(self.alpha_regularizer),
            "alpha_constraint": _config.serialize_constraint(self.alpha_constraint),
            "shared_axes": self.shared_axes,
        }


class ThresholdedReLU(Layer):
    """``x * (x > theta)``; ``theta`` must be a number >= 0."""

    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        if theta is None:
            raise ValueError(
                "Theta of a Thresholded ReLU layer cannot be None, expecting a float. "
                f"Received: {theta}"
            )
        if theta < 0:
            raise ValueError(
                f"The theta value of a Thresholded ReLU layer should be >=0. Received: {theta}"
            )
        self.supports_masking = True
        self.theta = _tf.convert_to_tensor(theta, dtype=self._dtype)
        self.built = True

    def call(self, inputs):
        return inputs * _tf.cast(_tf.greater(inputs, self.theta), self._dtype)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "theta": float(self.theta)}
