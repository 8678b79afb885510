"""`tf.keras.layers.LayerNormalization`: normalises each example over its feature axes."""

import warnings

from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import cast, reshape
from ferroflow.keras.layers._affine_parameters import (
    add_gamma_beta,
    affine_config,
    resolve_affine_arguments,
)
from ferroflow.keras.layers.layer import Layer
from ferroflow.math import reduce_mean, rsqrt
from ferroflow.nn import moments

__all__ = ["LayerNormalization"]


def _check_axes(axes, input_shape, received):
    for axis in axes:
        if axis >= len(input_shape) or axis < -len(input_shape):
            raise ValueError(
                f"Axis {axis} is out of bounds for input shape {tuple(input_shape)}. "
                f"Received: axis={received}"
            )


class LayerNormalization(Layer):
    """Normalises each example over ``axis`` (an int or a list, default the last) to zero
    mean and unit variance, then scales by ``gamma`` and shifts by ``beta`` (per feature of
    the normalised axes)."""

    def __init__(
        self,
        axis=-1,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        **kwargs,
    ):
        rms_scaling = kwargs.pop("rms_scaling", False)
        if rms_scaling:
            warnings.warn(
                "You passed `rms_scaling=True`, which is deprecated. This argument incorrectly "
                "scales the input by the variance, not the root mean square. To correctly use "
                "RMS Normalization, please use `keras.layers.RMSNormalization` instead.",
                stacklevel=2,
            )
        super().__init__(**kwargs)
        self.supports_masking = True
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(
                "Expected an int or a list/tuple of ints for the argument 'axis', but "
                f"received: {axis!r}"
            )
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.rms_scaling = rms_scaling
        resolve_affine_arguments(
            self,
            beta_initializer,
            gamma_initializer,
            beta_regularizer,
            gamma_regularizer,
            beta_constraint,
            gamma_constraint,
        )
        self.autocast = False

    def build(self, input_shape):
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        _check_axes(axes, input_shape, self.axis)
        # As in Keras, the axes become a sorted list once built.
        self.axis = sorted(axes)
        shape = tuple(input_shape[axis] for axis in self.axis)
        add_gamma_beta(
            self, shape, self.scale or self.rms_scaling, self.center and not self.rms_scaling
        )
        self.built = True

    def call(self, inputs):
        # No autocast: computed in the input's float precision (float32 at least), returned
        # in the layer's dtype, as in Keras.
        x = inputs
        if not x.dtype.is_floating or x.dtype in (_dtypes.float16, _dtypes.bfloat16):
            x = cast(x, _dtypes.float32)
        rank = len(x.shape)
        axes = sorted(a % rank for a in self.axis)
        broadcast_shape = [1] * rank
        for axis in axes:
            broadcast_shape[axis] = x.shape[axis]

        def as_broadcast(weight):
            if weight is None:
                return None
            weight = cast(weight, x.dtype)
            return weight if axes == [rank - 1] else reshape(weight, broadcast_shape)

        gamma, beta = as_broadcast(self.gamma), as_broadcast(self.beta)
        if self.rms_scaling:
            mean = reduce_mean(x, axes, keepdims=True)
            variance = reduce_mean((x - mean) * (x - mean), axes, keepdims=True)
            outputs = x * rsqrt(variance + self.epsilon)
            if gamma is not None:
                outputs = outputs * gamma
        else:
            mean, variance = moments(x, axes, keepdims=True)
            inv = rsqrt(variance + self.epsilon)
            if gamma is not None:
                inv = inv * gamma
            shift = -mean * inv
            if beta is not None:
                shift = shift + beta
            outputs = x * inv + shift
        return cast(outputs, self._dtype)

    def compute_output_shape(self, input_shape):
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        _check_axes(axes, input_shape, self.axis)
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "rms_scaling": self.rms_scaling,
            **affine_config(self),
        }
