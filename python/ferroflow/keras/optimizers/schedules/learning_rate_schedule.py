"""`tf.keras.optimizers.schedules.LearningRateSchedule`: a learning rate that is a function of
the optimizer's step (its `iterations` variable, read each time the optimizer applies)."""

__all__ = ["LearningRateSchedule"]


class LearningRateSchedule:
    """Base class: subclasses define ``__call__(step)`` (tensor ops only, so that it also runs
    inside a `tf.function`) and ``get_config()``."""

    def __call__(self, step):
        raise NotImplementedError(
            f"Learning rate schedule '{self.__class__.__name__}' "
            "must override `__call__(self, step)`."
        )

    def get_config(self):
        raise NotImplementedError(
            f"Learning rate schedule '{self.__class__.__name__}' "
            "must override `get_config()` in order to be serializable."
        )

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def check_decay_steps(value, argument="decay_steps"):
    if value <= 0:
        raise ValueError(f"Argument `{argument}` must be > 0. Received: {argument}={value}")
