"""`tf.nn.fractional_max_pool` and `tf.nn.fractional_avg_pool`: pooling over windows of
irregular sizes (Graham, 2014), with TensorFlow's pooling sequences (random: the increments
``input // output`` and one more, shuffled; pseudo-random: ``ceil(alpha * (i + u))`` offsets)
and its windows (``[seq[i], seq[i + 1])``, or through ``seq[i + 1]`` when `overlapping`).

Given the sequences, the pooling is composed of masked reductions, so gradients follow from
the parts. *Departure:* the sequences are drawn from ferroflow's random numbers, not from
TensorFlow's Philox stream; for a given pair of sequences the outputs are TensorFlow's."""

import collections
import math

import numpy as np

import ferroflow as _tf
from ferroflow.array_ops import convert_to_tensor

__all__ = ["fractional_avg_pool", "fractional_max_pool"]

FractionalMaxPool = collections.namedtuple(
    "FractionalMaxPool", ["output", "row_pooling_sequence", "col_pooling_sequence"]
)
FractionalAvgPool = collections.namedtuple(
    "FractionalAvgPool", ["output", "row_pooling_sequence", "col_pooling_sequence"]
)


def _ratios(pooling_ratio):
    if isinstance(pooling_ratio, (list, tuple)):
        if pooling_ratio[0] != 1.0 or pooling_ratio[-1] != 1.0:
            raise ValueError(
                "`pooling_ratio` should have first and last elements with value 1.0. "
                f"Received: pooling_ratio={pooling_ratio}"
            )
        if any(r < 1.0 for r in pooling_ratio):
            raise ValueError(
                "`pooling_ratio` elements should be >= 1.0. "
                f"Received: pooling_ratio={pooling_ratio}"
            )
        values = [float(r) for r in pooling_ratio]
        if len(values) == 4:
            return values[1:3]
        if len(values) in (1, 2):
            return (values * 2)[:2]
        raise ValueError(f"pooling_ratio should be of length 1, 2 or 4, got {pooling_ratio}")
    if isinstance(pooling_ratio, (int, float)):
        if pooling_ratio < 1.0:
            raise ValueError(
                f"`pooling_ratio` should be >= 1.0. Received: pooling_ratio={pooling_ratio}"
            )
        return [float(pooling_ratio)] * 2
    raise ValueError(
        "`pooling_ratio` should be an int or a list of ints. "
        f"Received: pooling_ratio={pooling_ratio}"
    )


def _sequence(size, out, pseudo_random, rng):
    """TensorFlow's GeneratePoolingSequence: out + 1 cumulative window starts ending at size."""
    if pseudo_random:
        alpha = size / out
        k = size // out
        most = min((k + 2) / alpha - 1, (size + 1 - k) / alpha - (out - 1))
        u = rng.random() * most
        seq = [int(math.ceil(alpha * (i + u)) - math.ceil(alpha * u)) for i in range(out)]
        return np.asarray(seq + [size], np.int64)
    diff = np.full(out, size // out, np.int64)
    diff[: size % out] += 1
    rng.shuffle(diff)
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)


def _membership(seq, size, overlapping):
    """[out, size] bool: input position r lies in window i."""
    r = _tf.range(size, dtype=_tf.int64)[None, :]
    start = seq[:-1][:, None]
    end = seq[1:][:, None]
    end = _tf.minimum(end, size - 1) if overlapping else end - 1
    return _tf.logical_and(r >= start, r <= end)


def _fractional(kind, value, pooling_ratio, pseudo_random, overlapping, seed):
    ratios = _ratios(pooling_ratio)
    x = convert_to_tensor(value)
    allowed = (_tf.float32, _tf.float64, _tf.int32, _tf.int64)
    if x.dtype not in allowed:
        raise _tf.errors.InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: "
            "float, double, int32, int64",
        )
    if x.shape.rank != 4:
        raise _tf.errors.InvalidArgumentError(None, None, "input must be 4-dimensional")
    _, rows, cols, _ = x.shape.as_list()
    out_rows, out_cols = int(math.floor(rows / ratios[0])), int(math.floor(cols / ratios[1]))
    if out_rows <= 0 or out_cols <= 0:
        raise _tf.errors.InvalidArgumentError(
            None,
            None,
            f"outputsize must be positive: rows {out_rows} cols {out_cols} "
            f"[Op:Fractional{'Max' if kind == 'MAX' else 'Avg'}Pool]",
        )
    key = _tf.random.uniform([2], 0, 2**31 - 1, dtype=_tf.int64, seed=seed or None)

    def sequences(key_np):
        rng = np.random.Generator(np.random.Philox(key=[int(v) for v in np.asarray(key_np)]))
        return (
            _sequence(rows, out_rows, pseudo_random, rng),
            _sequence(cols, out_cols, pseudo_random, rng),
        )

    row_seq, col_seq = _tf.numpy_function(sequences, [key], [_tf.int64, _tf.int64])
    row_seq = _tf.reshape(row_seq, [out_rows + 1])
    col_seq = _tf.reshape(col_seq, [out_cols + 1])
    in_row = _membership(row_seq, rows, overlapping)  # [OR, R]
    in_col = _membership(col_seq, cols, overlapping)  # [OC, C]
    if kind == "MAX":
        low = _tf.constant(x.dtype.min, x.dtype)
        by_rows = _tf.reduce_max(
            _tf.where(in_row[None, :, :, None, None], x[:, None], low), axis=2
        )  # [B, OR, C, ch]
        y = _tf.reduce_max(
            _tf.where(in_col[None, None, :, :, None], by_rows[:, :, None], low), axis=3
        )
        return FractionalMaxPool(y, row_seq, col_seq)
    zero = _tf.zeros([], x.dtype)
    by_rows = _tf.reduce_sum(_tf.where(in_row[None, :, :, None, None], x[:, None], zero), axis=2)
    total = _tf.reduce_sum(
        _tf.where(in_col[None, None, :, :, None], by_rows[:, :, None], zero), axis=3
    )
    counts = (
        _tf.reduce_sum(_tf.cast(in_row, x.dtype), 1)[:, None]
        * _tf.reduce_sum(_tf.cast(in_col, x.dtype), 1)[None, :]
    )
    counts = counts[None, :, :, None]
    # Integer averages truncate toward zero, as TensorFlow's kernel divides.
    y = total / counts if x.dtype.is_floating else _tf.truncatediv(total, counts)
    return FractionalAvgPool(y, row_seq, col_seq)


def fractional_max_pool(
    value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0, name=None
):
    """Max pooling over irregular windows shrinking rows and columns by `pooling_ratio`:
    (output, row pooling sequence, column pooling sequence)."""
    return _fractional("MAX", value, pooling_ratio, pseudo_random, overlapping, seed)


def fractional_avg_pool(
    value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0, name=None
):
    """Average pooling over irregular windows (see `fractional_max_pool`)."""
    if not isinstance(pooling_ratio, (list, tuple)):
        # TensorFlow's v2 wrapper passes the ratio on unchecked; its op takes lists only.
        raise TypeError(
            "Expected list for 'pooling_ratio' argument to 'fractional_avg_pool' Op, not "
            f"{pooling_ratio}."
        )
    return _fractional("AVG", value, pooling_ratio, pseudo_random, overlapping, seed)
