"""`tf.compat.v1.nn`, reduced to what ferroflow implements: `fused_batch_norm` alone."""

from ferroflow import _core

__all__ = ["fused_batch_norm"]


def fused_batch_norm(
    x,
    scale,
    offset,
    mean=None,
    variance=None,
    epsilon=0.001,
    data_format="NHWC",
    is_training=True,
    name=None,
    exponential_avg_factor=1.0,
):
    """Batch normalisation over every axis but the channels': one ``FusedBatchNormV3`` node.

    Returns ``(y, running_mean, running_variance)``. In training the statistics are the
    batch's (``y`` is normalised with its biased variance; the variance returned is the
    unbiased one), blended as ``(1 - exponential_avg_factor) * mean +
    exponential_avg_factor * batch_mean`` when the factor is not 1, in which case ``mean`` and
    ``variance`` must be given; in inference ``y`` uses ``mean`` and ``variance``, returned
    unchanged. Statistics, ``scale`` and ``offset`` are float32; ``x`` may be half, bfloat16 or
    float32 (``y`` keeps its dtype).

    >>> import ferroflow as tf
    >>> x = tf.reshape(tf.constant([1.0, 2.0, 3.0, 6.0]), [1, 2, 2, 1])
    >>> y, mean, variance = tf.compat.v1.nn.fused_batch_norm(x, [1.0], [0.0], epsilon=0.0)
    >>> [round(float(v), 4) for v in y.numpy().ravel()]
    [-1.069, -0.5345, 0.0, 1.6036]
    >>> float(mean[0]), round(float(variance[0]), 4)
    (3.0, 4.6667)
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError(
            "Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
            f"`exponential_avg_factor` != 1.0. Received: `mean` {mean!r} and `variance` "
            f"{variance!r}"
        )
    y, running_mean, running_variance, _, _, _ = _core.fused_batch_norm(
        x,
        scale,
        offset,
        mean,
        variance,
        float(epsilon),
        float(exponential_avg_factor),
        data_format,
        bool(is_training),
    )
    return y, running_mean, running_variance
