"""`tf.keras.losses.LossFunctionWrapper`: a `Loss` around a per-sample loss function."""

from ferroflow.keras.losses.loss import Loss
from ferroflow.keras.losses.reduction import squeeze_or_expand_to_same_rank

__all__ = ["LossFunctionWrapper"]


class LossFunctionWrapper(Loss):
    """Calls ``fn(y_true, y_pred, **kwargs)`` after matching the ranks of the two inputs."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        config = super().get_config()
        config["fn"] = getattr(self.fn, "__name__", self.fn)
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

    def __repr__(self):
        return f"<LossFunctionWrapper({self.fn}, kwargs={self._fn_kwargs})>"
