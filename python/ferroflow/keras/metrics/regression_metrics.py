"""Regression metrics: mean squared / absolute (percentage) / squared logarithmic error, root
mean squared error, cosine similarity and log-cosh error."""

from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses.reduction import squeeze_or_expand_to_same_rank
from ferroflow.keras.losses.regression_losses import (
    l2_normalize,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)
from ferroflow.keras.metrics.reduction_metrics import Mean, MeanMetricWrapper

__all__ = [
    "CosineSimilarity",
    "LogCoshError",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "RootMeanSquaredError",
    "cosine_similarity",
]


class _NameAndDtypeConfig:
    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class MeanSquaredError(_NameAndDtypeConfig, MeanMetricWrapper):
    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(fn=mean_squared_error, name=name, dtype=dtype)
        self._direction = "down"


class MeanAbsoluteError(_NameAndDtypeConfig, MeanMetricWrapper):
    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name, dtype=dtype)
        self._direction = "down"


class MeanAbsolutePercentageError(_NameAndDtypeConfig, MeanMetricWrapper):
    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, name, dtype=dtype)
        self._direction = "down"


class MeanSquaredLogarithmicError(_NameAndDtypeConfig, MeanMetricWrapper):
    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(mean_squared_logarithmic_error, name, dtype=dtype)
        self._direction = "down"


class RootMeanSquaredError(Mean):
    """``sqrt`` of the (weighted) mean of the squared errors."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name, dtype=dtype)
        self._direction = "down"

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = K.convert(y_true, self.dtype)
        y_pred = K.convert(y_pred, self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        error_sq = tf_math.square(y_pred - y_true)
        return super().update_state(error_sq, sample_weight=sample_weight)

    def result(self):
        return tf_math.sqrt(super().result())


def cosine_similarity(y_true, y_pred, axis=-1):
    """``sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)`` (the metric's sign: +)."""
    y_pred = K.convert(y_pred)
    y_true = K.convert(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    y_pred = l2_normalize(y_pred, axis=axis)
    y_true = l2_normalize(y_true, axis=axis)
    return tf_math.reduce_sum(y_true * y_pred, axis=axis)


class CosineSimilarity(_NameAndDtypeConfig, MeanMetricWrapper):
    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(cosine_similarity, name, dtype=dtype, axis=axis)
        self._direction = "up"


class LogCoshError(_NameAndDtypeConfig, MeanMetricWrapper):
    def __init__(self, name="logcosh", dtype=None):
        super().__init__(log_cosh, name, dtype=dtype)
        self._direction = "down"
