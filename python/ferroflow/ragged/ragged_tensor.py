"""`tf.RaggedTensor`: a tensor with one or more ragged dimensions, as TensorFlow's.

A RaggedTensor is a `values` tensor (itself ragged for nested ragged dimensions) split into rows
by a `RowPartition`; the innermost values are `flat_values`, a plain tensor. Every method is a
composition of ferroflow ops on those tensors, so ragged tensors work eagerly, inside a
`tf.function` (their tensors are then symbolic) and under gradient tapes (gradients flow to the
flat values). TensorFlow's APIs accept them through `ferroflow._dispatch` (see `ragged_ops`).
"""

import numpy as np

from ferroflow import _core, _tracing
from ferroflow import array_ops as _a
from ferroflow import dtypes as _dtypes
from ferroflow import math as _m
from ferroflow.errors import InvalidArgumentError
from ferroflow.ragged.row_partition import (
    _FACTORY_KEY,
    RowPartition,
    _splits_to_rowids,
    static_value,
)
from ferroflow.tensor_shape import TensorShape
from ferroflow.type_spec import CompositeTensor

__all__ = ["RaggedTensor", "is_ragged", "convert_to_tensor_or_ragged_tensor"]

_INDEX_DTYPES = (_dtypes.int32, _dtypes.int64)


def is_ragged(value):
    return isinstance(value, RaggedTensor)


def convert_to_tensor_or_ragged_tensor(value, dtype=None, preferred_dtype=None):
    """`value` itself when ragged (its dtype checked against `dtype`), else a tensor."""
    if isinstance(value, RaggedTensor):
        if dtype is not None and _dtypes.as_dtype(dtype) != value.dtype:
            raise ValueError(
                f"Tensor conversion requested dtype {_dtypes.as_dtype(dtype).name} for "
                f"RaggedTensor with dtype {value.dtype.name}: {value}"
            )
        return value
    return _a.convert_to_tensor(value, dtype=dtype, dtype_hint=preferred_dtype)


def _nrows_of(values, dtype):
    """The number of rows of a dense or ragged `values`, as a scalar tensor of `dtype`."""
    if isinstance(values, RaggedTensor):
        return _a.cast(values.nrows(), dtype)
    n = values.shape[0] if values.shape.rank else None
    if n is not None:
        return _a.constant(n, dtype)
    return _a.shape(values, out_type=dtype)[0]


def _shape_dims(shape):
    """A to_tensor/bounding shape argument as a list of ints and Nones (None: no shape)."""
    if shape is None:
        return None
    if isinstance(shape, TensorShape):
        return None if shape.rank is None else shape.as_list()
    if _core.is_tensor(shape):
        known = static_value(shape)
        if known is None:
            raise NotImplementedError("a to_tensor shape computed inside a tf.function")
        return [None if d < 0 else int(d) for d in known.reshape(-1).tolist()]
    return [None if d is None or int(d) < 0 else int(d) for d in shape]


class RaggedTensor(CompositeTensor):
    """A tensor with ragged dimensions: rows of different lengths.

    >>> import ferroflow as tf
    >>> rt = tf.ragged.constant([[1, 2], [3]])
    >>> rt
    <tf.RaggedTensor [[1, 2], [3]]>
    >>> rt.row_splits
    <tf.Tensor: shape=(3,), dtype=int64, numpy=array([0, 2, 3])>
    """

    # numpy defers `array + rt` to RaggedTensor.__radd__.
    __array_priority__ = 192

    def __init__(self, values, row_partition, internal=False):
        if internal is not _FACTORY_KEY:
            raise ValueError(
                "RaggedTensor constructor is private; please use one of the factory methods "
                "instead (e.g., RaggedTensor.from_row_lengths())"
            )
        self._values = values
        self._row_partition = row_partition

    # --- factories ---------------------------------------------------------------------------

    @classmethod
    def _from_row_partition(cls, values, row_partition, validate=True):
        if not isinstance(row_partition, RowPartition):
            raise TypeError("row_partition must be a RowPartition")
        if not isinstance(validate, bool):
            raise TypeError("validate must have type bool")
        values = convert_to_tensor_or_ragged_tensor(values)
        if isinstance(values, RaggedTensor):
            if values._row_partition.dtype != row_partition.dtype:
                raise ValueError(
                    "dtype mismatch: row_partition has dtype "
                    f"{row_partition.dtype.name} but values has row_splits dtype "
                    f"{values._row_partition.dtype.name}"
                )
        elif values.shape.rank == 0:
            raise InvalidArgumentError(
                None, None, "slice index 0 of dimension 0 out of bounds: values must be a vector"
            )
        if row_partition._value_rowids is not None and not isinstance(values, RaggedTensor):
            have, want = values.shape[0], row_partition._value_rowids.shape[0]
            if have is not None and want is not None and have != want:
                raise ValueError(f"Shapes ({have},) and ({want},) are incompatible")
        if validate:
            msg = "Arguments to _from_row_partition do not form a valid RaggedTensor"
            from ferroflow import check_ops

            nvals = _nrows_of(values, row_partition.dtype)
            check_ops.assert_equal(row_partition.nvals(), nvals, message=msg)
            if row_partition._value_rowids is not None:
                ids = row_partition._value_rowids
                check_ops.assert_equal(
                    _a.shape(ids, out_type=row_partition.dtype)[0], nvals, message=msg
                )
        if not isinstance(values, RaggedTensor):
            n = values.shape[0]
            if n is not None and row_partition._nvals_hint is None:
                row_partition._nvals_hint = _a.constant(n, row_partition.dtype)
        return cls(values, row_partition, internal=_FACTORY_KEY)

    @staticmethod
    def _partition_dtype_of(values):
        return values._row_partition.dtype if isinstance(values, RaggedTensor) else None

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Rows from each value's row index (sorted); `nrows` adds trailing empty rows.

        >>> import ferroflow as tf
        >>> tf.RaggedTensor.from_value_rowids([3, 1, 4, 1, 5], [0, 0, 2, 2, 2], nrows=4)
        <tf.RaggedTensor [[3, 1], [], [4, 1, 5], []]>
        """
        partition = RowPartition.from_value_rowids(
            value_rowids, nrows, validate=validate, dtype_hint=cls._partition_dtype_of(values)
        )
        return cls._from_row_partition(values, partition, validate=validate)

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Rows `values[row_splits[i]:row_splits[i + 1]]`.

        >>> import ferroflow as tf
        >>> tf.RaggedTensor.from_row_splits([3, 1, 4, 1, 5], [0, 2, 2, 5])
        <tf.RaggedTensor [[3, 1], [], [4, 1, 5]]>
        """
        if not isinstance(validate, bool):
            raise TypeError("validate must have type bool")
        partition = RowPartition.from_row_splits(
            row_splits, validate=validate, dtype_hint=cls._partition_dtype_of(values)
        )
        return cls._from_row_partition(values, partition, validate=validate)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Rows of the given lengths."""
        partition = RowPartition.from_row_lengths(
            row_lengths, validate=validate, dtype_hint=cls._partition_dtype_of(values)
        )
        return cls._from_row_partition(values, partition, validate=validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """Rows starting at `row_starts`; the last ends with the values."""
        values = convert_to_tensor_or_ragged_tensor(values)
        dtype = cls._partition_dtype_of(values)
        if dtype is None:
            dtype = _convert_index(row_starts).dtype
        partition = RowPartition.from_row_starts(
            row_starts, _nrows_of(values, dtype), validate=validate, dtype_hint=dtype
        )
        return cls._from_row_partition(values, partition, validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """Rows ending at `row_limits`; the first starts at 0."""
        partition = RowPartition.from_row_limits(
            row_limits, validate=validate, dtype_hint=cls._partition_dtype_of(values)
        )
        return cls._from_row_partition(values, partition, validate=validate)

    @classmethod
    def from_uniform_row_length(
        cls, values, uniform_row_length, nrows=None, validate=True, name=None
    ):
        """Rows of `uniform_row_length` values each (a uniform, not ragged, dimension)."""
        values = convert_to_tensor_or_ragged_tensor(values)
        dtype = cls._partition_dtype_of(values)
        if dtype is None:
            dtype = _convert_index(uniform_row_length).dtype
        partition = RowPartition.from_uniform_row_length(
            uniform_row_length,
            nvals=_nrows_of(values, dtype),
            nrows=nrows,
            validate=validate,
            dtype_hint=dtype,
        )
        return cls._from_row_partition(values, partition, validate=validate)

    @classmethod
    def from_nested_value_rowids(
        cls, flat_values, nested_value_rowids, nested_nrows=None, name=None, validate=True
    ):
        """Nested ragged dimensions from lists of value row ids (outermost first)."""
        if not isinstance(validate, bool):
            raise TypeError("validate must have type bool")
        if isinstance(nested_value_rowids, _core.Tensor):
            raise TypeError("nested_value_rowids must be a list of Tensors")
        if nested_nrows is None:
            nested_nrows = [None] * len(nested_value_rowids)
        else:
            if isinstance(nested_nrows, _core.Tensor):
                raise TypeError("nested_nrows must be a list of Tensors")
            if len(nested_nrows) != len(nested_value_rowids):
                raise ValueError(
                    "Argument `nested_nrows` must have the same length as argument "
                    f"`nested_value_rowids`. len(nested_nrows) = {len(nested_nrows)} vs. "
                    f"len(nested_values_rowids) = {len(nested_value_rowids)}."
                )
        result = flat_values
        for rowids, nrows in reversed(list(zip(nested_value_rowids, nested_nrows))):
            result = cls.from_value_rowids(result, rowids, nrows, validate=validate)
        return result

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        """Nested ragged dimensions from lists of row splits (outermost first).

        >>> import ferroflow as tf
        >>> tf.RaggedTensor.from_nested_row_splits([1, 2, 3, 4], [[0, 2, 3], [0, 1, 3, 4]])
        <tf.RaggedTensor [[[1], [2, 3]], [[4]]]>
        """
        if not isinstance(validate, bool):
            raise TypeError("validate must have type bool")
        if isinstance(nested_row_splits, _core.Tensor):
            raise TypeError("nested_row_splits must be a list of Tensors")
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        """Nested ragged dimensions from lists of row lengths (outermost first)."""
        if not isinstance(validate, bool):
            raise TypeError("validate must have type bool")
        if isinstance(nested_row_lengths, _core.Tensor):
            raise TypeError("nested_row_lengths must be a list of Tensors")
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def _from_nested_row_partitions(cls, flat_values, partitions, validate=False):
        result = flat_values
        for partition in reversed(list(partitions)):
            result = cls._from_row_partition(result, partition, validate=validate)
        return result

    @classmethod
    def from_tensor(
        cls,
        tensor,
        lengths=None,
        padding=None,
        ragged_rank=1,
        name=None,
        row_splits_dtype=_dtypes.int64,
    ):
        """A ragged tensor from a dense one: rows cut to `lengths`, or trailing `padding`
        removed, or every row whole (a uniform dimension).

        >>> import ferroflow as tf
        >>> tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], padding=0)
        <tf.RaggedTensor [[1, 2], [3]]>
        """
        row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, but not both.")
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        if ragged_rank <= 0:
            raise ValueError(
                f"Argument `ragged_rank` must be greater than 0. Received {ragged_rank}."
            )
        tensor = _a.convert_to_tensor(tensor)
        rank = tensor.shape.rank
        if rank is not None and rank <= ragged_rank:
            raise ValueError(
                f"Expected a tensor with rank greater than ragged_rank={ragged_rank}, got "
                f"shape {tensor.shape}"
            )
        nested = isinstance(lengths, (list, tuple)) and len(lengths) > 0
        if nested and not isinstance(lengths[0], (int, float)):
            # One row-lengths vector per ragged dimension: the cells they cover, in order.
            if ragged_rank not in (1, len(lengths)):
                raise ValueError(
                    "If Argument `lengths` is a tuple of row_lengths, argument `ragged_rank` "
                    f"must be len(lengths): {len(lengths)}. Received ragged_rank: {ragged_rank}."
                )
            count = _m.reduce_sum(lengths[-1])
            ones = _a.ones(_a.reshape(count, [1]), _dtypes.bool)
            mask = cls.from_nested_row_lengths(ones, lengths, validate=False)
            values = _a.boolean_mask(tensor, mask.to_tensor(default_value=False))
            return cls.from_nested_row_lengths(values, lengths, validate=False)
        if ragged_rank > 1:
            dims = tensor.shape.as_list()
            outer = [d if d is not None else _a.shape(tensor)[i] for i, d in enumerate(dims)]
            flat_count = outer[0]
            for d in outer[1:ragged_rank]:
                flat_count = flat_count * d
            new_shape = [flat_count] + outer[ragged_rank:]
            if any(_core.is_tensor(d) for d in new_shape):
                new_shape = _a.stack([_a.cast(d, _dtypes.int32) for d in new_shape], 0)
            flattened = _a.reshape(tensor, new_shape)
            result = cls.from_tensor(flattened, lengths, padding, row_splits_dtype=row_splits_dtype)
            count = None
            for axis in range(ragged_rank - 1, 0, -1):
                count = outer[0]
                for d in outer[1:axis]:
                    count = count * d
                result = cls.from_uniform_row_length(
                    result,
                    _a.cast(outer[axis], row_splits_dtype),
                    nrows=_a.cast(count, row_splits_dtype),
                    validate=False,
                )
            return result
        nrows = _dim(tensor, 0, row_splits_dtype)
        ncols = _dim(tensor, 1, row_splits_dtype)
        if padding is not None:
            padding = _a.convert_to_tensor(padding, dtype=tensor.dtype)
            inner = tensor.shape[2:]
            if not padding.shape.is_compatible_with(inner):
                raise ValueError(f"Shapes {padding.shape} and {inner} are incompatible")
            has_default = _m.equal(padding, tensor)
            if tensor.shape.rank > 2:
                has_default = _m.reduce_all(has_default, axis=list(range(2, tensor.shape.rank)))
            nondefault = _a.cast(_m.logical_not(has_default), row_splits_dtype)
            positions = _a.range(1, ncols + 1, dtype=row_splits_dtype)
            lengths = _m.reduce_max(nondefault * _a.expand_dims(positions, 0), axis=1)
        if lengths is not None:
            lengths = _a.cast(_convert_index(lengths, row_splits_dtype), row_splits_dtype)
            if lengths.shape.rank is not None and lengths.shape.rank != 1:
                raise ValueError(f"Shape {lengths.shape} must have rank 1")
            lengths = _m.maximum(_m.minimum(lengths, ncols), _a.constant(0, row_splits_dtype))
            splits = _a.concat([_a.zeros([1], row_splits_dtype), _m.cumsum(lengths)], 0)
            from ferroflow.manip_ops import sequence_mask

            mask = sequence_mask(lengths, ncols)
            values = _a.boolean_mask(tensor, mask)
            return cls.from_row_splits(values, splits, validate=False)
        inner = [_dim(tensor, i, _dtypes.int32) for i in range(2, tensor.shape.rank)]
        count = _a.cast(nrows * ncols, _dtypes.int32)
        if all(not _core.is_symbolic(d) for d in [count, *inner]):
            values_shape = [int(count)] + [int(d) for d in inner]
        else:
            values_shape = _a.stack([count, *inner], 0)
        values = _a.reshape(tensor, values_shape)
        return cls.from_uniform_row_length(values, ncols, nrows=nrows, validate=False)

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=_dtypes.int64):
        """A ragged tensor from a rank-2 (or higher) ragged-right SparseTensor."""
        row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        indices = getattr(st_input, "indices", None)
        values = getattr(st_input, "values", None)
        dense_shape = getattr(st_input, "dense_shape", None)
        if indices is None or values is None or dense_shape is None:
            raise TypeError(f"Expected SparseTensor, got {type(st_input).__name__}")
        indices = _a.convert_to_tensor(indices, dtype=_dtypes.int64)
        dense_shape = _a.convert_to_tensor(dense_shape, dtype=_dtypes.int64)
        rank = indices.shape[1] if indices.shape.rank == 2 else None
        if rank is not None and rank != 2:
            raise ValueError("rank(st_input) must be 2.")
        # Ragged-right: each row's columns are 0, 1, 2, ... in order.
        from ferroflow import check_ops

        rows, cols = indices[:, 0], indices[:, 1]
        first = _m.logical_or(
            _m.not_equal(rows, _a.concat([_a.constant([-1], _dtypes.int64), rows[:-1]], 0)),
            _m.equal(_a.size(rows), 0),
        )
        prev_col = _a.concat([_a.constant([-1], _dtypes.int64), cols[:-1]], 0)
        expected = _a.where(first, _a.zeros_like(cols), prev_col + 1)
        check_ops.assert_equal(cols, expected, message="SparseTensor is not right-ragged")
        return cls.from_value_rowids(
            values,
            _a.cast(rows, row_splits_dtype),
            nrows=_a.cast(dense_shape[0], row_splits_dtype),
            validate=False,
        )

    # --- properties --------------------------------------------------------------------------

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self):
        """The static shape: `None` for ragged dimensions and unknown sizes.

        >>> import ferroflow as tf
        >>> tf.ragged.constant([[0], [1, 2]]).shape
        TensorShape([2, None])
        """
        nrows = self._row_partition.static_nrows
        ncols = self._row_partition.static_uniform_row_length
        return TensorShape([nrows, ncols]).concatenate(self._values.shape[1:])

    def get_shape(self):
        return self.shape

    @property
    def ragged_rank(self):
        values = self._values
        return values.ragged_rank + 1 if isinstance(values, RaggedTensor) else 1

    @property
    def values(self):
        return self._values

    @property
    def flat_values(self):
        values = self._values
        while isinstance(values, RaggedTensor):
            values = values._values
        return values

    @property
    def row_splits(self):
        return self._row_partition.row_splits()

    def _levels(self):
        """This tensor and every ragged tensor nested in its values, outermost first."""
        level = self
        while isinstance(level, RaggedTensor):
            yield level
            level = level._values

    @property
    def nested_row_splits(self):
        return tuple(level.row_splits for level in self._levels())

    @property
    def uniform_row_length(self):
        return self._row_partition.uniform_row_length()

    @property
    def _nested_row_partitions(self):
        return tuple(level._row_partition for level in self._levels())

    @property
    def row_splits_dtype(self):
        return self._row_partition.dtype

    def value_rowids(self, name=None):
        return self._row_partition.value_rowids()

    def nested_value_rowids(self, name=None):
        return tuple(level.value_rowids() for level in self._levels())

    def nrows(self, out_type=None, name=None):
        n = self._row_partition.nrows()
        return n if out_type is None else _a.cast(n, out_type)

    def row_starts(self, name=None):
        return self._row_partition.row_starts()

    def row_limits(self, name=None):
        return self._row_partition.row_limits()

    def row_lengths(self, axis=1, name=None):
        """The lengths of the rows along `axis` (1: this tensor's rows)."""
        if axis == 0:
            return self._row_partition.nrows()
        if axis == 1:
            return self._row_partition.row_lengths()
        rank = self.shape.rank
        if axis < 0:
            if rank is None:
                raise ValueError("axis may not be negative if rank is unknown")
            axis += rank
        if axis < 0 or (rank is not None and axis >= rank):
            raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}.")
        values = self._values
        if isinstance(values, RaggedTensor):
            return self.with_values(values.row_lengths(axis - 1))
        shape = _a.shape(values, out_type=self._row_partition.dtype)
        return self.with_values(
            _a.ones(shape[: axis - 1], self._row_partition.dtype) * shape[axis - 1]
        )

    def nested_row_lengths(self, name=None):
        return tuple(level.row_lengths() for level in self._levels())

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The smallest dense shape that holds every row: `[nrows, longest row, ...]`.

        >>> import ferroflow as tf
        >>> tf.ragged.constant([[1, 2, 3], [4]]).bounding_shape()
        <tf.Tensor: shape=(2,), dtype=int64, numpy=array([2, 3])>
        """
        dtype = self._row_partition.dtype if out_type is None else _dtypes.as_dtype(out_type)
        nested = self._nested_row_partitions
        dims = [_a.cast(nested[0].nrows(), dtype)]
        for partition in nested:
            lengths = partition.row_lengths()
            longest = _m.reduce_max(_a.concat([_a.cast(lengths, dtype), _a.zeros([1], dtype)], 0))
            dims.append(longest)
        flat = self.flat_values
        inner = _a.shape(flat, out_type=dtype)[1:]
        result = _a.concat([_a.stack(dims, 0), inner], 0)
        if axis is None:
            return result
        return _a.gather(result, axis)

    # --- derived tensors ---------------------------------------------------------------------

    def with_values(self, new_values):
        """This tensor's row partition over `new_values` (same number of rows)."""
        new_values = convert_to_tensor_or_ragged_tensor(new_values)
        if isinstance(new_values, RaggedTensor):
            if new_values._row_partition.dtype != self._row_partition.dtype:
                raise ValueError(
                    "self and new_values have mismatched row_splits dtypes; use "
                    "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes."
                )
        elif new_values.shape.rank == 0:
            raise ValueError(f"Shape {new_values.shape} must have rank at least 1")
        return RaggedTensor(new_values, self._row_partition, internal=_FACTORY_KEY)

    def with_flat_values(self, new_values):
        """This tensor's nested row partitions over new flat values."""
        values = self._values
        if isinstance(values, RaggedTensor):
            return self.with_values(values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        """This tensor with every row partition cast to `dtype` (tf.int32 or tf.int64)."""
        dtype = _dtypes.as_dtype(dtype)
        if dtype not in _INDEX_DTYPES:
            raise ValueError(f"dtype must be int32 or int64, got {dtype}")
        if dtype == self._row_partition.dtype:
            return self
        values = self._values
        if isinstance(values, RaggedTensor):
            values = values.with_row_splits_dtype(dtype)
        return RaggedTensor(values, self._row_partition.with_dtype(dtype), internal=_FACTORY_KEY)

    def merge_dims(self, outer_axis, inner_axis):
        """Merges dimensions `outer_axis` to `inner_axis` (inclusive) into one.

        >>> import ferroflow as tf
        >>> tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]]).merge_dims(0, 1)
        <tf.RaggedTensor [[1, 2], [3], [4, 5, 6]]>
        """
        rank = self.shape.rank
        outer_axis = _positive_axis(outer_axis, rank, "outer_axis")
        inner_axis = _positive_axis(inner_axis, rank, "inner_axis")
        if outer_axis > inner_axis:
            raise ValueError(
                f"Expected outer_axis ({outer_axis}) to be less than or equal to inner_axis "
                f"({inner_axis})."
            )
        return merge_dims(self, outer_axis, inner_axis)

    # --- conversions -------------------------------------------------------------------------

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor: rows padded with `default_value` (zeros) to the bounding shape, or
        padded/cut to `shape`.

        >>> import ferroflow as tf
        >>> tf.ragged.constant([[1, 2], [3]]).to_tensor()
        <tf.Tensor: shape=(2, 2), dtype=int32, numpy=
        array([[1, 2],
               [3, 0]], dtype=int32)>
        """
        dims = _shape_dims(shape)
        rank = self.shape.rank
        if dims is not None and rank is not None and len(dims) != rank:
            raise ValueError(f"Shape {TensorShape(dims)} must have rank {rank}")
        flat = self.flat_values
        if default_value is None:
            default = _a.zeros([], flat.dtype)
        else:
            default = _a.convert_to_tensor(default_value, dtype=flat.dtype)
            inner = flat.shape[1:]
            if default.shape.rank is not None and inner.rank is not None:
                if default.shape.rank > inner.rank:
                    raise ValueError(
                        f"default_value.shape={default.shape} and "
                        f"rt_input.flat_values.shape={flat.shape} are incompatible: "
                        "default_value.rank = "
                        f"{default.shape.rank} must be less than rt_input.flat_values.rank = "
                        f"{flat.shape.rank}"
                    )
        return _to_tensor(self, default, dims)

    def to_list(self):
        """The values as nested Python lists (eager only)."""
        if not self._is_eager():
            raise ValueError("RaggedTensor.to_list() is only supported in eager mode.")
        values = self._values
        if isinstance(values, RaggedTensor):
            value_list = values.to_list()
        else:
            value_list = np.asarray(values.numpy()).tolist()
        splits = np.asarray(self.row_splits.numpy()).tolist()
        return [value_list[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]

    def numpy(self):
        """A numpy array: an object array of row arrays where rows differ in length."""
        if not self._is_eager():
            raise ValueError("RaggedTensor.numpy() is only supported in eager mode.")
        values = self._values.numpy()
        splits = np.asarray(self.row_splits.numpy())
        rows = [values[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        ragged_rows = any(len(row) != len(rows[0]) for row in rows)
        return np.array(rows, dtype=np.object_ if ragged_rows else None)

    def to_sparse(self, name=None):
        """A `tf.SparseTensor` holding every value at its (row, column, ...) position."""
        from ferroflow.sparse_tensor import SparseTensor

        index = _dtypes.int64
        coords = _a.stack([_a.cast(c, index) for c in self._flat_value_coordinates()], 1)
        flat = self.flat_values
        if flat.shape.rank > 1:
            inner = _a.where(_a.fill(_a.shape(flat)[1:], True))
            nvals = _a.shape(coords, out_type=_dtypes.int32)[0]
            count = _a.shape(inner, out_type=_dtypes.int32)[0]
            outer_width = _a.shape(coords, out_type=_dtypes.int32)[1]
            outer = _a.broadcast_to(
                _a.expand_dims(coords, 1), _a.stack([nvals, count, outer_width], 0)
            )
            inner = _a.broadcast_to(
                _a.expand_dims(inner, 0), _a.concat([_a.stack([nvals], 0), _a.shape(inner)], 0)
            )
            coords = _a.concat(
                [
                    _a.reshape(outer, _a.stack([-1, outer_width], 0)),
                    _a.reshape(inner, [-1, flat.shape.rank - 1]),
                ],
                1,
            )
        values = _a.reshape(flat, [-1])
        return SparseTensor(coords, values, self.bounding_shape(out_type=index))

    def _flat_value_coordinates(self):
        """For each flat value (row of flat_values), its index along every ragged dimension:
        a list of `[nvals]` tensors, outermost first."""
        partitions = self._nested_row_partitions
        coords = []
        parent = None
        for partition in reversed(partitions):
            offsets = partition.offsets_in_rows()
            rowids = partition.value_rowids()
            if parent is None:
                coords.insert(0, offsets)
                parent = rowids
            else:
                coords.insert(0, _a.gather(offsets, parent))
                parent = _a.gather(rowids, parent)
        coords.insert(0, parent)
        return coords

    # --- Python protocol ---------------------------------------------------------------------

    def _is_eager(self):
        values = self.flat_values
        return not _core.is_symbolic(values) and all(
            not _core.is_symbolic(s) for s in self.nested_row_splits
        )

    def __repr__(self):
        if self._is_eager():
            with np.printoptions(formatter={"all": _formatter}):
                text = _formatter(self.numpy())
            return f"<tf.RaggedTensor {text}>"
        return f"tf.RaggedTensor(values={self.values}, row_splits={self.row_splits})"

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    __nonzero__ = __bool__

    def _unhashable(self):
        raise TypeError("RaggedTensor is unhashable.")

    def __getitem__(self, key):
        from ferroflow.ragged import ragged_getitem

        return ragged_getitem.ragged_tensor_getitem(self, key)

    def __len__(self):
        raise TypeError(f"object of type '{type(self).__name__}' has no len()")

    def __iter__(self):
        raise TypeError("RaggedTensor is not iterable; use rt.to_list() or index its rows")

    def __tf_tensor__(self, dtype=None, name=None):
        # TensorFlow's eager conversion raises ValueError, its graph conversion TypeError.
        error = TypeError if _tracing.tracing() else ValueError
        # The message names the type only: printing a large value would cost more than the
        # dispatch that follows this error.
        raise error(
            f"Attempt to convert a value of type {type(self).__name__} to a Tensor "
            "(a RaggedTensor has no dense form; use to_tensor())."
        )

    def consumers(self):
        return []

    # --- composite tensor --------------------------------------------------------------------

    @property
    def _type_spec(self):
        from ferroflow.ragged.ragged_tensor_spec import RaggedTensorSpec

        return RaggedTensorSpec.from_value(self)

    def _gradient_components(self):
        """Gradients flow through the flat values (TensorFlow's composite gradient)."""
        return self.flat_values

    def _with_gradient_components(self, grad):
        if grad is None:
            return None
        if not _core.is_tensor(grad):
            from ferroflow.array_ops import convert_to_tensor

            grad = convert_to_tensor(grad)
        return self.with_flat_values(grad)

    def _shape_invariant_to_type_spec(self, shape):
        from ferroflow.ragged.ragged_tensor_spec import RaggedTensorSpec

        return RaggedTensorSpec(shape, self.dtype, self.ragged_rank, self.row_splits_dtype)


def _from_splits_with_shape(flat_values, nested_splits, shape):
    """A RaggedTensor from its components (unchecked), with the uniform row lengths `shape`
    states (what a RaggedTensorSpec rebuilds)."""
    dims = shape.dims if shape.rank is not None else None
    result = flat_values
    depth = len(nested_splits)
    for level in range(depth - 1, -1, -1):
        splits = nested_splits[level]
        size = dims[level + 1] if dims is not None and level + 1 < len(dims) else None
        partition = RowPartition(splits, internal=_FACTORY_KEY)
        if size is not None:
            partition._uniform_row_length = _a.constant(size, splits.dtype)
        result = RaggedTensor(result, partition, internal=_FACTORY_KEY)
    return result


def _formatter(x):
    """Numpy elements separated by commas (TensorFlow's RaggedTensor text)."""
    if isinstance(x, np.ndarray):
        if x.size != 0:
            return np.array2string(x, separator=", ")
        # array2string prints any empty array as `[]`; a [0, 3] array is `[]` and a [3, 0]
        # one `[[], [], []]`, as its list.
        return repr(x.tolist())
    return str(x)


def _convert_index(value, dtype_hint=None):
    t = _a.convert_to_tensor(value, dtype_hint=dtype_hint or _dtypes.int64)
    if t.dtype not in _INDEX_DTYPES:
        raise TypeError(f"Expected an int32 or int64 tensor, got {t.dtype.name}")
    return t


def _dim(tensor, axis, dtype):
    """Size of `tensor` along `axis` as a scalar tensor of `dtype` (known or computed)."""
    d = tensor.shape[axis]
    if d is not None:
        return _a.constant(d, dtype)
    return _a.shape(tensor, out_type=dtype)[axis]


def _positive_axis(axis, rank, name):
    if axis < 0:
        if rank is None:
            raise ValueError(
                f"{name}={axis} may only be negative if rank(self) is statically known."
            )
        axis += rank
    if axis < 0 or (rank is not None and axis >= rank):
        raise ValueError(f"{name}={axis} out of bounds: expected {-(rank or 0)}<={name}<{rank}.")
    return axis


def merge_dims(value, outer_axis, inner_axis):
    """Merges dimensions outer_axis..inner_axis of a dense or ragged `value`."""
    if outer_axis == inner_axis:
        return value
    while outer_axis == 0 and isinstance(value, RaggedTensor):
        value = value.values
        inner_axis -= 1
        if inner_axis == 0:
            return value
    if not isinstance(value, RaggedTensor):
        return _reshape_merging(value, outer_axis, inner_axis)
    if outer_axis > 1:
        return value.with_values(merge_dims(value.values, outer_axis - 1, inner_axis - 1))
    new_values, new_splits = value.values, value.row_splits
    for axis in range(outer_axis, inner_axis):
        if isinstance(new_values, RaggedTensor):
            new_splits = _a.gather(new_values.row_splits, new_splits)
            new_values = new_values.values
        else:
            keep = inner_axis - axis + 1
            dims = new_values.shape.as_list()
            if None not in dims[1:keep]:
                size = int(np.prod(dims[1:keep], dtype=np.int64))
                flat_size = _a.constant(size, new_splits.dtype)
            else:
                flat_size = _a.cast(_m.reduce_prod(_a.shape(new_values)[1:keep]), new_splits.dtype)
            new_values = _reshape_merging(new_values, 0, keep - 1)
            new_splits = new_splits * flat_size
            break
    return RaggedTensor.from_row_splits(new_values, new_splits, validate=False)


def _reshape_merging(value, outer_axis, inner_axis):
    dims = value.shape.as_list()
    if None not in dims:
        return _a.reshape(value, dims[:outer_axis] + [-1] + dims[inner_axis + 1 :])
    shape = _a.shape(value)
    new_shape = _a.concat(
        [shape[:outer_axis], _a.constant([-1], _dtypes.int32), shape[inner_axis + 1 :]], 0
    )
    return _a.reshape(value, new_shape)


def _gather_rows_of(values, indices):
    """Rows `indices` of a dense or ragged `values`."""
    if isinstance(values, RaggedTensor):
        return ragged_gather_rows(values, indices)
    return _a.gather(values, indices)


def ragged_range_values(starts, limits, dtype):
    """(flat values, row splits) of `range(starts[i], limits[i])` for every row i."""
    lengths = _m.maximum(limits - starts, _a.zeros([], dtype))
    splits = _a.concat([_a.zeros([1], dtype), _m.cumsum(lengths)], 0)
    known = static_value(splits)
    if known is not None:
        starts_np = static_value(starts)
        total = int(known[-1])
        rowids = np.repeat(np.arange(len(known) - 1), np.diff(known))
        flat = np.arange(total, dtype=known.dtype) - known[rowids] + starts_np[rowids]
        return _a.constant(flat.astype(known.dtype)), splits
    rowids = _splits_to_rowids(splits)
    positions = _a.range(_a.shape(rowids, out_type=dtype)[0], dtype=dtype)
    flat = positions - _a.gather(splits, rowids) + _a.gather(starts, rowids)
    return flat, splits


def ragged_gather_rows(rt, indices):
    """Rows `indices` (a 1-D int tensor) of `rt`, as a RaggedTensor."""
    dtype = rt._row_partition.dtype
    indices = _a.cast(indices, dtype)
    splits = rt.row_splits
    starts = _a.gather(splits[:-1], indices)
    limits = _a.gather(splits[1:], indices)
    value_indices, new_splits = ragged_range_values(starts, limits, dtype)
    new_values = _gather_rows_of(rt.values, value_indices)
    return RaggedTensor.from_row_splits(new_values, new_splits, validate=False)


def _to_tensor(rt, default, dims):
    """Dense form of `rt` padded with `default`; `dims` (ints/None, or None) fixes sizes."""
    dtype = rt._row_partition.dtype
    values = rt.values
    inner_dims = None if dims is None else [None] + dims[2:]
    if isinstance(values, RaggedTensor):
        dense_values = _to_tensor(values, default, inner_dims)
    else:
        dense_values = values
        if inner_dims is not None:
            for axis, want in enumerate(inner_dims[1:], start=1):
                have = dense_values.shape[axis]
                if want is not None and have is not None and want != have:
                    message = (
                        f"rt_input.shape and shape={dims} are incompatible: "
                        f"rt_input.shape[{axis + 1}] = {have} but shape[{axis + 1}] = {want}"
                    )
                    if _tracing.tracing():
                        raise ValueError(message)  # a shape function's error, as TensorFlow's
                    raise InvalidArgumentError(None, None, message)
    layout = rt._row_partition.numpy_layout()
    if layout is not None:
        # Splits known now: one scatter into the dense block (see Layout.padded_block).
        nrows_out = layout.nrows if dims is None or dims[0] is None else dims[0]
        ncols_out = dims[1] if dims is not None and dims[1] is not None else None
        if ncols_out is None:
            uniform = rt._row_partition.static_uniform_row_length
            ncols_out = layout.ncols if uniform is None else int(uniform)
        known_default = static_value(default)
        zero = known_default is not None and not np.any(known_default)
        block = layout.padded_block(dense_values, None if zero else default, nrows_out, ncols_out)
        if block is not None:
            return block
    lengths = rt._row_partition.row_lengths()
    starts = rt.row_splits[:-1]
    nrows_out = None if dims is None else dims[0]
    if nrows_out is not None:
        nrows = rt._row_partition.static_nrows
        if nrows is not None and nrows >= nrows_out:
            lengths, starts = lengths[:nrows_out], starts[:nrows_out]
        else:
            keep = _m.minimum(rt.nrows(), _a.constant(nrows_out, dtype))
            rows = _a.range(nrows_out, dtype=dtype)
            present = _m.less(rows, keep)
            safe = _a.where(present, rows, _a.zeros_like(rows))
            lengths = _a.where(present, _a.gather(lengths, safe), _a.zeros_like(rows))
            starts = _a.where(present, _a.gather(starts, safe), _a.zeros_like(rows))
    ncols = None if dims is None else dims[1]
    if ncols is None:
        uniform = rt._row_partition.static_uniform_row_length
        if uniform is not None:
            ncols = uniform
        else:
            ncols = _m.reduce_max(_a.concat([lengths, _a.zeros([1], dtype)], 0))
    columns = _a.range(ncols, dtype=dtype)
    mask = _m.less(_a.expand_dims(columns, 0), _a.expand_dims(lengths, 1))
    nvals = _nrows_of(dense_values, dtype)
    index = _a.where(mask, _a.expand_dims(starts, 1) + _a.expand_dims(columns, 0), nvals)
    inner_shape = _a.shape(dense_values, out_type=_dtypes.int32)[1:]
    fill = _a.broadcast_to(default, inner_shape)
    padded_values = _a.concat([dense_values, _a.expand_dims(fill, 0)], 0)
    return _a.gather(padded_values, index)


# --- operators (TensorFlow's ragged_operators: each is the math API, which dispatches) ---------


def _operator(api, reflected=False):
    if reflected:

        def method(self, other):
            return api(other, self)

    else:

        def method(self, other):
            return api(self, other)

    return method


def _equality(api, incompatible):
    op = "NotEqual" if incompatible else "Equal"

    def method(self, other):
        if other is None:
            return incompatible
        other_dtype = getattr(other, "dtype", None)
        if (
            isinstance(other, (_core.Tensor, RaggedTensor))
            and other_dtype != self.dtype
            and _tracing.tracing()
        ):
            # A graph op's dtype check comes before any shape is compared: TypeError, which
            # the comparison does not turn into False/True (eagerly it does, as
            # InvalidArgumentError).
            raise TypeError(
                f"Input 'y' of '{op}' Op has type {other_dtype.name} that does not match type "
                f"{self.dtype.name} of argument 'x'."
            )
        try:
            return api(self, other)
        except (InvalidArgumentError, ValueError):
            return incompatible

    return method


for _name, _api in {
    "add": _m.add,
    "sub": _m.subtract,
    "mul": _m.multiply,
    "truediv": _m.truediv,
    "div": _m.truediv,
    "floordiv": _m.floordiv,
    "mod": _m.floormod,
    "pow": _m.pow,
    "and": _m.logical_and,
    "or": _m.logical_or,
    "xor": _m.logical_xor,
}.items():
    setattr(RaggedTensor, f"__{_name}__", _operator(_api))
    setattr(RaggedTensor, f"__r{_name}__", _operator(_api, reflected=True))
RaggedTensor.__lt__ = _operator(_m.less)
RaggedTensor.__le__ = _operator(_m.less_equal)
RaggedTensor.__gt__ = _operator(_m.greater)
RaggedTensor.__ge__ = _operator(_m.greater_equal)
RaggedTensor.__eq__ = _equality(_m.equal, False)
RaggedTensor.__ne__ = _equality(_m.not_equal, True)
RaggedTensor.__hash__ = RaggedTensor._unhashable
RaggedTensor.__neg__ = lambda self: _m.negative(self)
RaggedTensor.__abs__ = lambda self: _m.abs(self)
RaggedTensor.__invert__ = lambda self: _m.logical_not(self)
del _name, _api
