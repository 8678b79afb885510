"""Selection of `tf.experimental.numpy`: where/select, take, nonzero/compress, diagonals and
triangles, sorting and arg-reductions."""

import numpy as np

import ferroflow as tf
from ferroflow.experimental.numpy._arrays import array, asarray, numpy_method, promote
from ferroflow.experimental.numpy._creation import tri
from ferroflow.experimental.numpy._shape import atleast_1d, moveaxis, ravel, swapaxes


def nonzero(a):
    """The indices of the non-zero elements, one int64 vector per axis."""
    a = atleast_1d(a)
    return tf.unstack(tf.where(tf.cast(a, tf.bool)), a.shape.rank, axis=1)


def where(condition, x=None, y=None):
    """x where condition holds, else y (promoted); `nonzero(condition)` with neither."""
    condition = asarray(condition, dtype=np.bool_)
    if x is None and y is None:
        return nonzero(condition)
    if x is not None and y is not None:
        x, y = promote(x, y)
        return tf.where(condition, x, y)
    raise ValueError("Both x and y must be ndarrays, or both must be None.")


def select(condlist, choicelist, default=0):
    """The element of the first choice whose condition holds, else `default`."""
    if len(condlist) != len(choicelist):
        raise ValueError(
            f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})"
        )
    if not condlist:
        raise ValueError("condlist must be non-empty")
    choices = promote(default, *choicelist)
    output = choices[0]
    for cond, choice in zip(condlist[::-1], choices[1:][::-1]):
        output = where(cond, choice, output)
    return output


def compress(condition, a, axis=None):
    """The slices of `a` along `axis` where the 1-d `condition` holds."""
    condition = asarray(condition, dtype=bool)
    a = asarray(a)
    if condition.ndim != 1:
        raise ValueError("condition must be a 1-d array.")
    if a.ndim == 0:
        a = ravel(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    if axis < 0:
        axis += a.ndim
    if not 0 <= axis < a.ndim:
        raise AssertionError()
    if condition.shape[0] < a.shape[axis]:
        padding = tf.fill([a.shape[axis] - condition.shape[0]], False)
        condition = tf.concat([condition, padding], axis=0)
    return tf.boolean_mask(a, condition, axis=axis)


def take(a, indices, axis=None, out=None, mode="clip"):
    """Elements of `a` at `indices` along `axis`; out-of-range indices clip or wrap."""
    if out is not None:
        raise ValueError("out argument is not supported in take.")
    if mode not in {"raise", "clip", "wrap"}:
        raise ValueError(f"Invalid mode '{mode}' for take")
    a = asarray(a)
    indices = asarray(indices)
    if axis is None:
        a = tf.reshape(a, [-1])
        axis = 0
    axis_size = tf.cast(tf.shape(a)[axis], indices.dtype)
    if mode == "clip":
        indices = tf.clip_by_value(indices, tf.zeros_like(axis_size), axis_size - 1)
    elif mode == "wrap":
        indices = tf.math.floormod(indices, axis_size)
    else:
        raise ValueError("The 'raise' mode to take is not supported.")
    return tf.gather(a, indices, axis=axis)


def take_along_axis(arr, indices, axis):
    """Elements of `arr` at `indices` along `axis` (both broadcast on the other axes)."""
    arr = asarray(arr)
    indices = asarray(indices)
    if axis is None:
        return take_along_axis(numpy_method(arr, "ravel")(), indices, 0)
    rank = arr.shape.rank
    axis = axis + rank if axis < 0 else axis
    on_axis = tf.constant([i == axis for i in range(rank)])
    arr_shape = tf.shape(arr)
    ind_shape = tf.shape(indices)
    one = tf.ones([rank], tf.int32)
    other = tf.broadcast_dynamic_shape(
        tf.where(on_axis, one, arr_shape), tf.where(on_axis, one, ind_shape)
    )
    arr = tf.broadcast_to(arr, tf.where(on_axis, arr_shape, other))
    indices = tf.broadcast_to(indices, tf.where(on_axis, ind_shape, other))
    size = tf.cast(arr_shape[axis], indices.dtype)
    indices = tf.where(indices < tf.zeros_like(indices), indices + size, indices)
    last = axis == rank - 1
    if not last:
        arr, indices = swapaxes(arr, axis, -1), swapaxes(indices, axis, -1)
    shape = tf.shape(indices)
    flat = tf.gather(
        tf.reshape(arr, tf.stack([-1, tf.shape(arr)[-1]])),
        tf.reshape(indices, tf.stack([-1, shape[-1]])),
        batch_dims=1,
    )
    result = tf.reshape(flat, shape)
    return result if last else swapaxes(result, axis, -1)


def _diag_from_vector(v, k):
    """A square matrix with the vector `v` on its k-th diagonal (shapes may be dynamic)."""
    length = tf.shape(v, out_type=tf.int64)[0]
    positions = tf.range(length + abs(k), dtype=tf.int64)
    rows, cols = tf.reshape(positions, [-1, 1]), tf.reshape(positions, [1, -1])
    on = tf.equal(cols - rows, k)
    # The element at (r, c) of the diagonal is v[min(r, c)].
    index = tf.minimum(tf.minimum(rows, cols), tf.maximum(length - 1, 0))
    return tf.where(on, tf.gather(v, index), tf.zeros_like(v[:1]))


def _diagonal_last(a, offset):
    """The offset diagonal of the last two axes, as the last axis (shapes may be dynamic: an
    offset outside the matrix gives an empty diagonal)."""
    shape = tf.shape(a, out_type=tf.int64)
    n, m = shape[-2], shape[-1]
    length = tf.maximum(
        tf.minimum(n + min(offset, 0), m - max(offset, 0)), tf.constant(0, tf.int64)
    )
    rows = tf.range(length, dtype=tf.int64) + max(-offset, 0)
    flat = tf.reshape(a, tf.concat([shape[:-2], tf.reshape(n * m, [1])], 0))
    return tf.gather(flat, rows * m + rows + offset, axis=-1)


def diag(v, k=0):
    """The k-th diagonal of the 2-d `v`, or a 2-d array with the 1-d `v` on it."""
    v = asarray(v)
    rank = v.shape.rank
    if rank not in (1, 2):
        raise ValueError(f"Shape {v.shape} must have rank at most 2")
    if rank == 1:
        if v.shape[0] == 0:
            return tf.zeros([abs(k), abs(k)], v.dtype)
        return _diag_from_vector(v, k)
    if not tf.is_symbolic_tensor(v) and not -v.shape[0] < k < v.shape[1]:
        return tf.zeros([0], v.dtype)
    return _diagonal_last(v, k)


def diagflat(v, k=0):
    """A 2-d array with the flattened `v` on its k-th diagonal."""
    return diag(tf.reshape(asarray(v), [-1]), k)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal of `a` in the plane (axis1, axis2), as the last axis."""
    a = asarray(a)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    return _diagonal_last(a, offset)


def _triangle(m, k, name, lower):
    m = asarray(m)
    shape = m.shape.as_list()
    if len(shape) < 2:
        raise ValueError(f"Argument to {name} must have rank at least 2")
    if shape[-1] is None or shape[-2] is None:
        raise ValueError("Currently, the last two dimensions of the input array need to be known.")
    mask = tri(*shape[-2:], k=k if lower else k - 1, dtype=bool)
    zero = tf.zeros_like(m)
    mask = tf.broadcast_to(mask, tf.shape(m))
    return tf.where(mask, m, zero) if lower else tf.where(mask, zero, m)


def tril(m, k=0):
    """`m` with the entries above the k-th diagonal zeroed."""
    return _triangle(m, k, "tril", True)


def triu(m, k=0):
    """`m` with the entries below the k-th diagonal zeroed."""
    return _triangle(m, k, "triu", False)


def sort(a, axis=-1, kind="quicksort", order=None):
    """`a` sorted along `axis` (flattened when None)."""
    if kind != "quicksort":
        raise ValueError(
            'Invalid value for argument `kind`. Only kind="quicksort" is supported. '
            f"Received: kind={kind}"
        )
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    if axis is None:
        return tf.sort(tf.reshape(a, [-1]), 0)
    return tf.sort(a, axis)


def argsort(a, axis=-1, kind="quicksort", order=None):
    """The int64 indices that sort `a` along `axis` (stable for kind='stable')."""
    if kind not in ("quicksort", "stable"):
        raise ValueError(
            'Invalid value for argument `kind`. Only kind="quicksort" and kind="stable" are '
            f"supported. Received: kind={kind}"
        )
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    if a.dtype in (tf.complex64, tf.complex128):
        raise TypeError(
            f"argsort does not support complex64/complex128 dtypes. Received dtype: {a.dtype}"
        )
    if a.shape.rank == 0:
        result = tf.constant([0])
    elif axis is None:
        result = tf.argsort(tf.reshape(a, [-1]), 0, stable=kind == "stable")
    else:
        result = tf.argsort(a, axis, stable=kind == "stable")
    return array(result, dtype=np.intp)


def _arg_reduce(fn, a, axis):
    a = array(a)
    a = tf.reshape(a, [-1]) if axis is None else atleast_1d(a)
    return fn(a, axis=axis)


def argmax(a, axis=None):
    """The index of the largest element (of the flattened `a` when axis is None)."""
    return _arg_reduce(tf.math.argmax, a, axis)


def argmin(a, axis=None):
    """The index of the smallest element (of the flattened `a` when axis is None)."""
    return _arg_reduce(tf.math.argmin, a, axis)
