"""`tf.image` (patch extraction so far)."""

from ferroflow.nn_windows import extract_patches

__all__ = ["extract_patches"]
