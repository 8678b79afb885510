"""`Orthogonal`: a (scaled) orthogonal matrix from the QR decomposition of a normal sample."""

import numpy as _np

import ferroflow as _tf
from ferroflow.keras.initializers import sampling
from ferroflow.keras.initializers.initializer import standardize_dtype, standardize_shape
from ferroflow.keras.initializers.random import RandomInitializer


class Orthogonal(RandomInitializer):
    """Orthogonal rows (when there are fewer rows than columns) or columns, times ``gain``.

    Shapes of rank > 2 are built as a ``(prod(shape[:-1]), shape[-1])`` matrix and reshaped.
    The QR decomposition runs in NumPy (ferroflow has no ``tf.linalg.qr``).
    """

    def __init__(self, gain=1.0, seed=None):
        self.gain = gain
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        shape = standardize_shape(shape)
        if len(shape) < 2:
            raise ValueError(
                "The tensor to initialize must be "
                "at least two-dimensional. Received: "
                f"shape={shape} of rank {len(shape)}."
            )
        dtype = standardize_dtype(dtype)
        if not dtype.is_floating:
            raise TypeError(
                f"Orthogonal needs a floating-point dtype. Received: dtype={dtype.name}"
            )
        num_rows = 1
        for dim in shape[:-1]:
            num_rows *= dim
        num_cols = shape[-1]
        flat_shape = (max(num_cols, num_rows), min(num_cols, num_rows))
        a = sampling.standard_normal(flat_shape, self.seed)
        q, r = _np.linalg.qr(a)
        q = q * _np.sign(_np.diag(r))
        if num_rows < num_cols:
            q = q.T
        return _tf.constant(float(self.gain) * q.reshape(shape), dtype=dtype)

    def get_config(self):
        return {**super().get_config(), "gain": self.gain}
