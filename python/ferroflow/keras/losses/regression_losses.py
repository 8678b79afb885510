"""Regression losses: mean squared / absolute (percentage) / squared logarithmic error, Huber,
log-cosh and cosine similarity, as functions and as `Loss` classes."""

from ferroflow import array_ops, nn
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses.loss import Loss
from ferroflow.keras.losses.reduction import squeeze_or_expand_to_same_rank
from ferroflow.keras.losses.wrapper import LossFunctionWrapper

__all__ = [
    "CosineSimilarity",
    "Huber",
    "LogCosh",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "cosine_similarity",
    "huber",
    "l2_normalize",
    "log_cosh",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
]


def _prepare(y_true, y_pred):
    y_pred = K.convert(y_pred)
    y_true = K.convert(y_true, y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def mean_squared_error(y_true, y_pred):
    """``mean(square(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return tf_math.reduce_mean(tf_math.square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return tf_math.reduce_mean(tf_math.abs(y_true - y_pred), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(abs((y_true - y_pred) / max(abs(y_true), epsilon)), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    epsilon = K.convert(K.EPSILON, y_pred.dtype)
    diff = tf_math.abs((y_true - y_pred) / tf_math.maximum(tf_math.abs(y_true), epsilon))
    return 100.0 * tf_math.reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    """``mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    epsilon = K.convert(K.EPSILON, y_pred.dtype)
    first_log = tf_math.log(tf_math.maximum(y_pred, epsilon) + 1.0)
    second_log = tf_math.log(tf_math.maximum(y_true, epsilon) + 1.0)
    return tf_math.reduce_mean(tf_math.square(first_log - second_log), axis=-1)


def l2_normalize(x, axis=-1, epsilon=K.EPSILON):
    """``x * min(rsqrt(sum(x**2, axis)), 1 / epsilon)`` (Keras' ``ops.normalize``)."""
    x = K.convert(x)
    if K.ndim(x) == 0:
        x = array_ops.expand_dims(x, axis=0)
    square_sum = tf_math.reduce_sum(tf_math.square(x), axis=axis, keepdims=True)
    inv_norm = tf_math.minimum(tf_math.rsqrt(square_sum), K.convert(1.0 / epsilon, x.dtype))
    return x * inv_norm


def cosine_similarity(y_true, y_pred, axis=-1):
    """``-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    y_pred = l2_normalize(y_pred, axis=axis)
    y_true = l2_normalize(y_true, axis=axis)
    return -tf_math.reduce_sum(y_true * y_pred, axis=axis)


def huber(y_true, y_pred, delta=1.0):
    """``0.5 * x**2`` where ``|x| <= delta``, else ``delta * |x| - 0.5 * delta**2``, averaged
    over the last axis (``x = y_pred - y_true``)."""
    y_true, y_pred = _prepare(y_true, y_pred)
    delta = K.convert(delta, y_pred.dtype)
    error = y_pred - y_true
    abs_error = tf_math.abs(error)
    half = K.convert(0.5, abs_error.dtype)
    return tf_math.reduce_mean(
        array_ops.where(
            abs_error <= delta,
            half * tf_math.square(error),
            delta * abs_error - half * tf_math.square(delta),
        ),
        axis=-1,
    )


def log_cosh(y_true, y_pred):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed as ``x + softplus(-2x) - log 2``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    log2 = K.cast(tf_math.log(K.convert(2.0, "float32")), y_pred.dtype)
    x = y_pred - y_true
    return tf_math.reduce_mean(x + nn.softplus(x * -2.0) - log2, axis=-1)


class _PlainConfig:
    """Losses whose config is just the base `Loss` one (name and reduction), as in Keras."""

    def get_config(self):
        return Loss.get_config(self)


class MeanSquaredError(_PlainConfig, LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name=name, reduction=reduction, dtype=dtype)


class MeanAbsoluteError(_PlainConfig, LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name=name, reduction=reduction, dtype=dtype)


class MeanAbsolutePercentageError(_PlainConfig, LossFunctionWrapper):
    def __init__(
        self,
        reduction="sum_over_batch_size",
        name="mean_absolute_percentage_error",
        dtype=None,
    ):
        super().__init__(
            mean_absolute_percentage_error, name=name, reduction=reduction, dtype=dtype
        )


class MeanSquaredLogarithmicError(_PlainConfig, LossFunctionWrapper):
    def __init__(
        self,
        reduction="sum_over_batch_size",
        name="mean_squared_logarithmic_error",
        dtype=None,
    ):
        super().__init__(
            mean_squared_logarithmic_error, name=name, reduction=reduction, dtype=dtype
        )


class CosineSimilarity(_PlainConfig, LossFunctionWrapper):
    def __init__(
        self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity", dtype=None
    ):
        super().__init__(cosine_similarity, name=name, reduction=reduction, dtype=dtype, axis=axis)


class Huber(_PlainConfig, LossFunctionWrapper):
    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss", dtype=None):
        super().__init__(huber, name=name, reduction=reduction, dtype=dtype, delta=delta)


class LogCosh(_PlainConfig, LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="log_cosh", dtype=None):
        super().__init__(log_cosh, name=name, reduction=reduction, dtype=dtype)
