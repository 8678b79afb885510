"""The rest of TensorFlow's ragged dispatch table (`ragged_ops.py` holds the first part):
string, cast, bitwise and assertion APIs declared elementwise, and the ragged versions of
`tile`, `reverse`, `squeeze`, `split`, `one_hot`, `dynamic_partition`, `bitcast`, `gather_nd`,
`cumsum`, `matmul`, `nn.dropout`, `nn.embedding_lookup`, `strings.reduce_join`,
`sparse.bincount`, `debugging.assert_type`, and `reshape` / `broadcast_to` /
`broadcast_dynamic_shape` with `DynamicRaggedShape`s, each as TensorFlow's `ragged_*_ops.py`
computes it.

The APIs are plain functions elsewhere; `_dispatch.install` gives each its dispatching wrapper
when this module loads (last, from `ferroflow/__init__.py`, so every module already holds the
function it replaces). Which APIs belong here is TensorFlow's answer, checked by
`tests/parity/test_ragged_dispatch_coverage.py`.
"""

import numpy as np

from ferroflow import _core, _dispatch
from ferroflow import array_ops as _a
from ferroflow import check_ops as _check
from ferroflow import dtypes as _dtypes
from ferroflow import math as _m
from ferroflow.errors import InvalidArgumentError
from ferroflow.ragged.dynamic_ragged_shape import DynamicRaggedShape
from ferroflow.ragged.ragged_ops import (
    _aligned,
    _rebuild_level,
    match_row_splits_dtypes,
    stack_dynamic_partitions,
    unsorted_segment_reduce,
)
from ferroflow.ragged.ragged_ops import expand_dims as _expand_dims
from ferroflow.ragged.ragged_ops import gather as _gather
from ferroflow.ragged.ragged_tensor import (
    RaggedTensor,
    convert_to_tensor_or_ragged_tensor,
    is_ragged,
    ragged_range_values,
)
from ferroflow.ragged.row_partition import static_value

# --- helpers -------------------------------------------------------------------------------------


def _int_tensor(value, dtype, name):
    """TensorFlow's ragged_util.convert_to_int_tensor: an integer tensor cast to `dtype`."""
    t = _a.convert_to_tensor(value, dtype_hint=dtype)
    if not t.dtype.is_integer:
        raise TypeError(f"{name} must be an integer tensor; dtype={t.dtype!r}")
    return _a.cast(t, dtype)


def _axis(axis, ndims, name="axis"):
    """TensorFlow's get_positive_axis: a Python int in [-ndims, ndims), made non-negative."""
    if not isinstance(axis, int):
        raise TypeError(f"{name} must be an int; got {type(axis).__name__}")
    if ndims is None:
        if axis < 0:
            raise ValueError(f"{name}={axis} may only be negative if rank is statically known.")
        return axis
    if not -ndims <= axis < ndims:
        raise ValueError(f"{name}={axis} out of bounds: expected {-ndims}<={name}<{ndims}")
    return axis + ndims if axis < 0 else axis


def _lengths_to_splits(lengths):
    return _a.concat([_a.zeros([1], lengths.dtype), _m.cumsum(lengths)], 0)


def _repeat_ranges(params, splits, repeats):
    """Range i of `params` (params[splits[i]:splits[i + 1]]) repeated `repeats` (a scalar)
    times, range after range (TensorFlow's ragged_util.repeat_ranges)."""
    from ferroflow.manip_ops import repeat

    _check.assert_non_negative(repeats, message="Input argument 'repeats' must be non-negative")
    repeated = repeat(splits, repeats, axis=0)
    count = _a.shape(repeated, out_type=repeats.dtype)[0]
    starts, limits = repeated[: count - repeats], repeated[repeats:]
    offsets, _ = ragged_range_values(starts, limits, starts.dtype)
    return _a.gather(params, offsets)


# --- tile ----------------------------------------------------------------------------------------


def tile(input, multiples, name=None):  # noqa: A002 - TensorFlow's argument name
    """`input` repeated `multiples[i]` times along dimension i; each ragged row's length is
    multiplied by the next dimension's multiple (TensorFlow's ragged tile).

    >>> import ferroflow as tf
    >>> tf.tile(tf.ragged.constant([[1, 2], [3]]), [2, 2])
    <tf.RaggedTensor [[1, 2, 1, 2], [3, 3], [1, 2, 1, 2], [3, 3]]>
    """
    multiples = _int_tensor(multiples, input.row_splits.dtype, "multiples")
    if multiples.shape.rank is not None and multiples.shape.rank != 1:
        raise ValueError(f"Shape {multiples.shape} must have rank 1")
    known = static_value(multiples)
    return RaggedTensor.from_nested_row_splits(
        _tile_values(input, multiples, known),
        _tile_splits(input, multiples, known),
        validate=False,
    )


def _tile_values(rt, multiples, known):
    ragged_rank = rt.ragged_rank
    nested_splits = rt.nested_row_splits
    ids = _a.range(nested_splits[-1][-1], dtype=nested_splits[-1].dtype)
    previous = None
    for axis in range(ragged_rank, 0, -1):
        splits = nested_splits[axis - 1]
        if previous is not None:
            splits = _a.gather(previous * multiples[axis + 1], splits)
        if known is None or known[axis] != 1:
            ids = _repeat_ranges(ids, splits, multiples[axis])
        previous = splits
    values = _a.gather(rt.flat_values, ids)
    inner = _a.concat([multiples[:1], multiples[ragged_rank + 1 :]], 0)
    return _a.tile(values, inner)


def _tile_splits(rt, multiples, known):
    ragged_rank = rt.ragged_rank
    nested_splits = rt.nested_row_splits
    # projected[src][dst]: the splits that divide the rows of dimension src among the values
    # of dimension dst.
    projected = [{i: nested_splits[i]} for i in range(ragged_rank)]
    for src in range(ragged_rank):
        for dst in range(src + 1, ragged_rank - 1):
            projected[src][dst] = _a.gather(nested_splits[dst], projected[src][dst - 1])
    result = []
    for axis in range(ragged_rank):
        lengths = (nested_splits[axis][1:] - nested_splits[axis][:-1]) * multiples[axis + 1]
        repeats = 1
        for d in range(axis - 1, -1, -1):
            if known is None or known[d + 1] != 1:
                splits = projected[d][axis - 1] * repeats
                lengths = _repeat_ranges(lengths, splits, multiples[d + 1])
            repeats *= multiples[d + 1]
        lengths = _a.tile(lengths, multiples[:1])
        result.append(_lengths_to_splits(lengths))
    return result


# --- reverse, squeeze, split, one_hot, dynamic_partition, bitcast ---------------------------------


def reverse(tensor, axis, name=None):
    """`tensor` reversed along each of `axis` (a list of ints or a constant tensor)."""
    message = (
        "`axis` must be a list of int or a constant tensorwhen reversing axes in a ragged tensor"
    )
    if _core.is_tensor(axis):
        axis = static_value(axis)  # numpy integers, which the axis check below refuses
        if axis is None:
            raise TypeError(message)
    elif not (isinstance(axis, (list, tuple)) and all(isinstance(d, int) for d in axis)):
        raise TypeError(message)
    tensor = convert_to_tensor_or_ragged_tensor(tensor)
    axis = [_axis(d, tensor.shape.rank, f"axis[{i}]") for i, d in enumerate(axis)]
    slices = [slice(None)] * (max(axis) + 1 if axis else 0)
    for d in axis:
        slices[d] = slice(None, None, -1)
    return tensor[tuple(slices)]


def squeeze(input, axis=None, name=None):  # noqa: A002
    """`input` without the size-1 dimensions `axis` (which a RaggedTensor must name)."""
    if axis is None:
        raise ValueError("Ragged.squeeze must have an axis argument.")
    if isinstance(axis, int):
        axis = [axis]
    elif not isinstance(axis, (list, tuple)) or not all(isinstance(d, int) for d in axis):
        raise TypeError("Axis must be a list or tuple of integers.")
    axis = [_axis(d, input.shape.rank, f"axis[{i}]") for i, d in enumerate(axis)]
    ragged_rank = input.ragged_rank
    dense_dims = [d - ragged_rank for d in axis if d > ragged_rank]
    ragged_dims = [d for d in axis if d <= ragged_rank]
    one = _a.constant(1, input.row_splits.dtype)
    for i, lengths in enumerate(input.nested_row_lengths()):
        if i + 1 in ragged_dims:
            _check.Assert(
                _m.reduce_all(_m.equal(lengths, one)),
                [f"the given axis (axis = {i + 1}) is not squeezable!"],
            )
    if 0 in ragged_dims:
        _check.Assert(
            _m.equal(_a.size(input.row_splits), _a.constant(2, _dtypes.int32)),
            ["the given axis (axis = 0) is not squeezable!"],
        )
    values = input.flat_values
    if dense_dims:
        values = _a.squeeze(values, dense_dims)
    remaining = [s for i, s in enumerate(input.nested_row_splits) if i + 1 not in ragged_dims]
    if remaining and 0 in ragged_dims:
        remaining.pop(0)
    result = RaggedTensor.from_nested_row_splits(values, remaining)
    if set(range(ragged_rank + 1)) <= set(ragged_dims):
        result = _a.squeeze(result, [0])
    return result


def split(value, num_or_size_splits, axis=0, num=None, name=None):
    """Pieces of `value` along a uniform dimension `axis` (TensorFlow's ragged split)."""
    value = convert_to_tensor_or_ragged_tensor(value)
    if isinstance(num_or_size_splits, int) and num_or_size_splits == 1:
        return [value]
    _check.assert_integer(
        num_or_size_splits,
        message="`num_or_size_splits` must be an `int` or 1-D list or `Tensor` of integers.",
    )
    shape = DynamicRaggedShape.from_tensor(value)
    axis = _axis(axis, shape.rank)
    try:
        dim_size = shape[axis]
    except ValueError:
        raise ValueError(
            f"Cannot split a ragged dimension. Got `value` with shape {shape} and `axis` {axis}."
        ) from None
    if isinstance(num_or_size_splits, int):
        count = num_or_size_splits
        if count < 1:
            raise ValueError(
                f"`num_or_size_splits` must be >=1 if it is an `int`.Received {num_or_size_splits}."
            )
        from ferroflow.manip_ops import repeat

        lengths = repeat(_m.floordiv(dim_size, count), count)
    else:
        count = None
        lengths = _a.convert_to_tensor(num_or_size_splits)
        if lengths.shape.rank is not None:
            if lengths.shape.rank != 1:
                raise TypeError(
                    "`num_or_size_splits` must be an `int` or 1-D list or `Tensor`. "
                    f"Received {num_or_size_splits}."
                )
            count = lengths.shape[0]
        if count is None:
            if num is None:
                raise ValueError(
                    "`num` must be specified as an `int` when the size of `num_or_size_split` "
                    f"is statically unknown. Received `num`: {num} and `num_or_size_split`: "
                    f"{num_or_size_splits}."
                )
            count = num
        elif num is not None and num != count:
            raise ValueError(
                "`num` does not match the size of `num_or_size_split`. Received `num`: "
                f"{num} and size of `num_or_size_split`: {count}."
            )
    splits = _lengths_to_splits(lengths)
    _check.assert_non_negative(
        num_or_size_splits, message="`num_or_size_splits` must be non-negative."
    )
    _check.assert_equal(
        _a.cast(dim_size, splits.dtype),
        splits[-1],
        message="Cannot exactly split the `axis` dimension of `value` with the given "
        "`num_or_size_split`.",
    )
    pieces = []
    slices = [slice(None)] * (axis + 1)
    for i in range(count):
        slices[-1] = slice(splits[i], splits[i + 1])
        pieces.append(value[tuple(slices)])
    return pieces


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """tf.one_hot of a RaggedTensor's flat values (`axis` counts the ragged dimensions)."""
    if isinstance(axis, int) and axis >= 0:
        if axis <= indices.ragged_rank:
            raise ValueError(
                f"axis ({axis}) must be greater than indices.ragged_rank ({indices.ragged_rank})."
            )
        axis -= indices.ragged_rank
    indices = convert_to_tensor_or_ragged_tensor(indices)
    return indices.with_flat_values(
        _a.one_hot(indices.flat_values, depth, on_value, off_value, axis, dtype)
    )


def dynamic_partition(data, partitions, num_partitions, name=None):
    """The rows of `tf.ragged.stack_dynamic_partitions`, one per partition."""
    if (
        not isinstance(num_partitions, int)
        or isinstance(num_partitions, bool)
        or num_partitions < 0
    ):
        raise TypeError("num_partitions must be a non-negative integer")
    stacked = stack_dynamic_partitions(data, partitions, num_partitions)
    return [stacked[i] for i in range(num_partitions)]


def bitcast(input, type, name=None):  # noqa: A002 - TensorFlow's argument names
    """tf.bitcast of the flat values (a narrower result type needs inner dimensions)."""
    type = _dtypes.as_dtype(type)  # noqa: A001
    input = convert_to_tensor_or_ragged_tensor(input)  # noqa: A001
    if input.dtype.size < type.size and input.flat_values.shape.rank < 2:
        raise ValueError(
            "`input.flat_values` is required to have rank >= 2 when input.dtype.size < "
            f"type.size. Actual rank: {input.flat_values.shape.rank}"
        )
    from ferroflow import array_extra_ops

    return input.with_flat_values(array_extra_ops.bitcast(input.flat_values, type))


# --- gather_nd -----------------------------------------------------------------------------------


def gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """Slices of `params` at the index tuples in the innermost dimension of `indices` (either
    may be ragged), as TensorFlow's ragged gather_nd."""
    if not isinstance(batch_dims, int) or batch_dims != 0:
        raise ValueError("batch_dims != 0 is not supported for ragged gather yet.")
    if not (is_ragged(params) or is_ragged(indices)):
        return _a.gather_nd(params, indices)
    if bad_indices_policy not in ("", "DEFAULT"):
        raise ValueError("non-default bad_indices_policy not supported for ragged gather")
    params = convert_to_tensor_or_ragged_tensor(params)
    indices = convert_to_tensor_or_ragged_tensor(indices)
    match_row_splits_dtypes(params, indices)
    ndims = indices.shape.rank
    if ndims is None:
        raise ValueError("indices.rank be statically known.")
    if ndims == 0:
        raise ValueError("indices.rank must be at least 1.")
    if is_ragged(indices) and ndims == indices.ragged_rank + 1:
        raise ValueError("The innermost dimension of indices may not be ragged")
    index_size = indices.shape[-1]
    if index_size is None:
        raise ValueError("indices.shape[-1] must be statically known.")
    if ndims > 2:
        dense = not is_ragged(indices)
        if dense:
            indices = RaggedTensor.from_tensor(
                indices, ragged_rank=ndims - 2, row_splits_dtype=params.row_splits.dtype
            )
        result = indices.with_flat_values(gather_nd(params, indices.flat_values))
        if dense and is_ragged(result) and result.ragged_rank == ndims - 2:
            result = result.to_tensor()
        return result
    if index_size == 0:
        params_ndims = params.ragged_rank + _a.rank(params.flat_values)
        for _ in range(ndims - 1):
            params = _expand_dims(params, 0)
        multiples = _a.concat(
            [_a.shape(indices)[:-1], _a.ones(_a.reshape(params_ndims, [1]), _dtypes.int32)], 0
        )
        return tile(params, multiples)
    if index_size == 1:
        return _gather(params, _a.reshape(indices, [-1]))
    indices = _a.cast(indices, params.row_splits.dtype)
    tuples = _a.gather(params.row_splits, indices[..., 0]) + indices[..., 1]
    flat_params = params.values
    for dim in range(2, index_size):
        if not is_ragged(flat_params):
            tuples = _a.concat([_a.expand_dims(tuples, 1), indices[..., dim:]], 1)
            return _a.gather_nd(flat_params, tuples)
        tuples = _a.gather(flat_params.row_starts(), tuples) + indices[..., dim]
        flat_params = flat_params.values
    return _gather(flat_params, tuples)


# --- cumsum --------------------------------------------------------------------------------------


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sums of a RaggedTensor along `axis`: within each row for the innermost
    ragged dimension, of the flat values for uniform inner ones, of the padded dense form
    (then cut back to the rows) for outer ones, as TensorFlow's ragged cumsum."""
    axis = _axis(axis, x.shape.rank)
    if axis == x.ragged_rank:
        partition = x._nested_row_partitions[-1]
        return x.with_flat_values(_cumsum_in_rows(partition, x.flat_values, exclusive, reverse))
    if axis > x.ragged_rank:
        return x.with_flat_values(
            _m.cumsum(x.flat_values, axis - x.ragged_rank, exclusive=exclusive, reverse=reverse)
        )
    result = _m.cumsum(x.to_tensor(), axis, exclusive=exclusive, reverse=reverse)
    return RaggedTensor.from_tensor(result, lengths=x.nested_row_lengths())


def _cumsum_in_rows(partition, values, exclusive, reverse):
    """Sums within each row: the cumulative sum of every value minus its row's start (the same
    subtraction TensorFlow makes, so rounding agrees)."""
    if not exclusive:
        return _cumsum_in_rows(partition, values, True, reverse) + values
    splits, rowids = partition.row_splits(), partition.value_rowids()
    if reverse:
        youngest = _a.gather(splits, rowids + 1) - 1
        total = _m.cumsum(values, exclusive=True, reverse=True)
        return total - _a.gather(total, youngest)
    eldest = _a.gather(splits, rowids)
    total = _m.cumsum(values, exclusive=True)
    return total - _a.gather(total, eldest)


# --- matmul --------------------------------------------------------------------------------------

_RAGGED_INNER = "The matrices in `a` and `b` may not be ragged in their innermost dimension."


def matmul(
    a,
    b,
    transpose_a=False,
    transpose_b=False,
    adjoint_a=False,
    adjoint_b=False,
    a_is_sparse=False,
    b_is_sparse=False,
    output_type=None,
    grad_a=False,
    grad_b=False,
    name=None,
):
    """Matrix products of ragged or dense operands of one rank (at least 2): the outer
    `rank - 2` dimensions are batch dimensions; each matrix must be uniform (TensorFlow's
    ragged matmul).

    >>> import ferroflow as tf
    >>> a = tf.ragged.constant([[[1.0, 2.0]], [[3.0, 4.0], [5.0, 6.0]]], ragged_rank=1)
    >>> tf.matmul(a, tf.constant([[[1.0], [1.0]], [[1.0], [0.0]]])).to_list()
    [[[3.0]], [[3.0], [5.0]]]
    """
    if transpose_a and adjoint_a:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_b and adjoint_b can be True.")
    options = dict(
        transpose_a=transpose_a,
        transpose_b=transpose_b,
        adjoint_a=adjoint_a,
        adjoint_b=adjoint_b,
        a_is_sparse=a_is_sparse,
        b_is_sparse=b_is_sparse,
        output_type=output_type,
    )
    from ferroflow import linalg

    a = convert_to_tensor_or_ragged_tensor(a)
    b = convert_to_tensor_or_ragged_tensor(b)
    if not (is_ragged(a) or is_ragged(b)):
        return linalg.matmul(a, b, **options)
    if a.dtype != b.dtype:
        raise ValueError("`a` and `b` must have the same dtype.")
    rank = a.shape.rank
    if rank is None:
        if b.shape.rank is None:
            raise ValueError(
                "matmul requires at least one input to have known rank if either input is ragged."
            )
        rank = b.shape.rank
    elif b.shape.rank is not None and b.shape.rank != rank:
        raise ValueError("`a` and `b` must have the same rank.")
    if rank < 2:
        raise ValueError("`a` and `b` must have the same rank.")
    if rank > 3:
        if not is_ragged(a):
            a = RaggedTensor.from_tensor(a, ragged_rank=1)
        if not is_ragged(b):
            b = RaggedTensor.from_tensor(b, ragged_rank=1)
        _check.assert_equal(
            a.row_splits,
            b.row_splits,
            message="Batch dimensions of `a` and `b` do not have the same size.",
        )
        return a.with_values(matmul(a.values, b.values, **options))
    if rank == 2:
        return _matmul_2d(a, b, options)
    if is_ragged(a) and a.ragged_rank == 1 and not (is_ragged(b) or transpose_a or adjoint_a):
        # Each value row of `a` times its batch's matrix of `b`.
        from ferroflow.manip_ops import repeat

        rows = _a.expand_dims(a.values, 1)
        matrices = repeat(b, a.row_lengths(), axis=0)
        return a.with_values(_a.squeeze(linalg.matmul(rows, matrices, **options), [1]))
    return _matmul_3d(a, b, options)


def _dense_matrix(value):
    """`value` (a matrix) as a tensor, checked to be uniform."""
    if not is_ragged(value):
        return value
    size = _a.size(value.flat_values)
    dense = value.to_tensor()
    _check.assert_equal(size, _a.size(dense), message=_RAGGED_INNER)
    return dense


def _matmul_2d(a, b, options):
    from ferroflow import linalg

    return linalg.matmul(_dense_matrix(a), _dense_matrix(b), **options)


def _matrix_sizes(value, dtype):
    """(rows, columns) of each matrix in a batch `[B, I, J]` (I and J may be ragged), as
    `[B]` tensors of `dtype`; raises as TensorFlow when a matrix is ragged inside."""
    if not is_ragged(value):
        shape = _a.shape(value, out_type=dtype)
        batch = shape[:1]
        return _a.fill(batch, shape[1]), _a.fill(batch, shape[2])
    rows = _a.cast(value.row_lengths(), dtype)
    if is_ragged(value.values):
        lengths = _a.cast(value.values.row_lengths(), dtype)
        rowids = _a.cast(value.value_rowids(), _dtypes.int32)
        count = _a.cast(value.nrows(), _dtypes.int32)
        widest = _m.maximum(unsorted_segment_reduce("max", lengths, rowids, count), 0)
        total = unsorted_segment_reduce("sum", lengths, rowids, count)
        _check.assert_equal(total, rows * widest, message=_RAGGED_INNER)
        return rows, widest
    width = _a.shape(value.values, out_type=dtype)[1]
    return rows, _a.fill(_a.shape(rows), width)


def _matmul_3d(a, b, options):
    """Batches of matrices, some ragged: the padded dense batches multiplied (padding is zero,
    so it adds nothing), then each product cut to its matrix's size. TensorFlow maps a 2-D
    matmul over the batch; the results and errors are the same."""
    from ferroflow import linalg

    dtype = (a if is_ragged(a) else b).row_splits.dtype
    transposed_a = options["transpose_a"] or options["adjoint_a"]
    transposed_b = options["transpose_b"] or options["adjoint_b"]
    a_rows, a_cols = _matrix_sizes(a, dtype)
    b_rows, b_cols = _matrix_sizes(b, dtype)
    out_rows, inner_a = (a_cols, a_rows) if transposed_a else (a_rows, a_cols)
    inner_b, out_cols = (b_cols, b_rows) if transposed_b else (b_rows, b_cols)
    _check.assert_equal(
        inner_a, inner_b, message="Matrix size-incompatible: the inner dimensions differ"
    )
    a_dense = a.to_tensor() if is_ragged(a) else a
    b_dense = b.to_tensor() if is_ragged(b) else b
    product = linalg.matmul(a_dense, b_dense, **options)
    ragged_columns = is_ragged(b) and (b.ragged_rank == 2 or transposed_b)
    padded_rows = _a.shape(product, out_type=dtype)[1]
    row_mask = _m.less(_a.range(padded_rows, dtype=dtype), _a.expand_dims(out_rows, 1))
    if ragged_columns:
        padded_cols = _a.shape(product, out_type=dtype)[2]
        col_mask = _m.less(_a.range(padded_cols, dtype=dtype), _a.reshape(out_cols, [-1, 1, 1]))
        values = _a.boolean_mask(product, _m.logical_and(_a.expand_dims(row_mask, 2), col_mask))
        from ferroflow.manip_ops import repeat

        values = RaggedTensor.from_row_lengths(
            values, repeat(out_cols, out_rows, axis=0), validate=False
        )
    else:
        values = _a.boolean_mask(product, row_mask)
    # TensorFlow gives the result the static row count of `a`'s matrices (a uniform
    # dimension) when it has one.
    static_rows = a.shape[-1] if transposed_a else a.shape[-2]
    if static_rows is not None:
        return RaggedTensor.from_uniform_row_length(
            values, static_rows, nrows=_a.shape(product, out_type=dtype)[0], validate=False
        )
    return RaggedTensor.from_row_lengths(values, out_rows, validate=False)


# --- nn, strings, sparse, debugging -------------------------------------------------------------


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """tf.nn.dropout of the flat values."""
    if noise_shape is not None:
        raise ValueError("noise_shape is not supported yet for RaggedTensor x")
    from ferroflow import nn

    x = convert_to_tensor_or_ragged_tensor(x)
    return x.with_flat_values(nn.dropout(x.flat_values, rate=rate, seed=seed))


def embedding_lookup(params, ids, max_norm=None, name=None):
    """tf.nn.embedding_lookup of a RaggedTensor's flat ids: `[rows, (ids), ...embedding]`."""
    from ferroflow import nn

    if params is None:
        raise ValueError("params must be specified.")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("params should not be empty.")
    if ids.dtype not in (_dtypes.int32, _dtypes.int64):
        raise ValueError(
            f"The values contained by the inputs have type {ids.dtype!s} and cannot be "
            "processed. All values should be indices, either of type `int32` or `int64`."
        )
    return ids.with_flat_values(nn.embedding_lookup(params, ids.flat_values, max_norm=max_norm))


def reduce_join(inputs, axis=None, keepdims=None, separator="", name=None):
    """Strings joined along `axis` of a RaggedTensor (TensorFlow's ragged reduce_join: a
    ragged axis joins each row, axis 0 joins the values at one position of every row)."""
    from ferroflow import strings

    rt = inputs
    if _core.is_tensor(axis):
        axis = static_value(axis)
        if axis is None:
            raise ValueError("axis must be known at graph construction time.")
    if isinstance(axis, np.ndarray):
        axis = axis.tolist()
    if axis is None:
        result = strings.reduce_join(rt.flat_values, None, keepdims=keepdims, separator=separator)
        if keepdims:
            for _ in rt.shape[1:]:
                result = _a.expand_dims(result, 0)
        return result
    if isinstance(axis, (list, tuple)):
        if not axis:
            return rt
        if len(axis) > 1:
            axes = sorted(_axis(d, rt.shape.rank, f"axis[{i}]") for i, d in enumerate(axis))
            inner = reduce_join(rt, axes[-1], keepdims, separator)
            return reduce_join(inner, axes[:-1], keepdims, separator)
        axis = axis[0]
    axis = _axis(axis, rt.shape.rank)
    if axis == 0:
        lengths = rt.row_splits[1:] - rt.row_splits[:-1]
        count = _m.maximum(_m.reduce_max(lengths), 0)
        columns, _ = ragged_range_values(_a.zeros_like(lengths), lengths, lengths.dtype)
        result = _segment_join(rt.values, columns, count, separator)
        return _expand_dims(result, 0) if keepdims else result
    if axis == 1:
        result = _segment_join(rt.values, rt.value_rowids(), rt.nrows(), separator)
        return _expand_dims(result, 1) if keepdims else result
    return rt.with_values(reduce_join(rt.values, axis - 1, keepdims, separator))


def _segment_join(data, segment_ids, num_segments, separator):
    """Row j joins, position by position, every row of `data` in segment j (TensorFlow's
    ragged segment aggregation with unsorted_segment_join)."""
    from ferroflow import strings

    if not is_ragged(data):
        return strings.unsorted_segment_join(data, segment_ids, num_segments, separator)
    dtype = data.row_splits.dtype
    segment_ids = _a.cast(segment_ids, dtype)
    num_segments = _a.cast(num_segments, dtype)
    lengths = data.row_lengths()
    out_lengths = _m.maximum(unsorted_segment_reduce("max", lengths, segment_ids, num_segments), 0)
    out_splits = _lengths_to_splits(out_lengths)
    starts = _a.gather(out_splits, segment_ids)
    targets, _ = ragged_range_values(starts, starts + lengths, dtype)
    values = _segment_join(data.values, targets, out_splits[-1], separator)
    return RaggedTensor.from_row_splits(values, out_splits, validate=False)


def sparse_bincount(
    values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False, name=None
):
    """tf.sparse.bincount of a RaggedTensor: all values (axis 0) or each row (axis -1)."""
    from ferroflow import sparse_ops
    from ferroflow.sparse_tensor import SparseTensor

    values = convert_to_tensor_or_ragged_tensor(values)
    if weights is not None and not isinstance(weights, SparseTensor):
        weights = convert_to_tensor_or_ragged_tensor(weights)
    axis = _bincount_axis(weights, binary_output, axis)
    options = dict(minlength=minlength, maxlength=maxlength, binary_output=binary_output)
    if axis == 0:
        if weights is not None:
            weights = _ragged_weights(values, weights)
        values = values.values
    if is_ragged(values):
        if weights is not None:
            weights = _ragged_weights(values, weights)
            weights = RaggedTensor.from_row_splits(weights, values.row_splits, validate=False)
        if values.ragged_rank != 1 or values.flat_values.shape.rank != 1:
            raise InvalidArgumentError(None, None, "values must be a rank-2 RaggedTensor")
        sparse_weights = None if weights is None else weights.to_sparse()
        return sparse_ops.bincount(values.to_sparse(), sparse_weights, axis=-1, **options)
    return sparse_ops.bincount(values, weights, axis=-1 if axis == -1 else 0, **options)


def _bincount_axis(weights, binary_output, axis):
    """The axis a ragged bincount counts along (0 or -1), after TensorFlow's argument checks."""
    if weights is not None and binary_output:
        raise ValueError(
            "Arguments `binary_output` and `weights` are mutually exclusive. Please specify "
            "only one."
        )
    axis = 0 if axis is None else axis
    if axis not in [0, -1]:
        raise ValueError(
            f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported."
        )
    return axis


def _ragged_weights(values, weights):
    """The values of ragged `weights`, checked to share `values`'s row splits."""
    if not is_ragged(weights):
        raise ValueError(
            "`weights` must be a RaggedTensor if `values` is a RaggedTensor. Received argument "
            f"weights={weights} of type: {type(weights).__name__}."
        )
    if weights.row_splits is not values.row_splits:
        _check.assert_equal(
            weights.row_splits,
            values.row_splits,
            message="'weights' and 'values' must have the same row splits.",
        )
    return weights.values


def assert_type(tensor, tf_type, message=None, name=None):
    """tf.debugging.assert_type of the flat values."""
    return _check.assert_type(tensor.flat_values, tf_type, message=message, name=name)


# --- DynamicRaggedShape: reshape, broadcast_to, broadcast_dynamic_shape --------------------------


def reshape(tensor, shape, name=None):
    """A RaggedTensor's flat values reshaped to a dense shape, or any values given a
    DynamicRaggedShape (its inner shape and row partitions)."""
    tensor = convert_to_tensor_or_ragged_tensor(tensor)
    if is_ragged(tensor):
        tensor = tensor.values
    if isinstance(shape, DynamicRaggedShape):
        flat = _a.reshape(tensor, shape.inner_shape)
        return RaggedTensor._from_nested_row_partitions(flat, shape.row_partitions)
    return _a.reshape(tensor, _a.convert_to_tensor(shape))


def _as_shape(value):
    if isinstance(value, DynamicRaggedShape):
        return value
    return DynamicRaggedShape((), value)


def broadcast_to(input, shape, name=None):  # noqa: A002
    """`input` (dense or ragged) broadcast to a DynamicRaggedShape."""
    input = convert_to_tensor_or_ragged_tensor(input)  # noqa: A001
    if not shape.row_partitions:
        return _a.broadcast_to(input, shape.inner_shape)
    if is_ragged(input) and input.row_splits.dtype != shape.dtype:
        raise ValueError("Cannot coerce row_splits.dtype")
    target = shape._filled(0, _dtypes.int32)
    if is_ragged(input) and input.ragged_rank == len(shape.row_partitions):
        for mine, theirs in zip(input.nested_row_splits, target.nested_row_splits):
            _check.assert_equal(mine, theirs, message="Cannot broadcast")
    source, template_values, template = _aligned(input, target)
    return _rebuild_level(template, _a.broadcast_to(source, _a.shape(template_values)))


def broadcast_dynamic_shape(shape_x, shape_y):
    """The DynamicRaggedShape both shapes broadcast to."""
    x, y = _as_shape(shape_x), _as_shape(shape_y)
    if x.row_partitions and y.row_partitions and x.dtype != y.dtype:
        raise ValueError("Dtypes don't match")
    if x.row_partitions:
        dtype = x.dtype
    elif y.row_partitions:
        dtype = y.dtype
    else:
        dtype = x.dtype if x.dtype == y.dtype else _dtypes.int64
    x, y = x.with_dtype(dtype), y.with_dtype(dtype)
    combined = _m.add(x._filled(0, _dtypes.int32), y._filled(0, _dtypes.int32))
    return DynamicRaggedShape.from_tensor(combined, dtype=dtype)


# --- APIs TensorFlow composes of dispatching ones ------------------------------------------------
# TensorFlow registers no ragged handler for these: its Python composition reaches RaggedTensors
# through the APIs it calls. ferroflow computes them in Rust, so the same compositions are
# written here.


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) of a RaggedTensor, as TensorFlow composes it: the reduction's maximum
    (a dense tensor: TensorFlow's raw is_finite/select refuse a ragged one) is subtracted."""
    raw_max = _a.convert_to_tensor(_m.reduce_max(input_tensor, axis, keepdims=True))
    finite = _a.where(_m.is_finite(raw_max), raw_max, _a.zeros_like(raw_max))
    from ferroflow.backprop import stop_gradient

    largest = stop_gradient(finite)
    total = _m.reduce_sum(_m.exp(_m.subtract(input_tensor, largest)), axis, keepdims=keepdims)
    result = _m.log(_a.convert_to_tensor(total))
    if not keepdims:
        largest = _a.reshape(largest, _a.shape(result))
    return _m.add(result, largest)


def stop_gradient(input, name=None):  # noqa: A002
    """Every component of a composite value with its gradient stopped (TensorFlow maps
    stop_gradient over the components)."""
    from ferroflow import nest
    from ferroflow.backprop import stop_gradient as stop

    return nest.map_structure(stop, input, expand_composites=True)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of a RaggedTensor over `axes`, as TensorFlow composes them."""
    from ferroflow import backprop

    y = _a.cast(x, _dtypes.float32) if x.dtype == _dtypes.float16 else x
    mean = _m.reduce_mean(y, axes, keepdims=True)
    deviation = _m.squared_difference(y, backprop.stop_gradient(mean))
    variance = _m.reduce_mean(deviation, axes, keepdims=True)
    if not keepdims:
        mean, variance = _a.squeeze(mean, axes), _a.squeeze(variance, axes)
    if x.dtype == _dtypes.float16:
        mean, variance = _a.cast(mean, _dtypes.float16), _a.cast(variance, _dtypes.float16)
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, as TensorFlow composes it."""
    inv = _m.rsqrt(_m.add(variance, variance_epsilon))
    if scale is not None:
        inv = _m.multiply(inv, scale)
    shift = -mean * inv if offset is None else _m.subtract(offset, mean * inv)
    return _m.add(_m.multiply(x, _a.cast(inv, x.dtype)), _a.cast(shift, x.dtype))


# --- registration --------------------------------------------------------------------------------


def _binary_assert(op, x, y):
    """An elementwise assertion on the aligned flat values (TensorFlow's ragged assert
    handler: no ragged result, the assertion's own)."""
    from ferroflow.ragged.ragged_ops import _convert_pair

    x, y = _convert_pair(x, y)
    xv, yv, _ = _aligned(x, y)
    return op(xv, yv)


def _register():
    from ferroflow import (
        bitwise,
        cast_ops,
        check_ops,
        dtypes,
        linalg,
        manip_ops,
        math_extra_ops,
        nn,
        sparse_ops,
        strings,
    )
    from ferroflow import image as image_
    from ferroflow import math as math_

    elementwise = {
        "unary": [
            bitwise.invert,
            # Issue 19's elementwise names that TensorFlow's ragged dispatch maps over values.
            image_.adjust_brightness,
            image_.adjust_gamma,
            image_.convert_image_dtype,
            image_.random_brightness,
            image_.stateless_random_brightness,
            math_.erfcinv,
            math_.log_sigmoid,
            math_.nextafter,
            math_.reciprocal_no_nan,
            math_.rint,
            math_.softsign,
            nn.silu,
            nn.swish,
            cast_ops.saturate_cast,
            check_ops.check_numerics,
            dtypes.cast,
            dtypes.saturate_cast,
            strings.as_string,
            strings.length,
            strings.lower,
            strings.regex_full_match,
            strings.regex_replace,
            strings.strip,
            strings.substr,
            strings.to_hash_bucket,
            strings.to_hash_bucket_fast,
            strings.to_hash_bucket_strong,
            strings.to_number,
            strings.unicode_script,
            strings.unicode_transcode,
            strings.upper,
        ],
        "binary": [
            math_.multiply_no_nan,
            dtypes.complex,
            math_extra_ops.realdiv,
            math_extra_ops.scalar_mul,
            math_extra_ops.truncatediv,
            math_extra_ops.truncatemod,
            nn.sigmoid_cross_entropy_with_logits,
        ],
        "binary_assert": [check_ops.assert_near],
    }
    for kind, apis in elementwise.items():
        for api in apis:
            _dispatch.declare(_dispatch.install(api), kind)
    _dispatch.register_binary_elementwise(RaggedTensor, _binary_assert, kind="binary_assert")
    from ferroflow import array_extra_ops

    # TensorFlow's signatures: the first argument must be ragged ...
    first_ragged = {
        _a.tile: tile,
        _a.reverse: reverse,
        _a.squeeze: squeeze,
        _a.split: split,
        _a.one_hot: one_hot,
        math_.cumsum: cumsum,
        nn.dropout: dropout,
        strings.reduce_join: reduce_join,
        sparse_ops.bincount: sparse_bincount,
        check_ops.assert_type: assert_type,
    }
    for api, handler in first_ragged.items():
        check = _first_is_ragged(api)
        _dispatch.register(_dispatch.install(api), RaggedTensor, handler, check=check)
    # ... or any of them may be.
    any_ragged = {
        _a.gather_nd: gather_nd,
        linalg.matmul: matmul,
        array_extra_ops.dynamic_partition: dynamic_partition,
        array_extra_ops.bitcast: bitcast,
    }
    for api, handler in any_ragged.items():
        _dispatch.register(_dispatch.install(api), RaggedTensor, handler)
    from ferroflow import backprop
    from ferroflow.type_spec import CompositeTensor

    _dispatch.register(math_.reduce_logsumexp, RaggedTensor, reduce_logsumexp)
    _dispatch.register(_dispatch.install(backprop.stop_gradient), CompositeTensor, stop_gradient)
    for api, handler in {nn.moments: moments, nn.batch_normalization: batch_normalization}.items():
        _dispatch.register(_dispatch.install(api), RaggedTensor, handler)
    _dispatch.register(
        _dispatch.install(nn.embedding_lookup),
        RaggedTensor,
        embedding_lookup,
        check=lambda args, kwargs: is_ragged(_second(args, kwargs, "ids")),
    )
    shaped = (RaggedTensor, DynamicRaggedShape)
    _dispatch.register(_dispatch.install(_a.reshape), shaped, reshape)
    _dispatch.register(
        _dispatch.install(_a.broadcast_to),
        shaped,
        broadcast_to,
        check=lambda args, kwargs: isinstance(_second(args, kwargs, "shape"), DynamicRaggedShape),
    )
    _dispatch.register(
        _dispatch.install(manip_ops.broadcast_dynamic_shape),
        DynamicRaggedShape,
        broadcast_dynamic_shape,
    )


def _second(args, kwargs, name):
    return args[1] if len(args) > 1 else kwargs.get(name)


def _first_is_ragged(api):
    """A dispatch check: the call's first argument (by position or name) is ragged."""
    import inspect

    name = next(iter(inspect.signature(api).parameters))

    def check(args, kwargs):
        return is_ragged(args[0] if args else kwargs.get(name))

    return check


_register()
