"""Notes Keras pins on tensors as attributes, as it does on TensorFlow's: the mask of a value
(``x._keras_mask``) and the logits a sigmoid or softmax output came from (``x._keras_logits``).
ferroflow tensors take attributes as TensorFlow's eager and graph tensors do; values that take
none (numpy arrays, Python numbers) simply carry no note."""

__all__ = ["get_keras_logits", "get_keras_mask", "set_keras_logits", "set_keras_mask"]


def _set(x, name, value):
    try:
        if value is None:
            x.__dict__.pop(name, None)
        else:
            setattr(x, name, value)
    except (AttributeError, TypeError):
        pass


def set_keras_mask(x, mask):
    """Attaches ``mask`` to ``x`` (None removes it)."""
    _set(x, "_keras_mask", mask)


def get_keras_mask(x):
    """The mask attached to ``x``, or None."""
    return getattr(x, "_keras_mask", None)


def set_keras_logits(x, logits):
    """Records that ``x`` was computed from ``logits`` by a sigmoid or softmax."""
    _set(x, "_keras_logits", logits)


def get_keras_logits(x):
    """The logits ``x`` was computed from by `sigmoid` or `softmax` here, or None."""
    return getattr(x, "_keras_logits", None)
