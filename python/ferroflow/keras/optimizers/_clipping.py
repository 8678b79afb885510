"""Gradient clipping as Keras 3 on TensorFlow computes it: per-tensor norm (`tf.clip_by_norm`),
global norm (Keras's own formula, which turns every gradient NaN when the norm is not finite)
and element-wise value clipping."""

from ferroflow import array_ops
from ferroflow import math as tf_math

__all__ = ["clip_by_global_norm", "clip_by_norm", "clip_by_value", "global_norm"]


def clip_by_norm(values, clip_norm):
    """``values * clip_norm / max(||values||, clip_norm)``; all-zero values stay zero."""
    values = array_ops.convert_to_tensor(values)
    l2sum = tf_math.reduce_sum(tf_math.square(values), None, keepdims=True)
    positive = tf_math.greater(l2sum, 0)
    # TensorFlow's two-`where` form, which keeps a zero norm from producing NaN gradients.
    l2sum_safe = array_ops.where(positive, l2sum, array_ops.ones_like(l2sum))
    l2norm = array_ops.where(positive, tf_math.sqrt(l2sum_safe), l2sum)
    return (values * clip_norm) / tf_math.maximum(l2norm, clip_norm)


def global_norm(values):
    """sqrt of the sum of squares of every element of every tensor (None entries skipped)."""
    squared = [tf_math.reduce_sum(tf_math.square(v)) for v in values if v is not None]
    return tf_math.sqrt(tf_math.reduce_sum(array_ops.stack(squared)))


def clip_by_global_norm(values, clip_norm):
    """Scales every tensor by ``clip_norm / max(global_norm, clip_norm)``."""
    use_norm = global_norm(values)
    scale_for_finite = clip_norm * tf_math.minimum(1.0 / use_norm, 1.0 / clip_norm)
    # A no-op for a finite norm; an infinite or NaN norm makes the scale NaN (as Keras).
    scale = scale_for_finite + (use_norm - use_norm)
    return [v * scale if v is not None else v for v in values]


def clip_by_value(values, clip_value):
    return tf_math.clip_by_value(values, -clip_value, clip_value)
