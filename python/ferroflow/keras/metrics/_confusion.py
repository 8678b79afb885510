"""Confusion-matrix counting shared by the threshold metrics (`Precision`, `Recall`, `AUC`, the
true/false positive/negative counts...), as keras/src/metrics/metrics_utils.py counts: a
prediction is positive at threshold t when ``y_pred > t``; with evenly spread thresholds each
prediction is put in a bucket (``ceil(p * (T - 1)) - 1``) and the counts are reversed
cumulative sums of the buckets, which is the path whose rounding the results follow."""

import numpy as np

from ferroflow import array_ops, segment_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses.reduction import squeeze_or_expand_to_same_rank

__all__ = [
    "FALSE_NEGATIVES",
    "FALSE_POSITIVES",
    "NEG_INF",
    "TRUE_NEGATIVES",
    "TRUE_POSITIVES",
    "add_confusion_variables",
    "is_evenly_distributed_thresholds",
    "parse_init_thresholds",
    "update_confusion_matrix_variables",
]

NEG_INF = -1e10
TRUE_POSITIVES = "tp"
FALSE_POSITIVES = "fp"
TRUE_NEGATIVES = "tn"
FALSE_NEGATIVES = "fn"


def _to_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def add_confusion_variables(metric, shape):
    """Zero ``true_positives``, ``false_positives``, ``true_negatives`` and ``false_negatives``
    variables of ``shape`` on ``metric``, and the dict that `update_confusion_matrix_variables`
    takes for them."""
    names = {
        TRUE_POSITIVES: "true_positives",
        TRUE_NEGATIVES: "true_negatives",
        FALSE_POSITIVES: "false_positives",
        FALSE_NEGATIVES: "false_negatives",
    }
    for name in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
        setattr(metric, name, metric.add_variable(shape=shape, initializer="zeros", name=name))
    return {key: getattr(metric, name) for key, name in names.items()}


def parse_init_thresholds(thresholds, default_threshold=0.5):
    """The thresholds as a list (``default_threshold`` when None), each checked to be in
    [0, 1]."""
    if thresholds is not None:
        invalid = [t for t in _to_list(thresholds) if t is None or t < 0 or t > 1]
        if invalid:
            raise ValueError(f"Threshold values must be in [0, 1]. Received: {invalid}")
    return _to_list(default_threshold if thresholds is None else thresholds)


def is_evenly_distributed_thresholds(thresholds):
    """Whether ``thresholds`` (at least 3) are ``i / (n - 1)`` for i = 0..n-1."""
    count = len(thresholds)
    if count < 3:
        return False
    even = np.arange(count, dtype=np.float32) / (count - 1)
    return bool(np.allclose(thresholds, even, atol=K.EPSILON))


def _filter_top_k(x, k):
    """``x`` with all but the top ``k`` values of its last axis set to NEG_INF."""
    _, indices = array_ops.top_k(x, k)
    mask = tf_math.reduce_sum(
        array_ops.one_hot(indices, x.shape[-1], axis=-1, dtype=x.dtype), axis=-2
    )
    return x * mask + NEG_INF * (1 - mask)


def _flat_weights(sample_weight, label_weights, y_pred, multi_label):
    """The per-prediction weight (sample weights times label weights), or None."""
    weights = None
    if sample_weight is not None:
        weights = array_ops.broadcast_to(
            K.cast(sample_weight, y_pred.dtype), array_ops.shape(y_pred)
        )
    if label_weights is not None:
        label = array_ops.broadcast_to(
            array_ops.expand_dims(K.convert(label_weights, y_pred.dtype), 0),
            array_ops.shape(y_pred),
        )
        weights = label if weights is None else weights * label
    if weights is not None and not multi_label:
        weights = array_ops.reshape(weights, [-1])
    return weights


def _reverse_cumsum(buckets, axis):
    return array_ops.reverse(tf_math.cumsum(array_ops.reverse(buckets, [axis]), axis=axis), [axis])


def _update_from_buckets(
    variables, y_true, y_pred, num_thresholds, multi_label, weights, with_epsilon
):
    y_pred = tf_math.clip_by_value(y_pred, 0.0, 1.0)
    y_true = K.cast(K.cast(y_true, "bool"), y_true.dtype)
    if not multi_label:
        y_true = array_ops.reshape(y_true, [-1])
        y_pred = array_ops.reshape(y_pred, [-1])
    if weights is None:
        true_labels, false_labels = y_true, 1.0 - y_true
    else:
        weights = K.cast(weights, y_true.dtype)
        true_labels, false_labels = y_true * weights, (1.0 - y_true) * weights
    buckets = tf_math.ceil(y_pred * K.constant(num_thresholds - 1, y_pred.dtype)) - 1
    if with_epsilon:
        buckets = tf_math.maximum(buckets, K.constant(0, buckets.dtype))
    buckets = K.cast(buckets, "int32")
    if multi_label:
        # One segment range per label (a bucket of -1 is dropped, as in a per-label sum).
        num_labels = y_pred.shape[-1]
        offsets = array_ops.reshape(
            array_ops.range(num_labels, dtype="int32") * num_thresholds, [1, -1]
        )
        ids = array_ops.where(buckets < 0, -array_ops.ones_like(buckets), buckets + offsets)
        segments = num_thresholds * num_labels

        def bucket_sums(labels):
            sums = segment_ops.unsorted_segment_sum(labels, ids, segments)
            return array_ops.transpose(array_ops.reshape(sums, [num_labels, num_thresholds]))

        tp = _reverse_cumsum(bucket_sums(true_labels), 0)
        fp = _reverse_cumsum(bucket_sums(false_labels), 0)
        total_true = tf_math.reduce_sum(array_ops.transpose(true_labels), axis=1)
        total_false = tf_math.reduce_sum(array_ops.transpose(false_labels), axis=1)
    else:
        tp = _reverse_cumsum(
            segment_ops.unsorted_segment_sum(true_labels, buckets, num_thresholds), 0
        )
        fp = _reverse_cumsum(
            segment_ops.unsorted_segment_sum(false_labels, buckets, num_thresholds), 0
        )
        total_true = tf_math.reduce_sum(true_labels)
        total_false = tf_math.reduce_sum(false_labels)
    counts = {
        TRUE_POSITIVES: lambda: tp,
        FALSE_POSITIVES: lambda: fp,
        TRUE_NEGATIVES: lambda: total_false - fp,
        FALSE_NEGATIVES: lambda: total_true - tp,
    }
    for key, variable in variables.items():
        variable.assign(variable + counts[key]())


def _update_by_comparison(variables, y_true, y_pred, thresholds, multi_label, weights):
    if multi_label:
        predictions = array_ops.expand_dims(y_pred, 0)
        labels = array_ops.expand_dims(K.cast(y_true, "bool"), 0)
        thresholds = array_ops.reshape(thresholds, [-1, 1, 1])
    else:
        predictions = array_ops.reshape(y_pred, [1, -1])
        labels = array_ops.reshape(K.cast(y_true, "bool"), [1, -1])
        thresholds = array_ops.reshape(thresholds, [-1, 1])
    pred_is_pos = tf_math.greater(predictions, thresholds)
    label_is_pos = array_ops.broadcast_to(labels, array_ops.shape(pred_is_pos))
    if weights is not None:
        weights = array_ops.broadcast_to(
            array_ops.expand_dims(weights, 0), array_ops.shape(pred_is_pos)
        )
    conditions = {
        TRUE_POSITIVES: (label_is_pos, pred_is_pos),
        FALSE_NEGATIVES: (label_is_pos, tf_math.logical_not(pred_is_pos)),
        FALSE_POSITIVES: (tf_math.logical_not(label_is_pos), pred_is_pos),
        TRUE_NEGATIVES: (tf_math.logical_not(label_is_pos), tf_math.logical_not(pred_is_pos)),
    }
    for key, variable in variables.items():
        both = tf_math.logical_and(*conditions[key])
        if weights is None:
            counted = K.cast(both, variable.dtype)
        else:
            counted = array_ops.where(
                both, K.cast(weights, variable.dtype), K.constant(0, variable.dtype)
            )
        variable.assign(variable + tf_math.reduce_sum(counted, axis=1))


def update_confusion_matrix_variables(
    variables,
    y_true,
    y_pred,
    thresholds,
    top_k=None,
    class_id=None,
    sample_weight=None,
    multi_label=False,
    label_weights=None,
    thresholds_distributed_evenly=False,
):
    """Adds this batch's weighted counts to ``variables`` (a dict from "tp"/"fp"/"tn"/"fn"
    to variables of shape [T] or, with ``multi_label``, [T, labels])."""
    if multi_label and label_weights is not None:
        raise ValueError(
            "`label_weights` for multilabel data should be handled outside of "
            "`update_confusion_matrix_variables` when `multi_label` is True."
        )
    dtype = next(iter(variables.values())).dtype
    y_true = K.convert(y_true, dtype)
    y_pred = K.convert(y_pred, dtype)
    with_epsilon = bool(thresholds_distributed_evenly) and (
        thresholds[0] < 0.0 or thresholds[-1] > 1.0
    )
    num_thresholds = len(thresholds)
    thresholds = K.convert(np.asarray(thresholds), dtype)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = array_ops.expand_dims(K.convert(sample_weight, dtype), axis=-1)
        _, sample_weight = squeeze_or_expand_to_same_rank(
            y_true, sample_weight, expand_rank_1=False
        )
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        if len(y_pred.shape) == 1:
            raise ValueError(
                "When class_id is provided, y_pred must be a 2D array with shape "
                f"(num_samples, num_classes), found shape: {y_pred.shape}"
            )
        y_true = y_true[..., class_id : class_id + 1]
        y_pred = y_pred[..., class_id : class_id + 1]
    weights = _flat_weights(sample_weight, label_weights, y_pred, multi_label)
    if thresholds_distributed_evenly:
        _update_from_buckets(
            variables, y_true, y_pred, num_thresholds, multi_label, weights, with_epsilon
        )
    else:
        _update_by_comparison(variables, y_true, y_pred, thresholds, multi_label, weights)
