"""`tf.experimental.DynamicRaggedShape`: the shape of a ragged (or dense) tensor, what
`tf.shape(rt)` returns: row partitions for the leading ragged dimensions and the dense shape of
the flat values (`inner_shape`, whose first entry is the number of values)."""

import numpy as np

from ferroflow import _core
from ferroflow import array_ops as _a
from ferroflow import dtypes as _dtypes
from ferroflow import type_spec as _type_spec
from ferroflow.ragged.ragged_tensor import RaggedTensor
from ferroflow.ragged.row_partition import RowPartition, static_int, static_value

__all__ = ["DynamicRaggedShape"]


class DynamicRaggedShape(_type_spec.CompositeTensor):
    """Row partitions plus an inner shape. A composite value (`DynamicRaggedShape.Spec`: each
    partition's row splits and the inner shape), so it passes through `tf.function`.

    >>> import ferroflow as tf
    >>> tf.shape(tf.ragged.constant([[1, 2], [3]]))
    <DynamicRaggedShape lengths=[2, (2, 1)] num_row_partitions=1>
    """

    def __init__(
        self, row_partitions, inner_shape, dtype=None, validate=False, static_inner_shape=None
    ):
        row_partitions = tuple(row_partitions)
        if dtype is None:
            dtype = row_partitions[0].dtype if row_partitions else _dtypes.int64
        dtype = _dtypes.as_dtype(dtype)
        if dtype not in (_dtypes.int32, _dtypes.int64):
            raise ValueError("dtype must be tf.int32 or tf.int64")
        for partition in row_partitions:
            if not isinstance(partition, RowPartition):
                raise TypeError("row_partitions must be a list of RowPartitions")
        self._row_partitions = tuple(p.with_dtype(dtype) for p in row_partitions)
        inner = _a.cast(_a.convert_to_tensor(inner_shape, dtype_hint=dtype), dtype)
        if inner.shape.rank != 1:
            raise ValueError(f"inner_shape must be a vector, got shape {inner.shape}")
        if row_partitions and inner.shape[0] == 0:
            raise ValueError("If row_partitions are provided, inner_shape must be nonempty")
        self._inner_shape = inner
        self._dtype = dtype

    # --- factories -----------------------------------------------------------------------------

    @classmethod
    def from_tensor(cls, t, dtype=None):
        """The shape of a dense or ragged tensor."""
        if isinstance(t, RaggedTensor):
            dtype = t.row_splits.dtype if dtype is None else dtype
            flat = t.flat_values
            return cls(t._nested_row_partitions, _a.shape(flat, out_type=dtype), dtype=dtype)
        t = _a.convert_to_tensor(t)
        shape = _a.shape(t)  # int32 unless a dtype is asked for, as TensorFlow's
        return cls((), shape, dtype=shape.dtype if dtype is None else dtype)

    @classmethod
    def from_row_partitions(cls, row_partitions, dtype=None):
        """The shape with these partitions and a rank-1 inner shape (the last one's values)."""
        if not row_partitions:
            raise ValueError("row_partitions cannot be empty")
        nvals = row_partitions[-1].nvals()
        return cls(row_partitions, _a.reshape(nvals, [1]), dtype=dtype)

    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype=_dtypes.int64):
        """A shape from each dimension's length: an int (uniform) or a tuple of row lengths
        (ragged), e.g. `[2, (2, 1)]`."""
        dtype = _dtypes.as_dtype(dtype)
        lengths = list(lengths)
        if not lengths:
            return cls((), _a.zeros([0], dtype), dtype=dtype)
        if num_row_partitions is None:
            ragged = [i for i, d in enumerate(lengths) if isinstance(d, (tuple, list))]
            num_row_partitions = ragged[-1] if ragged else 0
        if isinstance(lengths[0], (tuple, list)):
            raise ValueError("the first dimension must be uniform")
        partitions = []
        nrows = int(lengths[0])
        for i in range(1, num_row_partitions + 1):
            d = lengths[i]
            if isinstance(d, (tuple, list)):
                if len(d) != nrows:
                    raise ValueError(f"lengths[{i}] holds {len(d)} rows, expected {nrows}")
                partition = RowPartition.from_row_lengths(np.asarray(d, np.int64), dtype=dtype)
                nrows = int(np.sum(d))
            else:
                partition = RowPartition.from_uniform_row_length(
                    int(d), nrows=nrows, nvals=nrows * int(d), dtype=dtype
                )
                nrows *= int(d)
            partitions.append(partition)
        inner = [nrows] + [int(d) for d in lengths[num_row_partitions + 1 :]]
        return cls(partitions, _a.constant(inner, dtype), dtype=dtype)

    # --- properties ----------------------------------------------------------------------------

    @property
    def row_partitions(self):
        return self._row_partitions

    @property
    def inner_shape(self):
        return self._inner_shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def num_row_partitions(self):
        return len(self._row_partitions)

    @property
    def inner_rank(self):
        return self._inner_shape.shape[0]

    @property
    def rank(self):
        inner = self.inner_rank
        return None if inner is None else inner + self.num_row_partitions

    def with_dtype(self, dtype):
        return DynamicRaggedShape(self._row_partitions, self._inner_shape, dtype=dtype)

    def is_uniform(self, axis):
        """Whether dimension `axis` has one length for every row."""
        rank = self.rank
        if axis < 0:
            axis += rank
        if axis == 0 or axis > self.num_row_partitions:
            return True
        return self._row_partitions[axis - 1].is_uniform()

    def _dimension(self, axis):
        if axis == 0:
            if self._row_partitions:
                return self._row_partitions[0].nrows()
            return self._inner_shape[0]
        if axis <= self.num_row_partitions:
            partition = self._row_partitions[axis - 1]
            if not partition.is_uniform():
                raise ValueError(f"Index {axis} is not uniform")
            return partition.uniform_row_length()
        return self._inner_shape[axis - self.num_row_partitions]

    def __getitem__(self, index):
        rank = self.rank
        if isinstance(index, slice):
            if index.step not in (None, 1):
                raise IndexError("Cannot stride through a shape")
            start, stop, _ = index.indices(rank)
            if start > 0 or self.num_row_partitions == 0 or stop <= 1:
                return _a.stack([self._dimension(i) for i in range(start, stop)], 0)
            raise ValueError("slicing a DynamicRaggedShape keeps its row partitions: not supported")
        if not isinstance(index, (int, np.integer)):
            index = static_int(_a.convert_to_tensor(index))
            if index is None:
                raise TypeError("DynamicRaggedShape indices must be known integers")
        if rank is not None:
            if not -rank <= index < rank:
                raise IndexError("Index is too big")
            if index < 0:
                index += rank
        return self._dimension(int(index))

    def static_lengths(self, ragged_lengths=True):
        """Each dimension's length when known now: an int, a tuple of row lengths for a ragged
        dimension (when `ragged_lengths`), or None."""
        out = []
        nrows = (
            self._row_partitions[0].static_nrows
            if self._row_partitions
            else static_int(self._inner_shape[0])
            if self.inner_rank
            else None
        )
        if self.rank == 0:
            return []
        out.append(nrows)
        for partition in self._row_partitions:
            uniform = partition.static_uniform_row_length
            if uniform is not None:
                out.append(uniform)
                continue
            lengths = static_value(partition.row_lengths()) if ragged_lengths else None
            out.append(None if lengths is None else tuple(int(v) for v in lengths))
        inner = static_value(self._inner_shape)
        if inner is None:
            out.extend([None] * ((self.inner_rank or 1) - 1))
        else:
            out.extend(int(v) for v in inner[1:])
        return out

    @property
    def _type_spec(self):
        return DynamicRaggedShape.Spec(
            self.num_row_partitions, self._inner_shape.shape[0], self._dtype
        )

    def _is_eager(self):
        return not _core.is_symbolic(self._inner_shape) and all(
            p._is_eager() for p in self._row_partitions
        )

    def __repr__(self):
        if self._is_eager():
            lengths = [
                d if d is None or isinstance(d, tuple) else int(d) for d in self.static_lengths()
            ]
            return (
                f"<DynamicRaggedShape lengths={lengths} "
                f"num_row_partitions={self.num_row_partitions}>"
            )
        return (
            f"<DynamicRaggedShape row_partitions={self._row_partitions} "
            f"inner_shape={self._inner_shape}>"
        )

    __str__ = __repr__

    def _filled(self, value, dtype):
        flat = _a.fill(_a.cast(self._inner_shape, _dtypes.int32), _a.cast(value, dtype))
        if not self._row_partitions:
            return flat
        return RaggedTensor._from_nested_row_partitions(flat, self._row_partitions)


class _Spec(_type_spec.TypeSpec):
    """A DynamicRaggedShape's type: how many row partitions, the inner shape's length (its
    rank) and the dtype. Components, in TensorFlow's order (its ExtensionType's fields by
    name): the inner shape, then each partition's row splits."""

    __slots__ = ("_num_row_partitions", "_inner_rank", "_dtype")

    def __init__(self, num_row_partitions, inner_rank, dtype):
        self._num_row_partitions = int(num_row_partitions)
        self._inner_rank = None if inner_rank is None else int(inner_rank)
        self._dtype = _dtypes.as_dtype(dtype)

    @property
    def value_type(self):
        return DynamicRaggedShape

    @property
    def dtype(self):
        return self._dtype

    @property
    def _component_specs(self):
        from ferroflow.tensor_spec import TensorSpec

        splits = tuple(TensorSpec([None], self._dtype) for _ in range(self._num_row_partitions))
        return TensorSpec([self._inner_rank], self._dtype), splits

    def _to_components(self, value):
        splits = tuple(p.row_splits() for p in value._row_partitions)
        return value._inner_shape, splits

    def _from_components(self, components):
        inner, splits = components
        partitions = [RowPartition.from_row_splits(s, validate=False) for s in splits]
        return DynamicRaggedShape(partitions, inner, dtype=self._dtype)

    def _serialize(self):
        return (self._num_row_partitions, self._inner_rank, self._dtype)


DynamicRaggedShape.Spec = _Spec
_Spec.__name__ = _Spec.__qualname__ = "DynamicRaggedShape.Spec"


def ones(shape, dtype=_dtypes.float32, name=None, layout=None):
    return shape._filled(1, _dtypes.as_dtype(dtype))


def zeros(shape, dtype=_dtypes.float32, name=None, layout=None):
    return shape._filled(0, _dtypes.as_dtype(dtype))


def fill(dims, value, name=None, layout=None):
    value = _a.convert_to_tensor(value)
    return dims._filled(value, value.dtype)


def _register():
    from ferroflow import _dispatch
    from ferroflow import array_ops as api

    _dispatch.register(api.ones, DynamicRaggedShape, ones)
    _dispatch.register(api.zeros, DynamicRaggedShape, zeros)
    _dispatch.register(api.fill, DynamicRaggedShape, fill)


_register()
