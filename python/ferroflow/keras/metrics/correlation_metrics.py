"""Correlation metrics: `pearson_correlation`, `concordance_correlation` and their mean
metrics."""

from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses.reduction import squeeze_or_expand_to_same_rank
from ferroflow.keras.metrics.reduction_metrics import MeanMetricWrapper

__all__ = [
    "ConcordanceCorrelation",
    "PearsonCorrelation",
    "concordance_correlation",
    "pearson_correlation",
]


def _pair(y_true, y_pred):
    y_pred = K.convert(y_pred)
    y_true = K.convert(y_true, y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def pearson_correlation(y_true, y_pred, axis=-1):
    """Pearson's correlation of ``y_true`` and ``y_pred`` along ``axis``."""
    y_true, y_pred = _pair(y_true, y_pred)
    true_norm = y_true - tf_math.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_norm = y_pred - tf_math.reduce_mean(y_pred, axis=axis, keepdims=True)
    true_norm = true_norm / tf_math.reduce_std(true_norm, axis=axis, keepdims=True)
    pred_norm = pred_norm / tf_math.reduce_std(pred_norm, axis=axis, keepdims=True)
    return tf_math.reduce_mean(true_norm * pred_norm, axis=axis)


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation coefficient along ``axis``, as Keras computes it."""
    y_true, y_pred = _pair(y_true, y_pred)
    true_mean = tf_math.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_mean = tf_math.reduce_mean(y_pred, axis=axis, keepdims=True)
    true_var = tf_math.reduce_variance(y_true - true_mean, axis=axis, keepdims=True)
    pred_var = tf_math.reduce_variance(y_pred - pred_mean, axis=axis, keepdims=True)
    # Keras centres y_true on y_pred's mean here; kept for the same numbers.
    covar = (y_true - pred_mean) * (y_pred - pred_mean)
    norm = true_var + pred_var + tf_math.square(true_mean - pred_mean)
    return tf_math.reduce_mean(2 * covar / (norm + K.EPSILON), axis=axis)


class _AxisConfig:
    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "axis": self.axis}


class PearsonCorrelation(_AxisConfig, MeanMetricWrapper):
    """The mean of `pearson_correlation` over the samples."""

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(fn=pearson_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis
        self._direction = "up"


class ConcordanceCorrelation(_AxisConfig, MeanMetricWrapper):
    """The mean of `concordance_correlation` over the samples."""

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(fn=concordance_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis
        self._direction = "up"
