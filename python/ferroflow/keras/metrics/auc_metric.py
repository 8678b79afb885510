"""`tf.keras.metrics.AUC`: the area under the ROC, PR or PR-gain curve, as a Riemann sum over
confusion counts at ``num_thresholds`` thresholds (interpolated, minoring or majoring)."""

import numpy as np

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.metrics import _confusion as C
from ferroflow.keras.metrics.metric import Metric

__all__ = ["AUC"]

_CURVES = {
    "roc": "ROC",
    "ROC": "ROC",
    "pr": "PR",
    "PR": "PR",
    "prgain": "PRGAIN",
    "PRGAIN": "PRGAIN",
}
_SUMMATIONS = {
    "interpolation": "interpolation",
    "Interpolation": "interpolation",
    "majoring": "majoring",
    "Majoring": "majoring",
    "minoring": "minoring",
    "Minoring": "minoring",
}


def _curve(key):
    key = getattr(key, "value", key)
    if key not in _CURVES:
        raise ValueError(
            f'Invalid AUC curve value: "{key}". Expected values are ["PR", "ROC", "PRGAIN"]'
        )
    return _CURVES[key]


def _summation(key):
    key = getattr(key, "value", key)
    if key not in _SUMMATIONS:
        raise ValueError(
            f'Invalid AUC summation method value: "{key}". '
            'Expected values are ["interpolation", "majoring", "minoring"]'
        )
    return _SUMMATIONS[key]


class AUC(Metric):
    """Approximate AUC: counts at thresholds ``[-eps, 1/(n-1), ..., 1 + eps]`` (or the given
    ``thresholds`` between -eps and 1 + eps); with ``multi_label`` one curve per label, averaged
    (weighted by ``label_weights``); ``from_logits`` applies a sigmoid first."""

    _no_dependency_attributes = Metric._no_dependency_attributes | {"_confusion_variables"}

    def __init__(
        self,
        num_thresholds=200,
        curve="ROC",
        summation_method="interpolation",
        name=None,
        dtype=None,
        thresholds=None,
        multi_label=False,
        num_labels=None,
        label_weights=None,
        from_logits=False,
    ):
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            thresholds = sorted(thresholds)
            self._thresholds_distributed_evenly = C.is_evenly_distributed_thresholds(
                np.array([0.0, *thresholds, 1.0])
            )
        else:
            if num_thresholds <= 1:
                raise ValueError(
                    "Argument `num_thresholds` must be an integer > 1. "
                    f"Received: num_thresholds={num_thresholds}"
                )
            self.num_thresholds = num_thresholds
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self._thresholds_distributed_evenly = True
        self._thresholds = np.array([0.0 - K.EPSILON, *thresholds, 1.0 + K.EPSILON])
        self.curve = _curve(curve)
        self.summation_method = _summation(summation_method)
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        self.multi_label = multi_label
        self.num_labels = num_labels
        self.label_weights = (
            None if label_weights is None else K.convert(np.asarray(label_weights), self.dtype)
        )
        self._from_logits = from_logits
        self._built = False
        if multi_label:
            if num_labels:
                self._build([None, num_labels])
        else:
            if num_labels:
                raise ValueError("`num_labels` is needed only when `multi_label` is True.")
            self._build(None)

    @property
    def thresholds(self):
        return list(self._thresholds)

    def _build(self, shape):
        if self.multi_label:
            if len(shape) != 2:
                raise ValueError(
                    "`y_pred` must have rank 2 when `multi_label=True`. Found rank "
                    f"{len(shape)}. Full shape received for `y_pred`: {shape}"
                )
            self._num_labels = shape[1]
            variable_shape = [self.num_thresholds, self._num_labels]
        else:
            variable_shape = [self.num_thresholds]
        self._build_input_shape = shape
        self._confusion_variables = C.add_confusion_variables(self, variable_shape)
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = K.convert(y_pred)
        if not self._built:
            self._build(list(y_pred.shape))
        if self._from_logits:
            y_pred = tf_math.sigmoid(y_pred)
        C.update_confusion_matrix_variables(
            self._confusion_variables,
            y_true,
            y_pred,
            self._thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight,
            multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights,
        )

    def _by_label(self, terms):
        if not self.multi_label:
            return tf_math.reduce_sum(terms)
        by_label = tf_math.reduce_sum(terms, axis=0)
        if self.label_weights is None:
            return tf_math.reduce_mean(by_label)
        return K.divide_no_nan(
            tf_math.reduce_sum(by_label * self.label_weights),
            tf_math.reduce_sum(self.label_weights),
        )

    def interpolate_pr_auc(self):
        """The PR AUC with precision interpolated between thresholds (Davis & Goadrich)."""
        n = self.num_thresholds
        tp = self.true_positives
        zero = K.constant(0, tp.dtype)
        dtp = tp[: n - 1] - tp[1:]
        p = tp + self.false_positives
        dp = p[: n - 1] - p[1:]
        prec_slope = K.divide_no_nan(dtp, tf_math.maximum(dp, zero))
        intercept = tp[1:] - prec_slope * p[1:]
        safe_p_ratio = array_ops.where(
            tf_math.logical_and(p[: n - 1] > 0, p[1:] > 0),
            K.divide_no_nan(p[: n - 1], tf_math.maximum(p[1:], zero)),
            array_ops.ones_like(p[1:]),
        )
        increment = K.divide_no_nan(
            prec_slope * (dtp + intercept * tf_math.log(safe_p_ratio)),
            tf_math.maximum(tp[1:] + self.false_negatives[1:], zero),
        )
        return self._by_label(increment)

    def _curve_points(self):
        tp, fp = self.true_positives, self.false_positives
        tn, fn = self.true_negatives, self.false_negatives
        recall = K.divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            return K.divide_no_nan(fp, fp + tn), recall
        if self.curve == "PR":
            return recall, K.divide_no_nan(tp, tp + fp)
        scaling = K.divide_no_nan(tp + fn, tn + fp)
        recall_gain = 1.0 - scaling * K.divide_no_nan(fn, tp)
        precision_gain = 1.0 - scaling * K.divide_no_nan(fp, tp)
        no_tp = tf_math.equal(tp, K.constant(0, tp.dtype))
        recall_gain = array_ops.where(no_tp, K.constant(0, tp.dtype), recall_gain)
        precision_gain = array_ops.where(no_tp, K.constant(1, tp.dtype), precision_gain)
        return tf_math.maximum(recall_gain, K.constant(0, tp.dtype)), precision_gain

    def result(self):
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self.interpolate_pr_auc()
        n = self.num_thresholds
        x, y = self._curve_points()
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = tf_math.minimum(y[: n - 1], y[1:])
        else:
            heights = tf_math.maximum(y[: n - 1], y[1:])
        return self._by_label((x[: n - 1] - x[1:]) * heights)

    def reset_state(self):
        if self._built:
            super().reset_state()

    def get_config(self):
        config = {
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": self.label_weights,
            "from_logits": self._from_logits,
        }
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return {**super().get_config(), **config}
