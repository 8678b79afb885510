"""`tf.types`: the abstract classes TensorFlow's functions, tensors and specs satisfy."""

from ferroflow.types import experimental

__all__ = ["experimental"]
