"""Keras's `encode_categorical_inputs`: integer indices as one-hot, multi-hot or count vectors of
length ``depth`` (the TensorFlow path: `bincount` for ranks up to 2, `one_hot` otherwise).
Indices at or past ``depth`` add nothing, which is how lookups drop masked positions."""

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow import math as _math
from ferroflow.array_ops import cast, expand_dims, one_hot, squeeze

__all__ = ["DROPPED", "encode_categorical"]

# An index no depth reaches: Keras gives masked lookups int64's largest value.
DROPPED = np.iinfo(np.int64).max


def _dense(inputs):
    if hasattr(inputs, "to_tensor"):
        # Ragged rows: the padding adds nothing to any bin.
        return inputs.to_tensor(default_value=DROPPED)
    return inputs


def encode_categorical(inputs, output_mode, depth, dtype, count_weights=None):
    """``inputs`` (integer indices) encoded as ``output_mode`` vectors of length ``depth``."""
    dtype = _dtypes.as_dtype(dtype)
    if output_mode == "int":
        return cast(inputs, dtype)
    inputs = _dense(inputs)
    if inputs.shape.rank == 0:
        inputs = expand_dims(inputs, -1)
    rank = inputs.shape.rank
    if output_mode == "one_hot":
        if rank > 1 and inputs.shape[-1] == 1:
            inputs = squeeze(inputs, -1)
        return one_hot(inputs, depth, dtype=dtype)
    if rank <= 2:
        counts = _math.bincount(
            inputs,
            weights=count_weights,
            minlength=depth,
            maxlength=depth,
            dtype=dtype if count_weights is None else count_weights.dtype,
            axis=-1,
            binary_output=output_mode == "multi_hot",
        )
        return cast(counts, dtype)
    # Rank 3 and up: one-hot, reduced over axis 1 as Keras's TensorFlow backend does.
    encoded = one_hot(inputs, depth, dtype=dtype)
    if output_mode == "multi_hot":
        return _math.reduce_max(encoded, axis=1)
    if count_weights is not None:
        encoded = encoded * expand_dims(cast(count_weights, dtype), -1)
    return _math.reduce_sum(encoded, axis=1)
