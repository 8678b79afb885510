"""`tf.random.stateless_parameterized_truncated_normal`: normal draws with per-element means,
standard deviations and bounds, a pure function of `seed`.

Each draw inverts the normal CDF restricted to ``[minval, maxval]`` at a stateless uniform
(bisection in float64 on ``erf``, on the side of the mean where the bounds' tail is thinner, so
far tails keep their precision). *Departure:* TensorFlow's kernel samples by rejection from its
own Philox stream; the distribution is the same, the numbers are not TensorFlow's."""

import ferroflow as _tf
from ferroflow.array_ops import convert_to_tensor

__all__ = ["stateless_parameterized_truncated_normal"]

_ITERATIONS = 64


def _cdf(x):
    # erfc keeps the lower tail's relative precision (1 + erf(x) is 0 in float64 below about
    # -8.3, which put every draw of an interval there on its lower bound).
    return 0.5 * _tf.math.erfc(-x / 1.4142135623730951)


def stateless_parameterized_truncated_normal(
    shape, seed, means=0.0, stddevs=1.0, minvals=-2.0, maxvals=2.0, name=None
):
    """Draws of `shape` from normals (`means`, `stddevs`) truncated to [`minvals`,
    `maxvals`]; the parameters broadcast to `shape` and share one float dtype (float16,
    float32 or float64, that of `means`)."""
    means = convert_to_tensor(means)
    dtype = means.dtype
    if dtype not in (_tf.float16, _tf.float32, _tf.float64):
        raise _tf.errors.InvalidArgumentError(
            None,
            None,
            f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: "
            "half, float, double [Op:StatelessParameterizedTruncatedNormal]",
        )
    params = [convert_to_tensor(p) for p in (stddevs, minvals, maxvals)]
    for i, p in enumerate(params, start=1):
        if p.dtype != dtype:
            name_ = "double" if dtype == _tf.float64 else dtype.name
            raise _tf.errors.InvalidArgumentError(
                None,
                None,
                f"cannot compute StatelessParameterizedTruncatedNormal as input #{i + 2}"
                f"(zero-based) was expected to be a {name_} tensor but is a {p.dtype.name} "
                "tensor [Op:StatelessParameterizedTruncatedNormal]",
            )
    shape = convert_to_tensor(shape)
    wide = [_tf.broadcast_to(_tf.cast(p, _tf.float64), shape) for p in (means, *params)]
    mean, std, low, high = wide
    if _tf.executing_eagerly() and bool(_tf.reduce_any(low >= high)):
        raise _tf.errors.InvalidArgumentError(
            None,
            None,
            "Invalid parameters: minval must be less than maxval "
            "[Op:StatelessParameterizedTruncatedNormal]",
        )
    u = _tf.random.stateless_uniform(shape, seed, dtype=_tf.float64)
    a, b = (low - mean) / std, (high - mean) / std
    # Work in the lower tail: flip when the interval lies above the mean.
    flip = (a + b) > 0
    lo = _tf.where(flip, -b, a)
    hi = _tf.where(flip, -a, b)
    lo_c, hi_c = _cdf(lo), _cdf(hi)
    target = lo_c + u * (hi_c - lo_c)
    left = _tf.maximum(lo, -40.0)
    right = _tf.minimum(hi, 40.0)
    for _ in range(_ITERATIONS):
        middle = 0.5 * (left + right)
        below = _cdf(middle) < target
        left = _tf.where(below, middle, left)
        right = _tf.where(below, right, middle)
    z = 0.5 * (left + right)
    z = _tf.where(flip, -z, z)
    draw = _tf.clip_by_value(mean + std * z, low, high)
    return _tf.cast(draw, dtype)
