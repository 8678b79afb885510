"""`keras.legacy`: Keras 2's config format, kept by Keras 3 (`keras.legacy.saving`)."""

from ferroflow.keras.legacy import saving

__all__ = ["saving"]
