"""`tf.nn`: activations, softmax, cross-entropies and friends."""

from ferroflow import _core, _dispatch
from ferroflow.array_ops import cast as _cast
from ferroflow.array_ops import convert_to_tensor as _convert_to_tensor
from ferroflow.math import l2_normalize, sigmoid, tanh  # noqa: F401 - tf.nn API
from ferroflow.math import rsqrt as _rsqrt
from ferroflow.nn_windows import (  # noqa: F401 - tf.nn API
    avg_pool,
    avg_pool1d,
    avg_pool2d,
    conv1d,
    conv2d,
    convolution,
    depthwise_conv2d,
    max_pool,
    max_pool1d,
    max_pool2d,
    separable_conv2d,
)


@_dispatch.add_dispatch_support(kind="unary")
def relu(features, name=None):
    return _core.unary("relu", features)


@_dispatch.add_dispatch_support(kind="unary")
def relu6(features, name=None):
    return _core.unary("relu6", features)


@_dispatch.add_dispatch_support(kind="unary")
def elu(features, name=None):
    return _core.unary("elu", features)


@_dispatch.add_dispatch_support(kind="unary")
def selu(features, name=None):
    return _core.unary("selu", features)


@_dispatch.add_dispatch_support(kind="unary")
def softplus(features, name=None):
    return _core.unary("softplus", features)


@_dispatch.add_dispatch_support(kind="unary")
def leaky_relu(features, alpha=0.2, name=None):
    return _core.activation("leaky_relu", features, float(alpha))


@_dispatch.add_dispatch_support(kind="unary")
def gelu(features, approximate=False, name=None):
    return _core.activation("gelu", features, 0.0, bool(approximate))


@_dispatch.add_dispatch_support
def softmax(logits, axis=None, name=None):
    """exp(x) / sum(exp(x)) along ``axis`` (default: the last)."""
    return _core.softmax(logits, -1 if axis is None else axis, False)


def log_softmax(logits, axis=None, name=None):
    return _core.softmax(logits, -1 if axis is None else axis, True)


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    return _core.cross_entropy("softmax", labels, logits, axis)


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    return _core.cross_entropy("sparse", labels, logits)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    return _core.cross_entropy("sigmoid", labels, logits)


def l2_loss(t, name=None):
    """sum(t ** 2) / 2."""
    return _core.unary("l2_loss", t)


def bias_add(value, bias, data_format=None, name=None):
    if data_format not in (None, "NHWC", "NCHW", "N...C", "NC..."):
        raise ValueError(f"data_format must be NHWC or NCHW, got {data_format!r}")
    return _core.bias_add(value, bias, data_format in ("NCHW", "NC..."))


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zeroes each element with probability ``rate`` and scales the rest by 1 / (1 - rate)."""
    from ferroflow import _random_seed

    out = _core.dropout(x, float(rate), noise_shape, seed)
    # TensorFlow's dropout takes an op seed even at rate 0 (`dummy_rng_step`).
    _random_seed.require_seed(seed)
    return out


def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of ``x`` over ``axes``."""
    return _core.moments(x, axes, bool(keepdims))


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset``, composed as
    TensorFlow composes it (``offset`` and ``scale`` may be None).

    >>> import ferroflow as tf
    >>> y = tf.nn.batch_normalization(tf.constant([1.0, 3.0]), 2.0, 1.0, 0.5, 2.0, 0.0)
    >>> y.numpy().tolist()
    [-1.5, 2.5]
    """
    x = _convert_to_tensor(x)
    mean, variance = _convert_to_tensor(mean), _convert_to_tensor(variance)
    inv = _rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv *= _convert_to_tensor(scale)
    shift = -mean * inv if offset is None else _convert_to_tensor(offset) - mean * inv
    return x * _cast(inv, x.dtype) + _cast(shift, x.dtype)


# Composed in their own module, which builds on tf.math.
from ferroflow.top_level_more import approx_max_k, approx_min_k  # noqa: E402, F401


def _div_layout(shards):
    """Whether static shard sizes are the "div" layout (the first ``total % n`` shards one row
    longer), where looking up the concatenation is TensorFlow's lookup."""
    sizes = [_convert_to_tensor(s).shape[0] if hasattr(s, "shape") else None for s in shards]
    if any(size is None for size in sizes):
        return False
    per, extras = divmod(sum(sizes), len(sizes))
    # Fewer rows than shards: TensorFlow divides by zero rows per shard (an error).
    return per > 0 and sizes == [per + 1] * extras + [per] * (len(sizes) - extras)


def _div_lookup(shards, ids):
    """TensorFlow's "div" lookup for any shard sizes: id -> (shard, row) from the total row count
    alone, read from the concatenated shards; a row past its shard reads past the end (an
    error on the CPU, zeros on the GPU, as TensorFlow's gather from that shard)."""
    from ferroflow import cast, concat, gather, logical_and, maximum, shape, stack, where
    from ferroflow.math import cumsum

    shards = [_convert_to_tensor(s) for s in shards]
    ids = _convert_to_tensor(ids)
    n = len(shards)
    sizes = stack([shape(s, out_type=ids.dtype)[0] for s in shards])
    total = sum(shape(s, out_type=ids.dtype)[0] for s in shards)
    per, extras = total // n, total % n
    part = maximum(ids // (per + 1), (ids - extras) // per)
    first = cast(part < extras, ids.dtype)
    rows = first * (ids % (per + 1)) + (1 - first) * ((ids - extras) % per)
    valid = logical_and(part >= 0, part < n)
    part = where(valid, part, 0)
    inside = logical_and(valid, logical_and(rows >= 0, rows < gather(sizes, part)))
    index = where(inside, gather(cumsum(sizes, exclusive=True), part) + rows, total)
    return gather(concat(shards, 0), index)


def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows `ids` of `params` (a tensor or variable, or a list of shards split along axis 0
    by TensorFlow's "div" strategy: consecutive ids per shard, in order). With `max_norm`,
    each looked-up embedding is clipped to that L2 norm. Its gradient to a single table is
    the rows looked up (IndexedSlices), as TensorFlow's."""
    from ferroflow import clip_by_norm, concat, gather

    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("`params` must have at least one element.")
        if len(params) > 1 and not _div_layout(params):
            result = _div_lookup(list(params), ids)
        else:
            table = params[0] if len(params) == 1 else concat(list(params), axis=0)
            result = gather(table, ids)
    else:
        result = gather(params, ids)
    if max_norm is None:
        return result
    ids_rank = _convert_to_tensor(ids).shape.rank
    axes = list(range(ids_rank, result.shape.rank))
    return clip_by_norm(result, max_norm, axes=axes)


# Composed in their own modules (issue 19: the rest of tf.nn).
import types as _types  # noqa: E402

from ferroflow.array_ops import top_k  # noqa: E402, F401
from ferroflow.nn_losses_extra import (  # noqa: E402, F401
    batch_norm_with_global_normalization,
    compute_average_loss,
    crelu,
    local_response_normalization,
    log_poisson_loss,
    lrn,
    normalize_moments,
    scale_regularization_loss,
    silu,
    sufficient_statistics,
    swish,
    weighted_cross_entropy_with_logits,
    weighted_moments,
)
from ferroflow.nn_losses_extra import general_dropout as _general_dropout  # noqa: E402
from ferroflow.nn_losses_extra import stateless_dropout as _stateless_dropout  # noqa: E402

experimental = _types.ModuleType(
    "ferroflow.nn.experimental", "`tf.nn.experimental`: dropout with a chosen random source."
)
experimental.general_dropout = _general_dropout
experimental.stateless_dropout = _stateless_dropout
from ferroflow.array_extra_ops import space_to_batch  # noqa: E402, F401
from ferroflow.candidate_sampling import (  # noqa: E402, F401
    all_candidate_sampler,
    compute_accidental_hits,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    nce_loss,
    sampled_softmax_loss,
)

# tf.nn's aliases of tf.math names (issue 19's tf.math family).
from ferroflow.math_compositions import in_top_k, softsign, zero_fraction  # noqa: E402, F401
from ferroflow.nn_conv_extra import (  # noqa: E402, F401
    atrous_conv2d,
    atrous_conv2d_transpose,
    conv1d_transpose,
    conv2d_transpose,
    conv3d,
    conv3d_transpose,
    conv_transpose,
    depthwise_conv2d_backprop_filter,
    depthwise_conv2d_backprop_input,
)
from ferroflow.nn_ctc import (  # noqa: E402, F401
    collapse_repeated,
    ctc_beam_search_decoder,
    ctc_greedy_decoder,
    ctc_loss,
    ctc_unique_labels,
)
from ferroflow.nn_embedding_extra import (  # noqa: E402, F401
    embedding_lookup_sparse,
    safe_embedding_lookup_sparse,
)
from ferroflow.nn_fractional import fractional_avg_pool, fractional_max_pool  # noqa: E402, F401
from ferroflow.nn_isotonic import isotonic_regression  # noqa: E402, F401
from ferroflow.nn_pool_extra import (  # noqa: E402, F401
    avg_pool3d,
    depth_to_space,
    dilation2d,
    erosion2d,
    max_pool3d,
    max_pool_with_argmax,
    pool,
    space_to_depth,
    with_space_to_batch,
)
from ferroflow.nn_rnn_wrappers import (  # noqa: E402, F401
    RNNCellDeviceWrapper,
    RNNCellDropoutWrapper,
    RNNCellResidualWrapper,
)
