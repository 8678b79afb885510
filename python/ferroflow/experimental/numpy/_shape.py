"""Array manipulation of `tf.experimental.numpy`: reshape, transpose, axes moves, joining and
splitting, flips and rolls, tiling, padding, broadcasting, `atleast_*d` and shape queries."""

import builtins

import numpy as np

import ferroflow as tf
from ferroflow.experimental.numpy import _dtypes
from ferroflow.experimental.numpy._arrays import array, asarray, is_ndarray, promote

newaxis = np.newaxis


def _canonical_axis(axis, rank):
    return axis + rank if axis < 0 else axis


def reshape(a, newshape, order="C"):
    """`a` with a new shape; order 'F' reshapes in column-major order."""
    if order not in {"C", "F"}:
        raise ValueError(f"Unsupported order argument {order}")
    a = asarray(a)
    if isinstance(newshape, int):
        newshape = [newshape]
    if order == "F":
        return tf.transpose(tf.reshape(tf.transpose(a), newshape[::-1]))
    return tf.reshape(a, newshape)


def ravel(a):
    """`a` flattened to 1-d."""
    return tf.reshape(asarray(a), [-1])


def flatten(a, order="C"):
    """`a` flattened to 1-d, row major ('C', 'A', 'K') or column major ('F')."""
    a = asarray(a)
    if order in ("C", "A", "K"):
        return tf.reshape(a, [-1])
    if order == "F":
        return tf.reshape(tf.transpose(a), [-1])
    raise ValueError("order can only be C, A, K (all row major) or F (column major).")


def expand_dims(a, axis):
    """`a` with a new axis of size 1 at `axis`."""
    return tf.expand_dims(asarray(a), axis=axis)


def squeeze(a, axis=None):
    """`a` without its axes of size 1 (or only `axis`)."""
    return tf.squeeze(asarray(a), axis)


def transpose(a, axes=None):
    """`a` with its axes reversed or permuted by `axes`."""
    a = asarray(a)
    if axes is not None:
        axes = asarray(axes)
    return tf.transpose(a, perm=axes)


def swapaxes(a, axis1, axis2):
    """`a` with two axes exchanged."""
    a = asarray(a)
    rank = a.shape.rank
    axis1, axis2 = _canonical_axis(axis1, rank), _canonical_axis(axis2, rank)
    perm = list(range(rank))
    perm[axis1] = axis2
    perm[axis2] = axis1
    return tf.transpose(a, perm)


def moveaxis(a, source, destination):
    """`a` with the axes `source` moved to positions `destination`."""
    if not source and not destination:
        return a
    a = asarray(a)
    if isinstance(source, int):
        source = (source,)
    if isinstance(destination, int):
        destination = (destination,)
    if len(source) != len(destination):
        raise ValueError("The lengths of source and destination must equal")
    rank = a.shape.rank
    source = tuple(_canonical_axis(x, rank) for x in source)
    destination = tuple(_canonical_axis(x, rank) for x in destination)
    perm = [i for i in range(rank) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        if dest > len(perm):
            raise AssertionError()
        perm.insert(dest, src)
    return tf.transpose(a, perm)


def pad(array, pad_width, mode, **kwargs):  # noqa: A002 - NumPy's name
    """`array` padded by `pad_width`; modes 'constant', 'reflect' and 'symmetric'."""
    constant_values = kwargs.get("constant_values", 0)
    if mode not in ("constant", "reflect", "symmetric"):
        raise ValueError("Unsupported padding mode: " + mode)
    array = asarray(array)
    pad_width = asarray(pad_width, dtype=np.int32)
    if pad_width.shape.rank != 2 or pad_width.shape[1] != 2:
        raise tf.errors.InvalidArgumentError(
            None, None, f"paddings must be a matrix with 2 columns: {pad_width.shape.as_list()}"
        )
    return tf.pad(array, pad_width, mode=mode.upper(), constant_values=constant_values)


def _boundaries_to_sizes(a, boundaries, axis):
    if axis >= len(a.shape):
        raise ValueError(f"axis {axis} is out of bound for shape {a.shape}")
    total = a.shape[axis]
    sizes, used, prev = [], 0, 0
    for i, b in enumerate(boundaries):
        size = b - prev
        if size < 0:
            raise ValueError(
                f"The {i}-th boundary {b} is smaller than the previous boundary {prev}"
            )
        size = builtins.min(size, builtins.max(0, total - used))
        sizes.append(size)
        used += size
        prev = b
    sizes.append(builtins.max(0, total - used))
    return sizes


def split(ary, indices_or_sections, axis=0):
    """`ary` split into equal sections or at the given indices along `axis`."""
    ary = asarray(ary)
    if not isinstance(indices_or_sections, int):
        indices_or_sections = _boundaries_to_sizes(ary, indices_or_sections, axis)
    return tf.split(ary, indices_or_sections, axis=axis)


def _split_on_axis(name, axis):
    def f(ary, indices_or_sections):
        new_axis = 0 if axis == 1 and ary.shape.rank == 1 else axis
        if isinstance(indices_or_sections, int):
            size = ary.shape[new_axis]
            if size is not None and size % indices_or_sections:
                raise ValueError("array split does not result in an equal division")
        return split(ary, indices_or_sections, axis=new_axis)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`split` along axis {axis}."
    return f


vsplit = _split_on_axis("vsplit", 0)
hsplit = _split_on_axis("hsplit", 1)
dsplit = _split_on_axis("dsplit", 2)


def broadcast_to(array, shape):  # noqa: A002 - NumPy's name
    """`array` broadcast to `shape`."""
    from ferroflow.experimental.numpy._creation import full

    return full(shape, array)


def broadcast_arrays(*args, **kwargs):
    """The arguments broadcast against each other."""
    subok = kwargs.pop("subok", False)
    if subok:
        raise ValueError("subok=True is not supported.")
    if kwargs:
        raise ValueError(f"Received unsupported arguments {kwargs.keys()}")
    args = [asarray(arg) for arg in args]
    if len(args) <= 1:
        return tuple(args)
    shape = tf.shape(args[0])
    for arg in args[1:]:
        shape = tf.broadcast_dynamic_shape(shape, tf.shape(arg))
    return [tf.broadcast_to(arg, shape) for arg in args]


def _atleast(n, arys):
    def f(x):
        x = asarray(x)
        rank = x.shape.rank
        if rank >= n:
            return x
        shape = tf.shape(x)
        if n == 3 and rank == 1:
            new = tf.concat([[1], shape, [1]], 0)
        elif n == 3 and rank == 2:
            new = tf.concat([shape, [1]], 0)
        else:
            new = tf.concat([tf.ones([n - rank], tf.int32), shape], 0)
        return tf.reshape(x, new)

    out = [f(x) for x in arys]
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """Each argument as an array of at least 1 dimension."""
    return _atleast(1, arys)


def atleast_2d(*arys):
    """Each argument as an array of at least 2 dimensions (new axes in front)."""
    return _atleast(2, arys)


def atleast_3d(*arys):
    """Each argument as an array of at least 3 dimensions ([N] -> [1, N, 1], [M, N] ->
    [M, N, 1])."""
    return _atleast(3, arys)


def stack(arrays, axis=0):
    """The arrays joined along a new axis."""
    if is_ndarray(arrays):
        arrays = asarray(arrays)
        return arrays if axis == 0 else swapaxes(arrays, 0, axis)
    return tf.stack(promote(*arrays), axis)


def hstack(tup):
    """The arrays joined along axis 1 (axis 0 for 1-d)."""
    arrays = promote(*[atleast_1d(a) for a in tup])
    return tf.concat(arrays, axis=0 if arrays[0].shape.rank == 1 else 1)


def vstack(tup):
    """The arrays (as at least 2-d) joined along axis 0."""
    return tf.concat(promote(*[atleast_2d(a) for a in tup]), axis=0)


def dstack(tup):
    """The arrays (as at least 3-d) joined along axis 2."""
    return tf.concat(promote(*[atleast_3d(a) for a in tup]), axis=2)


def concatenate(arys, axis=0):
    """The arrays joined along `axis`, in their promoted dtype."""
    if not isinstance(arys, (list, tuple)):
        arys = [arys]
    if not arys:
        raise ValueError(
            f"Need at least one array to concatenate. Received empty input: arys={arys}"
        )
    dtype = _dtypes.result_type(*arys)
    return tf.concat([array(a, dtype=dtype) for a in arys], axis)


def append(arr, values, axis=None):
    """`values` appended to `arr` (both flattened when axis is None)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


def tile(a, reps):
    """`a` repeated `reps` times along each axis."""
    a = array(a)
    reps = tf.reshape(array(reps, dtype=np.int32), [-1])
    rank = a.shape.rank
    n = reps.shape[0]
    reps = tf.concat([tf.ones([builtins.max(rank - n, 0)], tf.int32), reps], 0)
    shape = tf.concat([tf.ones([builtins.max(n - rank, 0)], tf.int32), tf.shape(a)], 0)
    return tf.tile(tf.reshape(a, shape), reps)


def repeat(a, repeats, axis=None):
    """Each element of `a` repeated `repeats` times (along `axis`, or flattened)."""
    a = asarray(a)
    return tf.repeat(a, asarray(repeats), axis)


def flip(m, axis=None):
    """`m` reversed along `axis` (all axes when None)."""
    m = asarray(m)
    rank = m.shape.rank
    if axis is None:
        return tf.reverse(m, list(range(rank)))
    return tf.reverse(m, [_canonical_axis(axis, rank)])


def flipud(m):
    """`m` reversed along axis 0."""
    return flip(m, 0)


def fliplr(m):
    """`m` reversed along axis 1."""
    return flip(m, 1)


def roll(a, shift, axis=None):
    """`a` rolled by `shift` along `axis` (flattened when None)."""
    a = asarray(a)
    if axis is not None:
        return tf.roll(a, shift, axis)
    shape = tf.shape(a)
    return tf.reshape(tf.roll(tf.reshape(a, [-1]), shift, 0), shape)


def rot90(m, k=1, axes=(0, 1)):
    """`m` rotated by 90 degrees `k` times in the plane of `axes`."""
    m = asarray(m)
    rank = m.shape.rank
    ax1, ax2 = (_canonical_axis(x, rank) for x in axes)
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(rank))
    perm[ax1], perm[ax2] = ax2, ax1
    if k == 1:
        return transpose(flip(m, ax2), perm)
    return flip(transpose(m, perm), ax2)


def shape(a):
    """The TensorShape of `a`."""
    return asarray(a).shape


def ndim(a):
    """The number of dimensions of `a`."""
    return asarray(a).ndim


def isscalar(num):
    """Whether `num` has 0 dimensions."""
    return ndim(num) == 0


def size(x, axis=None):
    """The number of elements of `x` (an int); `axis` raises NotImplementedError."""
    if axis is not None:
        raise NotImplementedError(
            "axis argument is not supported in the current `np.size` implementation"
        )
    if isinstance(x, (int, float, np.int32, np.int64, np.float32, np.float64)):
        return 1
    x = asarray(x)
    if x.shape.is_fully_defined():
        return np.prod(x.shape.as_list(), dtype=int)
    return tf.size(x)
