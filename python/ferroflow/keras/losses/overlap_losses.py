"""Overlap losses for segmentation: Dice (``1 - 2|A∩B| / (|A| + |B|)``) and Tversky (false
positives and negatives weighted by ``alpha`` and ``beta``), as functions and `Loss` classes.
With ``axis=None`` they sum over every axis, so each call gives one value for the batch."""

from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses.loss import Loss
from ferroflow.keras.losses.wrapper import LossFunctionWrapper

__all__ = ["Dice", "Tversky", "dice", "tversky"]


def _prepare(y_true, y_pred):
    y_pred = K.convert(y_pred)
    return K.cast(y_true, y_pred.dtype), y_pred


def dice(y_true, y_pred, axis=None):
    """``1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + epsilon)`` over
    ``axis``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    intersection = tf_math.reduce_sum(y_true * y_pred, axis=axis)
    union = tf_math.reduce_sum(y_true, axis=axis) + tf_math.reduce_sum(y_pred, axis=axis)
    return 1 - tf_math.divide(2.0 * intersection, union + K.EPSILON)


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """``1 - TP / (TP + alpha * FP + beta * FN + epsilon)`` over ``axis`` (soft counts);
    ``alpha = beta = 0.5`` is the Dice loss."""
    y_true, y_pred = _prepare(y_true, y_pred)
    intersection = tf_math.reduce_sum(y_true * y_pred, axis=axis)
    fp = tf_math.reduce_sum((1 - y_pred) * y_true, axis=axis)
    fn = tf_math.reduce_sum(y_pred * (1 - y_true), axis=axis)
    return 1 - tf_math.divide(intersection, intersection + fp * alpha + fn * beta + K.EPSILON)


class Dice(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(dice, name=name, reduction=reduction, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self):
        return {**Loss.get_config(self), "axis": self.axis}


class Tversky(LossFunctionWrapper):
    def __init__(
        self,
        alpha=0.5,
        beta=0.5,
        reduction="sum_over_batch_size",
        name="tversky",
        axis=None,
        dtype=None,
    ):
        super().__init__(
            tversky,
            name=name,
            reduction=reduction,
            dtype=dtype,
            alpha=alpha,
            beta=beta,
            axis=axis,
        )
        self.alpha = alpha
        self.beta = beta
        self.axis = axis

    def get_config(self):
        return {**Loss.get_config(self), "alpha": self.alpha, "beta": self.beta, "axis": self.axis}
