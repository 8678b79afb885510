"""TensorFlow's top-level tensor manipulations composed of ferroflow's ops: roll, repeat,
meshgrid, searchsorted, sequence masks, reversed sequences, index unravelling, broadcast shapes
and the tensor_scatter_nd family. Being compositions, they trace, run on every device and
differentiate through their parts."""

import numpy as np

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow import math as _math
from ferroflow.array_ops import (
    argsort,
    boolean_mask,
    cast,
    concat,
    convert_to_tensor,
    expand_dims,
    gather,
    gather_nd,
    identity,
    ones,
    ones_like,
    range,  # noqa: A004 - TensorFlow's name
    reshape,
    scatter_nd,
    shape,
    take_rows,
    transpose,
    where,
    zeros_like,
)
from ferroflow.backprop import custom_gradient
from ferroflow.errors import InvalidArgumentError, ResourceExhaustedError
from ferroflow.tensor_shape import TensorShape

# More positions than any tensor ferroflow can hold.
_MAX_POSITIONS = 2**40


def _static_value(t):
    """`t`'s numpy value when it is known while tracing (or eager), else None."""
    if _core.is_symbolic(t):
        return None
    return np.asarray(t)


def _axis_size(x, axis):
    """The size of `x` along `axis`: an int when known, else a scalar computed at run time."""
    known = x.shape[axis]
    return known if known is not None else shape(x)[axis]


def roll(input, shift, axis, name=None):  # noqa: A002
    """Elements shifted along `axis` by `shift`, wrapping around (shifts per axis add up)."""
    x = convert_to_tensor(input)
    shifts = np.atleast_1d(_static_value(convert_to_tensor(shift)))
    axes = np.atleast_1d(_static_value(convert_to_tensor(axis)))
    if shifts.shape != axes.shape:
        raise InvalidArgumentError(
            None,
            None,
            f"shift and axis must have the same size, got {shifts.size} and {axes.size} [Op:Roll]",
        )
    total = {}
    for s, a in zip(shifts.tolist(), axes.tolist()):
        if not -x.ndim <= a < x.ndim:
            raise InvalidArgumentError(
                None, None, f"axis {a} is out of range for a tensor of rank {x.ndim} [Op:Roll]"
            )
        total[a % x.ndim] = total.get(a % x.ndim, 0) + s
    for a, s in sorted(total.items()):
        n = _axis_size(x, a)
        if isinstance(n, int) and n == 0:
            continue
        positions = _math.floormod(range(n) - s, n)
        x = _gather_dense(x, positions, a)
    return identity(x)


def _gather_dense(x, positions, axis):
    """`gather(x, positions, axis)` with TensorFlow's dense Roll/repeat gradients."""
    if axis == 0:
        return take_rows(x, positions)
    return gather(x, positions, axis=axis)


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Each element (slice along `axis`) repeated `repeats` times; flattened when axis is None."""
    x = convert_to_tensor(input)
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    if not -x.ndim <= axis < max(x.ndim, 1):
        raise ValueError(f"axis {axis} is out of range for a tensor of rank {x.ndim}")
    axis %= max(x.ndim, 1)
    counts = convert_to_tensor(repeats, dtype_hint=_dtypes.int32)
    known = _static_value(counts)
    n = _axis_size(x, axis) if x.ndim else 1
    if known is not None and isinstance(n, int):
        if known.ndim > 1 or (known.ndim == 1 and known.size not in (1, n)):
            raise InvalidArgumentError(
                None,
                None,
                f"repeats must be a scalar or a vector of size {n} (the size of axis {axis}), "
                f"got shape {known.shape}",
            )
        if (known < 0).any():
            raise InvalidArgumentError(None, None, f"repeats must be >= 0, got {known.tolist()}")
        counts_each = np.broadcast_to(known.reshape(-1), (n,)).astype(np.int64)
        if counts_each.sum() > _MAX_POSITIONS:
            raise ResourceExhaustedError(
                None, None, f"repeat would make {counts_each.sum()} slices along axis {axis}"
            )
        positions = np.repeat(np.arange(n), counts_each)
        return _gather_dense(x, positions.astype(np.int64), axis)
    # Counts known only when the graph runs: the source of output slot j is the number of
    # cumulative counts at or below j.
    counts = cast(counts, _dtypes.int64) * ones([n], _dtypes.int64)
    ends = _math.cumsum(counts)
    slots = range(_math.reduce_sum(counts), dtype=_dtypes.int64)
    return _gather_dense(x, searchsorted(ends, slots, side="right", out_type=_dtypes.int64), axis)


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D coordinate vectors (`indexing` "xy", Cartesian, or "ij")."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Key word arguments {list(kwargs)} not supported")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    vectors = [reshape(convert_to_tensor(a), [-1]) for a in args]
    if not vectors:
        return []
    rank = len(vectors)
    grids = []
    for i, v in enumerate(vectors):
        target = [1] * rank
        target[i] = -1
        if indexing == "xy" and rank > 1 and i < 2:
            target[0], target[1] = target[1], target[0]
        grids.append(reshape(v, target))
    sizes = [_axis_size(v, 0) for v in vectors]
    if indexing == "xy" and rank > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    full = ones(sizes, vectors[0].dtype)
    return [g * full for g in grids]


def searchsorted(sorted_sequence, values, side="left", out_type=_dtypes.int32, name=None):
    """Where each value would go in the innermost dimension of `sorted_sequence` to keep it
    sorted: the count of elements below it ("left") or not above it ("right")."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be either 'right' or 'left'.  Saw: {side}.")
    seq, vals = convert_to_tensor(sorted_sequence), convert_to_tensor(values)
    if seq.ndim == 0 or seq.ndim != vals.ndim:
        raise ValueError(
            "sorted_sequence and values must have the same rank, at least 1: got shapes "
            f"{seq.shape} and {vals.shape}"
        )
    seq_row = expand_dims(seq, -2)  # [..., 1, N]
    val_col = expand_dims(vals, -1)  # [..., M, 1]
    if side == "left":
        placed = _math.less(seq_row, val_col)
    else:
        # Counting "not below" as binary search does: a NaN value goes after every element.
        placed = _math.logical_not(_math.less(val_col, seq_row))
    return _math.reduce_sum(cast(placed, out_type), axis=-1)


def sequence_mask(lengths, maxlen=None, dtype=_dtypes.bool, name=None):
    """``mask[..., j] = j < lengths[...]`` for j below `maxlen` (default: the longest)."""
    lengths = convert_to_tensor(lengths)
    if maxlen is None:
        maxlen = _math.maximum(_math.reduce_max(lengths), 0) if lengths.ndim else lengths
    maxlen = cast(convert_to_tensor(maxlen), lengths.dtype)
    if maxlen.ndim != 0:
        raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, got {maxlen.ndim}")
    mask = _math.less(range(maxlen, dtype=lengths.dtype), expand_dims(lengths, -1))
    return mask if _dtypes.as_dtype(dtype) == _dtypes.bool else cast(mask, dtype)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):  # noqa: A002
    """For each batch entry b, its first ``seq_lengths[b]`` slices along `seq_axis` reversed."""
    x = convert_to_tensor(input)
    if x.ndim < 2:
        raise ValueError(f"reverse_sequence needs an input of rank 2 or more, got rank {x.ndim}")
    lengths = cast(convert_to_tensor(seq_lengths), _dtypes.int64)
    seq_axis = 0 if seq_axis is None else seq_axis % x.ndim
    batch_axis = 0 if batch_axis is None else batch_axis % x.ndim
    if seq_axis == batch_axis:
        raise InvalidArgumentError(
            None, None, f"batch_dim == seq_dim == {seq_axis} [Op:ReverseSequence]"
        )
    perm = [batch_axis, seq_axis] + [
        a for a in np.arange(x.ndim) if a not in (batch_axis, seq_axis)
    ]
    moved = transpose(x, perm)
    steps = range(_axis_size(moved, 1), dtype=_dtypes.int64)[None, :]
    ends = lengths[:, None]
    source = where(_math.less(steps, ends), ends - 1 - steps, steps)
    flipped = gather(moved, source, axis=1, batch_dims=1)
    return transpose(flipped, np.argsort(perm).tolist())


def unravel_index(indices, dims, name=None):
    """The coordinates of flat `indices` in an array of shape `dims` (one row per dim)."""
    indices = convert_to_tensor(indices)
    dims = cast(convert_to_tensor(dims), indices.dtype)
    known_i, known_d = _static_value(indices), _static_value(dims)
    if known_i is not None and known_d is not None:
        limit = int(np.prod(known_d))
        if (known_i < 0).any() or (known_i >= limit).any():
            raise InvalidArgumentError(
                None, None, "index is out of bound as with dims [Op:UnravelIndex]"
            )
    # Row-major strides: the product of the dims after each one.
    strides = _math.cumprod(dims, exclusive=True, reverse=True)
    flat = reshape(indices, [1, -1])
    coords = _math.floormod(_math.floordiv(flat, strides[:, None]), dims[:, None])
    return coords if indices.ndim else reshape(coords, [-1])


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two `TensorShape`s; ValueError where they cannot broadcast."""
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    a, b = list(x.dims), list(y.dims)
    rank = max(len(a), len(b))
    a, b = [1] * (rank - len(a)) + a, [1] * (rank - len(b)) + b
    out = []
    for p, q in zip(a, b):
        if p == 1:
            out.append(q)
        elif q == 1 or q == p:
            out.append(p)
        elif p is None:
            out.append(q if q not in (None, 1) else None)
        elif q is None:
            out.append(p)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting: {x} and {y}")
    return TensorShape(out)


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two shapes given as integer vectors."""
    sx, sy = convert_to_tensor(shape_x), convert_to_tensor(shape_y)
    if sx.dtype != sy.dtype:
        raise TypeError(f"shapes must have the same dtype, got {sx.dtype} and {sy.dtype}")
    kx, ky = _static_value(sx), _static_value(sy)
    if kx is not None and ky is not None:
        try:
            dims = np.broadcast_shapes(tuple(kx.tolist()), tuple(ky.tolist()))
        except ValueError:
            raise InvalidArgumentError(
                None,
                None,
                f"Incompatible shapes: [{','.join(map(str, kx))}] vs. "
                f"[{','.join(map(str, ky))}] [Op:BroadcastArgs]",
            ) from None
        return _core.constant(list(dims), _dtypes.enum_of(sx.dtype))
    rank = _math.maximum(shape(sx)[0], shape(sy)[0])
    pad_x = concat([ones([rank - shape(sx)[0]], sx.dtype), sx], 0)
    pad_y = concat([ones([rank - shape(sy)[0]], sy.dtype), sy], 0)
    from ferroflow.check_ops import Assert

    compatible = _math.logical_or(
        _math.equal(pad_x, pad_y), _math.logical_or(_math.equal(pad_x, 1), _math.equal(pad_y, 1))
    )
    Assert(_math.reduce_all(compatible), ["Incompatible shapes:", pad_x, "vs.", pad_y])
    return where(_math.equal(pad_x, 1), pad_y, pad_x)


def shape_n(input, out_type=_dtypes.int32, name=None):  # noqa: A002
    return [shape(t, out_type) for t in input]


def identity_n(input, name=None):  # noqa: A002
    return [identity(t) for t in input]


def _scatter_into(tensor, indices, updates, combine):
    tensor, indices = convert_to_tensor(tensor), convert_to_tensor(indices)
    updates = convert_to_tensor(updates, dtype_hint=tensor.dtype)
    return combine(tensor, scatter_nd(indices, updates, shape(tensor, indices.dtype)))


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """TensorFlow's TensorScatterAdd: updates added into a copy of `tensor` one after another
    (not summed first, then added), and untouched elements kept as they are (-0.0 included)."""
    tensor, indices = convert_to_tensor(tensor), convert_to_tensor(indices)
    updates = convert_to_tensor(updates, dtype_hint=tensor.dtype)
    return _core.raw_op("TensorScatterAdd", [tensor, indices, updates], "{}")[0]


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    return _scatter_into(tensor, indices, updates, lambda t, s: t - s)


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """`tensor` with the slices at `indices` replaced by `updates`; of updates to one place, the
    last one wins (as TensorFlow's CPU kernel applies them in order). The gradient is
    TensorFlow's: zero where a slice was replaced, and every update (a later one to the same
    place included) gets the gradient at its place."""
    tensor, indices = convert_to_tensor(tensor), convert_to_tensor(indices)
    updates = convert_to_tensor(updates, dtype_hint=tensor.dtype)

    @custom_gradient
    def scatter(tensor, updates):
        written, hit = _last_updates_written(tensor, indices, updates)

        def grad(upstream):
            return where(hit, zeros_like(upstream), upstream), gather_nd(upstream, indices)

        return where(hit, written, tensor), grad

    return scatter(tensor, updates)


def _last_updates_written(tensor, indices, updates):
    """The scatter of the last update to each place, and where some update landed."""
    depth = indices.shape[-1]
    rows = reshape(indices, [-1, depth])
    # Each row's place as one number, then the last row of each place, found by sorting
    # (place, row) pairs, which are all distinct.
    dims = cast(shape(tensor)[:depth], _dtypes.int64)
    strides = _math.cumprod(dims, exclusive=True, reverse=True)
    place = _math.reduce_sum(cast(rows, _dtypes.int64) * strides, axis=1)
    count = cast(shape(rows)[0], _dtypes.int64)
    key = place * count + range(count, dtype=_dtypes.int64)
    order = argsort(key)
    sorted_place = gather(place, order)
    last = _math.not_equal(sorted_place, concat([sorted_place[1:], [-1]], 0))
    kept = boolean_mask(order, last)
    kept_rows = gather(rows, kept)
    flat_updates = reshape(updates, concat([[-1], shape(updates)[indices.ndim - 1 :]], 0))
    kept_updates = gather(flat_updates, kept)
    target = shape(tensor, rows.dtype)
    written = scatter_nd(kept_rows, kept_updates, target)
    hit = scatter_nd(kept_rows, ones_like(kept_updates, dtype=_dtypes.int32), target)
    return written, _math.greater(hit, 0)
