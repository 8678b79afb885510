"""How per-sample losses become one value: ranks matched to the sample weights, masks merged
into the weights, and the reductions ("sum_over_batch_size", "sum", "mean",
"mean_with_sample_weight", "none"/None), as keras/src/losses/loss.py does them."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K

REDUCTIONS = ("sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight")


def standardize_reduction(reduction):
    if reduction not in REDUCTIONS:
        allowed = {"sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight"}
        raise ValueError(
            "Invalid value for argument `reduction`. "
            f"Expected one of {allowed}. Received: reduction={reduction}"
        )
    return reduction


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Squeezes or expands the last axis of one tensor when the ranks differ by exactly one and
    that axis has size 1 (a rank-1 partner is expanded instead, when ``expand_rank_1``)."""
    x1_rank = K.ndim(x1)
    x2_rank = K.ndim(x2)
    if x1_rank == x2_rank:
        return x1, x2
    if x1_rank == x2_rank + 1 and x1.shape[-1] == 1:
        if x2_rank == 1 and expand_rank_1:
            x2 = array_ops.expand_dims(x2, axis=-1)
        else:
            x1 = array_ops.squeeze(x1, axis=-1)
    if x2_rank == x1_rank + 1 and x2.shape[-1] == 1:
        if x1_rank == 1 and expand_rank_1:
            x1 = array_ops.expand_dims(x1, axis=-1)
        else:
            x2 = array_ops.squeeze(x2, axis=-1)
    return x1, x2


def reduce_values(values, sample_weight=None, reduction="sum_over_batch_size"):
    shape = tuple(values.shape)
    if reduction is None or reduction == "none" or shape == () or shape == (0,):
        return values
    loss = tf_math.reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean", "mean_with_sample_weight"):
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            divisor = K.cast(tf_math.reduce_sum(sample_weight), loss.dtype)
        else:
            divisor = K.num_elements(values, loss.dtype)
        loss = K.divide_no_nan(loss, divisor)
    return loss


def apply_mask(sample_weight, mask, dtype, reduction):
    """Folds a mask into the sample weights; for mean reductions the kept entries are scaled by
    total / kept so that the mean runs over the kept entries only."""
    if mask is None:
        return sample_weight
    if reduction in ("mean", "sum_over_batch_size"):
        total = K.num_elements(mask, dtype)
        valid = tf_math.reduce_sum(K.cast(mask, dtype))  # may be 0
        mask_weight = K.divide_no_nan(total, valid)
        float_mask = array_ops.where(
            K.cast(mask, "bool"), mask_weight, K.constant(0, mask_weight.dtype)
        )
    else:
        float_mask = K.cast(mask, dtype)
    if sample_weight is not None:
        sample_weight = K.cast(sample_weight, dtype)
        float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
        sample_weight = sample_weight * float_mask
    else:
        sample_weight = float_mask
    return sample_weight


def reduce_weighted_values(
    values, sample_weight=None, mask=None, reduction="sum_over_batch_size", dtype=None
):
    reduction = standardize_reduction(reduction)
    values = K.convert(values, dtype)
    if sample_weight is not None:
        sample_weight = K.convert(sample_weight, dtype)
    if mask is not None:
        mask = K.convert(mask, dtype)
    sample_weight = apply_mask(sample_weight, mask, dtype=values.dtype, reduction=reduction)
    if sample_weight is not None:
        sample_weight = K.cast(sample_weight, values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    return reduce_values(values, sample_weight, reduction)


class Reduction:
    """The legacy `tf.keras.losses.Reduction` names ("auto" is not accepted by Keras 3's
    losses)."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')
