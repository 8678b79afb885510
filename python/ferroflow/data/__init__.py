"""`tf.data` (being written)."""

__all__ = []
