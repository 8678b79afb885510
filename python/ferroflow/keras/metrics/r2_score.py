"""`tf.keras.metrics.R2Score`: the coefficient of determination, per output or aggregated."""

import warnings

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses.reduction import squeeze_or_expand_to_same_rank
from ferroflow.keras.metrics.metric import Metric

__all__ = ["R2Score"]

_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


class R2Score(Metric):
    """``1 - SS_res / SS_tot`` per output column (weighted by ``sample_weight``), averaged
    uniformly or by variance, and adjusted for ``num_regressors`` when set."""

    def __init__(
        self, class_aggregation="uniform_average", num_regressors=0, name="r2_score", dtype=None
    ):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        if class_aggregation not in _AGGREGATIONS:
            raise ValueError(
                "Invalid value for argument `class_aggregation`. Expected one of "
                f"{_AGGREGATIONS}. Received: class_aggregation={class_aggregation}"
            )
        if num_regressors < 0:
            raise ValueError(
                "Invalid value for argument `num_regressors`. Expected a value >= 0. "
                f"Received: num_regressors={num_regressors}"
            )
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable(shape=(), initializer="zeros", name="num_samples")
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError(
                "R2Score expects 2D inputs with shape (batch_size, output_dim). Received input "
                f"shapes: y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}."
            )
        if y_pred_shape[-1] is None or y_true_shape[-1] is None:
            raise ValueError(
                "R2Score expects 2D inputs with shape (batch_size, output_dim), with output_dim "
                "fully defined (not None). Received input shapes: "
                f"y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}."
            )
        shape = [y_pred_shape[-1]]
        self.squared_sum = self.add_variable(name="squared_sum", shape=shape, initializer="zeros")
        self.sum = self.add_variable(name="sum", shape=shape, initializer="zeros")
        self.total_mse = self.add_variable(name="residual", shape=shape, initializer="zeros")
        self.count = self.add_variable(name="count", shape=shape, initializer="zeros")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = K.convert(y_true, self.dtype)
        y_pred = K.convert(y_pred, self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if not self._built:
            self._build(tuple(y_true.shape), tuple(y_pred.shape))
        sample_weight = K.convert(1 if sample_weight is None else sample_weight, self.dtype)
        if len(sample_weight.shape) == 1:
            sample_weight = array_ops.expand_dims(sample_weight, axis=1)
        sample_weight = array_ops.broadcast_to(sample_weight, array_ops.shape(y_true))
        weighted = y_true * sample_weight
        self.sum.assign(self.sum + tf_math.reduce_sum(weighted, axis=0))
        self.squared_sum.assign(self.squared_sum + tf_math.reduce_sum(y_true * weighted, axis=0))
        self.total_mse.assign(
            self.total_mse
            + tf_math.reduce_sum(tf_math.square(y_true - y_pred) * sample_weight, axis=0)
        )
        self.count.assign(self.count + tf_math.reduce_sum(sample_weight, axis=0))
        self.num_samples.assign(self.num_samples + K.num_elements(y_true, self.num_samples.dtype))

    def result(self):
        mean = self.sum / self.count
        total = self.squared_sum - self.sum * mean
        raw = 1 - self.total_mse / total
        raw = array_ops.where(tf_math.is_inf(raw), K.constant(0.0, raw.dtype), raw)
        if self.class_aggregation == "uniform_average":
            score = tf_math.reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = tf_math.reduce_sum(total * raw) / tf_math.reduce_sum(total)
        else:
            score = raw
        if self.num_regressors != 0:
            num_samples = float(self.num_samples.numpy())
            if self.num_regressors > num_samples - 1:
                warnings.warn(
                    "More independent predictors than datapoints in adjusted R2 score. "
                    "Falling back to standard R2 score.",
                    stacklevel=2,
                )
            elif self.num_regressors == num_samples - 1:
                warnings.warn(
                    "Division by zero in Adjusted R2 score. Falling back to standard R2 score.",
                    stacklevel=2,
                )
            else:
                n = K.cast(self.num_samples, "float32")
                p = float(self.num_regressors)
                score = 1.0 - (1.0 - score) * (n - 1.0) / (n - p - 1.0)
        return score

    def get_config(self):
        return {
            **super().get_config(),
            "class_aggregation": self.class_aggregation,
            "num_regressors": self.num_regressors,
        }

    def reset_state(self):
        for variable in self.variables:
            variable.assign(array_ops.zeros(variable.shape, dtype=variable.dtype))
