"""The CTC loss as Keras 3 computes it: integer label sequences padded with 0 (0 is also the
blank) against batch-major logits; every example uses all its time steps."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses.loss import Loss
from ferroflow.keras.losses.wrapper import LossFunctionWrapper
from ferroflow.nn_ctc import ctc_loss

__all__ = ["CTC", "ctc"]


def ctc(y_true, y_pred):
    """Per-example CTC loss of labels ``y_true`` (batch, max_length) under logits
    ``y_pred`` (batch, max_length, num_classes)."""
    y_true = K.convert(y_true)
    y_pred = K.convert(y_pred)
    if len(y_true.shape) != 2:
        raise ValueError(
            "Targets `y_true` are expected to be a tensor of shape `(batch_size, max_length)` "
            f"in integer format. Received: y_true.shape={tuple(y_true.shape)}"
        )
    if len(y_pred.shape) != 3:
        raise ValueError(
            "Logits `y_pred` are expected to be a tensor of shape "
            f"`(batch_size, max_length, num_classes)`. Received: y_pred.shape={tuple(y_pred.shape)}"
        )
    dims = array_ops.shape(y_pred)
    input_length = array_ops.fill(dims[:1], dims[1])
    not_blank = tf_math.not_equal(y_true, K.constant(0, y_true.dtype))
    label_length = K.cast(tf_math.reduce_sum(K.cast(not_blank, "int32"), axis=-1), "int32")
    # Keras's result dtype is float64 for float64 logits and float32 otherwise; the loss is
    # computed in float32 either way (tf.nn.ctc_loss refuses float64).
    result_dtype = "float64" if y_pred.dtype == "float64" else "float32"
    loss = ctc_loss(
        labels=K.cast(y_true, "int32"),
        logits=K.cast(y_pred, "float32"),
        label_length=label_length,
        logit_length=input_length,
        blank_index=0,
        logits_time_major=False,
    )
    return K.cast(loss, result_dtype)


class CTC(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="ctc", dtype=None):
        super().__init__(ctc, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return Loss.get_config(self)
