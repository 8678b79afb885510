"""Intersection-over-union metrics over a running confusion matrix: `IoU`, `MeanIoU`,
`BinaryIoU`, `OneHotIoU` and `OneHotMeanIoU`."""

import warnings

from ferroflow import array_ops, linalg_diagonals
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses.reduction import squeeze_or_expand_to_same_rank
from ferroflow.keras.metrics.metric import Metric

__all__ = ["BinaryIoU", "IoU", "MeanIoU", "OneHotIoU", "OneHotMeanIoU"]


def _confusion_matrix(labels, predictions, num_classes, weights, dtype):
    """``[num_classes, num_classes]`` counts (rows: true class, columns: predicted)."""
    labels, predictions = squeeze_or_expand_to_same_rank(labels, predictions)
    indices = K.cast(array_ops.stack([labels, predictions], axis=1), "int64")
    return array_ops.scatter_nd(indices, K.cast(weights, dtype), [num_classes, num_classes])


class _IoUBase(Metric):
    def __init__(
        self,
        num_classes,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_true=True,
        sparse_y_pred=True,
        axis=-1,
    ):
        # Keras's "int" (its default dtype here) is int64.
        dtype = "int64" if dtype in (None, "int", int) else dtype
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_variable(
            name="total_confusion_matrix",
            shape=(num_classes, num_classes),
            initializer="zeros",
            dtype=self.dtype,
        )

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.sparse_y_true:
            y_true = tf_math.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = tf_math.argmax(y_pred, axis=self.axis)
        y_true = array_ops.reshape(K.convert(y_true, self.dtype), [-1])
        y_pred = array_ops.reshape(K.convert(y_pred, self.dtype), [-1])
        if sample_weight is None:
            sample_weight = 1
        elif (
            hasattr(sample_weight, "dtype")
            and "float" in str(sample_weight.dtype)
            and "int" in str(self.dtype)
        ):
            warnings.warn(
                "You are passing weight as `float`, but dtype is `int`. This may result in an "
                "incorrect weight due to type casting Consider using integer weights.",
                stacklevel=2,
            )
        sample_weight = K.convert(sample_weight, self.dtype)
        if len(sample_weight.shape) > 1:
            sample_weight = array_ops.reshape(sample_weight, [-1])
        sample_weight = array_ops.broadcast_to(sample_weight, array_ops.shape(y_true))
        num_classes = K.constant(self.num_classes, y_true.dtype)
        zero = K.constant(0, y_true.dtype)
        in_bounds = tf_math.logical_and(
            tf_math.logical_and(y_true >= zero, y_true < num_classes),
            tf_math.logical_and(y_pred >= zero, y_pred < num_classes),
        )
        if self.ignore_class is not None:
            in_bounds = tf_math.logical_and(
                in_bounds, tf_math.not_equal(y_true, K.constant(self.ignore_class, y_true.dtype))
            )
        y_true = array_ops.where(in_bounds, y_true, zero)
        y_pred = array_ops.where(in_bounds, y_pred, zero)
        sample_weight = array_ops.where(in_bounds, sample_weight, K.constant(0, self.dtype))
        current = _confusion_matrix(y_true, y_pred, self.num_classes, sample_weight, self.dtype)
        return self.total_cm.assign(self.total_cm + current)

    # The config keys, in Keras's order, read from the attributes of the same names.
    _config_keys = ()

    def get_config(self):
        return {key: getattr(self, key) for key in self._config_keys}

    def reset_state(self):
        self.total_cm.assign(array_ops.zeros(self.total_cm.shape, dtype=self.total_cm.dtype))


class IoU(_IoUBase):
    """The mean over ``target_class_ids`` of ``tp / (tp + fp + fn)`` (classes that never
    appear are left out of the mean)."""

    _config_keys = (
        "name",
        "dtype",
        "num_classes",
        "target_class_ids",
        "ignore_class",
        "sparse_y_true",
        "sparse_y_pred",
        "axis",
    )

    def __init__(
        self,
        num_classes,
        target_class_ids,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_true=True,
        sparse_y_pred=True,
        axis=-1,
    ):
        super().__init__(num_classes, name, dtype, ignore_class, sparse_y_true, sparse_y_pred, axis)
        if max(target_class_ids) >= num_classes:
            raise ValueError(
                f"Target class id {max(target_class_ids)} is out of range, which is "
                f"[0, {num_classes})."
            )
        self.target_class_ids = list(target_class_ids)

    def result(self):
        cm = self.total_cm
        sum_over_row = K.cast(tf_math.reduce_sum(cm, axis=0), self.dtype)
        sum_over_col = K.cast(tf_math.reduce_sum(cm, axis=1), self.dtype)
        true_positives = K.cast(linalg_diagonals.diag_part(cm), self.dtype)
        denominator = sum_over_row + sum_over_col - true_positives
        ids = K.convert(self.target_class_ids, "int32")
        true_positives = K.cast(array_ops.gather(true_positives, ids), "float32")
        denominator = K.cast(array_ops.gather(denominator, ids), "float32")
        valid = denominator > K.constant(1e-9, "float32")
        num_valid = tf_math.reduce_sum(K.cast(valid, "float32"))
        iou = true_positives / (denominator + K.EPSILON)
        iou = array_ops.where(valid, iou, K.constant(0.0, "float32"))
        return tf_math.reduce_sum(iou, axis=self.axis) / (num_valid + K.EPSILON)


class BinaryIoU(IoU):
    """`IoU` of two classes, a prediction being class 1 at ``y_pred >= threshold``."""

    _config_keys = ("target_class_ids", "threshold", "name", "dtype")

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = K.convert(y_true, self.dtype)
        y_pred = K.convert(y_pred, "float32")
        y_pred = K.cast(y_pred >= K.constant(self.threshold, "float32"), self.dtype)
        return super().update_state(y_true, y_pred, sample_weight)


class MeanIoU(IoU):
    """`IoU` over every class."""

    _config_keys = (
        "num_classes",
        "name",
        "dtype",
        "ignore_class",
        "sparse_y_true",
        "sparse_y_pred",
        "axis",
    )

    def __init__(
        self,
        num_classes,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_true=True,
        sparse_y_pred=True,
        axis=-1,
    ):
        classes = list(range(num_classes))
        args = (name, dtype, ignore_class, sparse_y_true, sparse_y_pred, axis)
        super().__init__(num_classes, classes, *args)


class OneHotIoU(IoU):
    """`IoU` with one-hot ``y_true`` (and, unless ``sparse_y_pred``, per-class ``y_pred``)."""

    _config_keys = (
        "num_classes",
        "target_class_ids",
        "name",
        "dtype",
        "ignore_class",
        "sparse_y_pred",
        "axis",
    )

    def __init__(
        self,
        num_classes,
        target_class_ids,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_pred=False,
        axis=-1,
    ):
        # One-hot ``y_true``: never sparse.
        args = (name, dtype, ignore_class, False, sparse_y_pred, axis)
        super().__init__(num_classes, target_class_ids, *args)


class OneHotMeanIoU(MeanIoU):
    """`MeanIoU` with one-hot ``y_true``."""

    _config_keys = ("num_classes", "name", "dtype", "ignore_class", "sparse_y_pred", "axis")

    def __init__(
        self,
        num_classes,
        name=None,
        dtype=None,
        ignore_class=None,
        sparse_y_pred=False,
        axis=-1,
    ):
        super().__init__(num_classes, name, dtype, ignore_class, False, sparse_y_pred, axis)
