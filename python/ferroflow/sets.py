"""`tf.sets`: set operations along the last dimension of dense or sparse integer tensors.
Each row's set (its values, repeats ignored) is combined with the matching row of the other
input; the result is a SparseTensor whose rows hold the sorted elements."""

from ferroflow import _core
from ferroflow import array_ops as _a
from ferroflow import dtypes as _dtypes
from ferroflow import math as _m
from ferroflow.errors import InvalidArgumentError as _InvalidArgumentError
from ferroflow.sparse_ops import (
    _I64,
    _check,
    _check_canonical,
    _count,
    _linear,
    _scatter,
    _shifted,
    _stable_order,
    _static,
    _unlinear,
)
from ferroflow.sparse_tensor import SparseTensor as _SparseTensor

__all__ = ["difference", "intersection", "size", "union"]

_VALID_DTYPES = frozenset(
    [
        _dtypes.int8,
        _dtypes.int16,
        _dtypes.int32,
        _dtypes.int64,
        _dtypes.uint8,
        _dtypes.uint16,
    ]
)


def _convert(x):
    return x if isinstance(x, _SparseTensor) else _a.convert_to_tensor(x)


def _invalid(message):
    """TensorFlow's error for a bad shape: a ValueError while a graph is built (its shape
    function), an InvalidArgumentError from the kernel eagerly."""
    if _core.graph_tracing():
        return ValueError(message)
    return _InvalidArgumentError(None, None, message)


def _rows(x, validate_indices):
    """(row keys, values, batch shape) of each element of `x` (rank >= 2)."""
    if isinstance(x, _SparseTensor):
        rank = x.indices.shape.dims[1]
        if rank is not None and rank < 2:
            raise _invalid(f"Invalid rank {rank}.")
        if validate_indices:
            _check_canonical(x, "SetOperation")
        batch = x.dense_shape[:-1]
        return _linear(x.indices[:, :-1], batch), x.values, batch
    if x.shape.rank is not None and x.shape.rank < 2:
        raise _invalid(f"Invalid rank {x.shape.rank}.")
    shape = _a.shape(x, out_type=_I64)
    values = _a.reshape(x, [-1])
    keys = _m.floordiv(_a.range(_a.size(x, out_type=_I64), dtype=_I64), shape[-1])
    return keys, values, shape[:-1]


def _sorted_pairs(keys, values, *extra):
    """Sorted by (key, value), the sort stable: (keys, values, *extra) reordered."""
    order = _stable_order(values)
    order = _a.gather(order, _stable_order(_a.gather(keys, order)))
    return [_a.gather(t, order) for t in (keys, values, *extra)]


def _same_as_next(keys, values):
    """(same pair as next, same pair as previous) flags of sorted (key, value) pairs."""
    key_after, key_before = _shifted(keys)
    value_after = _a.concat([values[1:], values[-1:]], 0)
    value_before = _a.concat([values[:1], values[:-1]], 0)
    same_next = _m.logical_and(_m.equal(keys, key_after), _m.equal(values, value_after))
    same_prev = _m.logical_and(_m.equal(keys, key_before), _m.equal(values, value_before))
    return same_next, same_prev


def _dedupe(keys, values):
    keys, values = _sorted_pairs(keys, values)
    _, same_prev = _same_as_next(keys, values)
    keep = _a.reshape(_a.where(_m.logical_not(same_prev)), [-1])
    return _a.gather(keys, keep), _a.gather(values, keep)


def _result(keys, values, batch):
    """The SparseTensor of sorted (key, value) pairs: row `key`, position within the row."""
    n = _count(keys)
    same_prev = _m.equal(keys, _shifted(keys)[1])
    row_first = _m.logical_not(same_prev)
    segment = _m.cumsum(_a.cast(row_first, _I64)) - 1
    positions = _a.range(n, dtype=_I64)
    starts = _a.gather(positions, _a.reshape(_a.where(row_first), [-1]))
    column = positions - _a.gather(starts, segment)
    width = _m.maximum(_m.reduce_max(_a.concat([column, _a.constant([-1], _I64)], 0)) + 1, 0)
    indices = _a.concat([_unlinear(keys, batch), _a.expand_dims(column, 1)], 1)
    return _SparseTensor(indices, values, _a.concat([batch, _a.reshape(width, [1])], 0))


def _operation(a, b, op, validate_indices):
    if isinstance(a, _SparseTensor) and not isinstance(b, _SparseTensor):
        raise ValueError(
            "Sparse,Dense is not supported, but Dense,Sparse is. Please flip the order of your "
            "inputs."
        )
    a_keys, a_values, batch = _rows(a, validate_indices)
    b_keys, b_values, b_batch = _rows(b, validate_indices)
    if batch.shape.dims[0] != b_batch.shape.dims[0]:
        raise _invalid("Mismatched ranks of the set inputs.")
    known_a, known_b = _static(batch), _static(b_batch)
    if _core.graph_tracing() and known_a is not None and known_b is not None:
        if known_a.tolist() != known_b.tolist():
            raise ValueError(f"Shapes {known_a.tolist()} and {known_b.tolist()} must match.")
    _check(_m.reduce_all(_m.equal(batch, b_batch)), "Shapes of the set inputs do not match.")
    a_keys, a_values = _dedupe(a_keys, a_values)
    b_keys, b_values = _dedupe(b_keys, b_values)
    source = _a.concat(
        [_a.zeros_like(a_keys, dtype=_dtypes.int32), _a.ones_like(b_keys, dtype=_dtypes.int32)], 0
    )
    keys, values, source = _sorted_pairs(
        _a.concat([a_keys, b_keys], 0), _a.concat([a_values, b_values], 0), source
    )
    same_next, same_prev = _same_as_next(keys, values)
    if op == "intersection":
        keep = same_next
    elif op == "union":
        keep = _m.logical_not(same_prev)
    elif op == "a-b":
        keep = _m.logical_and(_m.equal(source, 0), _m.logical_not(same_next))
    else:  # b-a
        keep = _m.logical_and(_m.equal(source, 1), _m.logical_not(same_prev))
    at = _a.reshape(_a.where(keep), [-1])
    return _result(_a.gather(keys, at), _a.gather(values, at), batch)


def _pair(a, b):
    a = _convert(a)
    if a.dtype not in _VALID_DTYPES:
        raise TypeError(
            f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: "
            f"`{sorted(d.name for d in _VALID_DTYPES)}`."
        )
    b = _convert(b)
    if b.dtype != a.dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, _SparseTensor) and not isinstance(b, _SparseTensor):
        return b, a, True
    return a, b, False


def intersection(a, b, validate_indices=True):
    """Elements of each row present in both `a` and `b` (dense or sparse; sparse,dense is
    flipped).

    >>> import ferroflow as tf
    >>> s = tf.sets.intersection([[1, 2, 3]], [[2, 3, 4]])
    >>> s.values.numpy().tolist()
    [2, 3]
    """
    a, b, _ = _pair(a, b)
    return _operation(a, b, "intersection", validate_indices)


def union(a, b, validate_indices=True):
    """Elements of each row present in `a` or `b`."""
    a, b, _ = _pair(a, b)
    return _operation(a, b, "union", validate_indices)


def difference(a, b, aminusb=True, validate_indices=True):
    """Elements of each row of `a` not in `b` (with `aminusb=False`, of `b` not in `a`)."""
    a, b, flipped = _pair(a, b)
    if flipped:
        aminusb = not aminusb
    return _operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


def size(a, validate_indices=True):
    """The number of unique elements in each row of the SparseTensor `a` (int32, shaped as
    `a`'s leading dimensions)."""
    if not isinstance(a, _SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.values.dtype not in _VALID_DTYPES:
        raise TypeError(
            f"Invalid dtype `{a.values.dtype}` not in supported dtypes: "
            f"`{sorted(d.name for d in _VALID_DTYPES)}`."
        )
    keys, values, batch = _rows(a, validate_indices)
    keys, _ = _dedupe(keys, values)
    rows = _m.reduce_prod(batch)
    rows_known = _static(rows)
    flat_shape = [int(rows_known)] if rows_known is not None else _a.reshape(rows, [1])
    counts = _scatter(_a.expand_dims(keys, 1), _a.ones_like(keys, dtype=_dtypes.int32), flat_shape)
    return _a.reshape(counts, batch)
