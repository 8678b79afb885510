"""Gradient clipping as Keras 3 on TensorFlow computes it: per-tensor norm (`tf.clip_by_norm`),
global norm (Keras's own formula, which turns every gradient NaN when the norm is not finite)
and element-wise value clipping.

An IndexedSlices gradient stays sparse under norm and value clipping, which see its values
(a repeated row counts once per occurrence, before rows are summed); global-norm clipping
squares its rows, then sums them dense, and returns the gradient dense (scaled)."""

from ferroflow import array_ops, math_extra_ops
from ferroflow import math as tf_math
from ferroflow.keras.optimizers import _ops

__all__ = ["clip_by_global_norm", "clip_by_norm", "clip_by_value", "global_norm"]


def clip_by_norm(values, clip_norm):
    """`tf.clip_by_norm` (Keras's TensorFlow backend calls it so that IndexedSlices stay
    sparse): ``values * clip_norm / max(||values||, clip_norm)``; all-zero values stay zero."""
    return math_extra_ops.clip_by_norm(values, clip_norm)


def global_norm(values):
    """sqrt of the sum of squares of every element of every tensor (None entries skipped)."""
    squared = [tf_math.reduce_sum(_ops.densify(_ops.square(v))) for v in values if v is not None]
    return tf_math.sqrt(tf_math.reduce_sum(array_ops.stack(squared)))


def clip_by_global_norm(values, clip_norm):
    """Scales every tensor by ``clip_norm / max(global_norm, clip_norm)``."""
    use_norm = global_norm(values)
    scale_for_finite = clip_norm * tf_math.minimum(1.0 / use_norm, 1.0 / clip_norm)
    # A no-op for a finite norm; an infinite or NaN norm makes the scale NaN (as Keras).
    scale = scale_for_finite + (use_norm - use_norm)
    return [_ops.densify(v) * scale if v is not None else v for v in values]


def clip_by_value(values, clip_value):
    return _ops.clip(values, -clip_value, clip_value)
