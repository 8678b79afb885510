"""Keras' TensorFlow-backend cross-entropy ops (keras/src/backend/tensorflow/nn.py): input
checks, probability clipping to [epsilon, 1 - epsilon] and the fused logits kernels."""

import warnings

from ferroflow import array_ops, nn
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses._tensor_notes import get_keras_logits

__all__ = ["binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy"]


def _check_same_shape(target, output):
    if K.ndim(target) != K.ndim(output):
        raise ValueError(
            "Arguments `target` and `output` must have the same rank (ndim). Received: "
            f"target.shape={target.shape}, output.shape={output.shape}"
        )
    for e1, e2 in zip(target.shape, output.shape):
        if e1 is not None and e2 is not None and e1 != e2:
            raise ValueError(
                "Arguments `target` and `output` must have the same shape. Received: "
                f"target.shape={target.shape}, output.shape={output.shape}"
            )


def _get_logits(output, from_logits, kind, fn_name):
    """The logits behind a `sigmoid`/`softmax` output made by Keras ops (then the loss works
    from them, ``from_logits`` or not), else ``output`` itself."""
    logits = get_keras_logits(output)
    if logits is None:
        return output, from_logits
    if from_logits:
        warnings.warn(
            f'"`{fn_name}` received `from_logits=True`, but the `output` argument was produced '
            f"by a {kind} activation and thus does not represent logits. Was this intended?",
            stacklevel=3,
        )
    return logits, True


def _clip(output):
    return tf_math.clip_by_value(output, K.EPSILON, 1.0 - K.EPSILON)


def binary_crossentropy(target, output, from_logits=False):
    target = K.convert(target)
    output = K.convert(output)
    _check_same_shape(target, output)
    output, from_logits = _get_logits(output, from_logits, "Sigmoid", "binary_crossentropy")
    if from_logits:
        return nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = _clip(output)
    bce = target * tf_math.log(output)
    bce = bce + (1 - target) * tf_math.log(1 - output)
    return -bce


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    target = K.convert(target)
    output = K.convert(output)
    if K.ndim(target) < 1:
        raise ValueError(
            "Arguments `target` and `output` must be at least rank 1. Received: "
            f"target.shape={target.shape}, output.shape={output.shape}"
        )
    _check_same_shape(target, output)
    output, from_logits = _get_logits(output, from_logits, "Softmax", "categorical_crossentropy")
    if from_logits:
        return nn.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    # Renormalize so that each distribution sums to 1, then clip away log(0).
    output = output / tf_math.reduce_sum(output, axis, keepdims=True)
    output = _clip(output)
    return -tf_math.reduce_sum(target * tf_math.log(output), axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    output = K.convert(output)
    if axis != -1 and axis != K.ndim(output) - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    output, from_logits = _get_logits(
        output, from_logits, "Softmax", "sparse_categorical_crossentropy"
    )
    target = K.cast(K.convert(target), "int64")
    if K.ndim(target) == K.ndim(output) and target.shape[-1] == 1:
        target = array_ops.squeeze(target, axis=-1)
    if K.ndim(output) < 1:
        raise ValueError(
            f"Argument `output` must be at least rank 1. Received: output.shape={output.shape}"
        )
    if K.ndim(target) != K.ndim(output) - 1:
        raise ValueError(
            "Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
            f"target.shape={target.shape}, output.shape={output.shape}"
        )
    for e1, e2 in zip(target.shape, output.shape[:-1]):
        if e1 is not None and e2 is not None and e1 != e2:
            raise ValueError(
                "Arguments `target` and `output` must have the same shape up until the last "
                f"dimension: target.shape={target.shape}, output.shape={output.shape}"
            )
    if not from_logits:
        output = tf_math.log(_clip(output))
    return nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
