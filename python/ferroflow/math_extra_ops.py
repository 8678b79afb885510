"""Top-level math names TensorFlow composes from simpler ops: truncated division, real
division, scalar multiplication, norm clipping, fixed-width histograms and unique counts."""

import collections

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow import math as _m
from ferroflow.array_ops import (
    cast,
    convert_to_tensor,
    expand_dims,
    one_hot,
    ones_like,
    range,  # noqa: A004 - TensorFlow's name
    reshape,
    size,
    unique,
    where,
)
from ferroflow.backprop import custom_gradient, stop_gradient
from ferroflow.errors import InvalidArgumentError, NotFoundError
from ferroflow.math import clip_by_value

UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _pair(x, y):
    x = convert_to_tensor(x)
    return x, convert_to_tensor(y, dtype_hint=x.dtype)


def _signs_differ(x, y):
    return _m.not_equal(_m.less(x, 0), _m.less(y, 0))


def truncatediv(x, y, name=None):
    """x / y rounded toward zero (C's integer division)."""
    x, y = _pair(x, y)
    if x.dtype.is_floating or x.dtype.is_complex:
        q = x / y
        # TensorFlow's TruncateDiv passes no gradient.
        return stop_gradient(_m.sign(q) * _m.floor(_m.abs(q)))
    q = _m.floordiv(x, y)
    inexact = _m.logical_and(_m.not_equal(_m.floormod(x, y), 0), _signs_differ(x, y))
    return stop_gradient(q + cast(inexact, x.dtype))


def truncatemod(x, y, name=None):
    """The remainder of truncated division: the sign of `x` (C's fmod)."""
    x, y = _pair(x, y)

    @custom_gradient
    def fmod(x, y):
        r = _m.floormod(x, y)
        # floormod takes the divisor's sign; where that differs from x's, step back by y.
        wrong_side = _m.logical_and(_m.not_equal(r, 0), _signs_differ(r, x))

        def no_gradient(upstream):
            # TensorFlow registers no gradient for TruncateMod: asking for one is its error.
            raise LookupError("gradient registry has no entry for: TruncateMod")

        return where(wrong_side, r - y, r), no_gradient

    return fmod(x, y)


def realdiv(x, y, name=None):
    """x / y for floating-point and complex tensors (TensorFlow has no integer kernel)."""
    x, y = _pair(x, y)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise NotFoundError(
            None,
            None,
            f"Could not find device for node: RealDiv[T={x.dtype.name}]: RealDiv is registered "
            "for floating-point and complex types only",
        )
    return _m.divide(x, y)


def scalar_mul(scalar, x, name=None):
    """`scalar * x` for a 0-D `scalar`."""
    x = convert_to_tensor(x)
    s = convert_to_tensor(scalar, dtype_hint=x.dtype)
    if s.ndim != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {s.shape}.")
    return _m.multiply(s, x)


def _indexed_slices():
    from ferroflow.indexed_slices import IndexedSlices

    return IndexedSlices


def _values_of(t):
    """An IndexedSlices' values (clipping sees each occurrence of a repeated row), else `t`."""
    return t.values if isinstance(t, _indexed_slices()) else t


def _like(t, values):
    """``values`` as `t`'s kind: IndexedSlices on `t`'s rows stay IndexedSlices."""
    slices = _indexed_slices()
    return slices(values, t.indices, t.dense_shape) if isinstance(t, slices) else values


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """`t` scaled so that its L2 norm over `axes` is at most `clip_norm` (an IndexedSlices by
    the norm of its values, staying IndexedSlices)."""
    if isinstance(t, _indexed_slices()):
        return _like(t, clip_by_norm(t.values, clip_norm, axes))
    t = convert_to_tensor(t)
    clip_norm = cast(clip_norm, t.dtype)
    l2sum = _m.reduce_sum(t * t, axes, keepdims=True)
    positive = _m.greater(l2sum, 0)
    # The gradient of sqrt at 0 is infinite: take it only where the sum is positive.
    l2norm = where(positive, _m.sqrt(where(positive, l2sum, ones_like(l2sum))), l2sum)
    return t * clip_norm / _m.maximum(l2norm, clip_norm)


def global_norm(t_list, name=None):
    """sqrt(sum of the squares of every element of every tensor in `t_list`)."""
    if isinstance(t_list, (str, bytes)) or not hasattr(t_list, "__iter__"):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    parts = [convert_to_tensor(_values_of(t)) for t in t_list if t is not None]
    if not parts:
        return _core.constant(0.0, _dtypes.enum_of(_dtypes.float32))
    sums = [_m.reduce_sum(p * p) for p in parts]
    return _m.sqrt(_m.add_n(sums))


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Every tensor scaled by ``clip_norm / max(global_norm, clip_norm)``; returns the
    clipped list and the global norm (NaN values throughout when the norm is not finite)."""
    if isinstance(t_list, (str, bytes)) or not hasattr(t_list, "__iter__"):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    t_list = list(t_list)
    values = [None if t is None else convert_to_tensor(_values_of(t)) for t in t_list]
    norm = global_norm(values) if use_norm is None else convert_to_tensor(use_norm)
    clip = cast(clip_norm, norm.dtype)
    scale = clip * _m.minimum(1.0 / norm, 1.0 / clip)
    # inf - inf is NaN: a non-finite norm makes every value NaN, as TensorFlow's.
    scale = scale + (norm - norm)
    clipped = [
        None if v is None else _like(t, v * cast(scale, v.dtype)) for v, t in zip(values, t_list)
    ]
    return clipped, norm


def histogram_fixed_width(values, value_range, nbins=100, dtype=_dtypes.int32, name=None):
    """Counts of `values` in `nbins` equal bins over `value_range`; values outside go to the
    first or last bin."""
    values = convert_to_tensor(values)
    value_range = cast(convert_to_tensor(value_range), values.dtype)
    # The number of bins is the output's size: a Python int or a concrete tensor.
    nbins = int(nbins)
    if nbins <= 0:
        raise InvalidArgumentError(
            None, None, f"nbins should be a positive number, but got '{nbins}'"
        )
    lo, hi = value_range[0], value_range[1]
    scaled = (values - lo) / (hi - lo)
    bins = cast(_m.floor(float(nbins) * scaled), _dtypes.int32)
    bins = clip_by_value(bins, 0, nbins - 1)
    counts = _m.reduce_sum(one_hot(reshape(bins, [-1]), nbins, dtype=dtype), axis=0)
    return cast(counts, dtype)


def unique_with_counts(x, out_idx=_dtypes.int32, name=None):
    """`tf.unique` plus how many times each unique element occurs."""
    y, idx = unique(x, out_idx)
    matches = _m.equal(expand_dims(idx, 0), expand_dims(range(size(y, out_idx)), 1))
    return UniqueWithCounts(y, idx, _m.reduce_sum(cast(matches, out_idx), axis=1))
