"""Slicing with bounds known only when a graph runs: `x[i]`, `x[1:n]`, `x[:, i]`, and
`tf.slice`/`tf.strided_slice` given symbolic `begin`/`end`/`size`/`strides`, inside a
tf.function. The static slicer resolves every bound while tracing; here each axis with a
symbolic bound is composed of graph ops instead: its indices (Python's `slice.indices`,
computed with tensors) gathered by coordinates, so that the gradient is a dense tensor as
TensorFlow's StridedSliceGrad is. An index out of range raises InvalidArgumentError when the
graph runs. The static parts of the subscript still go through the static slicer."""

import builtins

from ferroflow import _core
from ferroflow import dtypes as _dtypes

_SLICE_TYPE_ERROR = (
    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
    "tf.int32/tf.int64 tensors are valid indices"
)


def _is_tensor(value):
    return isinstance(value, _core.Tensor)


def _symbolic(value):
    return _is_tensor(value) and _core.is_symbolic(value)


def any_symbolic(*values):
    """Some value, or element of a list or tuple value, is a symbolic tensor."""
    for value in values:
        if _symbolic(value):
            return True
        if isinstance(value, (list, tuple)) and builtins.any(_symbolic(v) for v in value):
            return True
    return False


def _check_index(value):
    """TensorFlow's `_check_index`: an integer scalar tensor, else TypeError."""
    if _is_tensor(value):
        if value.dtype not in (_dtypes.int32, _dtypes.int64) or (value.shape.rank not in (0, None)):
            raise TypeError(f"{_SLICE_TYPE_ERROR}, got {value!r}")
    elif value is not None and not isinstance(value, int):
        raise TypeError(f"{_SLICE_TYPE_ERROR}, got {value!r}")


def _index_dtype(*bounds):
    """TensorFlow packs a subscript's bounds into one int32 or int64 vector."""
    dtypes = {b.dtype for b in bounds if _is_tensor(b)}
    if len(dtypes) > 1:
        raise TypeError(
            "Tensors in list passed to 'values' of 'Pack' Op have types "
            f"[{', '.join(sorted(d.name for d in dtypes))}] that don't all match."
        )
    return dtypes.pop() if dtypes else _dtypes.int32


def getitem(tensor, key):
    """`tensor[key]` where some item (or a bound of a slice item) is a symbolic tensor."""
    from ferroflow import array_ops

    items = key if isinstance(key, tuple) else (key,)
    rank = tensor.shape.rank
    if rank is None:
        raise ValueError("slicing a tensor of unknown rank with symbolic bounds")
    consuming = builtins.sum(1 for i in items if i is not None and i is not Ellipsis)
    static_key, dynamic, out_axis = [], [], 0
    for item in items:
        if item is Ellipsis:
            static_key.append(item)
            out_axis += builtins.max(rank - consuming, 0)
        elif item is None:
            static_key.append(item)
            out_axis += 1
        elif isinstance(item, slice):
            parts = (item.start, item.stop, item.step)
            for part in parts:
                _check_index(part)
            if builtins.any(_symbolic(p) for p in parts):
                dynamic.append((out_axis, item))
                static_key.append(slice(None))
            else:
                static_key.append(item)
            out_axis += 1
        elif _symbolic(item):
            _check_index(item)
            dynamic.append((out_axis, item))
            static_key.append(slice(None))
            out_axis += 1
        else:
            static_key.append(item)
    result = tensor[tuple(static_key)]
    # Last axis first: an index removes its axis, which must not move the ones before it.
    for axis, item in reversed(dynamic):
        if isinstance(item, slice):
            result = _take_range(array_ops, result, axis, item)
        else:
            result = _take_index(array_ops, result, axis, item)
    return result


def _axis_to_front(array_ops, x, axis):
    perm = [axis] + [a for a in builtins.range(x.shape.rank) if a != axis]
    return array_ops.transpose(x, perm), perm


def _take_index(array_ops, x, axis, index):
    """`x` without axis `axis`, at (possibly negative) `index` along it."""
    size = array_ops.shape(x, out_type=index.dtype)[axis]
    index = array_ops.where(index < 0, index + size, index)
    front, _ = _axis_to_front(array_ops, x, axis)
    return array_ops.gather_nd(front, array_ops.reshape(index, [1]))


def _take_range(array_ops, x, axis, item):
    """`x` along axis `axis` at `range(*item.indices(size))`, with tensors. A zero step is
    refused when the graph runs (the range op's InvalidArgumentError, as StridedSlice's)."""
    from ferroflow import math as math_ops

    dtype = _index_dtype(item.start, item.stop, item.step)
    size = array_ops.shape(x, out_type=dtype)[axis]

    def const(v):
        return array_ops.constant(v, dtype) if isinstance(v, int) else v

    step = const(1 if item.step is None else item.step)
    forward = step > 0
    low = array_ops.where(forward, const(0), const(-1))
    high = array_ops.where(forward, size, size - 1)

    def bound(value, default):
        if value is None:
            return default
        value = const(value)
        value = array_ops.where(value < 0, value + size, value)
        return math_ops.minimum(math_ops.maximum(value, low), high)

    start = bound(item.start, array_ops.where(forward, low, high))
    stop = bound(item.stop, array_ops.where(forward, high, low))
    # An empty selection (`x[3:1]`): the range op refuses a limit behind its start.
    stop = array_ops.where(forward, math_ops.maximum(stop, start), math_ops.minimum(stop, start))
    indices = array_ops.range(start, stop, step)
    front, perm = _axis_to_front(array_ops, x, axis)
    taken = array_ops.gather_nd(front, array_ops.expand_dims(indices, -1))
    inverse = [perm.index(a) for a in builtins.range(len(perm))]
    return array_ops.transpose(taken, inverse)


def _elements(array_ops, vector, dtype):
    """A list of `begin`/`size`-style bounds as scalars (symbolic tensors stay tensors)."""
    if _is_tensor(vector):
        if vector.shape.rank != 1 or vector.shape[0] is None:
            raise ValueError("slice bounds must be a vector of known length")
        return [vector[k] for k in builtins.range(vector.shape[0])]
    return [array_ops.constant(v, dtype) if isinstance(v, int) else v for v in vector]


def _python_int(value):
    """`value` as a Python int when it is one (or a concrete integer scalar), else None."""
    if isinstance(value, int):
        return value
    if _is_tensor(value) and not _core.is_symbolic(value) and value.shape.rank == 0:
        return int(value)
    return None


def slice_(tensor, begin, size):
    """`tf.slice` with symbolic `begin` or `size` (TensorFlow's Slice: `size[k] == -1` takes
    the rest of axis k; a window outside the tensor is an InvalidArgumentError, not clamped).
    Axes whose bounds are Python numbers are sliced statically; a known size stays known."""
    from ferroflow import array_ops, check_ops

    tensor = array_ops.convert_to_tensor(tensor)
    rank = tensor.shape.rank
    begins = begin if isinstance(begin, (list, tuple)) else _elements(array_ops, begin, None)
    sizes = size if isinstance(size, (list, tuple)) else _elements(array_ops, size, None)
    if len(begins) != rank or len(sizes) != rank:
        raise ValueError(
            f"Shape must be rank {rank} but is rank {len(begins)} for slice of a rank-{rank} "
            "tensor: begin and size must have one element per dimension"
        )
    dtype = _index_dtype(*begins, *sizes)
    result = tensor
    for axis in builtins.range(rank):
        b, s = begins[axis], sizes[axis]
        known_b, known_s = _python_int(b), _python_int(s)
        if known_b is not None and known_s is not None:
            static = [0] * rank, [-1] * rank
            static[0][axis], static[1][axis] = known_b, known_s
            result = _core.slice(result, *static)
            continue
        b = array_ops.constant(known_b, dtype) if known_b is not None else b
        s = array_ops.constant(known_s, dtype) if known_s is not None else s
        dim = array_ops.shape(tensor, out_type=dtype)[axis]
        s = array_ops.where(s == -1, dim - b, s)
        # A traced graph runs its asserts in program order (ferroflow never prunes effects).
        zero = array_ops.constant(0, dtype)
        check_ops.assert_greater_equal(b, zero, message="Slice: begin must be >= 0")
        check_ops.assert_greater_equal(s, zero, message="Slice: size must be >= 0")
        check_ops.assert_less_equal(b + s, dim, message="Slice: begin + size past the end")
        indices = array_ops.range(b, b + s)
        front, perm = _axis_to_front(array_ops, result, axis)
        taken = array_ops.gather_nd(front, array_ops.expand_dims(indices, -1))
        result = array_ops.transpose(taken, [perm.index(a) for a in builtins.range(rank)])
        if known_s is not None and known_s >= 0:
            dims = result.shape.as_list()
            dims[axis] = known_s
            result = array_ops.ensure_shape(result, dims)
    return result


def strided_slice(tensor, begin, end, strides, masks):
    """`tf.strided_slice` with symbolic bounds: the subscript its masks describe."""
    from ferroflow import array_ops

    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask = masks
    dtype = _dtypes.int32
    for v in (begin, end, strides):
        if _is_tensor(v):
            dtype = v.dtype
    begins = _elements(array_ops, begin, dtype)
    ends = _elements(array_ops, end, dtype)
    steps = [1] * len(begins) if strides is None else _elements(array_ops, strides, dtype)
    key = []
    for j, (b, e, s) in enumerate(zip(begins, ends, steps)):
        bit = 1 << j
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(b)
        else:
            key.append(slice(None if begin_mask & bit else b, None if end_mask & bit else e, s))
    return getitem(array_ops.convert_to_tensor(tensor), tuple(key))
