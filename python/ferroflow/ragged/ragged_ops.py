"""TensorFlow's operations on RaggedTensors, and their registration with `ferroflow._dispatch`.

The dispatch table, once: every unary elementwise API maps over the flat values; every binary
elementwise API aligns its operands' row partitions (identical partitions are checked equal, a
dense operand is broadcast into the ragged one) and maps over the flat values; reductions,
`concat`, `stack`, `gather`, `where`, `boolean_mask`, `expand_dims`, `shape`, `size`, `rank`,
`add_n` and `cast`-like APIs have their own handlers below (`_API_HANDLERS`).

Reductions over a ragged axis are TensorFlow's: the values' row ids (axis 1) or positions in
their rows (axis 0) are segment ids for the unsorted segment primitives (`UnsortedSegmentSum`
...), O(values) on any device, traced or not, and differentiable through their gradients.
"""

import numpy as np

from ferroflow import _core, _dispatch, _tracing
from ferroflow import array_ops as _a
from ferroflow import check_ops as _check
from ferroflow import dtypes as _dtypes
from ferroflow import math as _m
from ferroflow.errors import InvalidArgumentError
from ferroflow.ragged.ragged_tensor import (
    RaggedTensor,
    convert_to_tensor_or_ragged_tensor,
    is_ragged,
    ragged_gather_rows,
    ragged_range_values,
)
from ferroflow.ragged.row_partition import (
    _splits_to_rowids,
    static_int,
    static_value,
)

# --- shared helpers ------------------------------------------------------------------------------


def match_row_splits_dtypes(*values):
    """The values with one row-splits dtype (ValueError if ragged inputs disagree, as
    TensorFlow without auto-casting)."""
    dtypes = {v.row_splits.dtype for v in values if is_ragged(v)}
    if len(dtypes) > 1:
        raise ValueError(
            "Input RaggedTensors have mismatched row_splits dtypes; use "
            "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes."
        )
    return values


def _same_tensor(a, b):
    return a is b


def _assert_same_splits(x, y, message=None):
    """Checks that two ragged tensors have equal outer row splits."""
    sx, sy = x.row_splits, y.row_splits
    if _same_tensor(sx, sy) or x._row_partition is y._row_partition:
        return
    nx, ny = sx.shape[0], sy.shape[0]
    if nx is not None and ny is not None and nx != ny:
        raise InvalidArgumentError(
            None, None, message or "Condition x == y did not hold: row partitions differ."
        )
    _check.assert_equal(sx, sy, message=message)


_DENSE_REDUCE = {
    "sum": _m.reduce_sum,
    "prod": _m.reduce_prod,
    "max": _m.reduce_max,
    "min": _m.reduce_min,
}

_SEGMENT_OPS = {
    "sum": "UnsortedSegmentSum",
    "prod": "UnsortedSegmentProd",
    "max": "UnsortedSegmentMax",
    "min": "UnsortedSegmentMin",
}


def segment_ids_to_splits(segment_ids, num_segments, dtype):
    """Row splits for sorted segment ids: `[num_segments + 1]` of `dtype`."""
    ids = _a.cast(segment_ids, dtype)
    known, n = static_value(ids), static_int(_a.convert_to_tensor(num_segments))
    if known is not None and n is not None:
        counts = np.bincount(known[(known >= 0) & (known < n)].astype(np.int64), minlength=n)[:n]
        splits = np.concatenate([[0], np.cumsum(counts)]).astype(dtype.as_numpy_dtype)
        return _a.constant(splits)
    from ferroflow.ragged.row_partition import sorted_search

    num_segments = _a.cast(num_segments, dtype)
    return sorted_search(ids, _a.range(num_segments + 1, dtype=dtype))


def unsorted_segment_reduce(kind, data, segment_ids, num_segments):
    """TensorFlow's unsorted_segment_{sum,prod,max,min} primitive (empty segments: the
    identity, the dtype's lowest/highest finite value for max/min)."""
    return _core.raw_op(_SEGMENT_OPS[kind], [data, segment_ids, num_segments], "{}")[0]


# --- elementwise ---------------------------------------------------------------------------------


def _unary_elementwise(op, x):
    x = convert_to_tensor_or_ragged_tensor(x)
    return x.with_flat_values(op(x.flat_values))


def _coordinates_in(dense, rt):
    """`dense` (rank at least the ragged rank + 1) gathered at each flat value's position in
    `rt`: `[nvals, ...dense's inner dims]` (dims of size 1 broadcast, others must match)."""
    depth = rt.ragged_rank + 1  # dimensions that index flat values
    rank = rt.shape.rank
    drank = dense.shape.rank
    if drank > rank:
        raise ValueError(
            f"broadcasting a rank-{drank} tensor into a RaggedTensor of rank {rank} is not "
            "supported"
        )
    shape = dense.shape.as_list()
    dense = _a.reshape(dense, [1] * (rank - drank) + [-1 if d is None else d for d in shape])
    dims = [1] * (rank - drank) + shape
    coords = rt._flat_value_coordinates()
    partitions = rt._nested_row_partitions
    index = []
    dtype = rt.row_splits.dtype
    for axis in range(depth):
        size = dims[axis]
        if size == 1:
            index.append(_a.zeros_like(coords[axis]))
            continue
        if axis == 0:
            nrows = rt.nrows()
            if size is not None and rt._row_partition.static_nrows is not None:
                if size != rt._row_partition.static_nrows:
                    raise InvalidArgumentError(
                        None, None, "Incompatible shapes: dimension 0 does not match"
                    )
            else:
                _check.assert_equal(nrows, _a.shape(dense, out_type=dtype)[0])
        else:
            lengths = partitions[axis - 1].row_lengths()
            want = _a.shape(dense, out_type=dtype)[axis]
            _check.assert_equal(lengths, _a.fill(_a.shape(lengths), want))
        index.append(coords[axis])
    positions = _a.stack([_a.cast(c, _dtypes.int64) for c in index], 1)
    return _a.gather_nd(dense, positions)


def _convert_pair(x, y):
    x_ragged, y_ragged = is_ragged(x), is_ragged(y)
    x = convert_to_tensor_or_ragged_tensor(x, preferred_dtype=y.dtype if y_ragged else None)
    y = convert_to_tensor_or_ragged_tensor(y, preferred_dtype=x.dtype)
    if x_ragged and y_ragged:
        match_row_splits_dtypes(x, y)
    return x, y


class _FlatTemplate:
    """The result's partitions are `rt`'s, over new flat values."""

    __slots__ = ("rt",)

    def __init__(self, rt):
        self.rt = rt


def _binary_elementwise(op, x, y):
    x, y = _convert_pair(x, y)
    xv, yv, template = _aligned(x, y)
    result = op(xv, yv)
    if isinstance(result, bool):
        return result
    return _rebuild_level(template, result)


def _aligned(x, y):
    """(x's flat operand, y's flat operand, how to rebuild the result)."""
    if is_ragged(x) and is_ragged(y):
        _assert_same_splits(x, y)
        xv, yv, inner = _aligned(x.values, y.values)
        return xv, yv, _Level(x, inner)
    if not is_ragged(x) and not is_ragged(y):
        return x, y, None
    ragged, dense = (x, y) if is_ragged(x) else (y, x)
    flat = ragged.flat_values
    if dense.shape.rank is None:
        raise ValueError("broadcasting a tensor of unknown rank into a RaggedTensor")
    other = dense if dense.shape.rank < flat.shape.rank else _coordinates_in(dense, ragged)
    template = _FlatTemplate(ragged)
    return (flat, other, template) if is_ragged(x) else (other, flat, template)


class _Level:
    """One ragged level of a result: `rt`'s partition over whatever `inner` rebuilds."""

    __slots__ = ("inner", "rt")

    def __init__(self, rt, inner):
        self.rt, self.inner = rt, inner


def _rebuild_level(template, values):
    if template is None:
        return values
    if isinstance(template, _FlatTemplate):
        return template.rt.with_flat_values(values)
    return RaggedTensor(
        _rebuild_level(template.inner, values), template.rt._row_partition, internal=_key()
    )


def _key():
    from ferroflow.ragged.row_partition import _FACTORY_KEY

    return _FACTORY_KEY


# --- reductions ----------------------------------------------------------------------------------


def _axis_value(axis):
    if _core.is_tensor(axis):
        known = static_value(axis)
        if known is None:
            raise ValueError("axis must be known at graph construction time.")
        if known.ndim == 0 and not _tracing.tracing():
            # Eagerly TensorFlow reads the value as a numpy integer, which its axis check
            # refuses (a graph's constant comes back as an array, which it accepts).
            raise TypeError(f"axis must be an int; got {type(known.item()).__name__} tensor")
        return known.tolist()
    if isinstance(axis, np.ndarray):
        return axis.tolist()
    return axis


def _positive_axis(axis, rank):
    if rank is None:
        if axis < 0:
            raise ValueError("axis may only be negative if ndims is statically known.")
        return axis
    if not -rank <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    return axis + rank if axis < 0 else axis


def ragged_reduce_aggregate(kind, rt, axis, keepdims):
    """Reduction `kind` ("sum", "prod", "max", "min") of a ragged or dense `rt` over `axis`."""
    if not is_ragged(rt):
        return _DENSE_REDUCE[kind](rt, axis, keepdims=bool(keepdims))
    axis = _axis_value(axis)
    if axis is None:
        result = _DENSE_REDUCE[kind](rt.flat_values, None, keepdims=bool(keepdims))
        if keepdims:
            for _ in rt.shape[1:]:
                result = _a.expand_dims(result, 0)
        return result
    if isinstance(axis, (list, tuple)):
        if not axis:
            return rt
        if len(axis) == 1:
            axis = axis[0]
        else:
            rank = rt.shape.rank
            axes = sorted(_positive_axis(a, rank) for a in axis)
            inner = ragged_reduce_aggregate(kind, rt, axes[-1], keepdims)
            return ragged_reduce_aggregate(kind, inner, axes[:-1], keepdims)
    axis = _positive_axis(int(axis), rt.shape.rank)
    if axis == 0:
        # Columns: each value's position in its row is its segment.
        lengths = rt.row_lengths()
        num = _m.maximum(
            _m.reduce_max(_a.concat([lengths, _a.zeros([1], lengths.dtype)], 0)),
            _a.zeros([], lengths.dtype),
        )
        columns = rt._row_partition.offsets_in_rows()
        result = _ragged_segment_aggregate(kind, rt.values, columns, num)
        return expand_dims(result, 0) if keepdims else result
    if axis == 1:
        result = _ragged_segment_aggregate(kind, rt.values, rt.value_rowids(), rt.nrows())
        return expand_dims(result, 1) if keepdims else result
    return rt.with_values(ragged_reduce_aggregate(kind, rt.values, axis - 1, keepdims))


def _ragged_segment_aggregate(kind, data, segment_ids, num_segments):
    """Rows of `data` combined by segment: row j of the result combines, position by position,
    every row of `data` whose segment is j (TensorFlow's ragged segment aggregation)."""
    if is_ragged(segment_ids):
        if not is_ragged(data):
            raise ValueError(
                "segment_ids.shape must be a prefix of data.shape, but segment_ids is ragged "
                "and data is not."
            )
        _assert_same_splits(segment_ids, data, "segment_ids.shape must be a prefix of data.shape")
        return _ragged_segment_aggregate(kind, data.values, segment_ids.values, num_segments)
    if not is_ragged(data):
        return unsorted_segment_reduce(kind, data, segment_ids, num_segments)
    segment_ids = _a.convert_to_tensor(segment_ids)
    if segment_ids.dtype not in (_dtypes.int32, _dtypes.int64):
        raise ValueError("segment_ids must have dtype int32 or int64.")
    dtype = data.row_splits.dtype
    segment_ids = _a.cast(segment_ids, dtype)
    lengths = data.row_lengths()
    out_lengths = _m.maximum(
        unsorted_segment_reduce("max", lengths, segment_ids, num_segments),
        _a.zeros([], dtype),
    )
    out_splits = _a.concat([_a.zeros([1], dtype), _m.cumsum(out_lengths)], 0)
    out_starts = _a.gather(out_splits, segment_ids)
    targets, _ = ragged_range_values(out_starts, out_starts + lengths, dtype)
    values = _ragged_segment_aggregate(kind, data.values, targets, out_splits[-1])
    return RaggedTensor.from_row_splits(values, out_splits, validate=False)


def _segment_handler(kind):
    def handler(data, segment_ids, num_segments, name=None):
        return _ragged_segment_aggregate(kind, data, segment_ids, num_segments)

    return handler


def _segment_mean_handler(sqrt):
    """TensorFlow's ragged segment mean (sqrt_n): sums over sums of ones."""

    def handler(data, segment_ids, num_segments, name=None):
        total = _ragged_segment_aggregate("sum", data, segment_ids, num_segments)
        count = _ragged_segment_aggregate("sum", _ones_like_ragged(data), segment_ids, num_segments)
        if is_ragged(total):
            count = count.flat_values
            count = _m.sqrt(count) if sqrt else count
            return total.with_flat_values(total.flat_values / count)
        return total / (_m.sqrt(count) if sqrt else count)

    return handler


def _reduction_handler(kind):
    def handler(input_tensor, axis=None, keepdims=False, name=None):
        return ragged_reduce_aggregate(kind, input_tensor, axis, keepdims)

    return handler


def _ones_like_ragged(rt):
    return rt.with_flat_values(_a.ones_like(rt.flat_values))


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    rt = input_tensor
    numeric = is_ragged(rt) and not rt.dtype.is_bool
    single = _axis_value(axis)
    if isinstance(single, (list, tuple)) and len(single) == 1:
        single = single[0]
    if numeric and isinstance(single, int) and _positive_axis(single, rt.shape.rank) == 1:
        if not is_ragged(rt.values):
            # The count of each row is its length: no second reduction.
            total = ragged_reduce_aggregate("sum", rt, 1, keepdims)
            count = _a.cast(rt.row_lengths(), rt.dtype)
            extra = (total.shape.rank or 1) - 1
            count = _a.reshape(count, _a.concat([_a.shape(count), [1] * extra], 0))
            return total / count
    total = ragged_reduce_aggregate("sum", input_tensor, axis, keepdims)
    count = ragged_reduce_aggregate("sum", _ones_like_ragged(input_tensor), axis, keepdims)
    if is_ragged(total):
        # Rebuilt from the row splits, as TensorFlow's (uniform dimensions become ragged).
        return RaggedTensor.from_nested_row_splits(
            total.flat_values / count.flat_values, total.nested_row_splits, validate=False
        )
    return total / count


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    if input_tensor.dtype.is_complex:
        raise ValueError("reduce_variance is not supported for RaggedTensors with complex dtypes.")
    mean_of_square = reduce_mean(_m.square(input_tensor), axis, keepdims)
    mean = reduce_mean(input_tensor, axis, keepdims)
    return _m.maximum(mean_of_square - _m.square(mean), 0)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    return _m.sqrt(reduce_variance(input_tensor, axis, keepdims))


def _cast_flat(value, dtype):
    if is_ragged(value):
        return value.with_flat_values(_a.cast(value.flat_values, dtype))
    return _a.cast(value, dtype)


def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    result = ragged_reduce_aggregate(
        "prod", _cast_flat(input_tensor, _dtypes.int32), axis, keepdims
    )
    return _cast_flat(result, _dtypes.bool)


def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    result = ragged_reduce_aggregate("sum", _cast_flat(input_tensor, _dtypes.int32), axis, keepdims)
    return _cast_flat(result, _dtypes.bool)


# --- shape operations ----------------------------------------------------------------------------


def expand_dims(input, axis, name=None):  # noqa: A002 - TensorFlow's argument name
    """A dimension of size 1 inserted at `axis` of a dense or ragged tensor."""
    if not is_ragged(input):
        return _a.expand_dims(input, axis)
    rank = input.shape.rank
    if rank is None:
        raise ValueError("expand_dims needs a RaggedTensor of known rank")
    if not -rank - 1 <= axis <= rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank - 1}<=axis<={rank}")
    if axis < 0:
        axis += rank + 1
    if axis == 0:
        return RaggedTensor.from_uniform_row_length(input, input.nrows(), nrows=1, validate=False)
    if axis == 1:
        return RaggedTensor.from_uniform_row_length(input, 1, nrows=input.nrows(), validate=False)
    return input.with_values(expand_dims(input.values, axis - 1))


def size(input, out_type=_dtypes.int32, name=None):  # noqa: A002
    if is_ragged(input):
        return _a.size(input.flat_values, out_type=out_type)
    return _a.size(input, out_type=out_type)


def rank(input, name=None):  # noqa: A002
    if is_ragged(input):
        return _a.constant(input.shape.rank, _dtypes.int32)
    return _a.rank(input)


def shape(input, out_type=_dtypes.int32, name=None):  # noqa: A002
    from ferroflow.ragged.dynamic_ragged_shape import DynamicRaggedShape

    if not is_ragged(input):
        return _a.shape(input, out_type=out_type)
    return DynamicRaggedShape.from_tensor(input, dtype=out_type)


def _to_ragged(value, ragged_rank, splits_dtype):
    """A dense or ragged value as a RaggedTensor of (at least) `ragged_rank`."""
    if is_ragged(value):
        if value.ragged_rank < ragged_rank:
            return value.with_values(_to_ragged(value.values, ragged_rank - 1, splits_dtype))
        return value
    value = _a.convert_to_tensor(value)
    return RaggedTensor.from_tensor(value, ragged_rank=ragged_rank, row_splits_dtype=splits_dtype)


def concat(values, axis, name=None):
    """Concatenation of dense and ragged tensors along `axis` (a RaggedTensor).

    >>> import ferroflow as tf
    >>> tf.concat([tf.ragged.constant([[1, 2], [3]]), tf.ragged.constant([[4]])], axis=0)
    <tf.RaggedTensor [[1, 2], [3], [4]]>
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    return _stack_concat(list(values), axis, stack_values=False)


def stack(values, axis=0, name=None):
    """Stack of dense and ragged tensors along a new `axis` (a RaggedTensor).

    >>> import ferroflow as tf
    >>> tf.ragged.stack([tf.ragged.constant([[1, 2], [3]]), tf.ragged.constant([[4]])])
    <tf.RaggedTensor [[[1, 2], [3]], [[4]]]>
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    return _stack_concat(list(values), axis, stack_values=True)


def _stack_concat(inputs, axis, stack_values):
    if not inputs:
        raise ValueError("rt_inputs may not be empty.")
    inputs = [convert_to_tensor_or_ragged_tensor(v) for v in inputs]
    match_row_splits_dtypes(*inputs)
    splits_dtype = next((v.row_splits.dtype for v in inputs if is_ragged(v)), _dtypes.int64)
    if len(inputs) == 1 and not stack_values:
        return inputs[0]
    ndims = inputs[0].shape.rank
    for v in inputs[1:]:
        if ndims is not None and v.shape.rank is not None and v.shape.rank != ndims:
            raise ValueError(f"Shape {v.shape} must have rank {ndims}")
    if ndims is None:
        raise ValueError("rt_inputs must have known rank")
    out_ndims = ndims + 1 if stack_values else ndims
    axis = _positive_axis(int(_axis_value(axis)), out_ndims)
    if len({v.dtype for v in inputs}) > 1:
        message = "ConcatOp: all inputs must have the same dtype"
        if _tracing.tracing():
            raise TypeError(message)  # TensorFlow's graph construction refuses the op
        raise InvalidArgumentError(None, None, message)
    if stack_values and ndims == 1 and axis == 0:
        lengths = _a.concat([_a.shape(v) for v in inputs], 0)
        return RaggedTensor.from_row_lengths(_a.concat(inputs, 0), lengths, validate=False)
    if all(not is_ragged(v) for v in inputs) and axis in (out_ndims - 1, ndims - 1):
        return _a.stack(inputs, axis) if stack_values else _a.concat(inputs, axis)
    rts = [
        v
        if is_ragged(v)
        else RaggedTensor.from_tensor(v, ragged_rank=1, row_splits_dtype=splits_dtype)
        for v in inputs
    ]
    ragged_rank = max(max(rt.ragged_rank for rt in rts), 1)
    rts = [_to_ragged(rt, ragged_rank, splits_dtype) for rt in rts]
    return _stack_concat_ragged(rts, axis, stack_values)


def _stack_concat_ragged(rts, axis, stack_values):
    if axis == 0:
        result = _concat_rows(rts)
        if stack_values:
            dtype = result.row_splits.dtype
            lengths = _a.stack([_a.cast(rt.nrows(), dtype) for rt in rts], 0)
            return RaggedTensor.from_row_lengths(result, lengths, validate=False)
        return result
    if axis == 1:
        count = len(rts)
        for index, rt in enumerate(rts[1:], start=1):
            _assert_nrows_equal(rts[0], rt, index)
        nrows = rts[0].nrows()
        dtype = rts[0].row_splits.dtype
        stacked = _concat_rows(rts)
        # Row i of input k sits at k * nrows + i; take them row by row.
        order = _a.reshape(
            _a.expand_dims(_a.range(nrows, dtype=dtype), 1)
            + _a.expand_dims(_a.range(count, dtype=dtype), 0) * nrows,
            [-1],
        )
        permuted = ragged_gather_rows(stacked, order)
        grouping = _a.range(nrows + 1, dtype=dtype) * count
        if stack_values:
            return RaggedTensor.from_row_splits(permuted, grouping, validate=False)
        new_splits = _a.gather(permuted.row_splits, grouping)
        return RaggedTensor.from_row_splits(permuted.values, new_splits, validate=False)
    for rt in rts[1:]:
        _assert_same_splits(rts[0], rt)
    inner = [rt.values for rt in rts]
    if all(not is_ragged(v) for v in inner):
        inner_axis = axis - 1
        values = _a.stack(inner, inner_axis) if stack_values else _a.concat(inner, inner_axis)
    else:
        values = _stack_concat_ragged(inner, axis - 1, stack_values)
    return RaggedTensor.from_row_splits(values, rts[0].row_splits, validate=False)


def _concat_rows(rts):
    """The rows of every input, one after another."""
    splits = [rts[0].row_splits]
    offset = rts[0].row_splits[-1]
    for rt in rts[1:]:
        splits.append(rt.row_splits[1:] + offset)
        offset = offset + rt.row_splits[-1]
    new_splits = _a.concat(splits, 0)
    if is_ragged(rts[0].values):
        new_values = _concat_rows([rt.values for rt in rts])
    else:
        new_values = _a.concat([rt.values for rt in rts], 0)
    return RaggedTensor.from_row_splits(new_values, new_splits, validate=False)


def _assert_nrows_equal(a, b, index):
    message = f"Input tensors at index 0 (=x) and {index} (=y) have incompatible shapes."
    na, nb = a._row_partition.static_nrows, b._row_partition.static_nrows
    if na is not None and nb is not None:
        if na != nb:
            raise InvalidArgumentError(None, None, message)
        return
    _check.assert_equal(a.nrows(), b.nrows(), message=message)


# --- gather, where, boolean_mask, add_n --------------------------------------------------------


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """`params` rows at `indices` (either may be ragged)."""
    if axis not in (None, 0) or batch_dims != 0:
        raise NotImplementedError("tf.gather of a RaggedTensor supports axis=0, batch_dims=0")
    indices = convert_to_tensor_or_ragged_tensor(indices)
    if is_ragged(indices):
        return indices.with_flat_values(gather(params, indices.flat_values))
    params = convert_to_tensor_or_ragged_tensor(params)
    if not is_ragged(params):
        return _a.gather(params, indices)
    if indices.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"indices must be int32 or int64, got {indices.dtype.name}")
    rank = indices.shape.rank
    if rank == 0:
        return params[indices]
    flat = _a.reshape(indices, [-1])
    _check_indices(flat, params)
    result = ragged_gather_rows(params, flat)
    if rank == 1:
        return result
    # The index dimensions become the outer dimensions of the result (ragged, as TensorFlow's
    # ragged gather builds them from row splits).
    dims = indices.shape.as_list()
    dtype = params.row_splits.dtype
    for axis in range(rank - 1, 0, -1):
        count = int(np.prod(dims[:axis]))
        splits = _a.range(count + 1, dtype=dtype) * dims[axis]
        result = RaggedTensor.from_row_splits(result, splits, validate=False)
    return result


def _check_indices(indices, params):
    known = static_value(indices)
    nrows = params._row_partition.static_nrows
    if known is not None and nrows is not None and known.size:
        bad = known[(known < -nrows) | (known >= nrows)]
        if bad.size:
            raise InvalidArgumentError(
                None, None, f"indices[0] = {int(bad[0])} is not in [0, {nrows})"
            )


def where(condition, x=None, y=None, name=None):
    """`tf.where` with ragged inputs: coordinates of true values, or an elementwise choice."""
    condition = convert_to_tensor_or_ragged_tensor(condition)
    if x is None and y is None:
        if not is_ragged(condition):
            return _a.where(condition)
        # Coordinates of the true cells: each flat value's (row, column, ...) where it holds.
        coords = condition._flat_value_coordinates()
        flat = condition.flat_values
        positions = _a.stack([_a.cast(c, _dtypes.int64) for c in coords], 1)
        inner = _a.where(flat)  # [count, 1 + inner rank]: value index, then inner coords
        outer = _a.gather(positions, inner[:, 0])
        return _a.concat([outer, inner[:, 1:]], 1)
    if x is None or y is None:
        raise ValueError("x and y must be either both None or both non-None")
    x = convert_to_tensor_or_ragged_tensor(x)
    y = convert_to_tensor_or_ragged_tensor(y, preferred_dtype=x.dtype)
    match_row_splits_dtypes(condition, x, y)
    template = next(v for v in (condition, x, y) if is_ragged(v))
    parts = []
    for v in (condition, x, y):
        if is_ragged(v):
            _assert_same_nested(template, v)
            parts.append(v.flat_values)
        elif v.shape.rank is not None and v.shape.rank < template.flat_values.shape.rank:
            parts.append(v)
        else:
            parts.append(_coordinates_in(v, template))
    return template.with_flat_values(_a.where(*parts))


def _assert_same_nested(a, b):
    if a is b:
        return
    if a.ragged_rank != b.ragged_rank:
        raise ValueError("Input shapes do not match: the ragged ranks differ")
    for pa, pb in zip(a._nested_row_partitions, b._nested_row_partitions):
        if pa is pb:
            continue
        sa, sb = pa.row_splits(), pb.row_splits()
        if sa.shape[0] is not None and sb.shape[0] is not None and sa.shape[0] != sb.shape[0]:
            raise InvalidArgumentError(None, None, "Input shapes do not match.")
        _check.assert_equal(sa, sb, message="Input shapes do not match.")


def ragged_boolean_mask(data, mask, name=None):
    """`data` where `mask` holds, keeping the mask's outer dimensions (the last masked dimension
    becomes ragged), as `tf.ragged.boolean_mask`.

    >>> import ferroflow as tf
    >>> tf.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [[True, False, True], [False, False, True]])
    <tf.RaggedTensor [[1, 3], [6]]>
    """
    data = convert_to_tensor_or_ragged_tensor(data)
    mask = convert_to_tensor_or_ragged_tensor(mask, dtype=_dtypes.bool)
    match_row_splits_dtypes(data, mask)
    if mask.dtype != _dtypes.bool:
        raise ValueError("mask must have dtype bool")
    mask_rank = mask.shape.rank
    if mask_rank is None:
        raise ValueError("mask.shape.ndims must be known statically.")
    if mask_rank == 0:
        raise ValueError("mask cannot be scalar.")
    if data.shape.rank is not None and data.shape.rank < mask_rank:
        raise ValueError("Rank of data must be at least rank of mask.")
    splits_dtype = (data.row_splits.dtype if is_ragged(data) else None) or (
        mask.row_splits.dtype if is_ragged(mask) else _dtypes.int64
    )
    return _boolean_mask(data, mask, splits_dtype)


def _boolean_mask(data, mask, splits_dtype):
    if mask.shape.rank == 1:
        if is_ragged(data):
            keep = _a.where(mask)[:, 0]
            return ragged_gather_rows(data, keep)
        return _a.boolean_mask(data, mask)
    if not is_ragged(mask):
        mask = RaggedTensor.from_tensor(mask, row_splits_dtype=splits_dtype)
    if not is_ragged(data):
        data = RaggedTensor.from_tensor(data, row_splits_dtype=splits_dtype)
    _assert_same_splits(data, mask, "data and mask have different row partitions")
    if mask.shape.rank == 2:
        keep = mask.values
        counts = _a.concat([_a.zeros([1], splits_dtype), _m.cumsum(_a.cast(keep, splits_dtype))], 0)
        new_splits = _a.gather(counts, mask.row_splits)
        new_values = _boolean_mask(data.values, keep, splits_dtype)
        return RaggedTensor.from_row_splits(new_values, new_splits, validate=False)
    return data.with_values(_boolean_mask(data.values, mask.values, splits_dtype))


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """`tf.boolean_mask` with ragged inputs (TensorFlow's ragged boolean_mask)."""
    if axis not in (None, 0):
        raise NotImplementedError("tf.boolean_mask of a RaggedTensor supports axis=0")
    return ragged_boolean_mask(tensor, mask)


def softmax(logits, axis=None, name=None):
    """Softmax of a RaggedTensor along `axis` (default the last, often its ragged one), as
    TensorFlow's: exp(x - max) / sum(exp(x - max)), the reductions broadcast back."""
    if axis is None:
        axis = -1
    largest = ragged_reduce_aggregate("max", logits, axis, True)
    exps = _m.exp(_m.subtract(logits, largest))
    return _m.truediv(exps, ragged_reduce_aggregate("sum", exps, axis, True))


def add_n(inputs, name=None):
    inputs = list(inputs)
    if not inputs:
        raise ValueError("inputs must be a non-empty list")
    result = inputs[0]
    for value in inputs[1:]:
        result = _m.add(result, value)
    return result


def map_flat_values(op, *args, **kwargs):
    """`op` applied to the flat values of the ragged arguments (which must share their nested
    row partitions); the result has those partitions.

    >>> import ferroflow as tf
    >>> rt = tf.ragged.constant([[1, 2, 3], [], [4, 5], [6]])
    >>> tf.ragged.map_flat_values(tf.ones_like, rt)
    <tf.RaggedTensor [[1, 1, 1], [], [1, 1], [1]]>
    """
    from ferroflow import nest

    found = []

    def replace(value):
        if is_ragged(value):
            found.append(value)
            return value.flat_values
        return value

    flat_args = nest.map_structure(replace, list(args))
    flat_kwargs = nest.map_structure(replace, dict(kwargs))
    if not found:
        return op(*args, **kwargs)
    match_row_splits_dtypes(*found)
    sizes = {rt.flat_values.shape[0] for rt in found} - {None}
    if len(sizes) > 1:
        raise ValueError(
            "Input RaggedTensors' flat_values must all have the same outer-dimension size. "
            f"Got sizes: {sizes}"
        )
    template = found[0]
    for other in found[1:]:
        _assert_same_nested(template, other)
    result = convert_to_tensor_or_ragged_tensor(op(*flat_args, **flat_kwargs))
    result_rows = result.shape[0] if result.shape.rank else None
    values_rows = template.flat_values.shape[0]
    if result_rows is not None and values_rows is not None and result_rows != values_rows:
        raise ValueError(
            f"tf.ragged.map_flat_values requires that the output of `op` have the same outer-"
            f"dimension size as flat_values of any ragged inputs. (output shape: "
            f"{result.shape}; expected outer dimension size: {values_rows})"
        )
    return template.with_flat_values(result)


# --- tf.ragged construction helpers -------------------------------------------------------------


def ragged_range(
    starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=_dtypes.int64
):
    """Rows `range(starts[i], limits[i], deltas[i])` (arguments broadcast).

    >>> import ferroflow as tf
    >>> tf.ragged.range([3, 5, 2])
    <tf.RaggedTensor [[0, 1, 2], [0, 1, 2, 3, 4], [0, 1]]>
    """
    row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
    if limits is None:
        starts, limits = 0, starts
    tensors = [_a.convert_to_tensor(v, dtype=dtype) for v in (starts, limits, deltas)]
    if dtype is None:
        order = ["int32", "int64", "float32", "float64"]
        best = max(
            (t.dtype for t in tensors),
            key=lambda d: order.index(d.name) if d.name in order else -1,
        )
        if best.name not in order:
            raise TypeError(f"Unsupported dtype for tf.ragged.range: {best.name}")
        tensors = [_a.cast(t, best) for t in tensors]
    starts, limits, deltas = tensors
    dtype = starts.dtype
    for t in tensors:
        if t.shape.rank is not None and t.shape.rank > 1:
            raise ValueError(f"Shape {t.shape} must have rank at most 1")
    count = _m.maximum(_m.maximum(_a.size(starts), _a.size(limits)), _a.size(deltas))
    vector = any(t.shape.rank == 1 for t in tensors)
    if vector:
        starts, limits, deltas = (_a.broadcast_to(t, _a.reshape(count, [1])) for t in tensors)
    else:
        starts, limits, deltas = (_a.reshape(t, [1]) for t in tensors)
    zero = _a.zeros([], dtype)
    if static_value(deltas) is not None:
        if np.any(static_value(deltas) == 0):
            raise InvalidArgumentError(None, None, "Requires delta != 0")
    else:
        _check.assert_none_equal(deltas, zero, message="Requires delta != 0")
    empty = _m.logical_or(
        _m.logical_and(_m.greater(deltas, zero), _m.less(limits, starts)),
        _m.logical_and(_m.less(deltas, zero), _m.greater(limits, starts)),
    )
    if dtype.is_integer:
        span, step = _m.abs(limits - starts), _m.abs(deltas)
        sizes = _m.floordiv(span + step - _a.ones([], dtype), step)
    else:
        sizes = _m.ceil(_m.abs((limits - starts) / deltas))
    sizes = _a.where(empty, _a.zeros_like(sizes), sizes)
    lengths = _a.cast(sizes, row_splits_dtype)
    offsets, splits = ragged_range_values(_a.zeros_like(lengths), lengths, row_splits_dtype)
    nvals = offsets.shape[0]
    rowids = _splits_to_rowids(
        splits, None if nvals is None else _a.constant(nvals, row_splits_dtype)
    )
    values = _a.gather(starts, rowids) + _a.cast(offsets, dtype) * _a.gather(deltas, rowids)
    result = RaggedTensor.from_row_splits(values, splits, validate=False)
    if not vector:
        return result
    return result


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """Each value's row, from row splits: `[splits[-1]]` ids.

    >>> import ferroflow as tf
    >>> tf.ragged.row_splits_to_segment_ids([0, 3, 3, 5, 6, 9])
    <tf.Tensor: shape=(9,), dtype=int64, numpy=array([0, 0, 0, 2, 2, 3, 4, 4, 4])>
    """
    splits = _a.convert_to_tensor(splits, dtype_hint=_dtypes.int64)
    if splits.dtype not in (_dtypes.int32, _dtypes.int64):
        raise ValueError(f"splits must have dtype int32 or int64, got {splits.dtype.name}")
    if splits.shape.rank is not None and splits.shape.rank != 1:
        raise ValueError(f"Shape {splits.shape} must have rank 1")
    out_type = splits.dtype if out_type is None else _dtypes.as_dtype(out_type)
    ids = _splits_to_rowids(splits)
    return _a.cast(ids, out_type)


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """Row splits from sorted segment ids (a bincount, summed).

    >>> import ferroflow as tf
    >>> tf.ragged.segment_ids_to_row_splits([0, 0, 0, 2, 2, 3, 4, 4, 4])
    <tf.Tensor: shape=(6,), dtype=int64, numpy=array([0, 3, 3, 5, 6, 9])>
    """
    if out_type is None:
        if _core.is_tensor(segment_ids):
            out_type = segment_ids.dtype
        elif _core.is_tensor(num_segments):
            out_type = num_segments.dtype
        else:
            out_type = _dtypes.int64
    out_type = _dtypes.as_dtype(out_type)
    ids = _a.convert_to_tensor(segment_ids, dtype_hint=out_type)
    if ids.dtype not in (_dtypes.int32, _dtypes.int64):
        raise ValueError(f"segment_ids must have dtype int32 or int64, got {ids.dtype.name}")
    if ids.shape.rank is not None and ids.shape.rank != 1:
        raise ValueError(f"Shape {ids.shape} must have rank 1")
    ids = _a.cast(ids, out_type)
    if num_segments is None:
        num_segments = _m.reduce_max(_a.concat([ids, _a.constant([-1], out_type)], 0)) + 1
    else:
        num_segments = _a.cast(_a.convert_to_tensor(num_segments), out_type)
        if num_segments.shape.rank not in (None, 0):
            raise ValueError(f"Shape {num_segments.shape} must have rank 0")
    return segment_ids_to_splits(ids, num_segments, out_type)


def stack_dynamic_partitions(data, partitions, num_partitions, name=None):
    """Rows of `data` grouped by partition: `[num_partitions, (rows), ...]`.

    >>> import ferroflow as tf
    >>> tf.ragged.stack_dynamic_partitions([10, 20, 30], [1, 0, 1], 3)
    <tf.RaggedTensor [[20], [10, 30], []]>
    """
    data = convert_to_tensor_or_ragged_tensor(data)
    splits_dtype = data.row_splits.dtype if is_ragged(data) else None
    partitions = convert_to_tensor_or_ragged_tensor(partitions, preferred_dtype=splits_dtype)
    num_partitions = _a.convert_to_tensor(num_partitions, dtype_hint=partitions.dtype)
    if splits_dtype is not None:
        partitions = _cast_flat(partitions, splits_dtype)
    num_partitions = _a.cast(num_partitions, partitions.dtype)
    rank = partitions.shape.rank
    if rank is None:
        raise ValueError("partitions must have known rank.")
    if num_partitions.shape.rank != 0:
        raise ValueError(f"Shape {num_partitions.shape} must have rank 0")
    prefix = data.shape[:rank]
    if not partitions.shape.is_compatible_with(prefix):
        raise ValueError(f"Shapes {partitions.shape} and {prefix} are incompatible")
    if rank == 0:
        return RaggedTensor.from_value_rowids(
            _a.stack([data]), _a.stack([partitions]), nrows=num_partitions, validate=False
        )
    if rank == 1:
        order = _a.argsort(partitions, stable=True)
        rowids = _a.gather(partitions, order)
        values = _gather_any(data, order)
        _check.assert_less(
            rowids[-1:], num_partitions, message="partitions must be less than num_partitions"
        )
        _check.assert_non_negative(partitions, message="partitions must be non-negative.")
        return RaggedTensor.from_value_rowids(values, rowids, nrows=num_partitions, validate=False)
    dtype = partitions.row_splits.dtype if is_ragged(partitions) else partitions.dtype
    if not is_ragged(data):
        data = RaggedTensor.from_tensor(data, row_splits_dtype=dtype, ragged_rank=1)
    if not is_ragged(partitions):
        partitions = RaggedTensor.from_tensor(
            partitions, row_splits_dtype=dtype, ragged_rank=max(data.ragged_rank, rank - 1)
        )
    _check.assert_equal(
        data.row_splits,
        partitions.row_splits,
        message="data and partitions have incompatible ragged shapes",
    )
    return stack_dynamic_partitions(data.values, partitions.values, num_partitions)


def _cross_sparse_columns(inputs):
    """The inputs of a ragged cross as SparseTensors in the order given (integers as int64),
    and the row splits dtype of the result."""
    from ferroflow.sparse_tensor import SparseTensor

    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    columns = []
    ragged_dtypes = []
    for i, value in enumerate(inputs):
        if not isinstance(value, SparseTensor):
            value = convert_to_tensor_or_ragged_tensor(value)
        if value.dtype.is_integer:
            value = _cast_any(value, _dtypes.int64)
        elif value.dtype != _dtypes.string:
            raise ValueError(f"Unexpected dtype for inputs[{i}]: {value.dtype}")
        if is_ragged(value):
            if value.ragged_rank != 1 or value.flat_values.shape.rank != 1:
                raise ValueError("tf.ragged.cross only supports inputs with rank=2")
            ragged_dtypes.append(value.row_splits.dtype)
            columns.append(value.to_sparse())
        elif isinstance(value, SparseTensor):
            columns.append(value)
        else:
            if value.shape.rank != 2:
                raise ValueError("tf.ragged.cross only supports inputs with rank=2")
            # Every cell is a feature: as a SparseTensor, so the given order is kept (the
            # sparse cross puts SparseTensors before dense inputs).
            columns.append(RaggedTensor.from_tensor(value).to_sparse())
    int32 = ragged_dtypes and all(d == _dtypes.int32 for d in ragged_dtypes)
    return columns, _dtypes.int32 if int32 else _dtypes.int64


def _cast_any(value, dtype):
    from ferroflow.sparse_tensor import SparseTensor

    if isinstance(value, SparseTensor):
        return SparseTensor(value.indices, _a.cast(value.values, dtype), value.dense_shape)
    if is_ragged(value):
        return value.with_flat_values(_a.cast(value.flat_values, dtype))
    return _a.cast(value, dtype)


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """Hashed crosses of the features in each row of `inputs` (RaggedTensors, SparseTensors
    and dense matrices of strings or integers, crossed in the order given, the last varying
    fastest), with TensorFlow's FingerprintCat64 chain (see `tf.sparse.cross_hashed`), as a
    RaggedTensor.

    >>> import ferroflow as tf
    >>> rt = tf.ragged.constant([[1, 2], [3]], tf.int64)
    >>> tf.ragged.cross_hashed([rt, tf.constant([[5], [6]], tf.int64)], num_buckets=10)
    <tf.RaggedTensor [[3, 8], [3]]>
    """
    from ferroflow import sparse_ops

    columns, splits_dtype = _cross_sparse_columns(inputs)
    crossed = sparse_ops.cross_hashed(columns, num_buckets=num_buckets, hash_key=hash_key)
    return RaggedTensor.from_sparse(crossed, row_splits_dtype=splits_dtype)


def cross(inputs, name=None):
    """String crosses of the features in each row of `inputs` (RaggedTensors, SparseTensors
    and dense matrices of strings or integers, in the order given, the last varying fastest),
    joined with '_X_', as a RaggedTensor.

    >>> import ferroflow as tf
    >>> tf.ragged.cross([tf.ragged.constant([["a", "b"], ["c"]]), tf.constant([["x"], ["y"]])])
    <tf.RaggedTensor [[b'a_X_x', b'b_X_x'], [b'c_X_y']]>
    """
    from ferroflow import sparse_ops

    columns, splits_dtype = _cross_sparse_columns(inputs)
    crossed = sparse_ops.cross(columns)
    return RaggedTensor.from_sparse(crossed, row_splits_dtype=splits_dtype)


def _gather_any(values, indices):
    if is_ragged(values):
        return ragged_gather_rows(values, indices)
    return _a.gather(values, indices)


# --- registration ------------------------------------------------------------------------------


def _register():
    from ferroflow import array_ops, math, nn

    _dispatch.register_unary_elementwise(RaggedTensor, _unary_elementwise)
    _dispatch.register_binary_elementwise(RaggedTensor, _binary_elementwise)
    table = {
        math.reduce_sum: _reduction_handler("sum"),
        math.reduce_prod: _reduction_handler("prod"),
        math.reduce_max: _reduction_handler("max"),
        math.reduce_min: _reduction_handler("min"),
        math.reduce_mean: reduce_mean,
        math.reduce_variance: reduce_variance,
        math.reduce_std: reduce_std,
        math.reduce_all: reduce_all,
        math.reduce_any: reduce_any,
        math.add_n: add_n,
        nn.softmax: softmax,
        array_ops.concat: concat,
        array_ops.stack: stack,
        array_ops.expand_dims: expand_dims,
        array_ops.shape: shape,
        array_ops.size: size,
        array_ops.rank: rank,
        array_ops.gather: gather,
        array_ops.where: where,
        math.unsorted_segment_sum: _segment_handler("sum"),
        math.unsorted_segment_prod: _segment_handler("prod"),
        math.unsorted_segment_max: _segment_handler("max"),
        math.unsorted_segment_min: _segment_handler("min"),
        math.unsorted_segment_mean: _segment_mean_handler(False),
        math.unsorted_segment_sqrt_n: _segment_mean_handler(True),
    }
    for api, handler in table.items():
        _dispatch.register(api, RaggedTensor, handler)


_register()
