"""`Orthogonal`: a (scaled) orthogonal matrix from the QR decomposition of a normal sample."""

import ferroflow as _tf
from ferroflow.keras.initializers import sampling
from ferroflow.keras.initializers.initializer import standardize_dtype, standardize_shape
from ferroflow.keras.initializers.random import RandomInitializer


class Orthogonal(RandomInitializer):
    """Orthogonal rows (when there are fewer rows than columns) or columns, times ``gain``.

    Shapes of rank > 2 are built as a ``(prod(shape[:-1]), shape[-1])`` matrix and reshaped.
    The QR decomposition is `tf.linalg.qr` of the float draw, as Keras's.
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
        # Keras's recipe on its float draw: QR, then Q's columns signed by R's diagonal.
        a = sampling.normal(flat_shape, 0.0, 1.0, dtype, self.seed)
        # ferroflow's QR has no half-precision kernel (TensorFlow's has): those factor in
        # float32, then round.
        half = dtype in (_tf.float16, _tf.bfloat16)
        q, r = _tf.linalg.qr(_tf.cast(a, _tf.float32) if half else a)
        q = _tf.cast(q * _tf.sign(_tf.linalg.diag_part(r)), dtype)
        if num_rows < num_cols:
            q = _tf.transpose(q)
        return self.gain * _tf.reshape(q, shape)

    def get_config(self):
        return {**super().get_config(), "gain": self.gain}
