"""The `tf.math` names TensorFlow builds from other ops (or that are one small op in
TensorFlow and compose exactly here): counts, scans, top-k membership, polynomials, norms and
the zero-safe products. Each follows TensorFlow's Python or kernel rules: dtypes, errors,
gradients."""

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow import math as _m
from ferroflow.array_ops import (
    cast,
    concat,
    convert_to_tensor,
    expand_dims,
    fill,
    gather,
    ones_like,
    reshape,
    reverse,
    shape,
    size,
    stack,
    transpose,
    where,
    zeros_like,
)
from ferroflow.backprop import custom_gradient, stop_gradient
from ferroflow.errors import InvalidArgumentError
from ferroflow.math_special import lgamma

_FLOATS = (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64)
_INEXACT = _FLOATS + (_dtypes.complex64, _dtypes.complex128)


def _require(x, allowed, op):
    """TensorFlow's InvalidArgumentError for a dtype the op's kernel does not take."""
    if x.dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: "
            f"{names}\n\t; NodeDef: {{{{node {op}}}}} [Op:{op}]",
        )


def rint(x, name=None):
    """Rounds to the nearest integer, halves to even (float dtypes only)."""
    x = convert_to_tensor(x)
    _require(x, _FLOATS, "Rint")
    return _m.round(x)


def softsign(features, name=None):
    """features / (1 + |features|)."""
    x = convert_to_tensor(features)
    _require(x, _FLOATS, "Softsign")
    return x / (1 + _m.abs(x))


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) computed stably as -softplus(-x)."""
    from ferroflow.nn import softplus

    x = convert_to_tensor(x)
    _require(x, _FLOATS, "Softplus")
    return -softplus(-x)


def reciprocal_no_nan(x, name=None):
    """1 / x, and 0 where x is 0."""
    x = convert_to_tensor(x)
    _require(x, _INEXACT, "DivNoNan")
    return _m.divide_no_nan(cast(1, x.dtype), x)


def multiply_no_nan(x, y, name=None):
    """x * y, and 0 where y is 0 even if x is NaN or infinite (TensorFlow's MulNoNan)."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=x.dtype)
    _require(x, _INEXACT, "MulNoNan")

    @custom_gradient
    def mul_no_nan(x, y):
        def grad(g):
            # MulNoNanGrad: mul_no_nan(g, y) for x, mul_no_nan(x, g) for y, summed back over
            # broadcast axes.
            gx = _sum_to(_raw_mul_no_nan(g, y), x)
            gy = _sum_to(_raw_mul_no_nan(x, g), y)
            return gx, gy

        return _raw_mul_no_nan(x, y), grad

    return mul_no_nan(x, y)


def _raw_mul_no_nan(x, y):
    zero = _m.equal(y, cast(0, y.dtype))
    return where(zero, zeros_like(x * y), x * y)


def _sum_to(g, x):
    """`g` summed over the axes `x` was broadcast along."""
    g_dims, x_dims = list(g.shape), list(x.shape)
    lead = len(g_dims) - len(x_dims)
    axes = list(range(lead)) + [
        i + lead for i, d in enumerate(x_dims) if d == 1 and g_dims[i + lead] != 1
    ]
    if axes:
        g = _m.reduce_sum(g, axes)
    return reshape(g, shape(x))


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):  # noqa: A002
    """sqrt(sum(|x|^2)) over ``axis``; integer inputs give the truncated integer norm."""
    x = convert_to_tensor(input_tensor)
    if x.dtype == _dtypes.bool or x.dtype == _dtypes.string:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values "
            "[Op:EuclideanNorm]",
        )
    if x.dtype.is_integer:
        as_float = reduce_euclidean_norm(cast(x, _dtypes.float64), axis, keepdims)
        return cast(as_float, x.dtype)
    if x.dtype.is_complex:
        modulus = _m.reduce_sum(_m.square(_m.abs(x)), axis, keepdims=keepdims)
        return cast(_m.sqrt(modulus), x.dtype)
    return _m.sqrt(_m.reduce_sum(_m.square(x), axis, keepdims=keepdims))


def zero_fraction(value, name=None):
    """The fraction of zeros in ``value``, as a float32 scalar (NaN when empty)."""
    value = convert_to_tensor(value)
    total = cast(size(value, out_type=_dtypes.int64), _dtypes.float32)
    nonzero = cast(_m.count_nonzero(value, dtype=_dtypes.int64), _dtypes.float32)
    return (total - nonzero) / total


def lbeta(x, name=None):
    """log|B(x)| along the last axis: sum(lgamma(x)) - lgamma(sum(x))."""
    x = convert_to_tensor(x)
    return _m.reduce_sum(lgamma(x), [-1]) - lgamma(_m.reduce_sum(x, [-1]))


def polyval(coeffs, x, name=None):
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1] by Horner's rule."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = convert_to_tensor(x)
    if not coeffs:
        return zeros_like(x)
    coeffs = [convert_to_tensor(c) for c in coeffs]
    p = coeffs[0]
    for c in coeffs[1:]:
        p = c + p * x
    return p


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):  # noqa: A002
    """The sum of a list of tensors of one dtype and shape (TensorFlow's checks, then add_n)."""
    from ferroflow.tensor_shape import TensorShape

    def bad():
        return ValueError(
            "inputs must be a list of at least one Tensor with the same dtype and shape"
        )

    if not inputs or not isinstance(inputs, (list, tuple)):
        raise bad()
    inputs = [convert_to_tensor(t) for t in inputs]
    if not all(t.dtype == inputs[0].dtype for t in inputs):
        raise bad()
    merged = TensorShape(shape)
    for t in inputs:
        merged = merged.merge_with(t.shape)
    if tensor_dtype is not None and tensor_dtype != inputs[0].dtype:
        raise TypeError(f"tensor_dtype is {tensor_dtype}, but input is of type {inputs[0].dtype}")
    if len(inputs) == 1:
        return inputs[0]
    return _m.add_n(inputs)


def invert_permutation(x, name=None):
    """y such that y[x[i]] = i, for a permutation x of 0..n-1 (int32/int64, 1-D)."""
    from ferroflow.array_ops import argsort

    x = convert_to_tensor(x)
    _require(x, (_dtypes.int32, _dtypes.int64), "InvertPermutation")
    if x.shape.rank is not None and x.shape.rank != 1:
        raise InvalidArgumentError(
            None, None, "invert_permutation expects a 1D vector. [Op:InvertPermutation]"
        )
    if not _core.is_symbolic(x):
        _check_permutation(x.numpy().tolist())
    return cast(argsort(x, stable=True), x.dtype)


def _check_permutation(values):
    n = len(values)
    seen = set()
    for v in values:
        if not 0 <= v < n:
            raise InvalidArgumentError(
                None, None, f"{v} is not between 0 and {n} [Op:InvertPermutation]"
            )
        if v in seen:
            raise InvalidArgumentError(
                None, None, f"{v} is duplicated in the input. [Op:InvertPermutation]"
            )
        seen.add(v)


def in_top_k(targets, predictions, k, name=None):
    """Whether each row's target class is among the row's ``k`` largest predictions (ties at
    the boundary count as in; a row with a non-finite prediction or an out-of-range target is
    False, as TensorFlow's InTopKV2 kernel says)."""
    predictions = convert_to_tensor(predictions)
    targets = convert_to_tensor(targets)
    if predictions.dtype != _dtypes.float32:
        raise InvalidArgumentError(
            None,
            None,
            "cannot compute InTopKV2 as input #0(zero-based) was expected to be a float tensor "
            f"but is a {predictions.dtype.name} tensor [Op:InTopKV2]",
        )
    k = convert_to_tensor(k, dtype_hint=targets.dtype)
    classes = cast(shape(predictions)[1], targets.dtype)
    valid = _m.logical_and(
        _m.greater_equal(targets, cast(0, targets.dtype)), _m.less(targets, classes)
    )
    safe = where(valid, targets, zeros_like(targets))
    target_score = gather(predictions, safe, batch_dims=1)
    better = _m.greater(predictions, expand_dims(target_score, 1))
    rank = _m.reduce_sum(cast(better, _dtypes.int64), axis=1)
    finite = _m.reduce_all(_m.is_finite(predictions), axis=1)
    in_k = _m.less(rank, cast(k, _dtypes.int64))
    return _m.logical_and(_m.logical_and(valid, finite), in_k)


def confusion_matrix(
    labels, predictions, num_classes=None, weights=None, dtype=_dtypes.int32, name=None
):
    """counts[i, j]: how many (weighted) examples have label i and prediction j."""
    from ferroflow.check_ops import assert_less, assert_non_negative

    labels = cast(convert_to_tensor(labels), _dtypes.int64)
    predictions = cast(convert_to_tensor(predictions), _dtypes.int64)
    assert_non_negative(labels, message="`labels` contains negative values.  ")
    assert_non_negative(predictions, message="`predictions` contains negative values.  ")
    if num_classes is None:
        num_classes = _m.maximum(_m.reduce_max(predictions), _m.reduce_max(labels)) + 1
    else:
        num_classes = cast(convert_to_tensor(num_classes), _dtypes.int64)
        assert_less(labels, num_classes, message="`labels` out of bound")
        assert_less(predictions, num_classes, message="`predictions` out of bound")
    values = ones_like(predictions, dtype) if weights is None else cast(weights, dtype)
    indices = stack([labels, predictions], axis=1)
    dims = stack([num_classes, num_classes])
    from ferroflow.array_ops import scatter_nd

    return scatter_nd(indices, values, cast(dims, _dtypes.int64))


def bincount(
    arr,
    weights=None,
    minlength=None,
    maxlength=None,
    dtype=_dtypes.int32,
    name=None,
    axis=None,
    binary_output=False,
):
    """Counts (or sums ``weights`` of) each value of the non-negative integers ``arr``.

    The output has max(arr) + 1 bins, at least ``minlength`` and at most ``maxlength``
    (larger values are dropped); ``axis=-1`` counts each row of a 2-D ``arr`` apart."""
    from ferroflow.segment_ops import unsorted_segment_sum

    if weights is not None and binary_output:
        raise ValueError(
            "Arguments `binary_output` and `weights` are mutually exclusive. "
            "Please specify only one."
        )
    arr = convert_to_tensor(arr)
    if not arr.dtype.is_integer:
        arr = cast(arr, _dtypes.int32)
    arr = cast(arr, _dtypes.int64)
    per_row = axis is not None and axis != 0 and arr.shape.rank == 2
    if axis is not None and axis not in (0, -1):
        raise ValueError(f"Unsupported axis value {axis}. Only 0 and -1 are currently supported.")
    if weights is not None:
        weights = convert_to_tensor(weights)
        dtype = weights.dtype
    if not _core.is_symbolic(arr) and bool(_m.reduce_any(_m.less(arr, 0)).numpy()):
        raise InvalidArgumentError(None, None, "Input arr must be non-negative! [Op:DenseBincount]")
    empty = _m.equal(size(arr), 0)
    top = _m.reduce_max(reshape(arr, [-1])) + 1 if arr.shape.num_elements() != 0 else None
    bins = cast(0, _dtypes.int64) if top is None else where(empty, cast(0, _dtypes.int64), top)
    if minlength is not None:
        bins = _m.maximum(bins, cast(minlength, _dtypes.int64))
    if maxlength is not None:
        bins = _m.minimum(bins, cast(maxlength, _dtypes.int64))
    kept = _m.less(arr, bins)
    values = (
        ones_like(arr, dtype=dtype)
        if weights is None
        else cast(reshape(weights, shape(arr)), dtype)
    )
    values = where(kept, values, zeros_like(values))
    ids = where(kept, arr, zeros_like(arr))
    if per_row:
        rows = cast(shape(arr)[0], _dtypes.int64)
        offsets = expand_dims(_m.cumsum(fill(stack([rows]), bins), exclusive=True), 1)
        counts = unsorted_segment_sum(
            reshape(values, [-1]), reshape(ids + offsets, [-1]), rows * bins
        )
        counts = reshape(counts, stack([rows, bins]))
    else:
        counts = unsorted_segment_sum(reshape(values, [-1]), reshape(ids, [-1]), bins)
    if binary_output:
        counts = cast(_m.greater(counts, cast(0, counts.dtype)), dtype)
    return counts


def _logaddexp(a, b):
    """log(exp(a) + exp(b)), -inf when both are -inf. The shift is a constant to the gradient,
    so each side gets its softmax weight (ties split evenly) and nothing is NaN."""
    both_inf = _m.logical_and(
        _m.equal(a, cast(float("-inf"), a.dtype)), _m.equal(b, cast(float("-inf"), b.dtype))
    )
    a = where(both_inf, zeros_like(a), a)
    b = where(both_inf, zeros_like(b), b)
    shift = stop_gradient(_m.maximum(a, b))
    out = shift + _m.log(_m.exp(a - shift) + _m.exp(b - shift))
    return where(both_inf, fill(shape(out), cast(float("-inf"), out.dtype)), out)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):  # noqa: A002
    """log(cumsum(exp(x))) along ``axis``, computed stably (a log-space prefix scan)."""
    x = convert_to_tensor(x)
    _require(x, _FLOATS, "CumulativeLogsumexp")
    rank = x.shape.rank
    axis = int(axis) % rank if rank else 0
    perm = [axis] + [i for i in range(rank) if i != axis]
    inverse = [perm.index(i) for i in range(rank)]
    y = transpose(x, perm)
    if reverse:
        y = _reverse0(y)
    n = y.shape[0]
    if n is None:
        raise NotImplementedError(
            "cumulative_logsumexp needs the scanned axis' size when the function is traced"
        )
    neg_inf = cast(float("-inf"), y.dtype)
    step = 1
    while step < n:
        pad = fill(concat([[step], shape(y)[1:]], 0), neg_inf)
        shifted = concat([pad, y[: n - step]], 0)
        y = _logaddexp(y, shifted)
        step *= 2
    if exclusive and n:
        pad = fill(concat([[1], shape(y)[1:]], 0), neg_inf)
        y = concat([pad, y[: n - 1]], 0)
    if reverse:
        y = _reverse0(y)
    return transpose(y, inverse)


def _reverse0(t):
    return reverse(t, [0])


__all__ = [
    "accumulate_n",
    "bincount",
    "confusion_matrix",
    "cumulative_logsumexp",
    "in_top_k",
    "invert_permutation",
    "lbeta",
    "log_sigmoid",
    "multiply_no_nan",
    "polyval",
    "reciprocal_no_nan",
    "reduce_euclidean_norm",
    "rint",
    "softsign",
    "zero_fraction",
]
