"""`tf.keras.models`: `Model` (subclassed or functional), `Sequential`, and model files."""

from ferroflow.keras.models.model import Model
from ferroflow.keras.models.sequential import Sequential
from ferroflow.keras.saving import load_model, save_model

__all__ = ["Model", "Sequential", "load_model", "save_model"]
