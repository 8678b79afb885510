"""`tf.keras.models`."""

from ferroflow.keras.models.model import Model
from ferroflow.keras.saving import load_model, save_model

__all__ = ["Model", "load_model", "save_model"]
