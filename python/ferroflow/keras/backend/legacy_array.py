"""The legacy Keras 2 ``K.*`` shape, layout and padding functions over ferroflow's ops."""

import builtins
import math

import numpy as np

import ferroflow as tf
from ferroflow.keras._backend_config import floatx, image_data_format

__all__ = [
    "arange",
    "batch_flatten",
    "cast",
    "cast_to_floatx",
    "concatenate",
    "count_params",
    "dtype",
    "expand_dims",
    "flatten",
    "gather",
    "int_shape",
    "is_sparse",
    "ndim",
    "one_hot",
    "permute_dimensions",
    "repeat",
    "repeat_elements",
    "reshape",
    "reverse",
    "shape",
    "spatial_2d_padding",
    "spatial_3d_padding",
    "squeeze",
    "stack",
    "temporal_padding",
    "tile",
    "to_dense",
    "transpose",
]


def arange(start, stop=None, step=1, dtype="int32"):
    """``range(start, stop, step)`` as a tensor of ``dtype``; one negative argument gives an
    empty range."""
    if stop is None and start < 0:
        start = 0
    out = tf.range(start, limit=stop, delta=step, name="arange")
    return out if dtype == "int32" else tf.cast(out, dtype)


def cast(x, dtype):
    """``x`` cast to ``dtype``."""
    return tf.cast(x, dtype)


def cast_to_floatx(x):
    """Tensors cast to floatx; anything else becomes a floatx NumPy array."""
    if isinstance(x, tf.Tensor | tf.Variable | tf.SparseTensor):
        return tf.cast(x, dtype=floatx())
    return np.asarray(x, dtype=floatx())


def dtype(x):
    """The name of ``x``'s dtype (``'float32'``)."""
    return x.dtype.base_dtype.name


def shape(x):
    """``x``'s shape as an int32 tensor."""
    return tf.shape(x)


def int_shape(x):
    """``x``'s static shape as a tuple (None for unknown dimensions)."""
    try:
        dims = x.shape
        return dims if isinstance(dims, tuple) else tuple(dims.as_list())
    except ValueError:
        return None


def ndim(x):
    """``x``'s rank."""
    return x.shape.rank


def count_params(x):
    """The number of elements of ``x`` (its static shape must be known)."""
    return math.prod(x.shape.as_list())


def is_sparse(tensor):
    """Whether ``tensor`` is a `tf.SparseTensor` (or a symbolic one)."""
    spec = getattr(tensor, "_type_spec", None)
    if spec is not None:
        return isinstance(spec, tf.SparseTensorSpec)
    return isinstance(tensor, tf.SparseTensor)


def to_dense(tensor):
    """A sparse tensor made dense; anything else unchanged."""
    return tf.sparse.to_dense(tensor) if is_sparse(tensor) else tensor


def reshape(x, shape):
    """``x`` reshaped to ``shape``."""
    return tf.reshape(x, shape)


def flatten(x):
    """``x`` as a vector."""
    return tf.reshape(x, [-1])


def batch_flatten(x):
    """``x`` as ``(batch, -1)``."""
    return tf.reshape(x, tf.stack([-1, tf.reduce_prod(tf.shape(x)[1:])]))


def expand_dims(x, axis=-1):
    """``x`` with a size-1 axis inserted at ``axis``."""
    return tf.expand_dims(x, axis)


def squeeze(x, axis):
    """``x`` without its size-1 axis ``axis``."""
    return tf.squeeze(x, [axis])


def stack(x, axis=0):
    """The tensors ``x`` stacked along a new ``axis``."""
    return tf.stack(x, axis=axis)


def concatenate(tensors, axis=-1):
    """The tensors joined along ``axis``: sparse if all are sparse, ragged if all are ragged,
    else dense."""
    if axis < 0:
        rank = ndim(tensors[0])
        axis = axis % rank if rank else 0
    if builtins.all(is_sparse(x) for x in tensors):
        return tf.sparse.concat(axis, tensors)
    if builtins.all(isinstance(x, tf.RaggedTensor) for x in tensors):
        return tf.concat(tensors, axis)
    return tf.concat([to_dense(x) for x in tensors], axis)


def gather(reference, indices):
    """Rows ``indices`` of ``reference``."""
    return tf.gather(reference, indices)


def one_hot(indices, num_classes):
    """One-hot float32 encoding along a new last axis."""
    return tf.one_hot(indices, depth=num_classes, axis=-1)


def permute_dimensions(x, pattern):
    """``x`` with its axes in the order ``pattern``."""
    return tf.transpose(x, perm=pattern)


def transpose(x):
    """``x`` with its axes reversed."""
    return tf.transpose(x)


def reverse(x, axes):
    """``x`` reversed along ``axes`` (an int or a list)."""
    return tf.reverse(x, [axes] if isinstance(axes, int) else axes)


def tile(x, n):
    """``x`` tiled ``n`` times (an int tiles a 1-D tensor)."""
    return tf.tile(x, [n] if isinstance(n, int) else n)


def repeat(x, n):
    """A 2-D ``(batch, dim)`` tensor repeated ``n`` times: ``(batch, n, dim)``."""
    if ndim(x) != 2:
        raise ValueError(f"Expected input `x` to have rank 2. Received: rank(x)={ndim(x)}")
    return tf.tile(tf.expand_dims(x, 1), tf.stack([1, n, 1]))


def repeat_elements(x, rep, axis):
    """Each slice of ``x`` along ``axis`` repeated ``rep`` times, like `np.repeat`."""
    return tf.repeat(x, rep, axis=axis)


def temporal_padding(x, padding=(1, 1)):
    """Zeros padded before and after the middle axis of a 3-D tensor."""
    if len(padding) != 2:
        raise ValueError(
            f"Expected `padding` to be a tuple of 2 integers. Received: padding={padding}"
        )
    return tf.pad(x, [[0, 0], [padding[0], padding[1]], [0, 0]])


def _spatial_padding(x, padding, data_format, rank):
    if len(padding) != rank or builtins.any(len(p) != 2 for p in padding):
        raise ValueError(
            f"Expected `padding` to be a tuple of {rank} tuples of 2 integers. "
            f"Received: padding={padding}"
        )
    data_format = image_data_format() if data_format is None else data_format
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    spatial = [list(p) for p in padding]
    if data_format == "channels_first":
        return tf.pad(x, [[0, 0], [0, 0], *spatial])
    return tf.pad(x, [[0, 0], *spatial, [0, 0]])


def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    """Zeros padded around the two spatial axes of a 4-D tensor."""
    return _spatial_padding(x, padding, data_format, 2)


def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)), data_format=None):
    """Zeros padded around the three spatial axes of a 5-D tensor."""
    return _spatial_padding(x, padding, data_format, 3)
