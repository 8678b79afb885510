"""`tf.nn.isotonic_regression`: the pool-adjacent-violators fit of each row, as TensorFlow's
IsotonicRegression kernel pools (merging while the later block's mean is strictly larger).

The blocks are found on the host; the fit is each block's mean composed of segment means, so
its gradient is TensorFlow's (the incoming gradient averaged over each block)."""

import collections

import numpy as np

import ferroflow as _tf
from ferroflow.array_ops import convert_to_tensor

__all__ = ["isotonic_regression"]

# TensorFlow's output types: floats keep theirs, int8/int16 give float32, the rest float64.
_PROMOTIONS = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16"}
_PROMOTIONS.update({"int8": "float32", "int16": "float32"})

IsotonicRegression = collections.namedtuple("IsotonicRegression", ["output", "segments"])


def _pava_segments(matrix):
    """Block ids per row of a non-increasing least-squares fit (`matrix` [rows, n] numpy, in
    the output's precision)."""
    rows, n = matrix.shape
    segments = np.zeros([rows, n], np.int32)
    for r in range(rows):
        pools = []  # [start, count, sum, mean]
        for c in range(n):
            value = matrix[r, c]
            pools.append([c, 1, value, value])
            while len(pools) > 1 and pools[-1][3] > pools[-2][3]:
                last = pools.pop()
                prev = pools[-1]
                prev[1] += last[1]
                prev[2] = prev[2] + last[2]
                prev[3] = prev[2] / matrix.dtype.type(prev[1])
        for k, (start, count, _, _) in enumerate(pools):
            segments[r, start : start + count] = k
    return segments


def isotonic_regression(inputs, decreasing=True, axis=-1):
    """(the best non-increasing (or, with ``decreasing=False``, non-decreasing) fit along
    `axis` in the least-squares sense, the int32 block id of each element)."""
    x = convert_to_tensor(inputs)
    out_dtype = _tf.as_dtype(_PROMOTIONS.get(x.dtype.name, "float64"))
    if not (x.dtype.is_floating or x.dtype.is_integer):
        raise _tf.errors.InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values "
            "[Op:IsotonicRegression]",
        )
    rank = x.shape.rank
    axis = axis + rank if axis < 0 else axis
    if axis < 0 or axis >= rank:
        raise _tf.errors.InvalidArgumentError(
            None, None, f"dim must be in the range [{-rank}, {rank}) where {rank} is the rank"
        )
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    moved = _tf.transpose(x, perm)
    values = _tf.cast(moved, out_dtype)
    n = _tf.shape(values)[-1]
    matrix = _tf.reshape(values, _tf.stack([-1, n]))
    # An increasing fit is minus the decreasing fit of minus the values; the blocks are
    # found that way and their means taken of the values themselves.
    pooled = matrix if decreasing else -matrix
    host = np.float32 if out_dtype == _tf.bfloat16 else out_dtype.as_numpy_dtype

    def blocks(m):
        return _pava_segments(np.asarray(m).astype(host))

    segments = _tf.numpy_function(blocks, [pooled], _tf.int32, stateful=False)
    segments = _tf.reshape(segments, _tf.shape(matrix))
    rows = _tf.shape(matrix)[0]
    ids = segments + _tf.range(rows)[:, None] * n
    means = _tf.math.unsorted_segment_mean(matrix, ids, rows * n)
    fit = _tf.gather(means, ids)
    fit = _tf.transpose(_tf.reshape(fit, _tf.shape(moved)), perm)
    segments = _tf.transpose(_tf.reshape(segments, _tf.shape(moved)), perm)
    # TensorFlow returns its op's named tuple for a decreasing fit along the last axis, a
    # plain tuple otherwise (its axis swap and its negation build one).
    if decreasing and axis == rank - 1:
        return IsotonicRegression(fit, segments)
    return fit, segments
