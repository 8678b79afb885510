"""Accuracy metrics: exact match, binary (thresholded), categorical (argmax), sparse
categorical and top-k, as per-sample functions and as `MeanMetricWrapper` classes."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses.reduction import squeeze_or_expand_to_same_rank
from ferroflow.keras.metrics.reduction_metrics import MeanMetricWrapper

__all__ = [
    "Accuracy",
    "BinaryAccuracy",
    "CategoricalAccuracy",
    "SparseCategoricalAccuracy",
    "SparseTopKCategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "accuracy",
    "binary_accuracy",
    "categorical_accuracy",
    "in_top_k",
    "sparse_categorical_accuracy",
    "sparse_top_k_categorical_accuracy",
    "top_k_categorical_accuracy",
]


def _as_floatx(matches):
    return array_ops.cast(matches, K.FLOATX)


def accuracy(y_true, y_pred):
    """1.0 where ``y_true == y_pred``, else 0.0."""
    y_pred = K.convert(y_pred)
    y_true = K.convert(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return _as_floatx(tf_math.equal(y_true, y_pred))


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where ``y_true`` equals ``y_pred > threshold``, else 0.0."""
    y_pred = K.convert(y_pred)
    if not y_pred.dtype.is_floating:  # Keras compares integer predictions as floats
        y_pred = K.cast(y_pred, K.FLOATX)
    y_true = K.convert(y_true)
    threshold = K.convert(threshold, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    y_pred = K.cast(tf_math.greater(y_pred, threshold), y_true.dtype)
    return _as_floatx(tf_math.equal(y_true, y_pred))


def _matches_of_class_ids(y_true, y_pred, squeeze_any=False):
    """Compares class ids ``y_true`` with ``argmax(y_pred)``; a ``y_true`` of the rank of
    ``y_pred`` loses its last axis first (Keras checks that it has size 1 unless
    ``squeeze_any``, when squeezing a longer axis fails)."""
    reshape_matches = False
    y_true_org_shape = array_ops.shape(y_true)
    if K.ndim(y_true) == K.ndim(y_pred) and (squeeze_any or y_true.shape[-1] == 1):
        y_true = array_ops.squeeze(y_true, -1)
        reshape_matches = True
    y_pred = tf_math.argmax(y_pred, axis=-1)
    if y_pred.dtype != y_true.dtype:
        y_pred = array_ops.cast(y_pred, y_true.dtype)
    matches = _as_floatx(tf_math.equal(y_true, y_pred))
    if reshape_matches:
        matches = array_ops.reshape(matches, y_true_org_shape)
    return matches


def categorical_accuracy(y_true, y_pred):
    """1.0 where ``argmax(y_true) == argmax(y_pred)`` over the last axis, else 0.0."""
    y_true = tf_math.argmax(K.convert(y_true), axis=-1)
    y_pred = K.convert(y_pred)
    y_true = K.convert(y_true, y_pred.dtype)
    return _matches_of_class_ids(y_true, y_pred, squeeze_any=True)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label ``y_true`` is ``argmax(y_pred)``, else 0.0."""
    y_pred = K.convert(y_pred)
    y_true = K.convert(y_true, y_pred.dtype)
    matches = _matches_of_class_ids(y_true, y_pred)
    if K.ndim(matches) > 1 and matches.shape[-1] == 1:
        matches = array_ops.squeeze(matches, -1)
    return matches


def in_top_k(targets, predictions, k):
    """`tf.math.in_top_k`: whether each target's prediction is among the ``k`` largest of its
    row (ties at the boundary count as in; non-finite target scores as out)."""
    targets = K.cast(targets, "int32")
    predictions = K.convert(predictions)
    target_scores = array_ops.gather(predictions, targets, batch_dims=1)
    above = tf_math.greater(predictions, array_ops.expand_dims(target_scores, -1))
    num_above = tf_math.reduce_sum(K.cast(above, "int32"), axis=-1)
    return tf_math.logical_and(tf_math.less(num_above, k), tf_math.is_finite(target_scores))


def _top_k_matches(y_true, y_pred, k):
    reshape_matches = False
    y_true_org_shape = array_ops.shape(y_true)
    if K.ndim(y_pred) > 2:
        y_pred = array_ops.reshape(y_pred, [-1, y_pred.shape[-1]])
    if K.ndim(y_true) > 1:
        reshape_matches = True
        y_true = array_ops.reshape(y_true, [-1])
    matches = _as_floatx(in_top_k(y_true, y_pred, k))
    if reshape_matches:
        matches = array_ops.reshape(matches, y_true_org_shape)
    return matches


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where ``argmax(y_true)`` is among the top ``k`` predictions, else 0.0."""
    y_pred = K.convert(y_pred)
    y_true = K.convert(y_true, y_pred.dtype)
    y_true = tf_math.argmax(y_true, axis=-1)
    return _top_k_matches(y_true, y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """1.0 where the integer label is among the top ``k`` predictions (or, with
    ``from_sorted_ids``, among the first ``k`` ids of ``y_pred``), else 0.0."""
    y_pred = K.convert(y_pred)
    y_true = K.convert(y_true, y_pred.dtype if from_sorted_ids else "int32")
    if not from_sorted_ids:
        return _top_k_matches(y_true, y_pred, k)
    y_true_org_shape = array_ops.shape(y_true)
    reshape_matches = K.ndim(y_true) > 1
    if K.ndim(y_pred) > 2:
        y_pred = array_ops.reshape(y_pred, [-1, y_pred.shape[-1]])
    if reshape_matches:
        y_true = array_ops.reshape(y_true, [-1])
    matches = tf_math.reduce_any(
        tf_math.equal(array_ops.expand_dims(y_true, axis=1), y_pred[:, :k]), axis=1
    )
    matches = _as_floatx(matches)
    if reshape_matches:
        matches = array_ops.reshape(matches, y_true_org_shape)
    return matches


class Accuracy(MeanMetricWrapper):
    def __init__(self, name="accuracy", dtype=None):
        super().__init__(fn=accuracy, name=name, dtype=dtype)
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class BinaryAccuracy(MeanMetricWrapper):
    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(fn=binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "threshold": self.threshold}


class CategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(fn=categorical_accuracy, name=name, dtype=dtype)
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class SparseCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(fn=sparse_categorical_accuracy, name=name, dtype=dtype)
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class TopKCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(fn=top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "k": self.k}


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    def __init__(
        self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None, from_sorted_ids=False
    ):
        super().__init__(
            fn=sparse_top_k_categorical_accuracy,
            name=name,
            dtype=dtype,
            k=k,
            from_sorted_ids=from_sorted_ids,
        )
        self.k = k
        self.from_sorted_ids = from_sorted_ids
        self._direction = "up"

    def get_config(self):
        config = {"name": self.name, "dtype": self.dtype, "k": self.k}
        if self.from_sorted_ids:
            config["from_sorted_ids"] = True
        return config
