"""`tf.keras.metrics.FBetaScore` and `F1Score`: per-class (or micro) F-beta over thresholded
predictions, averaged as ``average`` says."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.metrics.metric import Metric

__all__ = ["F1Score", "FBetaScore"]


class FBetaScore(Metric):
    """``(1 + beta**2) * precision * recall / (beta**2 * precision + recall)`` per class; a
    prediction counts as positive above ``threshold``, or (no threshold) where it is its row's
    maximum. ``average``: None (per class), "micro", "macro" or "weighted"."""

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError(
                "Invalid `average` argument value. Expected one of: "
                "{None, 'micro', 'macro', 'weighted'}. "
                f"Received: average={average}"
            )
        if not isinstance(beta, float):
            raise ValueError(
                "Invalid `beta` argument value. It should be a Python float. "
                f"Received: beta={beta} of type '{type(beta)}'"
            )
        if beta <= 0.0:
            raise ValueError(
                f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}"
            )
        if threshold is not None:
            if not isinstance(threshold, float):
                raise ValueError(
                    "Invalid `threshold` argument value. It should be a Python float. "
                    f"Received: threshold={threshold} of type '{type(threshold)}'"
                )
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError(
                    "Invalid `threshold` argument value. It should verify 0 < threshold <= 1. "
                    f"Received: threshold={threshold}"
                )
        self.average = average
        self.beta = beta
        self.threshold = threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError(
                "FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received "
                f"input shapes: y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}."
            )
        if y_pred_shape[-1] is None or y_true_shape[-1] is None:
            raise ValueError(
                "FBetaScore expects 2D inputs with shape (batch_size, output_dim), with "
                "output_dim fully defined (not None). Received input shapes: "
                f"y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}."
            )
        shape = (y_pred_shape[-1],) if self.average != "micro" else ()
        for name in (
            "true_positives",
            "false_positives",
            "false_negatives",
            "intermediate_weights",
        ):
            setattr(
                self,
                name,
                self.add_variable(shape=shape, initializer="zeros", dtype=self.dtype, name=name),
            )
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = K.convert(y_true, self.dtype)
        y_pred = K.convert(y_pred, self.dtype)
        if not self._built:
            self._build(tuple(y_true.shape), tuple(y_pred.shape))
        if self.threshold is None:
            row_max = tf_math.reduce_max(y_pred, axis=-1, keepdims=True)
            positive = tf_math.logical_and(
                y_pred >= row_max, tf_math.abs(y_pred) > K.constant(1e-9, self.dtype)
            )
        else:
            positive = y_pred > K.constant(self.threshold, self.dtype)
        y_pred = K.cast(positive, self.dtype)
        if sample_weight is not None:
            sample_weight = array_ops.expand_dims(K.convert(sample_weight, self.dtype), 1)

        def weighted_sum(values):
            if sample_weight is not None:
                values = values * sample_weight
            return tf_math.reduce_sum(values, axis=self.axis)

        self.true_positives.assign(self.true_positives + weighted_sum(y_pred * y_true))
        self.false_positives.assign(self.false_positives + weighted_sum(y_pred * (1 - y_true)))
        self.false_negatives.assign(self.false_negatives + weighted_sum((1 - y_pred) * y_true))
        self.intermediate_weights.assign(self.intermediate_weights + weighted_sum(y_true))

    def result(self):
        tp = self.true_positives.value()
        precision = tp / (tp + self.false_positives + K.EPSILON)
        recall = tp / (tp + self.false_negatives + K.EPSILON)
        beta_squared = self.beta**2
        mean = (precision * recall) / (beta_squared * precision + recall + K.EPSILON)
        score = mean * (1 + beta_squared)
        if self.average == "weighted":
            weights = self.intermediate_weights / (
                tf_math.reduce_sum(self.intermediate_weights) + K.EPSILON
            )
            return tf_math.reduce_sum(score * weights)
        if self.average is not None:
            return tf_math.reduce_mean(score)
        return score

    def get_config(self):
        return {
            **super().get_config(),
            "average": self.average,
            "beta": self.beta,
            "threshold": self.threshold,
        }


class F1Score(FBetaScore):
    """`FBetaScore` with ``beta=1``."""

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self):
        config = super().get_config()
        del config["beta"]
        return config
