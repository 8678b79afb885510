"""`tf.ragged.constant`: a RaggedTensor from nested Python lists, with TensorFlow's rules for
the ragged rank, the inner shape and their errors."""

import numpy as np

from ferroflow import array_ops as _a
from ferroflow import dtypes as _dtypes
from ferroflow.ragged.ragged_tensor import RaggedTensor, is_ragged

__all__ = ["constant"]

_MAX_RANK = 254


def _is_scalar(value):
    # np.ndim builds an array, so lists and tuples are decided first.
    return not isinstance(value, (list, tuple)) and np.ndim(value) == 0


def _depths(pylist):
    """(depth of the scalars or None when there are none, deepest nesting incl. empty lists)."""
    if _is_scalar(pylist):
        return 0, 0
    scalar_depth, max_depth = None, 1
    for child in pylist:
        child_scalar, child_max = _depths(child)
        if child_scalar is not None:
            if scalar_depth is not None and scalar_depth != child_scalar + 1:
                raise ValueError("all scalar values must have the same nesting depth")
            scalar_depth = child_scalar + 1
        max_depth = max(max_depth, child_max + 1)
    return scalar_depth, max_depth


def _default_inner_shape(pylist, ragged_rank):
    """The inner shape of the values below `ragged_rank` ragged levels (checked uniform)."""

    def shape_of(item):
        if _is_scalar(item):
            return ()
        if len(item) > 0:
            return (len(item),) + shape_of(item[0])
        return (0,)

    def check(item, shape):
        nested = not _is_scalar(item)
        if nested != bool(shape):
            raise ValueError("inner values have inconsistent shape")
        if nested:
            if shape[0] != len(item):
                raise ValueError("inner values have inconsistent shape")
            for child in item:
                check(child, shape[1:])

    flat = pylist
    for depth in range(ragged_rank):
        if not all(not _is_scalar(v) for v in flat):
            raise ValueError(
                f"pylist has scalar values depth {depth + 1}, but ragged_rank={ragged_rank} "
                f"requires scalar value depth greater than {ragged_rank}"
            )
        flat = [x for v in flat for x in v]
    shape = shape_of(flat)
    check(flat, shape)
    return shape[1:]


def _refuse_tensors(pylist, ragged_rank):
    """TensorFlow walks tensors in `pylist` as nested lists: eagerly it fails on their scalars
    (unless `ragged_rank=0` or the tensor is all of a 0-D or 1-D `pylist`); in a trace,
    iterating one is not allowed at all, and a scalar one is refused."""
    from ferroflow import _tracing
    from ferroflow._core import Tensor

    found = []

    def visit(value):
        if isinstance(value, Tensor):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            for v in value:
                visit(v)

    visit(pylist)
    if not found:
        return
    if _tracing.tracing():
        from ferroflow.errors import OperatorNotAllowedInGraphError

        if any(t.shape.rank != 0 for t in found):
            raise OperatorNotAllowedInGraphError(
                "Iterating over a symbolic `tf.Tensor` is not allowed."
            )
        raise TypeError("Expected any non-tensor type, but got a tensor instead.")
    if ragged_rank == 0:
        return
    if isinstance(pylist, Tensor) and pylist.shape.rank is not None and pylist.shape.rank < 2:
        return
    raise ValueError("TypeError: Scalar tensor has no `len()`")


def constant(
    pylist,
    dtype=None,
    ragged_rank=None,
    inner_shape=None,
    name=None,
    row_splits_dtype=_dtypes.int64,
):
    """A constant RaggedTensor from a nested list; a plain tensor when nothing is ragged.

    >>> import ferroflow as tf
    >>> tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    <tf.RaggedTensor [[1, 2], [3], [4, 5, 6]]>
    >>> tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1).shape
    TensorShape([2, None, 2])
    """
    if is_ragged(pylist):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    _refuse_tensors(pylist, ragged_rank)
    row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
    if _is_scalar(pylist):
        if ragged_rank is not None and ragged_rank != 0:
            raise ValueError(
                f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank}"
            )
        if inner_shape is not None and inner_shape:
            raise ValueError(
                f"Invalid pylist={pylist!r}: incompatible with dim(inner_shape)={len(inner_shape)}"
            )
        return _a.constant(pylist, dtype)
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError(f"Invalid ragged_rank={ragged_rank!r}: must be nonnegative")
    if ragged_rank is not None and ragged_rank > _MAX_RANK:
        # TensorFlow loops ragged_rank times over the list (forever for a huge one).
        raise ValueError(f"Invalid ragged_rank={ragged_rank!r}: above the maximum rank {_MAX_RANK}")
    scalar_depth, max_depth = _depths(pylist)
    if scalar_depth is not None:
        if max_depth > scalar_depth:
            raise ValueError(
                f"Invalid pylist={pylist!r}: empty list nesting is greater than scalar value "
                "nesting"
            )
        if ragged_rank is not None and max_depth < ragged_rank:
            raise ValueError(
                f"Invalid pylist={pylist}, max depth smaller than ragged_rank={ragged_rank}"
            )
    if inner_shape is not None and ragged_rank is not None:
        expected = ragged_rank + len(inner_shape) + 1
        if (scalar_depth is not None and expected != scalar_depth) or (
            scalar_depth is None and expected < max_depth
        ):
            raise ValueError(
                f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank} and "
                f"dim(inner_shape)={len(inner_shape)}"
            )
    if ragged_rank == 0 or (
        ragged_rank is None
        and (max_depth < 2 or (inner_shape is not None and max_depth - len(inner_shape) < 2))
    ):
        return _a.constant(pylist, dtype, inner_shape)
    if inner_shape is None:
        inner_shape = () if ragged_rank is None else _default_inner_shape(pylist, ragged_rank)
    inner_shape = tuple(inner_shape)
    if ragged_rank is None:
        if scalar_depth is None:
            ragged_rank = max(1, max_depth - 1)
        else:
            ragged_rank = max(1, scalar_depth - 1 - len(inner_shape))
    nested_splits = []
    values = pylist
    for _ in range(ragged_rank):
        splits = [0]
        flat = []
        for row in values:
            splits.append(splits[-1] + len(row))
            flat.extend(row)
        nested_splits.append(splits)
        values = flat
    if dtype is None and not values:
        dtype = _dtypes.float32
    result = _a.constant(values, dtype, (len(values),) + inner_shape)
    for splits in reversed(nested_splits):
        result = RaggedTensor.from_row_splits(
            result, _a.constant(splits, row_splits_dtype), validate=False
        )
    return result
