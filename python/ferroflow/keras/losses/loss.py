"""`tf.keras.losses.Loss`: the base class of the losses (Keras 3 semantics)."""

from ferroflow.keras._naming import auto_name
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses._tensor_notes import get_keras_mask
from ferroflow.keras.losses.reduction import reduce_weighted_values, standardize_reduction
from ferroflow.name_scope import name_scope

__all__ = ["Loss"]


class Loss:
    """Loss base class: subclasses implement ``call(y_true, y_pred)``, returning per-sample
    losses, which ``__call__`` weights and reduces.

    Args:
        reduction: "sum_over_batch_size" (default), "sum", "mean", "mean_with_sample_weight",
            "none" or None.
        name: The loss's name (default: the class name in snake case).
        dtype: The computation dtype (default "float32"); both inputs are cast to it.
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or auto_name(self.__class__.__name__)
        self.reduction = standardize_reduction(reduction)
        self._dtype = K.standardize_dtype(dtype)

    @property
    def dtype(self):
        return self._dtype

    def __call__(self, y_true, y_pred, sample_weight=None):
        in_mask = get_keras_mask(y_pred)
        with name_scope(self.name):
            y_pred = K.convert(y_pred, self.dtype)
            y_true = K.convert(y_true, self.dtype)
            losses = self.call(y_true, y_pred)
            out_mask = get_keras_mask(losses)
            if in_mask is not None and out_mask is not None:
                mask = K.cast(in_mask, "bool") & K.cast(out_mask, "bool")
            else:
                mask = in_mask if in_mask is not None else out_mask
            return reduce_weighted_values(
                losses,
                sample_weight=sample_weight,
                mask=mask,
                reduction=self.reduction,
                dtype=self.dtype,
            )

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
