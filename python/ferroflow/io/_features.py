"""The feature configurations of `tf.io.parse_example` and friends: `FixedLenFeature`,
`FixedLenSequenceFeature`, `VarLenFeature`, `SparseFeature` and `RaggedFeature` (TensorFlow's
namedtuples), and the dtype check the parse ops apply to them."""

from __future__ import annotations

import collections

from ferroflow import dtypes as _dtypes
from ferroflow import errors

_ALLOWED = ("float32", "int64", "string")


class FixedLenFeature(
    collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])
):
    """A feature with a fixed number of values per example: a dense output of ``shape``."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(
    collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"]
    )
):
    """A feature holding any number of ``shape``-sized rows: a dense output padded per batch."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature with any number of values per example: a SparseTensor output."""


class SparseFeature(
    collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"]
    )
):
    """A SparseTensor assembled from index feature(s) and a value feature."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class RaggedFeature(
    collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"]
    )
):
    """A RaggedTensor output: values from ``value_key`` (default: the feature's key), nested
    by ``partitions`` (outermost first), each read from its own feature."""

    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])

    def __new__(
        cls, dtype, value_key=None, partitions=(), row_splits_dtype=_dtypes.int32, validate=False
    ):
        dtype = _dtypes.as_dtype(dtype)
        row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        if dtype.name not in _ALLOWED:
            raise ValueError(f"dtype must be one of tf.float32, tf.int64, tf.string, got {dtype}")
        if row_splits_dtype.name not in ("int32", "int64"):
            raise ValueError(f"Invalid row_splits_dtype: {row_splits_dtype}")
        if value_key is not None and (not isinstance(value_key, str) or not value_key):
            raise ValueError(f"Invalid value_key: {value_key!r}")
        partition_types = (
            cls.RowSplits,
            cls.RowLengths,
            cls.RowStarts,
            cls.RowLimits,
            cls.ValueRowIds,
            cls.UniformRowLength,
        )
        if not isinstance(partitions, (list, tuple)) or not all(
            isinstance(p, partition_types) for p in partitions
        ):
            raise TypeError(f"partitions must be a list of partition objects: {partitions!r}")
        return super().__new__(cls, dtype, value_key, tuple(partitions), row_splits_dtype, validate)


def _dtype_name(dtype, attr):
    name = _dtypes.as_dtype(dtype).name
    if name not in _ALLOWED:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Value for attr '{attr}' of {name} is not in the list of allowed values: float, "
            "int64, string",
        )
    return name
