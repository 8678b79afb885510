"""Threshold metrics over confusion-matrix counts: `TruePositives`, `TrueNegatives`,
`FalsePositives`, `FalseNegatives`, `Precision`, `Recall` and the rate-at-rate metrics
(`SensitivityAtSpecificity`, `SpecificityAtSensitivity`, `PrecisionAtRecall`,
`RecallAtPrecision`). `AUC` is in auc_metric.py."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.metrics import _confusion as C
from ferroflow.keras.metrics.metric import Metric

__all__ = [
    "FalseNegatives",
    "FalsePositives",
    "Precision",
    "PrecisionAtRecall",
    "Recall",
    "RecallAtPrecision",
    "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
    "TrueNegatives",
    "TruePositives",
]


def _single_or_all(values, thresholds):
    return values[0] if len(thresholds) == 1 else values


class _ConfusionMatrixConditionCount(Metric):
    """The weighted count of one confusion-matrix cell, per threshold."""

    _condition = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = C.parse_init_thresholds(thresholds, default_threshold=0.5)
        self._thresholds_distributed_evenly = C.is_evenly_distributed_thresholds(self.thresholds)
        self.accumulator = self.add_variable(
            shape=(len(self.thresholds),), initializer="zeros", name="accumulator"
        )

    def update_state(self, y_true, y_pred, sample_weight=None):
        C.update_confusion_matrix_variables(
            {self._condition: self.accumulator},
            y_true,
            y_pred,
            thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight,
        )

    def result(self):
        # Keras gives the accumulator variable itself for several thresholds.
        return _single_or_all(self.accumulator, self.thresholds)

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds}


class FalsePositives(_ConfusionMatrixConditionCount):
    """The weighted number of false positives (``y_pred > threshold`` where ``y_true`` is 0)."""

    _condition = C.FALSE_POSITIVES


class FalseNegatives(_ConfusionMatrixConditionCount):
    """The weighted number of false negatives."""

    _condition = C.FALSE_NEGATIVES


class TrueNegatives(_ConfusionMatrixConditionCount):
    """The weighted number of true negatives."""

    _condition = C.TRUE_NEGATIVES


class TruePositives(_ConfusionMatrixConditionCount):
    """The weighted number of true positives."""

    _condition = C.TRUE_POSITIVES


class _PrecisionRecallBase(Metric):
    """``tp / (tp + other)`` per threshold, with `top_k` and `class_id`."""

    _other = None

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default_threshold = 0.5 if top_k is None else C.NEG_INF
        self.thresholds = C.parse_init_thresholds(thresholds, default_threshold=default_threshold)
        self._thresholds_distributed_evenly = C.is_evenly_distributed_thresholds(self.thresholds)
        self.true_positives = self.add_variable(
            shape=(len(self.thresholds),), initializer="zeros", name="true_positives"
        )
        setattr(
            self,
            self._other,
            self.add_variable(shape=(len(self.thresholds),), initializer="zeros", name=self._other),
        )

    def update_state(self, y_true, y_pred, sample_weight=None):
        other = C.FALSE_POSITIVES if self._other == "false_positives" else C.FALSE_NEGATIVES
        C.update_confusion_matrix_variables(
            {C.TRUE_POSITIVES: self.true_positives, other: getattr(self, self._other)},
            y_true,
            y_pred,
            thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            top_k=self.top_k,
            class_id=self.class_id,
            sample_weight=sample_weight,
        )

    def result(self):
        tp = self.true_positives
        value = K.divide_no_nan(tp, tf_math.add(tp, getattr(self, self._other)))
        return _single_or_all(value, self.thresholds)

    def get_config(self):
        config = {
            "thresholds": self.init_thresholds,
            "top_k": self.top_k,
            "class_id": self.class_id,
        }
        return {**super().get_config(), **config}


class Precision(_PrecisionRecallBase):
    """``tp / (tp + fp)``: how many of the predicted positives are positive."""

    _other = "false_positives"


class Recall(_PrecisionRecallBase):
    """``tp / (tp + fn)``: how many of the positives are predicted positive."""

    _other = "false_negatives"


def _rate(numerator, other):
    return K.divide_no_nan(numerator, tf_math.add(numerator, other))


class _RateAtRateBase(Metric):
    """The best ``dependent`` rate over the thresholds where ``constrained >= value``. The
    subclasses name their target (``specificity``...) and the two rates."""

    _no_dependency_attributes = Metric._no_dependency_attributes | {"_confusion_variables"}

    _target = None

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        if value < 0 or value > 1:
            raise ValueError(
                f"Argument `{self._target}` must be in the range [0, 1]. "
                f"Received: {self._target}={value}"
            )
        setattr(self, self._target, value)
        self.num_thresholds = num_thresholds
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        if num_thresholds <= 0:
            raise ValueError(
                "Argument `num_thresholds` must be an integer > 0. "
                f"Received: num_thresholds={num_thresholds}"
            )
        self.value = value
        self.class_id = class_id
        if num_thresholds == 1:
            self.thresholds = [0.5]
            self._thresholds_distributed_evenly = False
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0, *inner, 1.0]
            self._thresholds_distributed_evenly = True
        self._confusion_variables = C.add_confusion_variables(self, (len(self.thresholds),))

    def update_state(self, y_true, y_pred, sample_weight=None):
        C.update_confusion_matrix_variables(
            self._confusion_variables,
            y_true,
            y_pred,
            thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            class_id=self.class_id,
            sample_weight=sample_weight,
        )

    def _rates(self):
        return {
            "sensitivity": _rate(self.true_positives, self.false_negatives),
            "recall": _rate(self.true_positives, self.false_negatives),
            "specificity": _rate(self.true_negatives, self.false_positives),
            "precision": _rate(self.true_positives, self.false_positives),
        }

    def result(self):
        rates = self._rates()
        constrained, dependent = rates[self._target], rates[self._dependent]
        feasible = tf_math.greater_equal(constrained, K.constant(self.value, constrained.dtype))
        chosen = array_ops.where(feasible, dependent, K.constant(0, dependent.dtype))
        # Keras's `max(..., initial=0)`: an empty or all-negative set gives 0.
        return tf_math.maximum(tf_math.reduce_max(chosen), K.constant(0, dependent.dtype))

    def get_config(self):
        config = {"num_thresholds": self.num_thresholds, self._target: self.value}
        return {**super().get_config(), "class_id": self.class_id, **config}


class SensitivityAtSpecificity(_RateAtRateBase):
    """The best sensitivity (recall) where the specificity is at least ``specificity``."""

    _target = "specificity"
    _dependent = "sensitivity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name, dtype)


class SpecificityAtSensitivity(_RateAtRateBase):
    """The best specificity where the sensitivity is at least ``sensitivity``."""

    _target = "sensitivity"
    _dependent = "specificity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)


class PrecisionAtRecall(_RateAtRateBase):
    """The best precision where the recall is at least ``recall``."""

    _target = "recall"
    _dependent = "precision"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name, dtype)


class RecallAtPrecision(_RateAtRateBase):
    """The best recall where the precision is at least ``precision``."""

    _target = "precision"
    _dependent = "recall"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name, dtype)
