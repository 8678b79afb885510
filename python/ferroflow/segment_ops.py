"""`tf.math`'s segment reductions over the Rust primitives (`UnsortedSegmentSum/Prod/Max/Min`,
`SegmentSum/Prod/Max/Min/Mean`), and the means TensorFlow composes from unsorted sums.

The unsorted ops take `num_segments` as a tensor (a traced one leaves the output's first size
unknown); ids below zero are dropped and ids at or past `num_segments` raise
InvalidArgumentError (on the GPU, device-resident ids out of range are skipped, as TensorFlow's
GPU kernels do). The sorted ops size their output from the last id."""

from ferroflow import _core, _dispatch
from ferroflow import array_ops as _a
from ferroflow import math as _m


def _op(name, *inputs):
    return _core.raw_op(name, list(inputs), "{}")[0]


@_dispatch.add_dispatch_support
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums of the rows of ``data`` sharing a segment id: ``[num_segments, ...]``.

    >>> import ferroflow as tf
    >>> tf.math.unsorted_segment_sum([1, 2, 3, 4], [0, 1, 0, -1], 3).numpy()
    array([4, 2, 0], dtype=int32)
    """
    return _op("UnsortedSegmentSum", data, segment_ids, num_segments)


@_dispatch.add_dispatch_support
def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """Products of the rows of ``data`` sharing a segment id (1 for an empty segment)."""
    return _op("UnsortedSegmentProd", data, segment_ids, num_segments)


@_dispatch.add_dispatch_support
def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """Maxima of the rows of ``data`` sharing a segment id (the dtype's lowest finite value
    for an empty segment)."""
    return _op("UnsortedSegmentMax", data, segment_ids, num_segments)


@_dispatch.add_dispatch_support
def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """Minima of the rows of ``data`` sharing a segment id (the dtype's highest finite value
    for an empty segment)."""
    return _op("UnsortedSegmentMin", data, segment_ids, num_segments)


def _segment_counts(data, segment_ids, num_segments):
    """Rows per segment (at least 1), shaped to broadcast against the sums (TensorFlow's
    ``_unsorted_segment_N``)."""
    segment_ids = _a.convert_to_tensor(segment_ids)
    ones = _a.ones_like(segment_ids, dtype=data.dtype)
    n = unsorted_segment_sum(ones, segment_ids, num_segments)
    for _ in range(data.shape.rank - segment_ids.shape.rank):
        n = _a.expand_dims(n, -1)
    return _m.maximum(n, _a.ones([], data.dtype))


@_dispatch.add_dispatch_support
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """Means of the rows of ``data`` sharing a segment id (0 for an empty segment)."""
    data = _a.convert_to_tensor(data)
    total = unsorted_segment_sum(data, segment_ids, num_segments)
    return _m.truediv(total, _segment_counts(data, segment_ids, num_segments))


@_dispatch.add_dispatch_support
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Sums of the rows of ``data`` sharing a segment id divided by the square root of their
    count (0 for an empty segment)."""
    data = _a.convert_to_tensor(data)
    total = unsorted_segment_sum(data, segment_ids, num_segments)
    return _m.truediv(total, _m.sqrt(_segment_counts(data, segment_ids, num_segments)))


@_dispatch.add_dispatch_support
def segment_sum(data, segment_ids, name=None):
    """Sums of runs of rows by sorted ``segment_ids``: ``[segment_ids[-1] + 1, ...]``.

    >>> import ferroflow as tf
    >>> tf.math.segment_sum([1, 2, 3, 4], [0, 0, 2, 2]).numpy()
    array([3, 0, 7], dtype=int32)
    """
    return _op("SegmentSum", data, segment_ids)


@_dispatch.add_dispatch_support
def segment_prod(data, segment_ids, name=None):
    """Products of runs of rows by sorted ``segment_ids`` (1 for an empty segment)."""
    return _op("SegmentProd", data, segment_ids)


@_dispatch.add_dispatch_support
def segment_max(data, segment_ids, name=None):
    """Maxima of runs of rows by sorted ``segment_ids`` (0 for an empty segment)."""
    return _op("SegmentMax", data, segment_ids)


@_dispatch.add_dispatch_support
def segment_min(data, segment_ids, name=None):
    """Minima of runs of rows by sorted ``segment_ids`` (0 for an empty segment)."""
    return _op("SegmentMin", data, segment_ids)


@_dispatch.add_dispatch_support
def segment_mean(data, segment_ids, name=None):
    """Means of runs of rows by sorted ``segment_ids`` (0 for an empty segment; integer data
    divides as integers, as TensorFlow's kernel)."""
    return _op("SegmentMean", data, segment_ids)
