"""TensorFlow's diagonal ops (MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3): any band of
diagonals ``k = d`` or ``k = (lo, hi)``, TensorFlow's four alignments, padding and output sizes.

Each op is a gather through a constant index table built from the static shapes (numpy), then a
select with the padding value, so it runs on every device and differentiates through its parts
(the gradients are TensorFlow's: a diagonal op's adjoint is the matching diagonal op)."""

import functools

import numpy as np

from ferroflow import dtypes as _dt
from ferroflow.array_ops import (
    broadcast_to,
    concat,
    convert_to_tensor,
    gather,
    reshape,
    shape,
    where,
)
from ferroflow.backprop import stop_gradient
from ferroflow.errors import InvalidArgumentError

_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _error(op, message):
    return InvalidArgumentError(None, None, f"{message} [Op:{op}]")


def _static_int(value, what):
    if hasattr(value, "numpy"):
        from ferroflow.framework_ops import get_static_value

        value = get_static_value(value)
        if value is None:
            raise NotImplementedError(f"ferroflow's diagonal ops need a constant `{what}`")
    return np.asarray(value)


def _band(op, k):
    """(lo, hi) from ``k``: an int or a vector of one or two ints."""
    k = _static_int(k, "k").astype(np.int64)
    if k.ndim > 1:
        raise _error(op, f"diag_index must be a scalar or vector, received shape: {list(k.shape)}")
    flat = k.reshape(-1)
    if flat.size == 0:
        raise _error(op, "diag_index must have at least one element")
    if flat.size > 2:
        raise _error(
            op, f"diag_index must have only one or two elements, received {flat.size} elements."
        )
    lo, hi = int(flat[0]), int(flat[-1])
    if lo > hi:
        raise _error(op, f"lower_diag_index must not be larger than upper_diag_index: {lo} > {hi}")
    return lo, hi


def _alignment(op, align):
    if align not in _ALIGNS:
        raise _error(
            op,
            f"Value for attr 'align' of \"{align}\" is not in the list of allowed values: "
            + ", ".join(f'"{a}"' for a in _ALIGNS),
        )
    # (superdiagonals left-aligned, subdiagonals left-aligned)
    return align.startswith("LEFT"), align.endswith("LEFT")


def _with_tail(x, drop, tail):
    """``x`` with its last ``drop`` dims replaced by ``tail``; batch dims known only when the
    graph runs (a traced batch of unknown size) are read from ``tf.shape``."""
    rank = x.shape.rank
    batch = x.shape[: rank - drop]
    if batch.is_fully_defined():
        return batch.as_list() + list(tail)
    return concat([shape(x)[: rank - drop], np.asarray(tail, np.int32)], 0)


def _check_bounds(op, x, lo, hi):
    """The matrix's (rows, cols), once ``lo`` and ``hi`` are inside it."""
    rows, cols = x.shape[-2], x.shape[-1]
    if rows is None or cols is None:
        # The index tables are built from the sizes (see the module's docstring).
        raise NotImplementedError(
            f"ferroflow's diagonal ops need the matrices' sizes when traced; got {x.shape}"
        )
    for which, d in (("lower", lo), ("upper", hi)):
        if not (-rows < d < cols or d == 0):
            raise _error(
                op,
                f"{which}_diag_index is out of bound: {d}. It must be between {-rows} and {cols}",
            )
    return rows, cols


def _diag_len(d, rows, cols):
    """The length of diagonal(s) ``d`` (an int or an int array) of a rows x cols matrix."""
    return np.minimum(rows + np.minimum(0, d), cols - np.maximum(0, d))


def _offset(d, max_len, rows, cols, left_super, left_sub):
    """Where diagonal(s) ``d`` start in their padded rows (TensorFlow's ComputeOffset)."""
    left = (left_super & (d >= 0)) | (left_sub & (d <= 0))
    return np.where(left, 0, max_len - _diag_len(d, rows, cols))


def _frozen(array):
    """A read-only copy: the tables are cached and shared between calls."""
    array = np.array(array, dtype=np.int64 if array.dtype != bool else bool)
    array.setflags(write=False)
    return array


@functools.lru_cache(maxsize=256)
def _part_table(lo, hi, rows, cols, aligns):
    """Flat matrix indices of each padded diagonal row (hi first) and where they are real."""
    max_len = int(max(0, _diag_len(np.arange(lo, hi + 1), rows, cols).max()))
    d = np.arange(hi, lo - 1, -1)[:, None]
    n = np.arange(max_len)[None, :] - _offset(d, max_len, rows, cols, *aligns)
    valid = (n >= 0) & (n < _diag_len(d, rows, cols))
    index = np.where(valid, (n - np.minimum(0, d)) * cols + n + np.maximum(0, d), 0)
    return _frozen(index), _frozen(valid), max_len


def _select(source, index, valid, padding):
    """``source[..., index]`` where ``valid``, else ``padding`` (gradients skip the padding)."""
    if source.shape[-1] == 0:
        return broadcast_to(padding, _with_tail(source, 1, index.shape))
    picked = gather(source, index, axis=-1)
    return where(valid, picked, padding)


def _padding(value, dtype):
    pad = convert_to_tensor(value, dtype=dtype) if not hasattr(value, "dtype") else value
    if pad.dtype != dtype:
        from ferroflow.math import cast

        pad = cast(pad, dtype)
    # TensorFlow's diagonal ops give the padding value no gradient.
    return stop_gradient(pad)


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """The diagonals ``k`` (an int, or ``(lo, hi)`` for a band) of each matrix: shape
    ``[..., max_diag_len]`` for one diagonal, ``[..., hi - lo + 1, max_diag_len]`` for a band
    (diagonal ``hi`` first), shorter diagonals padded with ``padding_value`` per ``align``.

    >>> import ferroflow as tf
    >>> x = tf.reshape(tf.range(1.0, 13.0), [3, 4])
    >>> tf.linalg.diag_part(x, k=1).numpy().tolist()
    [2.0, 7.0, 12.0]
    """
    op = "MatrixDiagPartV3"
    x = convert_to_tensor(input)
    if x.shape.rank is not None and x.shape.rank < 2:
        raise _error(op, f"input must be at least 2-dim, received shape: {x.shape}")
    lo, hi = _band(op, k)
    aligns = _alignment(op, align)
    rows, cols = _check_bounds(op, x, lo, hi)
    index, valid, _ = _part_table(lo, hi, rows, cols, aligns)
    if lo == hi:
        index, valid = index[0], valid[0]
    flat = reshape(x, _with_tail(x, 2, [rows * cols]))
    return _select(flat, index, valid, _padding(padding_value, x.dtype))


def _diag_sizes(op, lo, hi, max_len, num_rows, num_cols):
    """TensorFlow's MatrixDiagV3 rule for the output's rows and columns."""
    num_rows = int(_static_int(-1 if num_rows is None else num_rows, "num_rows"))
    num_cols = int(_static_int(-1 if num_cols is None else num_cols, "num_cols"))
    min_rows = max_len - min(hi, 0)
    min_cols = max_len + max(lo, 0)
    if num_rows != -1 and num_rows < min_rows:
        raise _error(op, "The number of rows is too small.")
    if num_cols != -1 and num_cols < min_cols:
        raise _error(op, "The number of columns is too small.")
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(min_rows, min_cols)
    elif num_rows == -1:
        num_rows = min_rows
    elif num_cols == -1:
        num_cols = min_cols
    if num_rows != min_rows and num_cols != min_cols:
        raise _error(
            op,
            "The number of rows or columns is not consistent with the specified d_lower, "
            "d_upper, and diagonal.",
        )
    return num_rows, num_cols


@functools.lru_cache(maxsize=256)
def _matrix_table(lo, hi, max_len, rows, cols, aligns):
    """For each matrix entry: its flat index in the ``[num_diags, max_len]`` diagonals, and
    whether it lies in the band."""
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    d = j - i
    valid = (d >= lo) & (d <= hi)
    offset = _offset(d, max_len, rows, cols, *aligns)
    index = np.where(valid, (hi - d) * max_len + np.minimum(i, j) + offset, 0)
    return _frozen(index), _frozen(valid)


def _diagonals_flat(op, diagonal, lo, hi):
    """``diagonal`` as ``[..., num_diags * max_len]``, and ``max_len``."""
    rank = diagonal.shape.rank
    if rank < 1:
        raise _error(op, f"diagonal must be at least 1-dim, received shape: {diagonal.shape}")
    max_len = diagonal.shape[-1]
    if max_len is None:
        raise NotImplementedError(
            f"ferroflow's diagonal ops need the diagonals' length when traced; got {diagonal.shape}"
        )
    if lo == hi:
        return diagonal, max_len
    if rank < 2 or diagonal.shape[-2] != hi - lo + 1:
        return None, None
    return reshape(diagonal, _with_tail(diagonal, 2, [(hi - lo + 1) * max_len])), max_len


def diag(
    diagonal,
    name="diag",
    k=0,
    num_rows=-1,
    num_cols=-1,
    padding_value=0,
    align="RIGHT_LEFT",
):
    """Matrices with ``diagonal`` on their diagonals ``k`` (a band ``(lo, hi)`` takes
    ``[..., num_diags, max_diag_len]``, diagonal ``hi`` first) and ``padding_value``
    elsewhere; sizes from ``num_rows``/``num_cols`` or the smallest square that fits.

    >>> import ferroflow as tf
    >>> tf.linalg.diag([1.0, 2.0], k=1).numpy().tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]
    """
    op = "MatrixDiagV3"
    d = convert_to_tensor(diagonal)
    if d.dtype == _dt.bool:
        padding_value = bool(padding_value)
    lo, hi = _band(op, k)
    aligns = _alignment(op, align)
    flat, max_len = _diagonals_flat(op, d, lo, hi)
    if flat is None:
        raise _error(
            op,
            "The number of diagonals provided in the input does not match the "
            "lower_diag_index and upper_diag_index range.",
        )
    rows, cols = _diag_sizes(op, lo, hi, max_len, num_rows, num_cols)
    index, valid = _matrix_table(lo, hi, max_len, rows, cols, aligns)
    return _select(flat, index, valid, _padding(padding_value, d.dtype))


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """``input`` with its diagonals ``k`` replaced by ``diagonal`` (laid out as
    `tf.linalg.diag_part` returns them)."""
    op = "MatrixSetDiagV3"
    x = convert_to_tensor(input)
    d = convert_to_tensor(diagonal, dtype=x.dtype)
    lo, hi = _band(op, k)
    aligns = _alignment(op, align)
    if x.shape.rank < 2:
        raise _error(op, f"input must be at least 2-dim, received shape: {x.shape}")
    rows, cols = _check_bounds(op, x, lo, hi)
    max_len = int(max(0, _diag_len(np.arange(lo, hi + 1), rows, cols).max()))
    expected = list(x.shape[:-2]) + ([max_len] if lo == hi else [hi - lo + 1, max_len])
    if not d.shape.is_compatible_with(expected):
        raise _error(
            op,
            "Either first dimensions of diagonal don't match input.shape[:-2], or "
            "diagonal.shape[:-1] is not equal to the longests diagonal in range "
            f"[lower_diag_index:upper_diag_index].\nInput shape: {list(x.shape)}\n"
            f"Diagonal shape: {list(d.shape)}\nExpected diagonal shape: {expected}",
        )
    flat, _ = _diagonals_flat(op, d, lo, hi)
    index, valid = _matrix_table(lo, hi, max_len, rows, cols, aligns)
    if flat.shape[-1] == 0:
        return x
    return where(valid, gather(flat, index, axis=-1), x)
