"""The generalized cross-entropy (Zhang and Sabuncu, 2018), robust to noisy labels:
``(1 - p ** q) / q`` with ``p`` the predicted probability of the true class; it goes from
cross-entropy (q -> 0) to mean absolute error (q = 1)."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses.loss import Loss
from ferroflow.keras.losses.wrapper import LossFunctionWrapper

__all__ = ["CategoricalGeneralizedCrossEntropy", "categorical_generalized_cross_entropy"]


def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """Per-example loss of integer labels ``y_true`` under probabilities ``y_pred``
    (batch, num_classes)."""
    y_pred = K.convert(y_pred)
    depth = y_pred.shape[-1]
    if depth is None:
        depth = array_ops.shape(y_pred)[-1]
    one_hot = K.cast(array_ops.one_hot(K.cast(y_true, "int64"), depth), y_pred.dtype)
    p = tf_math.reduce_sum(y_pred * one_hot, axis=-1)
    return (1 - tf_math.pow(p, q)) / q


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    def __init__(
        self,
        q=0.5,
        reduction="sum_over_batch_size",
        name="categorical_generalized_cross_entropy",
        dtype=None,
    ):
        if not 0 < q < 1:
            raise ValueError("q must be in the interval (0, 1)")
        super().__init__(
            categorical_generalized_cross_entropy,
            name=name,
            reduction=reduction,
            dtype=dtype,
            q=q,
        )
        self.q = q

    def get_config(self):
        return {**Loss.get_config(self), "q": self.q}
