"""`Sum`, `Mean` and `MeanMetricWrapper`: metrics that accumulate (weighted) values."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses._tensor_notes import get_keras_mask
from ferroflow.keras.losses.reduction import apply_mask, squeeze_or_expand_to_same_rank
from ferroflow.keras.metrics.metric import Metric

__all__ = ["Mean", "MeanMetricWrapper", "Sum", "reduce_to_samplewise_values"]


def reduce_to_samplewise_values(values, sample_weight, reduce_fn, dtype):
    """Weights ``values`` and reduces them (with ``reduce_fn``) to one value per sample; returns
    the values and the matching per-sample weights."""
    dtype = dtype or K.FLOATX
    mask = get_keras_mask(values)
    values = K.cast(values, dtype)
    if sample_weight is not None:
        sample_weight = K.convert(sample_weight, dtype)
        if mask is not None:
            sample_weight = apply_mask(sample_weight, mask, dtype=dtype, reduction="sum")
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        weight_ndim = K.ndim(sample_weight)
        values_ndim = K.ndim(values)
        if values_ndim > weight_ndim:
            values = reduce_fn(values, axis=list(range(weight_ndim, values_ndim)))
        # Broadcasting the weights changes the weight total reduced below, not the product.
        sample_weight = K.broadcast_like(sample_weight, values)
        values = values * sample_weight
        if weight_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=list(range(1, weight_ndim)))
    values_ndim = K.ndim(values)
    if values_ndim > 1:
        values = reduce_fn(values, axis=list(range(1, values_ndim)))
    return values, sample_weight


class Sum(Metric):
    """The (weighted) sum of the values given."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(
            shape=(), initializer="zeros", dtype=self.dtype, name="total"
        )

    def update_state(self, values, sample_weight=None):
        values, _ = reduce_to_samplewise_values(
            values, sample_weight, reduce_fn=tf_math.reduce_sum, dtype=self.dtype
        )
        self.total.assign_add(tf_math.reduce_sum(values))

    def reset_state(self):
        self.total.assign(0)

    def result(self):
        return K.cast(self.total, self.dtype)


class Mean(Metric):
    """The (weighted) mean of the values given: ``total / count``."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(
            shape=(), initializer="zeros", dtype=self.dtype, name="total"
        )
        self.count = self.add_variable(
            shape=(), initializer="zeros", dtype=self.dtype, name="count"
        )

    def update_state(self, values, sample_weight=None):
        values, sample_weight = reduce_to_samplewise_values(
            values, sample_weight, reduce_fn=tf_math.reduce_mean, dtype=self.dtype
        )
        self.total.assign_add(tf_math.reduce_sum(values))
        if sample_weight is not None:
            num_samples = tf_math.reduce_sum(sample_weight)
        elif K.ndim(values) >= 1:
            num_samples = array_ops.shape(values)[0]
        else:
            num_samples = 1
        self.count.assign_add(K.convert(num_samples, self.dtype))

    def reset_state(self):
        self.total.assign(0)
        self.count.assign(0)

    def result(self):
        return K.divide_no_nan(self.total, K.cast(self.count, self.dtype))


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred, **kwargs)`` over all samples seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        mask = get_keras_mask(y_pred)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        sample_weight = apply_mask(sample_weight, mask, dtype=self.dtype, reduction="sum")
        return super().update_state(values, sample_weight=sample_weight)

    def get_config(self):
        config = super().get_config()
        config["fn"] = getattr(self._fn, "__name__", self._fn)
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        fn = config.get("fn")
        if isinstance(fn, str):
            from ferroflow.keras.losses.registry import deserialize

            config["fn"] = deserialize(fn)
        return cls(**config)
