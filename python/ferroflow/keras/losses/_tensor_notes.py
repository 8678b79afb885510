"""Keras's ``ops.sigmoid`` and ``ops.softmax``, whose outputs remember their logits; the mask
and logits notes themselves live in `keras/_tensor_attributes.py`."""

from ferroflow import math as tf_math
from ferroflow import nn
from ferroflow.keras._tensor_attributes import (  # noqa: F401 - the losses' import point
    get_keras_logits,
    get_keras_mask,
    set_keras_logits,
    set_keras_mask,
)


def sigmoid(x):
    """Keras' ``ops.sigmoid``: the output remembers its logits, so that a cross-entropy given it
    works from the logits (numerically stable) instead."""
    output = tf_math.sigmoid(x)
    set_keras_logits(output, x)
    return output


def softmax(x, axis=-1):
    """Keras' ``ops.softmax``: the output remembers its logits, like `sigmoid`."""
    output = nn.softmax(x, axis=axis)
    set_keras_logits(output, x)
    return output
