"""`tf.keras.layers` (work in progress: Layer and Dense so far)."""

from ferroflow.keras.layers.dense import Dense
from ferroflow.keras.layers.layer import Layer

__all__ = ["Dense", "Layer"]
