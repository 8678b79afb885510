"""The rest of `tf.nn`'s activations, losses, statistics and dropout variants, composed of
ferroflow ops as TensorFlow composes them (nn_impl.py, nn_impl_distribute.py, nn_ops.py), so
values, dtypes and gradients follow from the parts."""

import functools
import numbers

import ferroflow as _tf
from ferroflow import _tracing
from ferroflow.array_ops import convert_to_tensor

__all__ = [
    "batch_norm_with_global_normalization",
    "compute_average_loss",
    "crelu",
    "general_dropout",
    "local_response_normalization",
    "log_poisson_loss",
    "lrn",
    "normalize_moments",
    "scale_regularization_loss",
    "silu",
    "stateless_dropout",
    "sufficient_statistics",
    "swish",
    "weighted_cross_entropy_with_logits",
    "weighted_moments",
]


def silu(features, beta=1.0):
    """``features * sigmoid(beta * features)`` (Swish; `beta` may be a tensor).

    >>> import ferroflow as tf
    >>> float(tf.nn.silu(tf.constant(0.0)))
    0.0
    """
    features = convert_to_tensor(features)
    beta = _tf.cast(convert_to_tensor(beta), features.dtype)
    return features * _tf.sigmoid(beta * features)


swish = silu


def crelu(features, axis=-1, name=None):
    """``concat([relu(features), relu(-features)], axis)``."""
    features = convert_to_tensor(features)
    return _tf.nn.relu(_tf.concat([features, -features], axis))


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """``exp(log_input) - log_input * targets``, plus Stirling's approximation of
    ``log(targets!)`` where ``targets > 1`` when `compute_full_loss`."""
    log_input = convert_to_tensor(log_input)
    targets = convert_to_tensor(targets)
    if not log_input.shape.is_compatible_with(targets.shape):
        raise ValueError(
            f"`log_input` and `targets` must have the same shape, received "
            f"({log_input.shape} vs {targets.shape})."
        )
    result = _tf.exp(log_input) - log_input * targets
    if compute_full_loss:
        half = _tf.constant(0.5, dtype=targets.dtype)
        two_pi = _tf.constant(2 * 3.141592653589793, dtype=targets.dtype)
        stirling = targets * _tf.math.log(targets) - targets + half * _tf.math.log(two_pi * targets)
        zeros = _tf.zeros_like(targets)
        ones = _tf.ones_like(targets)
        inside = _tf.logical_and(targets >= zeros, targets <= ones)
        result += _tf.where(inside, zeros, stirling)
    return result


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Sigmoid cross-entropy with the positive term weighted by `pos_weight`, in TensorFlow's
    overflow-free form ``(1 - z) * x + l * (log1p(exp(-|x|)) + relu(-x))``,
    ``l = 1 + (pos_weight - 1) * z``."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(
            "`logits` and `labels` must have the same shape, "
            f"received ({logits.shape} vs {labels.shape})."
        )
    log_weight = 1 + (pos_weight - 1) * labels
    return _tf.add(
        (1 - labels) * logits,
        log_weight * (_tf.math.log1p(_tf.exp(-_tf.abs(logits))) + _tf.nn.relu(-logits)),
    )


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """(count, sum of ``x - shift``, sum of ``(x - shift) ** 2``, shift) over `axes`; the count
    has `x`'s dtype (a constant when the reduced sizes are known)."""
    axes = list(set(axes))
    x = convert_to_tensor(x)
    shape = x.shape
    if shape.rank is not None and all(shape[d] is not None for d in axes):
        counts = 1
        for d in axes:
            counts *= shape[d]
        counts = _tf.constant(counts, dtype=x.dtype)
    else:
        rank = _tf.rank(x)
        positive = [a + rank if a < 0 else a for a in axes]
        counts = _tf.reduce_prod(_tf.gather(_tf.cast(_tf.shape(x), x.dtype), positive))
    if shift is not None:
        shift = convert_to_tensor(shift)
        m_ss = x - shift
        v_ss = _tf.math.squared_difference(x, shift)
    else:
        m_ss = x
        v_ss = _tf.square(x)
    m_ss = _tf.reduce_sum(m_ss, axes, keepdims=keepdims)
    v_ss = _tf.reduce_sum(v_ss, axes, keepdims=keepdims)
    return counts, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from `sufficient_statistics`' sums."""
    divisor = _tf.math.reciprocal(counts)
    shifted_mean = mean_ss * divisor
    mean = shifted_mean if shift is None else shifted_mean + shift
    variance = variance_ss * divisor - _tf.square(shifted_mean)
    return mean, variance


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """(mean, variance) of `x` over `axes` with each element counted `frequency_weights` times
    (broadcast against `x`); float16 is computed in float32, as TensorFlow does."""
    x = convert_to_tensor(x)
    frequency_weights = convert_to_tensor(frequency_weights)
    needs_cast = x.dtype == _tf.float16
    if needs_cast:
        x = _tf.cast(x, _tf.float32)
    if frequency_weights.dtype != x.dtype:
        frequency_weights = _tf.cast(frequency_weights, x.dtype)
    weighted_sum = _tf.reduce_sum(frequency_weights * x, axes, keepdims=True)
    weights = frequency_weights + _tf.zeros_like(x)
    weight_sum = _tf.reduce_sum(weights, axes, keepdims=True)
    mean = _tf.math.divide_no_nan(weighted_sum, weight_sum)
    distsq = _tf.reduce_sum(
        frequency_weights * _tf.math.squared_difference(x, mean), axes, keepdims=True
    )
    variance = _tf.math.divide_no_nan(distsq, weight_sum)
    if not keepdims:
        mean = _tf.squeeze(mean, axis=axes)
        variance = _tf.squeeze(variance, axis=axes)
    if needs_cast:
        mean, variance = _tf.cast(mean, _tf.float16), _tf.cast(variance, _tf.float16)
    return mean, variance


def _scale_by_sample_weight(losses, sample_weight):
    """TensorFlow's losses_util.scale_losses_by_sample_weight: float32 product, the weights
    squeezed or expanded by one axis to the losses' rank."""
    losses = _tf.cast(losses, _tf.float32)
    sample_weight = _tf.cast(sample_weight, _tf.float32)
    loss_rank, weight_rank = losses.shape.rank, sample_weight.shape.rank
    if weight_rank - loss_rank == 1:
        sample_weight = _tf.squeeze(sample_weight, [-1])
    elif loss_rank - weight_rank == 1:
        sample_weight = _tf.expand_dims(sample_weight, -1)
    return losses * sample_weight


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """``sum(per_example_loss * sample_weight) / global_batch_size`` (zero when the batch size
    is zero); the batch size defaults to the first dimension (one replica)."""
    per_example_loss = convert_to_tensor(per_example_loss)
    input_dtype = per_example_loss.dtype
    if per_example_loss.shape.rank == 0:
        raise ValueError(
            "Invalid value passed for `per_example_loss`. Expected a tensor with at least "
            f"rank 1. Received per_example_loss={per_example_loss} with rank 0"
        )
    if sample_weight is not None:
        sample_weight = convert_to_tensor(sample_weight)
        per_example_loss = _scale_by_sample_weight(per_example_loss, sample_weight)
    per_example_loss = _tf.cast(per_example_loss, input_dtype)
    if global_batch_size is None:
        global_batch_size = _tf.shape(per_example_loss)[0]
    global_batch_size = convert_to_tensor(global_batch_size)
    _tf.debugging.assert_scalar(global_batch_size, message="global_batch_size must be scalar.")
    _tf.debugging.assert_integer(global_batch_size, message="global_batch_size must be an integer.")
    _tf.debugging.assert_non_negative(
        global_batch_size, message="global_batch_size must be non-negative."
    )
    loss = _tf.reduce_sum(per_example_loss)
    return _tf.math.divide_no_nan(loss, _tf.cast(global_batch_size, input_dtype))


def scale_regularization_loss(regularization_loss):
    """The summed regularization loss divided by the number of replicas (one)."""
    return _tf.reduce_sum(regularization_loss) / 1


def batch_norm_with_global_normalization(
    input,  # noqa: A002 - TensorFlow's name
    mean,
    variance,
    beta,
    gamma,
    variance_epsilon,
    scale_after_normalization,
    name=None,
):
    """`tf.nn.batch_normalization` with offset `beta` and, if `scale_after_normalization`,
    scale `gamma`."""
    return _tf.nn.batch_normalization(
        input, mean, variance, beta, gamma if scale_after_normalization else None, variance_epsilon
    )


_LRN_DTYPES = ("float16", "bfloat16", "float32")


def local_response_normalization(
    input,  # noqa: A002 - TensorFlow's name
    depth_radius=5,
    bias=1.0,
    alpha=1.0,
    beta=0.5,
    name=None,
):
    """TensorFlow's LRN: each channel divided by ``(bias + alpha * sqr_sum) ** beta``, where
    ``sqr_sum`` sums the squares of the ``2 * depth_radius + 1`` channels around it. Composed
    of a padded sum of shifted channel slices, so its gradient is LRNGrad's formula."""
    x = convert_to_tensor(input)
    if x.dtype.name not in _LRN_DTYPES:
        if _tracing.tracing():  # TensorFlow's graph builder
            raise TypeError(
                f"Value passed to parameter 'input' has DataType {x.dtype.name} not in list of "
                "allowed values: float16, bfloat16, float32"
            )
        raise _tf.errors.InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: "
            "half, bfloat16, float [Op:LRN]",
        )
    if x.shape.rank is not None and x.shape.rank != 4:
        raise _tf.errors.InvalidArgumentError(
            None, None, f"input must be 4-dimensional [Op:LRN] but got rank {x.shape.rank}"
        )
    radius = int(depth_radius)
    squares = _tf.square(x)
    depth = _tf.shape(x)[3]
    padded = _tf.pad(squares, [[0, 0], [0, 0], [0, 0], [radius, radius]])
    total = None
    for offset in range(2 * radius + 1):
        part = padded[:, :, :, offset : offset + depth]
        total = part if total is None else total + part
    norm = _tf.cast(bias, x.dtype) + _tf.cast(alpha, x.dtype) * total
    return x * _tf.pow(norm, _tf.cast(-beta, x.dtype))


lrn = local_response_normalization


def _dropout(x, rate, noise_shape, uniform_sampler):
    """nn_ops._dropout: scale, then zero where the uniform draw is below `rate`."""
    is_number = isinstance(rate, numbers.Real)
    if is_number and (rate < 0 or rate >= 1):
        raise ValueError(
            f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}"
        )
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(
            "`x.dtype` must be a floating point tensor as `x` will be scaled. "
            f"Received: x_dtype={x.dtype}"
        )
    if is_number and rate == 0:
        return x
    if is_number:
        kept = x * convert_to_tensor(1 / (1 - rate), dtype=x.dtype)
    elif isinstance(rate, _tf.Tensor):
        if rate.shape.rank != 0:
            raise ValueError(f"Shape {rate.shape} must have rank 0")
        rate = _tf.cast(rate, x.dtype)
        kept = x / (_tf.constant(1, dtype=x.dtype) - rate)
    else:
        raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
    shape = _tf.shape(x) if noise_shape is None else noise_shape
    draws = uniform_sampler(shape=shape, dtype=x.dtype)
    return _tf.where(draws >= rate, kept, _tf.constant(0, dtype=x.dtype))


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """Dropout whose mask comes from `tf.random.stateless_uniform(seed, alg=rng_alg)`: the same
    seed drops the same elements as TensorFlow."""
    sampler = functools.partial(_tf.random.stateless_uniform, seed=seed, alg=rng_alg)
    return _dropout(x, rate, noise_shape, sampler)


def general_dropout(x, rate, uniform_sampler, noise_shape=None, name=None):
    """Dropout with the mask drawn by ``uniform_sampler(shape=..., dtype=...)``."""
    return _dropout(x, rate, noise_shape, uniform_sampler)
