"""The training half of `tf.keras.Model`: compile, fit, evaluate, predict (being written)."""

__all__ = ["Trainer"]


class Trainer:
    """Mixed into `Model`; holds no state until `compile`."""
