"""`tf.keras.layers.GroupNormalization`: the channels along ``axis`` split into ``groups``
groups, each example normalised over each group (its channels and all non-batch axes), then
scaled by ``gamma`` and shifted by ``beta`` per channel. ``groups=-1`` is instance
normalisation, ``groups=1`` layer normalisation over all axes."""

from ferroflow import array_ops, dtypes
from ferroflow.keras.layers._affine_parameters import (
    add_gamma_beta,
    affine_config,
    resolve_affine_arguments,
)
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.layers.layer_normalization import _check_axes
from ferroflow.math import rsqrt
from ferroflow.nn import moments

__all__ = ["GroupNormalization"]


def _compute_dtype(dtype):
    """Keras's ``result_type(dtype, "float32")``: float64 stays, the rest become float32."""
    return dtypes.float64 if dtype == dtypes.float64 else dtypes.float32


class GroupNormalization(Layer):
    """Group normalisation (Wu and He, 2018) over the channel axis ``axis``."""

    def __init__(
        self,
        groups=32,
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
        if not isinstance(groups, int) or (groups <= 0 and groups != -1):
            raise ValueError(
                "Received an invalid value for argument `groups`, expected a positive integer "
                f"(or `-1` for instance normalization). Received: groups={groups}"
            )
        super().__init__(**kwargs)
        self.supports_masking = True
        self.autocast = False
        self.groups = groups
        self.axis = axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        resolve_affine_arguments(
            self,
            beta_initializer,
            gamma_initializer,
            beta_regularizer,
            gamma_regularizer,
            beta_constraint,
            gamma_constraint,
        )

    def build(self, input_shape):
        dim = input_shape[self.axis]
        if dim is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension but the "
                f"layer received an input with shape {input_shape}."
            )
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError(
                f"Number of groups ({self.groups}) cannot be more than the number of "
                f"channels ({dim})."
            )
        if dim % self.groups != 0:
            raise ValueError(
                f"Number of groups ({self.groups}) must be a multiple of the number of "
                f"channels ({dim})."
            )
        self.input_spec = InputSpec(ndim=len(input_shape), axes={self.axis: dim})
        add_gamma_beta(self, (dim,), self.scale, self.center)
        self.built = True

    def _grouped(self, shape):
        """``shape`` (a list) with the channel axis split into (groups, channels per group)."""
        shape = list(shape)
        shape[self.axis] = shape[self.axis] // self.groups
        shape.insert(self.axis, self.groups)
        return shape

    def call(self, inputs):
        static = inputs.shape.as_list()
        dynamic = array_ops.shape(inputs)
        dims = [d if d is not None else dynamic[i] for i, d in enumerate(static)]
        group_shape = self._grouped([-1] + dims[1:])
        if any(not isinstance(d, int) for d in group_shape):
            group_shape = array_ops.stack(group_shape)
        grouped = array_ops.reshape(inputs, group_shape)
        compute_dtype = _compute_dtype(inputs.dtype)
        grouped = array_ops.cast(grouped, compute_dtype)
        axes = list(range(1, len(static) + 1))
        axes.pop(-2 if self.axis == -1 else self.axis - 1)
        mean, variance = moments(grouped, axes, keepdims=True)
        broadcast_shape = [1] * len(static)
        broadcast_shape[self.axis] = static[self.axis]
        broadcast_shape = self._grouped(broadcast_shape)
        inv = rsqrt(variance + self.epsilon)
        if self.gamma is not None:
            inv = inv * array_ops.cast(
                array_ops.reshape(self.gamma, broadcast_shape), compute_dtype
            )
        shift = -mean * inv
        if self.beta is not None:
            shift = shift + array_ops.cast(
                array_ops.reshape(self.beta, broadcast_shape), compute_dtype
            )
        normalized = array_ops.cast(grouped * inv + shift, inputs.dtype)
        outputs = array_ops.reshape(normalized, dynamic if None in static else static)
        return array_ops.cast(outputs, self._dtype)

    def compute_output_shape(self, input_shape):
        _check_axes(
            [self.axis] if isinstance(self.axis, int) else self.axis, input_shape, self.axis
        )
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "groups": self.groups,
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            **affine_config(self),
        }
