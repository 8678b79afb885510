"""`tf.keras.utils.to_categorical`."""

import numpy as np

from ferroflow import array_ops
from ferroflow._core import Tensor

__all__ = ["to_categorical"]


def to_categorical(x, num_classes=None):
    """One-hot rows for the class indices ``x`` (a trailing dimension of 1 is dropped): a
    float tensor for a tensor, a float64 numpy array otherwise."""
    if isinstance(x, Tensor):
        shape = x.shape.as_list()
        if len(shape) > 1 and shape[-1] == 1:
            x = array_ops.reshape(x, shape[:-1])
        if num_classes is None:
            num_classes = int(np.max(np.asarray(x))) + 1
        return array_ops.one_hot(x, num_classes)
    x = np.array(x, dtype="int64")
    input_shape = x.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    x = x.reshape(-1)
    if not num_classes:
        num_classes = np.max(x) + 1
    categorical = np.zeros((x.shape[0], num_classes))
    categorical[np.arange(x.shape[0]), x] = 1
    return np.reshape(categorical, input_shape + (num_classes,))
