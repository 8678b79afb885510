"""`tf.keras.callbacks` (being written)."""

__all__ = []
