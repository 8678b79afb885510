"""`tf.keras.models`."""

from ferroflow.keras.models.model import Model

__all__ = ["Model"]
