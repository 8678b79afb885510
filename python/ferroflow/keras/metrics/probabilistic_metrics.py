"""Probabilistic metrics: the mean binary / categorical / sparse categorical cross-entropy,
Kullback-Leibler divergence and Poisson loss over all samples seen."""

from ferroflow.keras.losses.probabilistic_losses import (
    binary_crossentropy,
    categorical_crossentropy,
    kl_divergence,
    poisson,
    sparse_categorical_crossentropy,
)
from ferroflow.keras.metrics.reduction_metrics import MeanMetricWrapper

__all__ = [
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "KLDivergence",
    "Poisson",
    "SparseCategoricalCrossentropy",
]


class KLDivergence(MeanMetricWrapper):
    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(fn=kl_divergence, name=name, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class Poisson(MeanMetricWrapper):
    def __init__(self, name="poisson", dtype=None):
        super().__init__(fn=poisson, name=name, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class BinaryCrossentropy(MeanMetricWrapper):
    def __init__(
        self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0
    ):
        super().__init__(
            binary_crossentropy,
            name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self._direction = "down"

    def get_config(self):
        return {
            "name": self.name,
            "dtype": self.dtype,
            "from_logits": self.from_logits,
            "label_smoothing": self.label_smoothing,
        }


class CategoricalCrossentropy(MeanMetricWrapper):
    def __init__(
        self,
        name="categorical_crossentropy",
        dtype=None,
        from_logits=False,
        label_smoothing=0,
        axis=-1,
    ):
        super().__init__(
            categorical_crossentropy,
            name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis
        self._direction = "down"

    def get_config(self):
        return {
            "name": self.name,
            "dtype": self.dtype,
            "from_logits": self.from_logits,
            "label_smoothing": self.label_smoothing,
            "axis": self.axis,
        }


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    def __init__(
        self,
        name="sparse_categorical_crossentropy",
        dtype=None,
        from_logits=False,
        ignore_class=None,
        axis=-1,
    ):
        super().__init__(
            sparse_categorical_crossentropy,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            ignore_class=ignore_class,
            axis=axis,
        )
        self.from_logits = from_logits
        self.ignore_class = ignore_class
        self.axis = axis
        self._direction = "down"

    def get_config(self):
        return {
            "name": self.name,
            "dtype": self.dtype,
            "from_logits": self.from_logits,
            "ignore_class": self.ignore_class,
            "axis": self.axis,
        }
