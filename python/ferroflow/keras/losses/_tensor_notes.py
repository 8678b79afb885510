"""Notes Keras pins on tensors: the mask of a value (``x._keras_mask``) and the logits a
sigmoid or softmax output came from (``x._keras_logits``). ferroflow tensors take no new
attributes, so the notes live in tables keyed by the tensor's identity, each dropped when its
tensor is collected."""

import weakref

from ferroflow import math as tf_math
from ferroflow import nn


class _Notes:
    def __init__(self):
        self._table = {}

    def _forget(self, key, ref):
        entry = self._table.get(key)
        if entry is not None and entry[0] is ref:
            del self._table[key]

    def set(self, x, value):
        key = id(x)
        if value is None:
            self._table.pop(key, None)
            return
        ref = weakref.ref(x, lambda ref, key=key: self._forget(key, ref))
        self._table[key] = (ref, value)

    def get(self, x):
        entry = self._table.get(id(x))
        if entry is None or entry[0]() is not x:
            return None
        return entry[1]


_masks = _Notes()
_logits = _Notes()


def set_keras_mask(x, mask):
    """Attaches ``mask`` to ``x`` (``None`` removes it)."""
    _masks.set(x, mask)


def get_keras_mask(x):
    """The mask attached to ``x``, or ``None``."""
    return _masks.get(x)


def get_keras_logits(x):
    """The logits ``x`` was computed from by `sigmoid` or `softmax` here, or ``None``."""
    return _logits.get(x)


def sigmoid(x):
    """Keras' ``ops.sigmoid``: the output remembers its logits, so that a cross-entropy given it
    works from the logits (numerically stable) instead."""
    output = tf_math.sigmoid(x)
    _logits.set(output, x)
    return output


def softmax(x, axis=-1):
    """Keras' ``ops.softmax``: the output remembers its logits, like `sigmoid`."""
    output = nn.softmax(x, axis=axis)
    _logits.set(output, x)
    return output
