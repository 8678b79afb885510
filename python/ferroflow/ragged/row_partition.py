"""`tf.experimental.RowPartition`: how a flat sequence of values is split into rows.

A partition always holds `row_splits` (`[nrows + 1]`, starting at 0, non-decreasing); the other
encodings (row lengths, value row ids, nrows, nvals, a uniform row length) are computed from it on
first use and cached, or kept from the factory that received them. Every encoding is an int32 or
int64 tensor of the partition's dtype. Everything is written with ferroflow ops, so partitions
built inside a `tf.function` trace hold symbolic tensors and their checks become Assert nodes.
"""

import numpy as np

from ferroflow import _core
from ferroflow import array_ops as _a
from ferroflow import check_ops as _check
from ferroflow import dtypes as _dtypes
from ferroflow import math as _m
from ferroflow.errors import InvalidArgumentError

__all__ = ["RowPartition"]

_INDEX_DTYPES = (_dtypes.int32, _dtypes.int64)


def static_value(t):
    """`t`'s numpy value when known now (eagerly, or a traced constant), else None."""
    if t is None or _core.is_symbolic(t):
        return None
    return np.asarray(t.numpy())


def static_int(t):
    """A scalar tensor's value as an int when known now, else None."""
    v = static_value(t)
    return None if v is None or v.ndim != 0 else int(v)


def _convert_partition(value, name, dtype=None, dtype_hint=None):
    """A partition tensor: int32 or int64, `dtype` if given, else its own integer dtype
    (an int32 numpy array or tensor stays int32), else int64."""
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    if isinstance(value, np.ndarray) and value.dtype == np.int32 and dtype is None:
        t = _a.convert_to_tensor(value)
    else:
        t = _a.convert_to_tensor(
            value, dtype=dtype, dtype_hint=_dtypes.int64 if dtype_hint is None else dtype_hint
        )
    if t.dtype not in _INDEX_DTYPES:
        raise ValueError(f"{name} must have dtype int32 or int64")
    return t


def _assert_rank(t, rank, name):
    if t.shape.rank is not None and t.shape.rank != rank:
        raise ValueError(f"Shape {t.shape} must have rank {rank}")


def _run_checks(checks):
    for check in checks:
        check()


def _monotonic(t, message):
    """Checks t[i] <= t[i + 1]."""
    return lambda: _check.assert_non_negative(t[1:] - t[:-1], message=message)


def _splits_to_rowids(splits, nvals=None):
    """Each value's row: `[nvals]` ints of the splits' dtype (what TensorFlow's
    row_splits_to_segment_ids computes)."""
    known = static_value(splits)
    if known is not None:
        lengths = np.diff(known)
        return _core.constant(np.repeat(np.arange(len(lengths), dtype=known.dtype), lengths))
    n = static_int(nvals) if nvals is not None else None
    if n is not None:
        # Each split inside the values starts a new row: a histogram of the splits, summed up.
        inner = splits[1:-1]
        marks = _a.scatter_nd(_a.expand_dims(inner, 1), _a.ones_like(inner), [n + 1])
        return _m.cumsum(marks)[:n]
    # Sizes known only when the graph runs: the same histogram by a segment sum over
    # `nvals + 1` segments (O(values + rows)).
    inner = splits[1:-1]
    marks = _core.raw_op("UnsortedSegmentSum", [_a.ones_like(inner), inner, splits[-1] + 1], "{}")
    return _m.cumsum(marks[0])[:-1]


class RowPartition:
    """Partitions a sequence of values into rows (the row structure of a RaggedTensor's
    ragged dimension).

    >>> import ferroflow as tf
    >>> tf.experimental.RowPartition.from_row_lengths([2, 0, 3])
    tf.RowPartition(row_splits=[0 2 2 5])
    """

    __slots__ = (
        "_row_splits",
        "_row_lengths",
        "_value_rowids",
        "_nrows",
        "_nvals",
        "_uniform_row_length",
        "_nvals_computed",
        "_value_rowids_computed",
        "_nvals_hint",
        "_layout",
    )

    def __init__(
        self,
        row_splits,
        row_lengths=None,
        value_rowids=None,
        nrows=None,
        uniform_row_length=None,
        nvals=None,
        internal=False,
    ):
        if internal is not _FACTORY_KEY:
            raise ValueError(
                "RowPartition constructor is private; please use one of the factory methods "
                "instead (e.g., RowPartition.from_row_lengths())"
            )
        self._row_splits = row_splits
        self._row_lengths = row_lengths
        self._value_rowids = value_rowids
        self._nrows = nrows
        self._nvals = nvals
        self._uniform_row_length = uniform_row_length
        self._nvals_computed = None
        self._value_rowids_computed = None
        self._nvals_hint = None  # the values' static count, when a RaggedTensor knows it
        self._layout = None  # the numpy layout, once computed (see numpy_layout)

    # --- factories ---------------------------------------------------------------------------

    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        """Rows `values[row_splits[i]:row_splits[i + 1]]`."""
        _check_validate(validate)
        if isinstance(row_splits, (list, tuple)) and not row_splits:
            raise ValueError("row_splits tensor may not be empty.")
        row_splits = _convert_partition(row_splits, "row_splits", dtype, dtype_hint)
        _assert_rank(row_splits, 1, "row_splits")
        if validate:
            msg = "Arguments to from_row_splits do not form a valid RaggedTensor:"
            _run_checks(
                [
                    lambda: _nonempty(row_splits, msg + "zero"),
                    lambda: _check.assert_equal(row_splits[:1], 0, message=msg + "zero"),
                    _monotonic(row_splits, msg + "monotonic"),
                ]
            )
        return cls(row_splits, internal=_FACTORY_KEY)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        """Rows of the given lengths, in order."""
        _check_validate(validate)
        row_lengths = _convert_partition(row_lengths, "row_lengths", dtype, dtype_hint)
        _assert_rank(row_lengths, 1, "row_lengths")
        if validate:
            msg = "Arguments to from_row_lengths do not form a valid RowPartition"
            _check.assert_non_negative(row_lengths, message=msg)
        zero = _a.zeros([1], row_lengths.dtype)
        row_splits = _a.concat([zero, _m.cumsum(row_lengths)], 0)
        return cls(row_splits, row_lengths=row_lengths, internal=_FACTORY_KEY)

    @classmethod
    def from_value_rowids(
        cls, value_rowids, nrows=None, validate=True, dtype=None, dtype_hint=None
    ):
        """Rows from each value's (sorted) row index; `nrows` adds trailing empty rows."""
        _check_validate(validate)
        value_rowids = _convert_partition(value_rowids, "value_rowids", dtype, dtype_hint)
        _assert_rank(value_rowids, 1, "value_rowids")
        known_ids = static_value(value_rowids)
        if nrows is None:
            if known_ids is not None:
                nrows = _core.constant(
                    int(known_ids[-1]) + 1 if known_ids.size else 0, value_rowids._dtype_enum
                )
            else:
                nrows = _a.concat([value_rowids[-1:], _a.constant([-1], value_rowids.dtype)], 0)
                nrows = nrows[0] + 1
        else:
            nrows = _a.convert_to_tensor(nrows, dtype=value_rowids.dtype)
            known_nrows = static_int(nrows)
            if known_nrows is not None:
                if known_nrows < 0:
                    raise ValueError(f"Expected nrows >= 0; got {known_nrows}")
                if known_ids is not None and known_ids.size and known_nrows < known_ids[-1] + 1:
                    raise ValueError(
                        "Expected nrows >= value_rowids[-1] + 1; got "
                        f"nrows={known_nrows}, value_rowids[-1]={known_ids[-1]}"
                    )
        _assert_rank(nrows, 0, "nrows")
        if validate:
            msg = "Arguments to from_value_rowids do not form a valid RowPartition"
            _run_checks(
                [
                    lambda: _check.assert_non_negative(value_rowids[:1], message=msg),
                    _monotonic(value_rowids, msg),
                    lambda: _check.assert_less(value_rowids[-1:], nrows, message=msg),
                ]
            )
        row_lengths = _row_lengths_from_rowids(value_rowids, nrows)
        zero = _a.zeros([1], value_rowids.dtype)
        row_splits = _a.concat([zero, _m.cumsum(row_lengths)], 0)
        return cls(
            row_splits,
            row_lengths=row_lengths,
            value_rowids=value_rowids,
            nrows=nrows,
            internal=_FACTORY_KEY,
        )

    @classmethod
    def from_row_starts(cls, row_starts, nvals, validate=True, dtype=None, dtype_hint=None):
        """Rows starting at `row_starts`, the last ending at `nvals`."""
        _check_validate(validate)
        row_starts = _convert_partition(row_starts, "row_starts", dtype, dtype_hint)
        _assert_rank(row_starts, 1, "row_starts")
        nvals = _a.cast(nvals, row_starts.dtype)
        if validate:
            msg = "Arguments to from_row_starts do not form a valid RaggedTensor"
            _run_checks(
                [
                    lambda: _check.assert_equal(row_starts[:1], 0, message=msg),
                    _monotonic(row_starts, msg),
                    lambda: _check.assert_less_equal(row_starts[-1:], nvals, message=msg),
                ]
            )
        row_splits = _a.concat([row_starts, _a.reshape(nvals, [1])], 0)
        return cls(row_splits, nvals=nvals, internal=_FACTORY_KEY)

    @classmethod
    def from_row_limits(cls, row_limits, validate=True, dtype=None, dtype_hint=None):
        """Rows ending at `row_limits`, the first starting at 0."""
        _check_validate(validate)
        row_limits = _convert_partition(row_limits, "row_limits", dtype, dtype_hint)
        _assert_rank(row_limits, 1, "row_limits")
        if validate:
            msg = "Arguments to from_row_limits do not form a valid RaggedTensor"
            _run_checks(
                [
                    lambda: _check.assert_non_negative(row_limits[:1], message=msg),
                    _monotonic(row_limits, msg),
                ]
            )
        zero = _a.zeros([1], row_limits.dtype)
        return cls(_a.concat([zero, row_limits], 0), internal=_FACTORY_KEY)

    @classmethod
    def from_uniform_row_length(
        cls, uniform_row_length, nvals=None, nrows=None, validate=True, dtype=None, dtype_hint=None
    ):
        """`nrows` rows of `uniform_row_length` values each."""
        _check_validate(validate)
        if nrows is None and nvals is None:
            raise ValueError("Either (or both) of nvals and nrows must be specified")
        length = _convert_partition(uniform_row_length, "uniform_row_length", dtype, dtype_hint)
        _assert_rank(length, 0, "uniform_row_length")
        dt = length.dtype
        nvals = None if nvals is None else _a.cast(nvals, dt)
        nrows = None if nrows is None else _a.cast(nrows, dt)
        known_length = static_int(length)
        if nrows is None:
            if known_length == 0:
                nrows = _a.constant(0, dt)
            else:
                nrows = _m.floordiv(nvals, _m.maximum(length, _a.constant(1, dt)))
        known_nrows, known_nvals = static_int(nrows), static_int(nvals)
        if known_nvals is None and known_nrows is not None and known_length is not None:
            if nvals is not None and validate:
                _check.assert_equal(nvals, known_nrows * known_length)
            known_nvals = known_nrows * known_length
            nvals = _a.constant(known_nvals, dt)
        if nvals is None:
            nvals = nrows * length
        row_splits = _m.multiply(_a.range(nrows + 1, dtype=dt), length)
        if validate:
            if None not in (known_nrows, known_length, known_nvals):
                if known_nrows * known_length != known_nvals:
                    raise ValueError(
                        f"uniform_row_length={known_length} times nrows={known_nrows} must "
                        f"equal nvals={known_nvals}"
                    )
            else:
                _check.assert_equal(
                    nrows * length, nvals, message="uniform_row_length times nrows must equal nvals"
                )
            if known_length is None:
                _check.assert_greater_equal(
                    length, 0, message="uniform_row_length must be nonnegative."
                )
            elif known_length < 0:
                raise ValueError("uniform_row_length must be nonnegative.")
        return cls(
            row_splits,
            uniform_row_length=length,
            nrows=nrows,
            nvals=nvals,
            internal=_FACTORY_KEY,
        )

    # --- encodings ---------------------------------------------------------------------------

    @property
    def dtype(self):
        """The dtype of every encoding tensor: tf.int32 or tf.int64."""
        return self._row_splits.dtype

    def row_splits(self):
        return self._row_splits

    def value_rowids(self):
        if self._value_rowids is not None:
            return self._value_rowids
        # Computed ids are cached apart from given ones, which alone state static_nvals.
        if self._value_rowids_computed is None:
            self._value_rowids_computed = _splits_to_rowids(
                self._row_splits, self._static_nvals_tensor()
            )
        return self._value_rowids_computed

    def nrows(self):
        if self._nrows is None:
            n = self._row_splits.shape[0]
            if n is not None:
                self._nrows = _a.constant(n - 1, self.dtype)
            else:
                self._nrows = _a.shape(self._row_splits, out_type=self.dtype)[0] - 1
        return self._nrows

    def nvals(self):
        if self._nvals is not None:
            return self._nvals
        # Computed, not given: kept apart so static_nvals stays what the factory stated.
        if self._nvals_computed is None:
            self._nvals_computed = self._row_splits[-1]
        return self._nvals_computed

    def uniform_row_length(self):
        return self._uniform_row_length

    def row_starts(self):
        return self._row_splits[:-1]

    def row_limits(self):
        return self._row_splits[1:]

    def row_lengths(self):
        if self._row_lengths is None:
            if self._uniform_row_length is not None:
                self._row_lengths = _a.fill(
                    _a.reshape(_a.cast(self.nrows(), _dtypes.int32), [1]),
                    self._uniform_row_length,
                )
            else:
                self._row_lengths = self._row_splits[1:] - self._row_splits[:-1]
        return self._row_lengths

    def offsets_in_rows(self):
        """Each value's position within its row."""
        rowids = self.value_rowids()
        return _a.range(_a.shape(rowids, self.dtype)[0], dtype=self.dtype) - _a.gather(
            self._row_splits, rowids
        )

    def numpy_layout(self):
        """The partition's layout in numpy (cached) when its splits are known now, else None."""
        if self._layout is None:
            self._layout = Layout.of(self._row_splits)
        return self._layout or None

    def is_uniform(self):
        return self._uniform_row_length is not None

    def _static_nvals_tensor(self):
        return self._nvals if self._nvals is not None else self._nvals_hint

    @property
    def static_nrows(self):
        n = self._row_splits.shape[0]
        if n is not None:
            return n - 1
        return static_int(self._nrows) if self._nrows is not None else None

    @property
    def static_nvals(self):
        """The number of values when a factory stated it (a numpy integer) or the value row
        ids' static length, else None (as TensorFlow's)."""
        if self._nvals is not None:
            v = static_value(self._nvals)
            if v is not None and v.ndim == 0:
                return v[()]
        if self._value_rowids is not None:
            return self._value_rowids.shape[0]
        return None

    @property
    def static_uniform_row_length(self):
        """The uniform row length when known now (a numpy integer), else None."""
        if self._uniform_row_length is None:
            return None
        v = static_value(self._uniform_row_length)
        return None if v is None or v.ndim != 0 else v[()]

    def with_dtype(self, dtype):
        """This partition with its encodings cast to `dtype` (int32 or int64)."""
        dtype = _dtypes.as_dtype(dtype)
        if dtype not in _INDEX_DTYPES:
            raise ValueError(f"dtype must be int32 or int64, got {dtype}")
        if dtype == self.dtype:
            return self

        def cast(t):
            return None if t is None else _a.cast(t, dtype)

        return RowPartition(
            cast(self._row_splits),
            cast(self._row_lengths),
            cast(self._value_rowids),
            cast(self._nrows),
            cast(self._uniform_row_length),
            cast(self._nvals),
            internal=_FACTORY_KEY,
        )

    def _is_eager(self):
        return not _core.is_symbolic(self._row_splits)

    def __repr__(self):
        if self._is_eager():
            if self._uniform_row_length is not None:
                return (
                    f"tf.RowPartition(nrows={self.nrows().numpy()}, "
                    f"uniform_row_length={self._uniform_row_length.numpy()})"
                )
            return f"tf.RowPartition(row_splits={self._row_splits.numpy()})"
        return f"tf.RowPartition(row_splits={self._row_splits})"

    __str__ = __repr__


_FACTORY_KEY = object()


class Layout:
    """Where each value of a partition sits, computed in numpy from splits known now: the
    integer index tensors that eager ragged operations scatter and gather with (computed once
    per partition; indices are int32 when they fit, which the kernels read faster)."""

    __slots__ = ("splits", "lengths", "rowids", "offsets", "nrows", "ncols", "nvals", "_cache")

    @classmethod
    def of(cls, splits):
        known = static_value(splits)
        if known is None or known.ndim != 1 or known.size == 0:
            return False
        self = cls()
        self.splits = known.astype(np.int64)
        self.lengths = np.diff(self.splits)
        if (self.lengths < 0).any():
            return False
        self.nrows = len(self.lengths)
        self.nvals = int(self.splits[-1] - self.splits[0])
        self.ncols = int(self.lengths.max()) if self.nrows else 0
        self.rowids = np.repeat(np.arange(self.nrows, dtype=np.int64), self.lengths)
        self.offsets = np.arange(self.splits[0], self.splits[-1]) - self.splits[:-1][self.rowids]
        self._cache = {}
        return self

    def _index_dtype(self, largest):
        return np.int32 if largest < 2**31 - 1 else np.int64

    def rowid_index(self):
        """`[nvals, 1]`: each value's row (scatter_nd indices)."""
        if "rowid" not in self._cache:
            ids = self.rowids.astype(self._index_dtype(self.nrows))
            self._cache["rowid"] = _core.constant(ids.reshape(-1, 1))
        return self._cache["rowid"]

    def cell_index(self, ncols):
        """`[nvals, 1]`: each value's cell in a row-major `[nrows, ncols]` block."""
        key = ("cell", ncols)
        if key not in self._cache:
            cells = self.rowids * ncols + self.offsets
            self._cache[key] = _core.constant(
                cells.astype(self._index_dtype(self.nrows * ncols)).reshape(-1, 1)
            )
        return self._cache[key]

    def mask(self, nrows, ncols):
        """`[nrows, ncols]` bool (nrows at least the partition's): the cells holding a value."""
        key = ("mask", nrows, ncols)
        if key not in self._cache:
            lengths = np.zeros(nrows, np.int64)
            lengths[: self.nrows] = self.lengths
            self._cache[key] = _core.constant(np.arange(ncols)[None, :] < lengths[:, None])
        return self._cache[key]

    def padded_block(self, data, fill, nrows=None, ncols=None):
        """`[nrows, ncols, ...]` (at least the partition's sizes): the values of `data` in
        their cells, `fill` (a tensor broadcastable to the inner dims, or None for zeros)
        elsewhere; None where this layout cannot build it (a dtype scatter_nd does not add,
        sizes that would cut rows, or data whose length is not the partition's)."""
        nrows = self.nrows if nrows is None else nrows
        ncols = self.ncols if ncols is None else ncols
        dims = data.shape.dims
        if (
            dims is None
            or None in dims
            or dims[0] != self.nvals
            or nrows < self.nrows
            or ncols < self.ncols
            or data.dtype.is_bool
            or not (data.dtype.is_floating or data.dtype.is_integer or data.dtype.is_complex)
        ):
            return None
        from ferroflow import array_ops as _arr

        inner = dims[1:]
        flat = _arr.scatter_nd(self.cell_index(ncols), data, [nrows * ncols, *inner])
        block = _arr.reshape(flat, [nrows, ncols, *inner])
        if fill is None:
            return block
        mask = _arr.reshape(self.mask(nrows, ncols), [nrows, ncols] + [1] * len(inner))
        return _arr.where(mask, block, fill)


def _check_validate(validate):
    if not isinstance(validate, bool):
        raise TypeError("validate must have type bool")


def _nonempty(row_splits, message):
    n = row_splits.shape[0]
    if n == 0:
        raise InvalidArgumentError(None, None, message)


def _row_lengths_from_rowids(value_rowids, nrows):
    """How many values each of `nrows` rows holds: TensorFlow's bincount of the row ids, which
    refuses a negative id even unvalidated and drops ids from `nrows` on (unsorted ids, which
    only validation refuses, count where they fall)."""
    from ferroflow.segment_ops import unsorted_segment_sum

    message = "Input arr must be non-negative!"
    dtype = value_rowids.dtype
    known_ids, known_nrows = static_value(value_rowids), static_int(nrows)
    if known_ids is not None and (known_ids < 0).any():
        raise InvalidArgumentError(None, None, message)
    if known_ids is not None and known_nrows is not None:
        ids = known_ids[known_ids < known_nrows].astype(np.int64)
        counts = np.bincount(ids, minlength=known_nrows)[:known_nrows]
        return _a.constant(counts.astype(dtype.as_numpy_dtype))
    if known_ids is None:
        _check.assert_non_negative(value_rowids, message=message)
    # One segment sum over the ids (O(values + rows)); ids from `nrows` on count nowhere.
    kept = _m.less(value_rowids, nrows)
    ids = _a.where(kept, value_rowids, _a.zeros_like(value_rowids))
    return unsorted_segment_sum(_a.cast(kept, dtype), ids, nrows)


def sorted_search(sorted_values, targets):
    """For each target, the number of `sorted_values` (a sorted vector) below it: a binary
    search run on every target at once, O(targets * log(values)) (the comparison of every
    target with every value would be their product). The step count is the values' static
    length's bit count, else the index dtype's."""
    dtype = targets.dtype
    values = _a.cast(sorted_values, dtype)
    count = values.shape[0]
    steps = (int(count).bit_length() + 1) if count is not None else dtype.size * 8
    n = _a.shape(values, out_type=dtype)[0]
    # A sentinel after the values keeps every probe in range (also for no values).
    padded = _a.concat([values, _a.constant([dtype.max], dtype)], 0)
    lo = _a.zeros_like(targets)
    hi = lo + n
    for _ in range(steps):
        mid = _m.floordiv(lo + hi, 2)
        open_ = _m.less(lo, hi)
        below = _m.less(_a.gather(padded, mid), targets)
        lo = _a.where(_m.logical_and(open_, below), mid + 1, lo)
        hi = _a.where(_m.logical_and(open_, _m.logical_not(below)), mid, hi)
    return lo
