"""Keras's `encode_categorical_inputs`: integer indices as one-hot, multi-hot or count vectors of
length ``depth`` (the TensorFlow path: `bincount` for ranks up to 2, `one_hot` otherwise).
Indices at or past ``depth`` add nothing, which is how lookups drop masked positions."""

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow import math as _math
from ferroflow import sparse_ops as _sparse_ops
from ferroflow.array_ops import cast, expand_dims, one_hot, reshape, squeeze, stack
from ferroflow.sparse_tensor import SparseTensor

__all__ = ["DROPPED", "encode_categorical"]

# An index no depth reaches: Keras gives masked lookups int64's largest value.
DROPPED = np.iinfo(np.int64).max


def _dense(inputs):
    if hasattr(inputs, "to_tensor"):
        # Ragged rows: the padding adds nothing to any bin.
        return inputs.to_tensor(default_value=DROPPED)
    return inputs


def encode_categorical(inputs, output_mode, depth, dtype, count_weights=None, sparse=False):
    """``inputs`` (integer indices) encoded as ``output_mode`` vectors of length ``depth``;
    with ``sparse``, as a `SparseTensor`."""
    dtype = _dtypes.as_dtype(dtype)
    if output_mode == "int":
        if isinstance(inputs, SparseTensor):
            return inputs.with_values(cast(inputs.values, dtype))
        return cast(inputs, dtype)
    if sparse or isinstance(inputs, SparseTensor):
        return _encode_sparse(inputs, output_mode, depth, dtype, count_weights, sparse)
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


def _sparse_counts(inputs, output_mode, depth, dtype, count_weights):
    # Keras's TensorFlow fast path (ranks up to 2): `tf.sparse.bincount` clipped to ``depth``,
    # values cast to ``dtype``, dense shape ``(depth,)`` or ``(batch, depth)``.
    counts = _sparse_ops.bincount(
        inputs,
        weights=count_weights,
        minlength=depth,
        maxlength=depth,
        axis=-1,
        binary_output=output_mode == "multi_hot",
    )
    shape = [depth] if inputs.shape.rank == 1 else stack([counts.dense_shape[0], depth])
    return SparseTensor(counts.indices, cast(counts.values, dtype), shape)


def _encode_sparse(inputs, output_mode, depth, dtype, count_weights, sparse):
    from ferroflow.keras.ops import nn as _nn

    ragged = hasattr(inputs, "to_tensor")
    inputs = _dense(inputs)
    if inputs.shape.rank == 0:
        inputs = expand_dims(inputs, -1)
    rank = inputs.shape.rank
    if output_mode in ("multi_hot", "count") and rank <= 2:
        counts = _sparse_counts(inputs, output_mode, depth, dtype, count_weights)
        return counts if sparse else _sparse_ops.to_dense(counts)
    if ragged:
        # Keras's sparse one-hot reads the static shape, whose row lengths are unknown.
        _nn._require_static_shape([None])
    if output_mode == "multi_hot":
        return _nn.multi_hot(inputs, depth, dtype=dtype.name, sparse=sparse)
    if output_mode == "one_hot":
        if rank > 1 and inputs.shape[-1] == 1:
            inputs = reshape(inputs, inputs.shape[:-1])
        return _nn.one_hot(inputs, depth, dtype=dtype.name, sparse=sparse)
    # Count at rank 3 and up: the sparse one-hot entries (weighted) summed over axis 1.
    if count_weights is not None:
        dtype = count_weights.dtype
    encoded = _nn.one_hot(inputs, depth, dtype=dtype.name, sparse=True)
    if count_weights is not None:
        encoded = encoded.with_values(encoded.values * reshape(count_weights, [-1]))
    return _sparse_ops.reduce_sum(encoded, axis=1, output_is_sparse=True)
