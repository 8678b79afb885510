"""`keras.ops.unique`, as Keras's TensorFlow backend computes it: the unique elements of the
flattened input (`tf.unique_with_counts`) or, with ``axis``, the unique slices along ``axis``
(TensorFlow's ``UniqueV2``: slices equal elementwise, so slices holding NaN are all distinct),
optionally sorted (slices lexicographically), padded or cut to ``size``."""

import ferroflow as tf

__all__ = ["unique"]

# UniqueV2's dtype attribute refuses these (its message lists the allowed types as below);
# complex dtypes pass it but have no kernel.
_REFUSED_DTYPES = ("bool", "string")
_ALLOWED_NAMES = "bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128"


def _check_slice_dtype(dtype, return_counts):
    name = dtype.name
    if name in _REFUSED_DTYPES:
        raise tf.errors.InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {name} is not in the list of allowed values: {_ALLOWED_NAMES}",
        )
    if name.startswith("complex"):
        op = "UniqueWithCountsV2" if return_counts else "UniqueV2"
        raise tf.errors.NotFoundError(
            None,
            None,
            f"Could not find device for node: {{{{node {op}}}}} = {op}[T=DT_{name.upper()}, "
            "Taxis=DT_INT32, out_idx=DT_INT32]",
        )


def _canonical_axis(axis, rank):
    if rank is None:
        # Keras negates the rank to check the axis: an unknown rank fails as it does there.
        raise TypeError("bad operand type for unary -: 'NoneType'")
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of bounds for an array with dimension {rank}.")
    return axis + rank if axis < 0 else axis


def _as_rows(x, axis):
    """``x`` with ``axis`` swapped to the front (as Keras's backend swaps it, which fixes the
    lexicographic order of the slices) and each slice flattened: ``[n, slice size]``."""
    perm = list(range(x.shape.rank))
    perm[0], perm[axis] = perm[axis], perm[0]
    swapped = tf.transpose(x, perm)
    dims = tf.shape(swapped)
    # The slice size stated, not inferred: a reshape cannot infer it when there are no slices.
    return tf.reshape(swapped, tf.stack([dims[0], tf.reduce_prod(dims[1:])]))


def _unique_slices(x, axis):
    """``(unique slices in order of first occurrence, inverse, counts)``, as UniqueV2."""
    columns = tf.transpose(_as_rows(x, axis))
    n = tf.shape(columns, out_type=tf.int64)[1]

    # Column by column, slices equal so far share an id below n: the id of the pair (id so
    # far, id of the element among the column's values) renumbered. `tf.unique` compares
    # elements as UniqueV2 does (NaN unequal to itself, -0.0 equal to 0.0).
    def refine(i, ids):
        _, element_ids = tf.unique(columns[i], out_idx=tf.int64)
        _, ids = tf.unique(ids * n + element_ids, out_idx=tf.int64)
        return i + 1, ids

    _, ids = tf.while_loop(
        lambda i, ids: i < tf.shape(columns)[0],
        refine,
        [tf.constant(0), tf.zeros(tf.reshape(n, [1]), tf.int64)],
    )
    first_ids, inverse = tf.unique(ids)
    count = tf.shape(first_ids)[0]
    counts = tf.math.unsorted_segment_sum(tf.ones_like(inverse), inverse, count)
    first = tf.math.unsorted_segment_min(tf.range(tf.shape(inverse)[0]), inverse, count)
    return tf.gather(x, first, axis=axis), inverse, counts


def _lexicographic_order(y, axis):
    """The order sorting the slices of ``y`` along ``axis`` lexicographically: stable sorts
    by the last element of the flattened slices, then the one before..., as Keras's backend."""
    rows = _as_rows(y, axis)

    def sort_by(i, order):
        column = tf.gather(rows[:, i], order)
        return i - 1, tf.gather(order, tf.argsort(column, stable=True))

    _, order = tf.while_loop(
        lambda i, order: i >= 0,
        sort_by,
        [tf.shape(rows)[1] - 1, tf.range(tf.shape(rows)[0])],
        parallel_iterations=1,
    )
    return order


def _pad_end(x, axis, missing, value):
    """``x`` with ``missing`` (a run-time count) slices of ``value`` appended along ``axis``."""
    dims = tf.shape(x)
    at_axis = tf.one_hot(axis, tf.size(dims), dtype=dims.dtype)
    block = tf.fill(dims * (1 - at_axis) + missing * at_axis, tf.cast(value, x.dtype))
    return tf.concat([x, block], axis)


def unique(
    x,
    sorted=True,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    size=None,
    fill_value=None,
):
    """The unique elements of flattened ``x`` or, with ``axis``, its unique slices along
    ``axis``; optionally with the first indices, the inverse and the counts; padded with
    ``fill_value`` (default 0) or cut to ``size``."""
    x = tf.convert_to_tensor(x)
    original_shape = tf.shape(x)
    flat = axis is None
    if flat:
        x = tf.reshape(x, [-1])
        axis = 0
        y, inverse, counts = tf.unique_with_counts(x)
    else:
        axis = _canonical_axis(axis, x.shape.rank)
        _check_slice_dtype(x.dtype, return_counts)
        y, inverse, counts = _unique_slices(x, axis)
    if return_index:
        first = tf.math.unsorted_segment_min(
            tf.range(tf.shape(x)[axis], dtype=tf.int32), inverse, tf.shape(y)[axis]
        )
    if sorted:
        order = tf.argsort(y) if flat or y.shape.rank == 1 else _lexicographic_order(y, axis)
        y = tf.gather(y, order, axis=axis)
        counts = tf.gather(counts, order)
        if return_index:
            first = tf.gather(first, order)
        inverse = tf.gather(tf.math.invert_permutation(order), inverse)
    if size is not None:
        found = tf.shape(y)[axis]
        kept = tf.range(tf.minimum(found, size))
        missing = tf.maximum(0, size - found)
        fill = 0 if fill_value is None else fill_value
        y = _pad_end(tf.gather(y, kept, axis=axis), axis, missing, fill)
        counts = _pad_end(tf.gather(counts, kept), 0, missing, 0)
        if return_index:
            first = _pad_end(tf.gather(first, kept), 0, missing, 1)
        if isinstance(size, int):
            static = y.shape.as_list()
            static[axis] = size
            y.set_shape(static)
            counts.set_shape([size])
            if return_index:
                first.set_shape([size])
    if return_inverse and flat:
        inverse = tf.reshape(inverse, original_shape)
    out = [y]
    if return_index:
        out.append(first)
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return tuple(out) if len(out) > 1 else out[0]
