"""Hinge losses: hinge, squared hinge and categorical hinge, as functions and `Loss` classes."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses.loss import Loss
from ferroflow.keras.losses.wrapper import LossFunctionWrapper

__all__ = [
    "CategoricalHinge",
    "Hinge",
    "SquaredHinge",
    "categorical_hinge",
    "convert_binary_labels_to_hinge",
    "hinge",
    "squared_hinge",
]


def convert_binary_labels_to_hinge(y_true):
    """Maps labels that are all 0 or 1 to -1 or 1; any other labels are kept as they are."""
    are_zeros = tf_math.equal(y_true, K.constant(0, y_true.dtype))
    are_ones = tf_math.equal(y_true, K.constant(1, y_true.dtype))
    is_binary = tf_math.reduce_all(tf_math.logical_or(are_zeros, are_ones))
    # A select on the scalar predicate (rather than tf.cond) keeps it one traceable op.
    return array_ops.where(is_binary, 2.0 * y_true - 1.0, y_true)


def _prepare(y_true, y_pred):
    y_pred = K.convert(y_pred)
    y_true = K.cast(y_true, y_pred.dtype)
    return convert_binary_labels_to_hinge(y_true), y_pred


def hinge(y_true, y_pred):
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)``; 0/1 labels become -1/1."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return tf_math.reduce_mean(tf_math.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``; 0/1 labels become -1/1."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return tf_math.reduce_mean(tf_math.square(tf_math.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true, y_pred):
    """``maximum(neg - pos + 1, 0)`` with ``pos = sum(y_true * y_pred)`` and
    ``neg = max((1 - y_true) * y_pred)`` over the last axis."""
    y_pred = K.convert(y_pred)
    y_true = K.cast(y_true, y_pred.dtype)
    pos = tf_math.reduce_sum(y_true * y_pred, axis=-1)
    neg = tf_math.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return tf_math.maximum(neg - pos + 1.0, K.constant(0, y_pred.dtype))


class Hinge(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="hinge", dtype=None):
        super().__init__(hinge, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return Loss.get_config(self)


class SquaredHinge(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return Loss.get_config(self)


class CategoricalHinge(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="categorical_hinge", dtype=None):
        super().__init__(categorical_hinge, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return Loss.get_config(self)
