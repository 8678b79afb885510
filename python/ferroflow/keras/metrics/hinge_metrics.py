"""Hinge metrics: the mean hinge, squared hinge and categorical hinge loss over all samples."""

from ferroflow.keras.losses.hinge_losses import categorical_hinge, hinge, squared_hinge
from ferroflow.keras.metrics.reduction_metrics import MeanMetricWrapper

__all__ = ["CategoricalHinge", "Hinge", "SquaredHinge"]


class _HingeMetric(MeanMetricWrapper):
    def __init__(self, fn, name, dtype):
        super().__init__(fn=fn, name=name, dtype=dtype)
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class Hinge(_HingeMetric):
    def __init__(self, name="hinge", dtype=None):
        super().__init__(hinge, name, dtype)


class SquaredHinge(_HingeMetric):
    def __init__(self, name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, name, dtype)


class CategoricalHinge(_HingeMetric):
    def __init__(self, name="categorical_hinge", dtype=None):
        super().__init__(categorical_hinge, name, dtype)
