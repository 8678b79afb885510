"""Creating and updating optimizer variables: initial values that are never traced (so slots
may be made while a `tf.function` is first traced), and updates that cast the value to the
variable's dtype first, scattering `tf.IndexedSlices` (as Keras's TensorFlow backend does)."""

import numpy as np

from ferroflow import array_ops
from ferroflow.variables import IndexedSlices, VariableAggregation

__all__ = ["AGGREGATIONS", "initial_value", "update"]

AGGREGATIONS = {
    None: VariableAggregation.NONE,
    "none": VariableAggregation.NONE,
    "sum": VariableAggregation.SUM,
    "mean": VariableAggregation.MEAN,
    "only_first_replica": VariableAggregation.ONLY_FIRST_REPLICA,
}


def initial_value(initializer, shape, dtype):
    """``initializer``: "zeros", "ones", a number, or a callable ``(shape, dtype=...)``."""
    if isinstance(initializer, str) and initializer in ("zeros", "ones"):
        make = array_ops.zeros if initializer == "zeros" else array_ops.ones
        return make(shape, dtype=dtype)
    if isinstance(initializer, (int, float)):
        return np.full(shape, initializer, dtype=dtype.as_numpy_dtype)
    if callable(initializer):
        return initializer(shape, dtype=dtype)
    raise ValueError(f"Unknown initializer: {initializer!r}")


def update(variable, value, dense_method, sparse_method):
    from ferroflow.keras._scopes import outside_stateless_scope

    # Keras's TensorFlow backend assigns the variable itself, even in a `keras.StatelessScope`.
    with outside_stateless_scope():
        if isinstance(value, IndexedSlices):
            values = array_ops.cast(value.values, variable.dtype)
            slices = IndexedSlices(values, value.indices, value.dense_shape)
            getattr(variable, sparse_method)(slices)
        else:
            getattr(variable, dense_method)(array_ops.cast(value, variable.dtype))
