"""`tf.keras.layers.BatchNormalization`: normalises with the batch's statistics while
training (and tracks their moving averages), with the moving averages in inference."""

from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import (
    broadcast_to,
    cast,
    expand_dims,
    reshape,
    squeeze,
    where,
    zeros_like,
)
from ferroflow.backprop import stop_gradient
from ferroflow.keras import _backend_config as backend_config
from ferroflow.keras.layers import _config
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer
from ferroflow.math import maximum, minimum, reduce_sum, rsqrt, sqrt, square
from ferroflow.nn import moments, relu

__all__ = ["BatchNormalization", "batch_normalization"]


def batch_normalization(x, mean, variance, offset, scale, epsilon):
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset`` computed as
    `tf.nn.batch_normalization` does (``x * inv + (offset - mean * inv)``)."""
    inv = rsqrt(variance + epsilon)
    if scale is not None:
        inv = inv * scale
    shift = -mean * inv if offset is None else offset - mean * inv
    return x * inv + shift


def _check_axis(axis, input_shape, received):
    if axis >= len(input_shape) or axis < -len(input_shape):
        raise ValueError(
            f"Axis {axis} is out of bounds for input shape {tuple(input_shape)}. "
            f"Received: axis={received}"
        )


class BatchNormalization(Layer):
    """Normalises ``axis`` (the features, default the last) to zero mean and unit variance,
    then scales by ``gamma`` and shifts by ``beta``.

    Called with ``training=True`` (and trainable) it uses the batch's mean and variance and
    moves ``moving_mean``/``moving_variance`` towards them by ``1 - momentum``; otherwise it
    uses the moving statistics. ``renorm=True`` is batch renormalisation (Ioffe, 2017).
    """

    def __init__(
        self,
        axis=-1,
        momentum=0.99,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        moving_mean_initializer="zeros",
        moving_variance_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        renorm=False,
        renorm_clipping=None,
        renorm_momentum=0.99,
        synchronized=False,
        **kwargs,
    ):
        from ferroflow.keras import initializers, regularizers

        super().__init__(**kwargs)
        self.supports_masking = True
        self.axis = int(axis)
        # One replica: synchronised statistics are the local ones.
        self.synchronized = synchronized
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = _config.get_constraint(beta_constraint)
        self.gamma_constraint = _config.get_constraint(gamma_constraint)
        self.renorm = renorm
        if renorm:
            renorm_clipping = renorm_clipping or {}
            keys = ["rmax", "rmin", "dmax"]
            if set(renorm_clipping) - set(keys):
                raise ValueError(
                    "Received invalid keys for `renorm_clipping` argument: "
                    f"{renorm_clipping}. Supported values: {keys}."
                )
            rmax, rmin = renorm_clipping.get("rmax"), renorm_clipping.get("rmin")
            dmax = renorm_clipping.get("dmax")
            if rmax is not None and rmin is not None and rmax < rmin:
                raise ValueError(
                    "rmax should be greater than rmin in the `renorm_clipping` argument. "
                    f"Received: rmax={rmax}, rmin={rmin}."
                )
            if dmax is not None and dmax < 0:
                raise ValueError(
                    "dmax should be non-negative in the `renorm_clipping` argument. "
                    f"Received: dmax={dmax}."
                )
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = renorm_momentum
        self.gamma = None
        self.beta = None
        self.moving_mean = None
        self.moving_variance = None
        self._reduction_axes = None

    def build(self, input_shape):
        _check_axis(self.axis, input_shape, self.axis)
        shape = (input_shape[self.axis],)
        if self.scale:
            self.gamma = self.add_weight(
                shape=shape,
                name="gamma",
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
            )
        if self.center:
            self.beta = self.add_weight(
                shape=shape,
                name="beta",
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
            )
        self.moving_mean = self.add_weight(
            shape=shape,
            name="moving_mean",
            initializer=self.moving_mean_initializer,
            trainable=False,
        )
        self.moving_variance = self.add_weight(
            shape=shape,
            name="moving_variance",
            initializer=self.moving_variance_initializer,
            trainable=False,
        )
        if self.renorm:
            # Renormalisation tracks the moving stddev (the moving variance follows from it)
            # and, for the corrections, a second pair of moving statistics.
            variance_initializer = self.moving_variance_initializer

            def stddev_initializer(shape, dtype=None):
                return sqrt(variance_initializer(shape, dtype=dtype))

            self.moving_stddev = self.add_weight(
                shape=shape, name="moving_stddev", initializer=stddev_initializer, trainable=False
            )
            self.renorm_mean = self.add_weight(
                shape=shape,
                name="renorm_mean",
                initializer=self.moving_mean_initializer,
                trainable=False,
            )
            self.renorm_stddev = self.add_weight(
                shape=shape, name="renorm_stddev", initializer=stddev_initializer, trainable=False
            )
        rank = len(input_shape)
        self.input_spec = InputSpec(ndim=rank, axes={self.axis: input_shape[self.axis]})
        self._reduction_axes = [a for a in range(rank) if a != self.axis % rank]
        self.built = True

    def _broadcastable(self, value, rank):
        """A per-feature vector shaped to broadcast against the inputs."""
        if self.axis in (-1, rank - 1):
            return value
        shape = [1] * rank
        shape[self.axis] = -1
        return reshape(value, shape)

    def call(self, inputs, training=None, mask=None):
        if mask is not None and len(mask.shape) != len(inputs.shape) - 1:
            raise ValueError(
                "The mask provided should be one dimension less than the inputs. Received: "
                f"mask.shape={mask.shape}, inputs.shape={inputs.shape}"
            )
        # Half-precision statistics overflow easily: compute in float32 at least.
        if inputs.dtype in (_dtypes.float16, _dtypes.bfloat16):
            inputs = cast(inputs, _dtypes.float32)
        dtype = inputs.dtype
        moving_mean = cast(self.moving_mean, dtype)
        moving_variance = cast(self.moving_variance, dtype)
        gamma = cast(self.gamma, dtype) if self.scale else None
        beta = cast(self.beta, dtype) if self.center else None
        if training and self.trainable:
            mean, variance = self._moments(inputs, mask)
            if self.renorm:
                r, d = self._renorm_correction(mean, variance)
                gamma, beta = self._compose_transforms(r, d, gamma, beta, dtype)
                self._update_renorm_statistics(mean, variance)
            else:
                self.moving_mean.assign(moving_mean * self.momentum + mean * (1.0 - self.momentum))
                self.moving_variance.assign(
                    moving_variance * self.momentum + variance * (1.0 - self.momentum)
                )
        else:
            mean, variance = moving_mean, moving_variance
        rank = len(inputs.shape)
        outputs = batch_normalization(
            inputs,
            self._broadcastable(mean, rank),
            self._broadcastable(variance, rank),
            None if beta is None else self._broadcastable(beta, rank),
            None if gamma is None else self._broadcastable(gamma, rank),
            self.epsilon,
        )
        return cast(outputs, self._dtype)

    def _moments(self, inputs, mask):
        if mask is None:
            return moments(inputs, self._reduction_axes)
        weights = cast(broadcast_to(expand_dims(mask, -1), inputs.shape.as_list()), inputs.dtype)
        chosen = weights > 0
        total = reduce_sum(weights, self._reduction_axes, keepdims=True)
        summed = reduce_sum(where(chosen, inputs, zeros_like(inputs)), self._reduction_axes, True)
        mean = summed / (total + backend_config.epsilon())
        difference = where(chosen, inputs - mean, zeros_like(inputs))
        variance = reduce_sum(square(difference), self._reduction_axes, True) / (
            total + backend_config.epsilon()
        )
        return squeeze(mean), squeeze(variance)

    def _renorm_correction(self, mean, variance):
        """Batch renormalisation's r and d: the batch statistics relative to the renorm
        moving ones, clipped by ``renorm_clipping``."""
        stddev = sqrt(variance + self.epsilon)
        renorm_mean = cast(self.renorm_mean, mean.dtype)
        renorm_stddev = maximum(cast(self.renorm_stddev, mean.dtype), self.epsilon**0.5)
        r = stddev / renorm_stddev
        d = (mean - renorm_mean) / renorm_stddev
        rmin = self.renorm_clipping.get("rmin")
        rmax = self.renorm_clipping.get("rmax")
        dmax = self.renorm_clipping.get("dmax")
        if rmin is not None:
            r = maximum(r, float(rmin))
        if rmax is not None:
            r = minimum(r, float(rmax))
        if dmax is not None:
            d = minimum(maximum(d, -float(dmax)), float(dmax))
        return r, d

    @staticmethod
    def _compose_transforms(r, d, gamma, beta, dtype):
        """``(x * r + d) * gamma + beta`` as one scale and offset; r and d are constants."""
        r, d = stop_gradient(r), stop_gradient(d)
        if gamma is not None:
            gamma, offset = r * gamma, d * gamma
        else:
            gamma, offset = cast(r, dtype), cast(d, dtype)
        if beta is not None:
            offset = offset + beta
        return gamma, offset

    def _update_renorm_statistics(self, mean, variance):
        stddev = sqrt(variance + self.epsilon)
        renorm_mean = cast(self.renorm_mean, mean.dtype)
        renorm_stddev = cast(self.renorm_stddev, mean.dtype)
        self.renorm_mean.assign(
            renorm_mean * self.renorm_momentum + mean * (1.0 - self.renorm_momentum)
        )
        self.renorm_stddev.assign(
            renorm_stddev * self.renorm_momentum + stddev * (1.0 - self.renorm_momentum)
        )
        moving_mean = cast(self.moving_mean, mean.dtype)
        moving_stddev = cast(self.moving_stddev, mean.dtype)
        self.moving_mean.assign(moving_mean * self.momentum + mean * (1.0 - self.momentum))
        new_moving_stddev = moving_stddev * self.momentum + stddev * (1.0 - self.momentum)
        self.moving_stddev.assign(new_moving_stddev)
        # The variance implied by the stddev; relu guards against rounding below zero.
        self.moving_variance.assign(relu(new_moving_stddev * new_moving_stddev - self.epsilon))

    def compute_output_shape(self, input_shape):
        _check_axis(self.axis, input_shape, self.axis)
        return input_shape

    def get_config(self):
        serialize_init = _config.serialize_initializer
        return {
            **super().get_config(),
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": serialize_init(self.beta_initializer),
            "gamma_initializer": serialize_init(self.gamma_initializer),
            "moving_mean_initializer": serialize_init(self.moving_mean_initializer),
            "moving_variance_initializer": serialize_init(self.moving_variance_initializer),
            "beta_regularizer": _config.serialize_regularizer(self.beta_regularizer),
            "gamma_regularizer": _config.serialize_regularizer(self.gamma_regularizer),
            "beta_constraint": _config.serialize_constraint(self.beta_constraint),
            "gamma_constraint": _config.serialize_constraint(self.gamma_constraint),
            "synchronized": self.synchronized,
            "renorm": self.renorm,
            "renorm_clipping": self.renorm_clipping,
            "renorm_momentum": self.renorm_momentum,
        }
