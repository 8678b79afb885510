"""`tf.keras.utils` (being written)."""

__all__ = []
