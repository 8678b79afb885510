"""`tf.sparse`: operations on `SparseTensor`s, composed from ferroflow's tensor ops (gathers,
scatters, sorts, cumulative sums, masks), so each runs eagerly and inside `tf.function` and is
differentiable where its parts are.

Conventions kept from TensorFlow: indices are int64 [N, rank] in canonical row-major order where
an op requires it (`to_dense` and the set ops check it, as TensorFlow's kernels do), outputs of
merging ops (`add`, `concat`, `maximum`, `transpose`, ...) come back ordered, and a bad index or
shape is an `InvalidArgumentError` (checked by an Assert node inside a graph).

Scatters into a shape known only when a graph runs (a value-sized count inside a trace) go
through the gradient of a gather, the one scatter the Rust core takes a run-time shape for.
"""

import operator

import numpy as np

from ferroflow import _core, _dispatch
from ferroflow import array_ops as _a
from ferroflow import bitwise as _bitwise
from ferroflow import dtypes as _dtypes
from ferroflow import manip_ops as _manip
from ferroflow import math as _m
from ferroflow.check_ops import Assert
from ferroflow.sparse_tensor import SparseTensor, SparseTensorSpec

__all__ = [
    "SparseTensor",
    "SparseTensorSpec",
    "add",
    "bincount",
    "concat",
    "cross",
    "cross_hashed",
    "expand_dims",
    "eye",
    "fill_empty_rows",
    "from_dense",
    "map_values",
    "mask",
    "maximum",
    "minimum",
    "reduce_max",
    "reduce_sum",
    "reorder",
    "reset_shape",
    "reshape",
    "retain",
    "sampled_addmm",
    "segment_mean",
    "segment_sqrt_n",
    "segment_sum",
    "slice",
    "softmax",
    "sparse_dense_matmul",
    "split",
    "to_dense",
    "to_indicator",
    "transpose",
]

_I64 = _dtypes.int64


# --- helpers ----------------------------------------------------------------------------------


def _sp(value):
    if not isinstance(value, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return value


def _static(tensor):
    """The numpy value of a tensor known now (eager, or a trace's constant), else None."""
    if _core.is_symbolic(tensor):
        return None
    return tensor.numpy()


def _static_list(tensor):
    value = _static(tensor)
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def _i64(x):
    x = _a.convert_to_tensor(x)
    return x if x.dtype == _I64 else _a.cast(x, _I64)


def _check(condition, message):
    """InvalidArgumentError(message) unless `condition` (eagerly now, in a graph when run)."""
    Assert(condition, [message])


def _count(tensor):
    """The leading size of `tensor`: an int when known, else an int64 scalar tensor."""
    n = tensor.shape.dims[0] if tensor.shape.rank else None
    if n is not None:
        return n
    return _a.shape(tensor, out_type=_I64)[0]


def _shape_of(*dims):
    """A shape from dims that are ints or int64 scalar tensors: a list when all are ints."""
    if all(isinstance(d, int) for d in dims):
        return list(dims)
    return _a.stack([_i64(d) for d in dims])


def _known_int(tensor):
    """A scalar tensor's value as an int when known now, else the tensor."""
    value = _static(tensor)
    return tensor if value is None else int(value)


def _shape_value(shape):
    """A shape as a list of ints when known now, else an int64 tensor."""
    if isinstance(shape, (list, tuple)) and all(isinstance(d, (int, np.integer)) for d in shape):
        return [int(d) for d in shape]
    if isinstance(shape, (list, tuple)):
        shape = _a.stack([_i64(d) for d in shape])
    shape = _i64(shape)
    known = _static_list(shape)
    return known if known is not None else shape


def _scatter(indices, updates, shape):
    """`tf.scatter_nd` (repeats summed) into `shape`, which may be known only at run time."""
    shape = _shape_value(shape)
    if isinstance(shape, list):
        return _a.scatter_nd(indices, updates, shape)
    dtype = updates.dtype
    floating = dtype.is_floating or dtype.is_complex
    values = updates if floating else _a.cast(updates, _dtypes.float64)
    from ferroflow.backprop import GradientTape

    base = _a.zeros(shape, values.dtype)
    with GradientTape() as tape:
        tape.watch(base)
        gathered = _a.gather_nd(base, indices)
    out = tape.gradient(gathered, base, output_gradients=values)
    return out if floating else _a.cast(out, dtype)


def _strides(dense_shape):
    """Row-major strides of a dense shape (int64 tensor)."""
    return _m.cumprod(dense_shape, exclusive=True, reverse=True)


def _linear(indices, dense_shape):
    """Row-major positions of `indices` in a tensor of `dense_shape` (int64 [N])."""
    if indices.shape.dims[1] == 0:
        return _a.zeros(_shape_of(_count(indices)), _I64)
    return _m.reduce_sum(indices * _a.expand_dims(_strides(dense_shape), 0), axis=1)


def _unlinear(positions, dense_shape):
    """Indices (int64 [N, rank]) of row-major `positions` in a tensor of `dense_shape`."""
    strides = _strides(dense_shape)
    safe = _m.maximum(dense_shape, _a.ones_like(dense_shape))
    return _m.floormod(
        _m.floordiv(_a.expand_dims(positions, 1), _a.expand_dims(_m.maximum(strides, 1), 0)),
        _a.expand_dims(safe, 0),
    )


def _in_bounds(indices, dense_shape):
    """All indices within [0, dense_shape)."""
    inside = _m.logical_and(
        _m.greater_equal(indices, 0), _m.less(indices, _a.expand_dims(dense_shape, 0))
    )
    return _m.reduce_all(inside)


def _strictly_increasing(keys):
    return _m.reduce_all(_m.greater(keys[1:], keys[:-1]))


def _check_canonical(sp, what):
    """TensorFlow's checks of a kernel that needs ordered, unrepeated, in-bounds indices."""
    _check(_in_bounds(sp.indices, sp.dense_shape), f"{what}: indices are out of bounds")
    keys = _linear(sp.indices, sp.dense_shape)
    _check(
        _strictly_increasing(keys),
        f"{what}: indices are out of order or repeated. Many sparse ops require sorted indices. "
        "Use `tf.sparse.reorder` to create a correctly ordered copy.",
    )


def _stable_order(keys):
    return _a.argsort(keys, stable=True)


def _shifted(keys):
    """(next, previous) of each entry of an int64 key vector, with a key unequal to every
    neighbour past either end (so both flags vectors have the length of `keys`, zero too)."""
    after = _a.concat([keys[1:], keys[-1:] + 1], 0)
    before = _a.concat([keys[:1] - 1, keys[:-1]], 0)
    return after, before


def _neighbours_equal(sorted_keys):
    """(same as next, same as previous) flags of a sorted int64 key vector."""
    after, before = _shifted(sorted_keys)
    return _m.equal(sorted_keys, after), _m.equal(sorted_keys, before)


def _segments(sorted_keys):
    """For sorted keys: (segment id of each entry, first flags, number of segments)."""
    _, same_prev = _neighbours_equal(sorted_keys)
    first = _m.logical_not(same_prev)
    ids = _m.cumsum(_a.cast(first, _I64)) - 1
    count = _m.reduce_sum(_a.cast(first, _I64))
    return ids, first, count


def _with_shape(sp, shape):
    if shape is not None:
        sp.set_shape(shape)
    return sp


def _zero_like_values(values):
    return _a.zeros([], values.dtype)


# --- construction and conversion ---------------------------------------------------------------


def from_dense(tensor, name=None):
    """The SparseTensor of `tensor`'s nonzero entries (in row-major order).

    >>> import ferroflow as tf
    >>> st = tf.sparse.from_dense([[0, 5], [7, 0]])
    >>> st.indices.numpy().tolist(), st.values.numpy().tolist()
    ([[0, 1], [1, 0]], [5, 7])
    """
    tensor = _a.convert_to_tensor(tensor)
    indices = _a.where(_m.not_equal(tensor, _a.zeros([], tensor.dtype)))
    values = _a.gather_nd(tensor, indices)
    out = SparseTensor(_i64(indices), values, _a.shape(tensor, out_type=_I64))
    return _with_shape(out, tensor.shape)


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor: `values` at `indices`, `default_value` (zero) elsewhere. With
    `validate_indices` the indices must be ordered and unrepeated (InvalidArgumentError)."""
    sp = _sp(sp_input)
    if validate_indices:
        _check_canonical(sp, "SparseToDense")
    else:
        _check(_in_bounds(sp.indices, sp.dense_shape), "SparseToDense: indices are out of bounds")
    shape = _shape_value(sp.dense_shape)
    dense = _scatter(sp.indices, sp.values, shape)
    if default_value is not None:
        default = _a.convert_to_tensor(default_value, dtype=sp.dtype)
        if _static(default) is None or np.any(_static(default) != 0):
            ones = _a.ones(_shape_of(_count(sp.indices)), _dtypes.int32)
            present = _m.greater(_scatter(sp.indices, ones, shape), 0)
            dense = _a.where(present, dense, _a.broadcast_to(default, _a.shape(dense)))
    return dense


def reorder(sp_input, name=None):
    """The same SparseTensor with its entries in canonical row-major order."""
    sp = _sp(sp_input)
    order = _stable_order(_linear(sp.indices, sp.dense_shape))
    out = SparseTensor(
        _a.take_rows(sp.indices, order), _a.take_rows(sp.values, order), sp.dense_shape
    )
    return _with_shape(out, sp.shape)


def eye(num_rows, num_columns=None, dtype=_dtypes.float32, name=None):
    """A two-dimensional SparseTensor with ones on the diagonal."""
    num_rows = _int64_arg(num_rows, "num_rows")
    num_columns = num_rows if num_columns is None else _int64_arg(num_columns, "num_columns")
    diag = _m.minimum(num_rows, num_columns)
    r = _a.range(diag, dtype=_I64)
    out = SparseTensor(
        _a.stack([r, r], axis=1),
        _a.ones(_a.stack([diag]), dtype),
        _a.stack([num_rows, num_columns]),
    )
    return out


def _int64_arg(value, name):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return _a.constant(int(value), _I64)
    t = _a.convert_to_tensor(value)
    if t.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"{name} must be an int64 or int32 Tensor, got {t.dtype.name}")
    return _i64(t)


# --- structure ----------------------------------------------------------------------------------


def expand_dims(sp_input, axis=None, name=None):
    """Inserts a dimension of size 1 at `axis` (default -1: last)."""
    sp = _sp(sp_input)
    rank = sp.dense_shape.shape.dims[0]
    axis = -1 if axis is None else axis
    if not isinstance(axis, (int, np.integer)):
        axis = _static(_a.convert_to_tensor(axis))
        if axis is None:
            raise TypeError("axis must be known while tracing in ferroflow's sparse.expand_dims")
        axis = int(axis)
    if rank is not None and not -rank - 1 <= axis <= rank:
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(None, None, f"axis {axis} out of range for rank {rank}")
    if axis < 0:
        axis += rank + 1
    n = _count(sp.indices)
    zeros = _a.zeros(_shape_of(n, 1), _I64)
    indices = _a.concat([sp.indices[:, :axis], zeros, sp.indices[:, axis:]], 1)
    shape = _a.concat([sp.dense_shape[:axis], _a.constant([1], _I64), sp.dense_shape[axis:]], 0)
    out = SparseTensor(indices, sp.values, shape)
    if sp.shape.rank is not None:
        dims = sp.shape.dims
        out.set_shape(dims[:axis] + [1] + dims[axis:])
    return out


def transpose(sp_input, perm=None, name=None):
    """Permutes the dimensions (default: reversed); the result is reordered."""
    sp = _sp(sp_input)
    rank = sp.dense_shape.shape.dims[0]
    if perm is None:
        perm = list(range(rank - 1, -1, -1))
    perm_t = _i64(perm)
    indices = _a.transpose(_a.take_rows(_a.transpose(sp.indices), perm_t))
    dense_shape = _a.take_rows(sp.dense_shape, perm_t)
    out = reorder(SparseTensor(indices, sp.values, dense_shape))
    perm_v = _static_list(perm_t)
    if perm_v is not None and sp.shape.rank is not None:
        out.set_shape([sp.shape.dims[p] for p in perm_v])
    return out


def reshape(sp_input, shape, name=None):
    """The same entries in a tensor of `shape` (one dimension may be -1), in the same order."""
    sp = _sp(sp_input)
    shape = _i64(shape)
    known_new = _static_list(shape)
    known_old = _static_list(sp.dense_shape)
    # TensorFlow's kernel checks when it runs (eagerly, before the Python checks below, which
    # decide while tracing).
    if known_new is not None and _core.graph_tracing():
        if sum(d == -1 for d in known_new) > 1:
            if known_old is not None:
                raise ValueError(
                    f"At most one dimension can be inferred (-1). Found: {np.array(known_new)}"
                )
        elif known_old is not None:
            size = int(np.prod(known_old))
            rest = int(np.prod([d for d in known_new if d != -1]))
            if -1 in known_new and 0 not in known_new:
                if not rest or size % rest:
                    raise ValueError(
                        f"Cannot reshape a tensor with {size} elements to shape {known_new}"
                    )
                known_new = [size // rest if d == -1 else d for d in known_new]
            if -1 not in known_new and int(np.prod(known_new)) != size:
                raise ValueError(
                    f"Cannot reshape a tensor with {size} elements to shape {known_new} "
                    f"({int(np.prod(known_new))} elements)."
                )
    in_size = _m.reduce_prod(sp.dense_shape)
    unknown = _m.equal(shape, -1)
    n_unknown = _m.reduce_sum(_a.cast(unknown, _I64))
    _check(_m.less_equal(n_unknown, 1), "SparseReshape: only one output dimension may be -1")
    product = _m.reduce_prod(_a.where(unknown, _a.ones_like(shape), shape))
    inferred = _m.floordiv(in_size, _m.maximum(product, 1))
    new_shape = _a.where(unknown, _a.broadcast_to(inferred, _a.shape(shape)), shape)
    _check(
        _m.equal(_m.reduce_prod(new_shape), in_size),
        "SparseReshape: Input to reshape is a SparseTensor with a different number of "
        "dense elements than the requested shape",
    )
    positions = _linear(sp.indices, sp.dense_shape)
    indices = _unlinear(positions, new_shape)
    if known_new is not None and -1 not in known_new:
        new_shape = _a.constant(known_new, _I64)
    return SparseTensor(indices, _a.identity(sp.values), new_shape)


def reset_shape(sp_input, new_shape=None):
    """The same entries with dense shape `new_shape` (each dimension at least the old one), or
    the tightest shape holding the indices."""
    sp = _sp(sp_input)
    if new_shape is None:
        low = _m.reduce_max(
            _a.concat([sp.indices, -_a.ones([1, sp.indices.shape.dims[1]], _I64)], 0), axis=0
        )
        out_shape = _m.maximum(low + 1, 0)
        return SparseTensor(sp.indices, sp.values, out_shape)
    shape = _a.convert_to_tensor(new_shape)
    if shape.shape.rank != 1:
        raise ValueError(f"Shape {shape.shape} must have rank 1")
    shape = _i64(shape)
    rank = sp.dense_shape.shape.dims[0]
    if shape.shape.dims[0] is not None and rank is not None and shape.shape.dims[0] != rank:
        raise ValueError(f"Dimensions {shape.shape.dims[0]} and {rank} are not compatible")
    known = _static_list(shape)
    if known is not None and sp.shape.is_fully_defined():
        old = np.array(sp.shape.as_list())
        if not np.all(old <= np.array(known)):
            raise ValueError(
                "Requested new_shape should have dimension sizes >= sp_input.shape.  Found "
                f"new_shape ({old}), sp_input.shape ({np.array(known)})."
            )
    else:
        _check(
            _m.reduce_all(_m.less_equal(sp.dense_shape, shape)),
            "Requested new_shape should have dimension sizes >= sp_input.shape",
        )
    return SparseTensor(sp.indices, sp.values, shape)


def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """Concatenates SparseTensors along `axis`; with `expand_nonconcat_dims` the other
    dimensions take the largest size. The result is in row-major order."""
    if not isinstance(sp_inputs, list):
        raise TypeError("Inputs must be a list")
    if not sp_inputs:
        if _core.graph_tracing():
            raise ValueError("List argument 'indices' to 'SparseConcat' Op has length 0")
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(None, None, "SparseConcat needs at least one input")
    sp_inputs = [_sp(s) for s in sp_inputs]
    if len(sp_inputs) == 1:
        return sp_inputs[0]
    rank = sp_inputs[0].dense_shape.shape.dims[0]
    for s in sp_inputs[1:]:
        other = s.dense_shape.shape.dims[0]
        if rank is not None and other is not None and other != rank:
            from ferroflow.errors import InvalidArgumentError

            raise InvalidArgumentError(
                None, None, f"Ranks of all input tensors should match: {rank} vs. {other}"
            )
    if axis < 0:
        axis += rank
    shapes = [s.dense_shape for s in sp_inputs]
    if expand_nonconcat_dims:
        biggest = _m.reduce_max(_a.stack(shapes), axis=0)
        shapes = [
            _a.concat([biggest[:axis], s[axis : axis + 1], biggest[axis + 1 :]], 0) for s in shapes
        ]
    else:
        for s in shapes[1:]:
            same = _m.equal(
                _a.concat([s[:axis], s[axis + 1 :]], 0),
                _a.concat([shapes[0][:axis], shapes[0][axis + 1 :]], 0),
            )
            _check(_m.reduce_all(same), "SparseConcat: Input shapes must match")
    offsets = []
    total = _a.constant(0, _I64)
    for s in shapes:
        offsets.append(total)
        total = total + s[axis]
    onehot = _a.one_hot(axis, rank, dtype=_I64)
    indices = _a.concat(
        [s.indices + _a.expand_dims(off * onehot, 0) for s, off in zip(sp_inputs, offsets)], 0
    )
    values = _a.concat([s.values for s in sp_inputs], 0)
    dense_shape = shapes[0] * (1 - onehot) + total * onehot
    out = reorder(SparseTensor(indices, values, dense_shape))
    static = [s.shape for s in sp_inputs]
    if all(sh.rank is not None for sh in static):
        dims = []
        for d in range(rank):
            column = [sh.dims[d] for sh in static]
            if d == axis:
                dims.append(None if None in column else sum(column))
            elif expand_nonconcat_dims:
                dims.append(None if None in column else max(column))
            else:
                known = [c for c in column if c is not None]
                dims.append(known[0] if known else None)
        out.set_shape(dims)
    return out


def slice(sp_input, start, size, name=None):  # noqa: A001 - TensorFlow's name
    """The entries within [start, start + size) (clipped to the dense shape), shifted to
    start at zero."""
    sp = _sp(sp_input)
    start = _i64(start)
    size = _i64(size)
    end = _m.minimum(start + size, sp.dense_shape)
    out_shape = _m.maximum(end - start, 0)
    inside = _m.reduce_all(
        _m.logical_and(
            _m.greater_equal(sp.indices, _a.expand_dims(start, 0)),
            _m.less(sp.indices, _a.expand_dims(end, 0)),
        ),
        axis=1,
    )
    keep = _a.reshape(_a.where(inside), [-1])
    indices = _a.take_rows(sp.indices, keep) - _a.expand_dims(start, 0)
    return SparseTensor(indices, _a.take_rows(sp.values, keep), out_shape)


def retain(sp_input, to_retain):
    """The entries whose `to_retain` flag (a bool vector, one per value) is true."""
    sp = _sp(sp_input)
    to_retain = _a.convert_to_tensor(to_retain)
    if to_retain.shape.rank != 1:
        raise ValueError(f"Shape {to_retain.shape} must have rank 1")
    n, m = sp.values.shape.dims[0], to_retain.shape.dims[0]
    if n is not None and m is not None and n != m:
        raise ValueError(f"Dimensions {n} and {m} are not compatible")
    keep = _a.reshape(_a.where(to_retain), [-1])
    out = SparseTensor(
        _a.take_rows(sp.indices, keep), _a.take_rows(sp.values, keep), sp.dense_shape
    )
    return _with_shape(out, sp.shape)


def split(sp_input=None, num_split=None, axis=None, name=None):
    """Splits into `num_split` SparseTensors along `axis` (the first `size % num_split` one
    larger), each entry kept in order in its part."""
    if num_split is None:
        raise ValueError("Argument `num_split` is required.")
    if axis is None:
        raise ValueError("Argument `axis` is required.")
    sp = _sp(sp_input)
    rank = sp.dense_shape.shape.dims[0]
    num_split = operator.index(num_split)
    axis = operator.index(axis)
    from ferroflow.errors import InvalidArgumentError

    if num_split < 1:
        raise InvalidArgumentError(
            None, None, f"Value for attr 'num_split' of {num_split} must be at least minimum 1"
        )
    if not -rank <= axis < rank:
        raise InvalidArgumentError(None, None, f"Input split_dim should be in [{-rank}, {rank})")
    if axis < 0:
        axis += rank
    dim = sp.dense_shape[axis]
    known = _static(dim)
    if (known is not None and num_split > int(known)) or num_split >= 2**31:
        raise InvalidArgumentError(
            None, None, f"Input num_split should be at most the size of dimension {axis}"
        )
    _check(
        _m.less_equal(_a.constant(num_split, _I64), dim),
        f"SparseSplit: num_split {num_split} must be at most the size of dimension {axis}",
    )
    base = _m.floordiv(dim, num_split)
    extra = _m.floormod(dim, num_split)
    out = []
    begin = _a.constant(0, _I64)
    onehot = _a.one_hot(axis, rank, dtype=_I64)
    for i in range(num_split):
        size = base + _a.cast(_m.less(_a.constant(i, _I64), extra), _I64)
        column = sp.indices[:, axis]
        inside = _m.logical_and(_m.greater_equal(column, begin), _m.less(column, begin + size))
        keep = _a.reshape(_a.where(inside), [-1])
        indices = _a.take_rows(sp.indices, keep) - _a.expand_dims(begin * onehot, 0)
        shape = sp.dense_shape * (1 - onehot) + size * onehot
        out.append(SparseTensor(indices, _a.take_rows(sp.values, keep), shape))
        begin = begin + size
    return out


# --- elementwise ----------------------------------------------------------------------------------


def _merged(a, b):
    """Entries of canonical `a` and `b` merged in row-major order: (indices, values, from_a,
    same_next, first) with an entry present in both appearing twice, a's first."""
    keys = _a.concat([_linear(a.indices, a.dense_shape), _linear(b.indices, a.dense_shape)], 0)
    order = _stable_order(keys)
    keys = _a.take_rows(keys, order)
    indices = _a.take_rows(_a.concat([a.indices, b.indices], 0), order)
    values = _a.take_rows(_a.concat([a.values, b.values], 0), order)
    same_next, same_prev = _neighbours_equal(keys)
    return indices, values, same_next, _m.logical_not(same_prev)


def _next_or_zero(values):
    return _a.concat([values[1:], _a.zeros_like(values[:1])], 0)


def add(a, b, threshold=0):
    """`a + b`: a SparseTensor when both are sparse (an entry present in both is kept when
    |sum| >= threshold), a dense tensor when one is dense."""
    a_sparse, b_sparse = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if not (a_sparse or b_sparse):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if a_sparse and b_sparse:
        if a.dtype != b.dtype:
            from ferroflow.errors import InvalidArgumentError

            raise InvalidArgumentError(
                None, None, f"SparseAdd: values dtypes differ: {a.dtype.name} vs {b.dtype.name}"
            )
        real = a.dtype.real_dtype if a.dtype.is_complex else a.dtype
        threshold = _a.convert_to_tensor(threshold, dtype=real)
        # TensorFlow's kernel checks the shapes when it runs; while tracing its static check
        # (after building the op) raises first.
        if _core.graph_tracing() and not a.shape.is_compatible_with(b.shape):
            raise ValueError(f"Shapes {a.shape} and {b.shape} are not compatible")
        _check(
            _m.reduce_all(_m.equal(a.dense_shape, b.dense_shape)),
            "SparseAdd: Operands do not have the same shape",
        )
        indices, values, same_next, first = _merged(a, b)
        summed = values + _a.where(same_next, _next_or_zero(values), _a.zeros_like(values))
        big = _m.greater_equal(_m.abs(summed), threshold)
        keep = _m.logical_and(first, _m.logical_or(_m.logical_not(same_next), big))
        keep = _a.reshape(_a.where(keep), [-1])
        out = SparseTensor(_a.take_rows(indices, keep), _a.take_rows(summed, keep), a.dense_shape)
        shape = a.shape.merge_with(b.shape)
        return _with_shape(out, shape)
    if b_sparse:
        a, b = b, a
    dense = _a.convert_to_tensor(b, dtype=a.dtype)
    _check(
        _m.reduce_all(_m.equal(_a.shape(dense, out_type=_I64), a.dense_shape)),
        "SparseTensorDenseAdd: the dense operand's shape differs from the sparse one's",
    )
    return dense + _scatter(a.indices, a.values, _a.shape(dense, out_type=_I64))


def _union_max_min(sp_a, sp_b, pick):
    sp_a, sp_b = _sp(sp_a), _sp(sp_b)
    _check(
        _m.reduce_all(_m.equal(sp_a.dense_shape, sp_b.dense_shape)),
        "Operands do not have the same shape",
    )
    indices, values, same_next, first = _merged(sp_a, sp_b)
    other = _a.where(same_next, _next_or_zero(values), _a.zeros_like(values))
    chosen = pick(values, other)
    keep = _a.reshape(_a.where(first), [-1])
    out = SparseTensor(_a.take_rows(indices, keep), _a.take_rows(chosen, keep), sp_a.dense_shape)
    return _with_shape(out, sp_a.shape)


def maximum(sp_a, sp_b, name=None):
    """Elementwise maximum of two SparseTensors of one shape (absent entries count as zero;
    the result has the union of their indices)."""
    return _union_max_min(sp_a, sp_b, _m.maximum)


def minimum(sp_a, sp_b, name=None):
    """Elementwise minimum of two SparseTensors of one shape (absent entries count as zero)."""
    return _union_max_min(sp_a, sp_b, _m.minimum)


def _broadcast_gather(dense, sp):
    """`dense` (broadcastable to sp's shape) read at each of sp's indices."""
    rank = sp.indices.shape.dims[1]
    d_rank = dense.shape.rank
    if d_rank > rank:
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(
            None, None, "SparseDenseBinaryOpShared broadcasts dense to sparse only"
        )
    if d_rank == 0:
        return _a.broadcast_to(dense, _a.shape(sp.values))
    d_shape = _a.shape(dense, out_type=_I64)
    tail = sp.dense_shape[rank - d_rank :]
    _check(
        _m.reduce_all(_m.logical_or(_m.equal(d_shape, 1), _m.equal(d_shape, tail))),
        "SparseDenseBinaryOpShared broadcasts dense to sparse only",
    )
    positions = sp.indices[:, rank - d_rank :] * _a.expand_dims(
        _a.cast(_m.not_equal(d_shape, 1), _I64), 0
    )
    return _a.gather_nd(dense, positions)


_TRUEDIV = {
    _dtypes.uint8: _dtypes.float32,
    _dtypes.int8: _dtypes.float32,
    _dtypes.uint16: _dtypes.float32,
    _dtypes.int16: _dtypes.float32,
    _dtypes.uint32: _dtypes.float64,
    _dtypes.int32: _dtypes.float64,
    _dtypes.uint64: _dtypes.float64,
    _dtypes.int64: _dtypes.float64,
}


def _sparse_dense_cwise(sp, other, op):
    """`sp * dense`, `sp / dense` (TensorFlow's SparseDenseCwise ops): same indices."""
    if op == "truediv":
        dense = _a.convert_to_tensor(other, dtype_hint=sp.dtype)
        if dense.dtype != sp.dtype:
            raise TypeError(
                f"`x` and `y` must have the same dtype, got {sp.dtype!r} != {dense.dtype!r}."
            )
    else:
        dense = _a.convert_to_tensor(other, dtype=sp.dtype)
    values = sp.values
    gathered = _broadcast_gather(dense, sp)
    if op == "mul":
        out = values * gathered
    elif op == "truediv":
        cast_to = _TRUEDIV.get(sp.dtype)
        if cast_to is not None:
            values, gathered = _a.cast(values, cast_to), _a.cast(gathered, cast_to)
        out = values / gathered
    else:
        out = _m.floordiv(values, gathered) if sp.dtype.is_integer else values / gathered
    return _with_shape(SparseTensor(sp.indices, out, sp.dense_shape), sp.shape)


def map_values(op, *args, **kwargs):
    """`op` applied to the values of the SparseTensors among the arguments (which must share
    indices and dense shape); the result has their indices."""
    from ferroflow import nest
    from ferroflow.check_ops import assert_equal

    found = []

    def replace(value):
        if isinstance(value, SparseTensor):
            found.append(value)
            return value.values
        return value

    inner_args = nest.map_structure(replace, list(args))
    inner_kwargs = nest.map_structure(replace, dict(kwargs))
    if not found:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = found[0]
    for other in found[1:]:
        assert_equal(other.dense_shape, first.dense_shape, message="Mismatched shapes")
        assert_equal(other.indices, first.indices, message="Mismatched indices")
    return SparseTensor(first.indices, op(*inner_args, **inner_kwargs), first.dense_shape)


# --- reductions -----------------------------------------------------------------------------------


def _reduction_axes(sp, axis):
    rank = sp.indices.shape.dims[1]
    if axis is None:
        return list(range(rank))
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    axes = [int(_static(_a.convert_to_tensor(x))) if not isinstance(x, int) else x for x in axes]
    out = []
    for x in axes:
        if not -rank <= x < rank:
            from ferroflow.errors import InvalidArgumentError

            raise InvalidArgumentError(
                None, None, f"Invalid reduction dimension {x}, for input with {rank} dimensions."
            )
        out.append(x % rank)
    return sorted(set(out))


def _reduced(sp, axis, keepdims):
    """(kept columns of indices, output dense shape, static output shape) of a reduction."""
    rank = sp.indices.shape.dims[1]
    axes = _reduction_axes(sp, axis)
    kept = [d for d in range(rank) if d not in axes]
    cols = [d for d in range(rank) if keepdims or d in kept]
    n = _count(sp.indices)
    zero_col = _a.zeros(_shape_of(n, 1), _I64)
    parts = [sp.indices[:, d : d + 1] if d in kept else zero_col for d in cols]
    indices = _a.concat(parts, 1) if parts else _a.zeros(_shape_of(n, 0), _I64)
    one = _a.constant([1], _I64)
    shape_parts = [sp.dense_shape[d : d + 1] if d in kept else one for d in cols]
    shape = _a.concat(shape_parts, 0) if shape_parts else _a.zeros([0], _I64)
    static = None
    if sp.shape.rank is not None:
        static = [sp.shape.dims[d] if d in kept else 1 for d in cols]
    return indices, shape, static


def _reduce(sp_input, axis, keepdims, output_is_sparse, kind):
    sp = _sp(sp_input)
    indices, shape, static = _reduced(sp, axis, bool(keepdims))
    keys = _linear(indices, shape)
    if kind == "max":
        order = _stable_order(sp.values)
        order = _a.take_rows(order, _stable_order(_a.take_rows(keys, order)))
    else:
        order = _stable_order(keys)
    keys_sorted = _a.take_rows(keys, order)
    values_sorted = _a.take_rows(sp.values, order)
    ids, first, count = _segments(keys_sorted)
    if kind == "max":
        same_next, _ = _neighbours_equal(keys_sorted)
        last = _a.reshape(_a.where(_m.logical_not(same_next)), [-1])
        reduced = _a.take_rows(values_sorted, last)
    else:
        n = _known_int(count)
        reduced = _scatter(_a.expand_dims(ids, 1), values_sorted, _shape_of(n))
    group_indices = _a.take_rows(_a.take_rows(indices, order), _a.reshape(_a.where(first), [-1]))
    if output_is_sparse:
        return _with_shape(SparseTensor(group_indices, reduced, shape), static)
    dense = _scatter(group_indices, reduced, _shape_value(shape))
    return dense


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """Sum over `axis` (all by default): a dense tensor, or with `output_is_sparse` a
    SparseTensor of the nonempty sums in row-major order."""
    return _reduce(sp_input, axis, keepdims, output_is_sparse, "sum")


def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """Max over `axis` of the values present (implicit zeros do not count; an empty group
    gives 0 in the dense result)."""
    return _reduce(sp_input, axis, keepdims, output_is_sparse, "max")


def softmax(sp_input, name=None):
    """Softmax of each innermost row's present values (rank >= 2), same indices."""
    sp = _sp(sp_input)
    rank = sp.indices.shape.dims[1]
    if rank is not None and rank < 2:
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(None, None, "Input should have rank >= 2.")
    keys = _linear(sp.indices[:, :-1], sp.dense_shape[:-1])
    order = _stable_order(sp.values)
    order = _a.take_rows(order, _stable_order(_a.take_rows(keys, order)))
    keys_sorted = _a.take_rows(keys, order)
    values = _a.take_rows(sp.values, order)
    ids, first, count = _segments(keys_sorted)
    same_next, _ = _neighbours_equal(keys_sorted)
    last = _a.reshape(_a.where(_m.logical_not(same_next)), [-1])
    biggest = _a.take_rows(_a.take_rows(values, last), ids)
    e = _m.exp(values - biggest)
    n = _known_int(count)
    total = _scatter(_a.expand_dims(ids, 1), e, _shape_of(n))
    result = e / _a.take_rows(total, ids)
    inverse = _stable_order(order)
    out = SparseTensor(sp.indices, _a.take_rows(result, inverse), sp.dense_shape)
    return _with_shape(out, sp.shape)


# --- products -----------------------------------------------------------------------------------


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """`sp_a @ b` for a rank-2 SparseTensor and a dense matrix (or dense @ sparse when `b` is
    the SparseTensor), with optional adjoints; differentiable in the values and `b`."""
    if isinstance(b, SparseTensor) and not isinstance(sp_a, SparseTensor):
        dense = _a.convert_to_tensor(sp_a)
        if adjoint_a != adjoint_b:
            return _a.transpose(_sp_matmul(b, dense, adjoint_a, adjoint_b))
        return _a.transpose(_sp_matmul(b, dense, not adjoint_b, not adjoint_a))
    return _sp_matmul(_sp(sp_a), b, adjoint_a, adjoint_b)


_SEGMENT_SUM_DTYPES = (_dtypes.float32, _dtypes.float64)


def _sp_matmul(sp, b, adjoint_a, adjoint_b):
    b = _a.convert_to_tensor(b, dtype_hint=sp.dtype)
    if b.dtype != sp.dtype:
        from ferroflow.errors import InvalidArgumentError

        if _core.graph_tracing():  # TensorFlow's graph refuses the op while building it
            raise TypeError(
                f"Input 'b' of 'SparseTensorDenseMatMul' Op has type {b.dtype.name} that does "
                f"not match type {sp.dtype.name} of argument 'a_values'."
            )
        raise InvalidArgumentError(
            None,
            None,
            f"cannot compute SparseTensorDenseMatMul as input #3(zero-based) was expected to be "
            f"a {sp.dtype.name} tensor but is a {b.dtype.name} tensor",
        )
    if b.shape.rank != 2 or (sp.shape.rank is not None and sp.shape.rank != 2):
        raise ValueError("Shape must be rank 2")
    values = sp.values
    rows, cols = sp.indices[:, 0], sp.indices[:, 1]
    out_rows, inner = sp.dense_shape[0], sp.dense_shape[1]
    if adjoint_a:
        rows, cols, out_rows, inner = cols, rows, inner, out_rows
        if values.dtype.is_complex:
            values = _m.conj(values)
    if adjoint_b:
        b = _a.transpose(b)
        if b.dtype.is_complex:
            b = _m.conj(b)
    b_rows = b.shape.dims[0]
    inner_v = _static(inner)
    if b_rows is not None and inner_v is not None and int(inner_v) != b_rows:
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(
            None,
            None,
            f"Cannot multiply A and B because inner dimension does not match: {int(inner_v)} "
            f"vs. {b_rows}.  Did you forget a transpose?  Dimensions of A: "
            f"[{_static_list(sp.dense_shape)}).  Dimensions of B: {b.shape}",
        )
    b_rows_t = _a.shape(b, out_type=_I64)[0]
    _check(
        _m.reduce_all(
            _m.logical_and(
                _m.logical_and(_m.greater_equal(rows, 0), _m.less(rows, out_rows)),
                _m.logical_and(_m.greater_equal(cols, 0), _m.less(cols, b_rows_t)),
            )
        ),
        "SparseTensorDenseMatMul: an index is out of bounds",
    )
    products = _a.expand_dims(values, 1) * _a.take_rows(b, cols)
    n_cols = b.shape.dims[1]
    n_cols = n_cols if n_cols is not None else _a.shape(b, out_type=_I64)[1]
    out_rows_v = _static(out_rows)
    out_rows = int(out_rows_v) if out_rows_v is not None else out_rows
    if products.dtype in _SEGMENT_SUM_DTYPES:
        # The products summed by output row: one pass, where a scatter_nd makes two.
        from ferroflow.segment_ops import unsorted_segment_sum

        return unsorted_segment_sum(products, rows, out_rows)
    return _scatter(_a.expand_dims(rows, 1), products, [out_rows, n_cols])


def sampled_addmm(
    indices, values, dense_shape, mat1, mat2, beta=1.0, alpha=1.0, output_type=_dtypes.float32
):
    """`alpha * (mat1 @ mat2)` at `indices` plus `beta * values`: (indices, values,
    dense_shape), with leading batch dimensions allowed."""
    indices = _a.convert_to_tensor(indices)
    values = _a.convert_to_tensor(values, dtype=output_type)
    dense_shape = _a.convert_to_tensor(dense_shape, dtype=_dtypes.int32)
    mat1 = _a.convert_to_tensor(mat1, dtype=output_type)
    mat2 = _a.convert_to_tensor(mat2, dtype=output_type)
    rank = mat1.shape.rank
    out_shape = _a.stack([_a.shape(mat1)[-2], _a.shape(mat2)[-1]])
    same = _m.reduce_all(_m.equal(dense_shape, out_shape))
    if _static(same) is not None:
        if not bool(_static(same)):
            raise ValueError(f"Dense shape: {dense_shape} does not match output shape: {out_shape}")
    else:
        _check(same, "Dense shape does not match output shape")
    batch = rank - 2
    row_idx = indices[..., :-1]
    col_idx = _a.concat([indices[..., :-2], indices[..., -1:]], -1)
    perm = list(range(batch)) + [rank - 1, rank - 2]
    rows = _gather_nd_batched(mat1, row_idx, batch)
    cols = _gather_nd_batched(_a.transpose(mat2, perm), col_idx, batch)
    dot = _m.reduce_sum(rows * cols, axis=-1)
    return indices, dot * alpha + values * beta, dense_shape


def _gather_nd_batched(params, indices, batch):
    """`tf.gather_nd(params, indices, batch_dims=batch)`: the leading `batch` dimensions of
    `indices` pick the matching batch elements of `params`."""
    if batch == 0:
        return _a.gather_nd(params, indices)
    lead = _a.shape(indices)[:-1]
    rank = indices.shape.rank - 1
    prefix = []
    for j in range(batch):
        axis_shape = [1] * rank
        axis_shape[j] = -1
        grid = _a.reshape(_a.range(_a.shape(indices)[j], dtype=indices.dtype), axis_shape)
        prefix.append(_a.expand_dims(_a.broadcast_to(grid, lead), -1))
    return _a.gather_nd(params, _a.concat([*prefix, indices], -1))


# --- segments -----------------------------------------------------------------------------------


def _sparse_segment(data, indices, segment_ids, num_segments, kind, sparse_gradient):
    data = _a.convert_to_tensor(data)
    indices = _a.convert_to_tensor(indices)
    segment_ids = _a.convert_to_tensor(segment_ids)
    n_rows = _a.shape(data, out_type=_I64)[0]
    idx64 = _i64(indices)
    _check(
        _m.reduce_all(_m.logical_and(_m.greater_equal(idx64, 0), _m.less(idx64, n_rows))),
        "SparseSegmentReduction: an index is out of range",
    )
    ids = _i64(segment_ids)
    _check(_m.reduce_all(_m.less_equal(ids[:-1], ids[1:])), "segment ids are not increasing")
    _check(_m.reduce_all(_m.greater_equal(ids, 0)), "segment ids must be >= 0")
    # TensorFlow's gradient to `data` is IndexedSlices only with sparse_gradient=True.
    rows = (_a.gather if sparse_gradient else _a.take_rows)(data, indices)
    if num_segments is None:
        n = _m.maximum(_m.reduce_max(_a.concat([ids, _a.constant([-1], _I64)], 0)) + 1, 0)
    else:
        n = _i64(num_segments)
        _check(_m.reduce_all(_m.less(ids, n)), "segment ids must be < num_segments")
    from ferroflow.segment_ops import unsorted_segment_sum

    total = unsorted_segment_sum(rows, ids, n)
    if kind == "sum":
        return total
    count = unsorted_segment_sum(_a.ones_like(ids, dtype=data.dtype), ids, n)
    count = _m.maximum(count, _a.ones([], data.dtype))
    if kind == "sqrt_n":
        count = _m.sqrt(count)
    for _ in range(data.shape.rank - 1):
        count = _a.expand_dims(count, -1)
    return total / count


def segment_sum(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """Sums of `data[indices]` per (sorted) segment id."""
    return _sparse_segment(data, indices, segment_ids, num_segments, "sum", sparse_gradient)


def segment_mean(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """Means of `data[indices]` per (sorted) segment id (0 for an empty segment)."""
    return _sparse_segment(data, indices, segment_ids, num_segments, "mean", sparse_gradient)


def segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """Sums of `data[indices]` per segment divided by the square root of the count."""
    return _sparse_segment(data, indices, segment_ids, num_segments, "sqrt_n", sparse_gradient)


# --- rows, counts, indicators ---------------------------------------------------------------------


def fill_empty_rows(sp_input, default_value, name=None):
    """(the SparseTensor with `default_value` at [row, 0, ...] of every empty row, a bool
    vector marking the empty rows). Entries keep their order within a row."""
    sp = _sp(sp_input)
    default = _a.convert_to_tensor(default_value, dtype=sp.dtype)
    n_rows = sp.dense_shape[0]
    rows = sp.indices[:, 0]
    n = _count(sp.indices)
    ones = _a.ones(_shape_of(n), _dtypes.int32)
    counts = _scatter(_a.expand_dims(rows, 1), ones, _shape_of(_known_int(n_rows)))
    empty = _m.equal(counts, 0)
    empty_rows = _a.reshape(_a.where(empty), [-1])
    rank = sp.indices.shape.dims[1]
    k = _count(empty_rows)
    new_indices = _a.concat(
        [
            _a.expand_dims(empty_rows, 1),
            _a.zeros(_shape_of(k, rank - 1), _I64),
        ],
        1,
    )
    indices = _a.concat([sp.indices, new_indices], 0)
    values = _a.concat([sp.values, _a.fill(_shape_of(k), default)], 0)
    order = _stable_order(indices[:, 0])
    out = SparseTensor(_a.take_rows(indices, order), _a.take_rows(values, order), sp.dense_shape)
    return _with_shape(out, sp.shape), empty


def to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor [..., vocab_size]: True at each row's ids (the values)."""
    sp = _sp(sp_input)
    if not sp.dtype.is_integer:
        raise TypeError(f"sp_input.values must be an integer tensor, got {sp.dtype.name}")
    ids = _i64(sp.values)
    indices = _a.concat([sp.indices[:, :-1], _a.expand_dims(ids, 1)], 1)
    shape = _a.concat([sp.dense_shape[:-1], _a.reshape(_i64(vocab_size), [1])], 0)
    n = _count(sp.indices)
    values = _a.ones(_shape_of(n), _dtypes.int32)
    merged = reorder(SparseTensor(indices, values, shape))
    dense = to_dense(merged, validate_indices=False)
    return _m.greater(dense, 0)


def _check_bincount_values(dtype):
    # TensorFlow's kernel takes int32 and int64 values only: its graph refuses the op while
    # building it (TypeError), eager execution refuses the kernel.
    if dtype in (_dtypes.int32, _dtypes.int64):
        return
    if _core.graph_tracing():
        raise TypeError(
            f"Value passed to parameter 'values' has DataType {dtype.name} not in list of "
            "allowed values: int32, int64"
        )
    from ferroflow.errors import InvalidArgumentError

    raise InvalidArgumentError(
        None,
        None,
        f"Value for attr 'T' of {dtype.name} is not in the list of allowed values: int32, int64",
    )


def bincount(
    values,
    weights=None,
    axis=0,
    minlength=None,
    maxlength=None,
    binary_output=False,
    name=None,
):
    """Counts of each nonnegative integer value (per row with `axis=-1`) as a SparseTensor;
    with `weights`, sums of the weights; with `binary_output`, ones."""
    if not isinstance(values, SparseTensor):
        values = _a.convert_to_tensor(values)
    if weights is not None and not isinstance(weights, SparseTensor):
        weights = _a.convert_to_tensor(weights)
    if weights is not None and binary_output:
        raise ValueError(
            "Arguments `binary_output` and `weights` are mutually exclusive. Please specify "
            "only one."
        )
    if axis is None:
        axis = 0
    if axis not in [0, -1]:
        raise ValueError(
            f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported."
        )
    if isinstance(values, SparseTensor):
        if weights is not None and not isinstance(weights, SparseTensor):
            raise ValueError(
                "Argument `weights` must be a SparseTensor if `values` is a SparseTensor. "
                f"Received weights={weights} of type: {type(weights).__name__}"
            )
        if weights is not None:
            weights = weights.values
        batched = axis == -1 and values.indices.shape.dims[1] == 2
        rows = values.indices[:, 0] if batched else None
        n_batches = values.dense_shape[0] if batched else None
        flat = values.values
    else:
        if weights is not None:
            weights = _a.reshape(weights, [-1]) if axis == 0 else weights
        batched = axis == -1 and values.shape.rank == 2
        if batched:
            shape = _a.shape(values, out_type=_I64)
            n_batches = shape[0]
            rows = _m.floordiv(_a.range(_a.size(values, out_type=_I64), dtype=_I64), shape[1])
            if weights is not None:
                weights = _a.reshape(weights, [-1])
        else:
            rows, n_batches = None, None
        flat = _a.reshape(values, [-1])
    _check_bincount_values(flat.dtype)
    count_dtype = weights.dtype if weights is not None else flat.dtype
    flat = _i64(flat)
    _check(_m.reduce_all(_m.greater_equal(flat, 0)), "Input values must all be non-negative")
    if maxlength is not None and maxlength >= 0:
        keep = _m.less(flat, maxlength)
    else:
        keep = _a.ones_like(flat, dtype=_dtypes.bool)
    keep_at = _a.reshape(_a.where(keep), [-1])
    flat = _a.take_rows(flat, keep_at)
    if weights is not None:
        weights = _a.take_rows(weights, keep_at)
    largest = _m.reduce_max(_a.concat([flat, _a.constant([-1], _I64)], 0))
    size = largest + 1
    if minlength is not None and minlength >= 0:
        size = _m.maximum(size, minlength)
    if maxlength is not None and maxlength >= 0:
        size = _m.minimum(size, maxlength)
    if batched:
        rows = _a.take_rows(_i64(rows), keep_at)
        keys = rows * size + flat
    else:
        keys = flat
    order = _stable_order(keys)
    keys_sorted = _a.take_rows(keys, order)
    ids, first, count = _segments(keys_sorted)
    if binary_output:
        contrib = _a.ones_like(keys_sorted, dtype=count_dtype)
    elif weights is not None:
        contrib = _a.take_rows(weights, order)
    else:
        contrib = _a.ones_like(keys_sorted, dtype=count_dtype)
    n = _known_int(count)
    sums = _scatter(_a.expand_dims(ids, 1), contrib, _shape_of(n))
    if binary_output:
        sums = _a.ones_like(sums)
    unique_keys = _a.take_rows(keys_sorted, _a.reshape(_a.where(first), [-1]))
    if batched:
        indices = _a.stack([_m.floordiv(unique_keys, size), _m.floormod(unique_keys, size)], 1)
        dense_shape = _a.stack([_i64(n_batches), size])
    else:
        indices = _a.expand_dims(unique_keys, 1)
        dense_shape = _a.reshape(size, [1])
    return SparseTensor(indices, sums, dense_shape)


def mask(a, mask_indices, name=None):
    """The IndexedSlices `a` without the slices whose index is in `mask_indices`."""
    from ferroflow.indexed_slices import IndexedSlices

    indices = _a.convert_to_tensor(a.indices)
    masked = _a.convert_to_tensor(mask_indices, dtype=indices.dtype)
    hit = _m.reduce_any(_m.equal(_a.expand_dims(indices, 1), _a.expand_dims(masked, 0)), axis=1)
    keep = _a.reshape(_a.where(_m.logical_not(hit)), [-1])
    return IndexedSlices(_a.take_rows(a.values, keep), _a.take_rows(indices, keep), a.dense_shape)


# --- crosses ------------------------------------------------------------------------------------


_DEFAULT_HASH_KEY = 0xDECAFCAFFE
_K_MUL = 0xC6A4A7935BD1E995


def _shift_mix(x):
    return _bitwise.bitwise_xor(x, _bitwise.right_shift(x, _a.constant(47, _dtypes.uint64)))


def _fingerprint_cat64(fp1, fp2):
    """TensorFlow's FingerprintCat64 on uint64 tensors (multiplications wrap)."""
    k = _a.constant(_K_MUL, _dtypes.uint64)
    result = _bitwise.bitwise_xor(fp1, k)
    result = _bitwise.bitwise_xor(result, _shift_mix(fp2 * k) * k)
    result = result * k
    result = _shift_mix(result) * k
    return _shift_mix(result)


def _feature_values(values):
    """A cross input's features: strings as they are, every other dtype as int64 (TensorFlow
    casts them)."""
    return values if values.dtype == _dtypes.string else _i64(values)


def _cross_column(value, batch):
    """(values sorted by row, per-row counts, per-row starts) of one cross input."""
    if isinstance(value, SparseTensor):
        rows = value.indices[:, 0]
        order = _stable_order(rows)
        rows, values = _a.take_rows(rows, order), _a.take_rows(value.values, order)
    else:
        if value.shape.rank != 2:
            from ferroflow.errors import InvalidArgumentError

            raise InvalidArgumentError(
                None, None, f"Dense inputs should be a matrix but received shape {value.shape}"
            )
        shape = _a.shape(value, out_type=_I64)
        rows = _m.floordiv(_a.range(_a.size(value, out_type=_I64), dtype=_I64), shape[1])
        values = _a.reshape(value, [-1])
    ones = _a.ones_like(rows)
    counts = _scatter(_a.expand_dims(rows, 1), ones, _shape_of(batch))
    starts = _m.cumsum(counts, exclusive=True)
    return _feature_values(values), counts, starts


def _batch_size(value):
    if isinstance(value, SparseTensor):
        return value.dense_shape[0]
    return _a.shape(value, out_type=_I64)[0]


def _fingerprint64(strings):
    """FarmHash Fingerprint64 of each string as uint64 (tf.fingerprint's 8 little-endian
    bytes put together)."""
    from ferroflow.strings import fingerprint

    parts = _a.cast(fingerprint(strings), _dtypes.uint64)
    out = _a.zeros(_a.shape(strings), _dtypes.uint64)
    for k in range(8):
        shifted = _bitwise.left_shift(parts[:, k], _a.constant(8 * k, _dtypes.uint64))
        out = _bitwise.bitwise_or(out, shifted)
    return out


def _cross_columns(inputs, what):
    """The inputs of a sparse cross in TensorFlow's order (SparseTensors first), checked."""
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    if not all(isinstance(i, (SparseTensor, _core.Tensor)) for i in inputs):
        raise TypeError(f"All inputs must be {what}")
    columns = [i for i in inputs if isinstance(i, SparseTensor)]
    return columns + [i for i in inputs if not isinstance(i, SparseTensor)]


def _cross_picks(columns):
    """Every combination of one feature per column in each row (the last column varying
    fastest): (row of each combination, its position in the row, the features picked from
    each column, the batch size, the widest row)."""
    batch = _known_int(_batch_size(columns[0]))
    for k, column in enumerate(columns[1:], 1):
        _check(
            _m.equal(_batch_size(column), batch),
            f"SparseCross: Expected batch size {batch} at input {k}",
        )
    parts = [_cross_column(c, batch) for c in columns]
    totals = _a.ones(_shape_of(batch), _I64)
    for _, counts, _ in parts:
        totals = totals * counts
    ends = _m.cumsum(totals)
    begins = ends - totals
    combos = _a.range(_m.reduce_sum(totals), dtype=_I64)
    rows = _i64(_manip.searchsorted(ends, combos, side="right"))
    column = combos - _a.take_rows(begins, rows)
    local = column
    picked = [None] * len(parts)
    for k in range(len(parts) - 1, -1, -1):
        values, counts, starts = parts[k]
        n = _a.take_rows(counts, rows)
        picked[k] = _a.take_rows(values, _a.take_rows(starts, rows) + _m.floormod(local, n))
        local = _m.floordiv(local, n)
    width = _m.reduce_max(_a.concat([totals, _a.zeros([1], _I64)], 0))
    return rows, column, picked, batch, width


def cross(inputs, name=None, separator=None):
    """String crosses of the features in each row of `inputs` (SparseTensors and dense
    matrices of strings or integers): every combination of one feature per input
    (SparseTensors first, the last input varying fastest), joined with `separator` ('_X_').

    >>> import ferroflow as tf
    >>> st = tf.sparse.cross([tf.constant([["a"]]), tf.constant([[5]], tf.int64)])
    >>> st.values.numpy()
    array([b'a_X_5'], dtype=object)
    """
    from ferroflow import strings

    columns = _cross_columns(inputs, "Tensor or SparseTensor.")
    separator = "_X_" if separator is None else strings._text(separator, "separator")
    if not columns:
        empty = _a.zeros([0], _dtypes.string)
        return SparseTensor(_a.zeros([0, 2], _I64), empty, _a.zeros([2], _I64))
    rows, column, picked, batch, width = _cross_picks(columns)
    texts = [p if p.dtype == _dtypes.string else strings.as_string(p) for p in picked]
    values = strings.join(texts, separator=separator)
    return SparseTensor(_a.stack([rows, column], axis=1), values, _a.stack([_i64(batch), width]))


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """Hashed crosses of the features in each row of `inputs` (SparseTensors and dense
    matrices of strings or integers): every combination of one feature per input
    (SparseTensors first, as TensorFlow orders them; the last input varying fastest), hashed
    with TensorFlow's FingerprintCat64 chain from `hash_key` over each feature's hash (a
    string's Fingerprint64, an integer itself), modulo `num_buckets` (or 2**63 - 1).

    >>> import ferroflow as tf
    >>> st = tf.sparse.cross_hashed([tf.constant([[3]], tf.int64), tf.constant([[5]], tf.int64)])
    >>> int(st.values[0])
    2006280100988443412
    """
    columns = _cross_columns(inputs, "SparseTensors")
    if not columns:
        return SparseTensor(_a.zeros([0, 2], _I64), _a.zeros([0], _I64), _a.zeros([2], _I64))
    rows, column, picked, batch, width = _cross_picks(columns)
    key = _DEFAULT_HASH_KEY if hash_key is None else int(hash_key)
    h = _a.fill(_a.shape(rows), _a.constant(key % 2**64, _dtypes.uint64))
    for value in picked:
        if value.dtype == _dtypes.string:
            feature = _fingerprint64(value)
        else:
            feature = _a.cast(value, _dtypes.uint64)
        h = _fingerprint_cat64(h, feature)
    modulus = int(num_buckets) if num_buckets and int(num_buckets) > 0 else 2**63 - 1
    hashed = _a.cast(_m.floormod(h, _a.constant(modulus, _dtypes.uint64)), _I64)
    return SparseTensor(_a.stack([rows, column], axis=1), hashed, _a.stack([_i64(batch), width]))


def _cast(x, dtype, name=None):
    """`tf.cast` of a SparseTensor: its values cast, indices, dense shape and static shape
    kept (TensorFlow's `cast` takes sparse tensors)."""
    out = x.with_values(_a.cast(x.values, dtype))
    out.set_shape(x.shape)
    return out


_dispatch.register(_a.cast, SparseTensor, _cast)


def _values_op(api):
    """A SparseTensor handler of a unary API with f(0) == 0: the API applied to the values."""

    def handler(x, *args, **kwargs):
        out = x.with_values(api(x.values, *args, **kwargs))
        out.set_shape(x.shape)
        return out

    return handler


# The unary functions that TensorFlow applies to a SparseTensor's values (its `math_ops`
# wrappers that accept one): those that keep zeros zero.
for _api in (
    _a.identity,
    _m.abs,
    _m.asin,
    _m.asinh,
    _m.atan,
    _m.atanh,
    _m.bessel_i0e,
    _m.bessel_i1e,
    _m.erf,
    _m.negative,
    _m.sign,
    _m.sin,
    _m.sqrt,
    _m.square,
    _m.tan,
    _m.tanh,
):
    _dispatch.register(_api, SparseTensor, _values_op(_api))
