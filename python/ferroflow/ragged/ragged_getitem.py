"""`RaggedTensor.__getitem__`: integers, slices (any step), `...` and `tf.newaxis`, as
TensorFlow's ragged indexing. An integer picks a row; a slice of the outer dimension picks rows;
a slice of a ragged dimension slices every row; uniform inner dimensions are indexed on the flat
values. Integers into an inner ragged dimension raise ValueError, as in TensorFlow."""

import numpy as np

from ferroflow import _core, _tracing
from ferroflow import array_ops as _a
from ferroflow import math as _m
from ferroflow.ragged.ragged_tensor import (
    RaggedTensor,
    ragged_gather_rows,
    ragged_range_values,
)
from ferroflow.ragged.row_partition import static_int

__all__ = ["ragged_tensor_getitem"]


def _is_int(item):
    if isinstance(item, (bool, np.bool_)):
        return False
    if isinstance(item, (int, np.integer)):
        return True
    return _core.is_tensor(item) and item.dtype.is_integer and item.shape.rank == 0


def _expand_ellipsis(key, rank):
    count = sum(1 for k in key if k is Ellipsis)
    if count > 1:
        raise ValueError("tf.RaggedTensor.__getitem__ only supports one Ellipsis")
    if count == 0:
        return key
    if rank is None:
        raise ValueError("Ellipsis not supported for unknown shape RaggedTensors")
    at = key.index(Ellipsis)
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    return key[:at] + (slice(None),) * (rank - used) + key[at + 1 :]


def ragged_tensor_getitem(rt, key):
    """`rt[key]`."""
    if not isinstance(key, tuple):
        key = (key,)
    for item in key:
        if not (item is None or item is Ellipsis or isinstance(item, slice) or _is_int(item)):
            raise TypeError(
                f"Unsupported key type {type(item).__name__} in RaggedTensor.__getitem__"
            )
    key = _expand_ellipsis(key, rt.shape.rank)
    return _outer(rt, list(key))


def _dense_getitem(tensor, key):
    if not key:
        return tensor
    return tensor[tuple(key)]


def _getitem(value, key):
    if isinstance(value, RaggedTensor):
        return _outer(value, list(key))
    return _dense_getitem(value, key)


def _outer(rt, key):
    if not key:
        return rt
    item, rest = key[0], key[1:]
    if item is None:
        inner = _outer(rt, rest)
        if isinstance(inner, RaggedTensor):
            return RaggedTensor.from_uniform_row_length(
                inner, inner.nrows(), nrows=1, validate=False
            )
        return _a.expand_dims(inner, 0)
    if isinstance(item, slice):
        return _inner(_slice_rows(rt, item), rest)
    return _getitem(_row(rt, item), rest)


def _row(rt, index):
    nrows = rt._row_partition.static_nrows
    known = static_int(index) if _core.is_tensor(index) else int(index)
    splits = rt.row_splits
    if known is not None and nrows is not None:
        if not -nrows <= known < nrows:
            # TensorFlow's graph reports the slice's shape error instead.
            error = ValueError if _tracing.tracing() else IndexError
            raise error(f"Row key {known} out of bounds")
        if known < 0:
            known += nrows
        if not _core.is_symbolic(splits):
            start, limit = int(splits[known]), int(splits[known + 1])
            values = rt.values
            if isinstance(values, RaggedTensor):
                return _slice_rows(values, slice(start, limit))
            return values[start:limit]
        index = known
    dtype = rt._row_partition.dtype
    index = _a.cast(index, dtype)
    index = _a.where(_m.less(index, 0), index + rt.nrows(), index)
    starts = _a.reshape(_a.gather(splits, index), [1])
    limits = _a.reshape(_a.gather(splits, index + 1), [1])
    positions, _ = ragged_range_values(starts, limits, dtype)
    values = rt.values
    if isinstance(values, RaggedTensor):
        return ragged_gather_rows(values, positions)
    return _a.gather(values, positions)


def _slice_rows(rt, item):
    """Rows `item` (a slice) of `rt`."""
    if item.start is None and item.stop is None and item.step in (None, 1):
        return rt
    nrows = rt._row_partition.static_nrows
    parts = [item.start, item.stop, item.step]
    concrete = all(p is None or isinstance(p, (int, np.integer)) for p in parts)
    if not concrete:
        parts = [
            p if p is None or isinstance(p, (int, np.integer)) else static_int(p) for p in parts
        ]
        concrete = all(p is None or isinstance(p, (int, np.integer)) for p in parts)
    if concrete and nrows is not None:
        start, stop, step = slice(*parts).indices(nrows)
        if step == 1:
            stop = max(stop, start)
            splits = rt.row_splits
            if not _core.is_symbolic(splits):
                new_splits = splits[start : stop + 1]
                first, last = int(new_splits[0]), int(new_splits[-1])
                values = rt.values
                if isinstance(values, RaggedTensor):
                    values = _slice_rows(values, slice(first, last))
                else:
                    values = values[first:last]
                return RaggedTensor.from_row_splits(values, new_splits - first, validate=False)
        rows = _a.constant(np.arange(start, stop, step), rt._row_partition.dtype)
        return ragged_gather_rows(rt, rows)
    if item.step is not None and static_int(_a.convert_to_tensor(item.step)) is None:
        raise ValueError("a RaggedTensor row slice needs a step known while tracing")
    rows = _a.range(rt.nrows(), dtype=rt._row_partition.dtype)
    return ragged_gather_rows(rt, _slice_vector(rows, item))


def _slice_vector(vector, item):
    """`vector[item]` for a slice whose bounds may be tensors (computed with a gather)."""
    step = 1 if item.step is None else int(static_int(_a.convert_to_tensor(item.step)))
    n = _a.shape(vector, out_type=vector.dtype)[0]
    start, limit = _slice_bounds(item.start, item.stop, step, n, vector.dtype)
    positions = _a.range(start, limit, step, dtype=vector.dtype)
    return _a.gather(vector, positions)


def _slice_bounds(start, stop, step, length, dtype):
    """Python slice bounds of `length` items (tensors), clamped as `slice.indices` does."""
    zero = _a.zeros_like(length)
    if step > 0:
        lo, hi = zero, length
        default_start, default_stop = zero, length
    else:
        lo, hi = zero - 1, length - 1
        default_start, default_stop = length - 1, zero - 1

    def bound(value, default):
        if value is None:
            return default
        value = _a.cast(value, dtype)
        value = _a.where(_m.less(value, 0), value + length, value)
        return _m.minimum(_m.maximum(value, lo), hi)

    return bound(start, default_start), bound(stop, default_stop)


def _inner(rt, key):
    """`key` applied to every row of `rt` (dimensions 1 and on)."""
    if not key:
        return rt
    item, rest = key[0], key[1:]
    if item is None:
        return RaggedTensor.from_uniform_row_length(_inner(rt, rest), 1, validate=False)
    partition = rt._row_partition
    uniform = partition.static_uniform_row_length
    if _is_int(item):
        if uniform is None:
            raise ValueError("Cannot index into an inner ragged dimension.")
        index = static_int(item) if _core.is_tensor(item) else int(item)
        if index is None or not -uniform <= index < uniform:
            raise ValueError(f"Index {item} is out of bounds for a dimension of size {uniform}")
        index %= uniform
        positions = partition.row_starts() + index
        values = rt.values
        if isinstance(values, RaggedTensor):
            return _inner_values(ragged_gather_rows(values, positions), rest)
        return _dense_getitem(_a.gather(values, positions), [slice(None), *rest])
    # A slice of each row.
    step = 1 if item.step is None else static_int(_a.convert_to_tensor(item.step))
    if step is None:
        raise ValueError("a RaggedTensor slice needs a step known while tracing")
    if step == 0:
        raise ValueError("slice step cannot be zero")
    dtype = partition.dtype
    lengths = partition.row_lengths()
    starts = partition.row_starts()
    first, last = _slice_bounds(item.start, item.stop, step, lengths, dtype)
    if step > 0:
        counts = _m.maximum(_m.floordiv(last - first + (step - 1), step), _a.zeros([], dtype))
    else:
        counts = _m.maximum(_m.floordiv(first - last + (-step - 1), -step), _a.zeros([], dtype))
    begin = starts + first
    offsets, new_splits = ragged_range_values(_a.zeros_like(counts), counts, dtype)
    rowids_begin = _a.gather(begin, _rowids_of(new_splits, offsets))
    positions = rowids_begin + offsets * step
    values = rt.values
    if isinstance(values, RaggedTensor):
        new_values = ragged_gather_rows(values, positions)
    else:
        new_values = _a.gather(values, positions)
    result = RaggedTensor.from_row_splits(new_values, new_splits, validate=False)
    if uniform is not None and item.start is None and item.stop is None and step == 1:
        result = RaggedTensor.from_uniform_row_length(
            new_values, uniform, nrows=partition.nrows(), validate=False
        )
    return _inner_values(result, rest)


def _rowids_of(splits, flat):
    from ferroflow.ragged.row_partition import _splits_to_rowids

    nvals = flat.shape[0]
    return _splits_to_rowids(splits, None if nvals is None else _a.constant(nvals, splits.dtype))


def _inner_values(rt, rest):
    """`rest` applied to the dimensions inside `rt`'s rows (its values' dimensions 1 and on)."""
    if not rest:
        return rt
    values = rt.values
    if isinstance(values, RaggedTensor):
        return rt.with_values(_inner(values, rest))
    return rt.with_values(_dense_getitem(values, [slice(None), *rest]))
