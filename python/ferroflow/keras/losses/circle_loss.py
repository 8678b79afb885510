"""The Circle loss (Sun et al., 2020) for metric learning: within-class cosine distances of
L2-normalised embeddings pulled down, between-class ones pushed up, each pair weighted by how
far it is from its optimum. Rows with a zero loss are masked out of the reduction."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses._tensor_notes import set_keras_mask
from ferroflow.keras.losses.loss import Loss
from ferroflow.keras.losses.wrapper import LossFunctionWrapper
from ferroflow.linalg_ops import matmul

__all__ = ["Circle", "circle"]


def _pos_neg_masks(query_labels, key_labels, remove_diagonal):
    """Pairs of equal labels (less each item with itself) and pairs of different labels."""
    if len(query_labels.shape) == 1:
        query_labels = array_ops.reshape(query_labels, (-1, 1))
    if len(key_labels.shape) == 1:
        key_labels = array_ops.reshape(key_labels, (-1, 1))
    positive = tf_math.equal(query_labels, array_ops.transpose(key_labels))
    negative = tf_math.logical_not(positive)
    if remove_diagonal:
        rows = array_ops.size(query_labels)
        columns = array_ops.size(key_labels)
        diagonal = array_ops.cast(array_ops.eye(rows, columns), "bool")
        positive = tf_math.logical_and(positive, tf_math.logical_not(diagonal))
    return positive, negative


def circle(
    y_true,
    y_pred,
    ref_labels=None,
    ref_embeddings=None,
    remove_diagonal=True,
    gamma=80,
    margin=0.4,
):
    """Per-row Circle loss of embeddings ``y_pred`` with integer labels ``y_true`` against
    the reference set (by default the batch itself)."""
    y_pred = K.convert(y_pred)
    y_true = K.cast(y_true, "int32")
    ref_embeddings = y_pred if ref_embeddings is None else K.convert(ref_embeddings)
    ref_labels = y_true if ref_labels is None else K.cast(ref_labels, "int32")
    optim_pos, optim_neg = margin, 1 + margin
    delta_pos, delta_neg = margin, 1 - margin
    distances = tf_math.maximum(1 - matmul(y_pred, array_ops.transpose(ref_embeddings)), 0.0)
    positive, negative = _pos_neg_masks(y_true, ref_labels, remove_diagonal)
    pos_mask = K.cast(positive, distances.dtype)
    neg_mask = K.cast(negative, distances.dtype)
    pos_weights = tf_math.maximum((optim_pos + distances) * pos_mask, 0.0)
    neg_weights = tf_math.maximum((optim_neg - distances) * neg_mask, 0.0)
    pos_wdists = -1 * gamma * pos_weights * (delta_pos - distances)
    neg_wdists = gamma * neg_weights * (delta_neg - distances)
    minus_inf = K.constant(float("-inf"), distances.dtype)
    p_loss = tf_math.reduce_logsumexp(array_ops.where(positive, pos_wdists, minus_inf), axis=1)
    n_loss = tf_math.reduce_logsumexp(array_ops.where(negative, neg_wdists, minus_inf), axis=1)
    loss = tf_math.softplus(p_loss + n_loss)
    set_keras_mask(loss, loss > 0)
    return loss


class Circle(LossFunctionWrapper):
    def __init__(
        self,
        gamma=80.0,
        margin=0.4,
        remove_diagonal=True,
        reduction="sum_over_batch_size",
        name="circle",
        dtype=None,
    ):
        super().__init__(
            circle,
            name=name,
            reduction=reduction,
            dtype=dtype,
            gamma=gamma,
            margin=margin,
            remove_diagonal=remove_diagonal,
        )
        self.gamma = gamma
        self.margin = margin
        self.remove_diagonal = remove_diagonal

    def get_config(self):
        return {
            **Loss.get_config(self),
            "gamma": self.gamma,
            "margin": self.margin,
            "remove_diagonal": self.remove_diagonal,
        }
