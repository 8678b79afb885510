"""The stack of layer calls in progress on this thread: a layer called inside another layer's
`call` sees the enclosing call's ``training`` value, as in Keras 3, and the outermost call
is where a call's losses start afresh."""

import contextlib
import threading

__all__ = ["enclosing_training", "in_layer_call", "layer_call"]

_state = threading.local()


def _frames():
    frames = getattr(_state, "frames", None)
    if frames is None:
        frames = _state.frames = []
    return frames


def enclosing_training():
    """The resolved ``training`` value of the innermost layer call in progress (None when
    there is none, or when it had none)."""
    frames = _frames()
    return frames[-1] if frames else None


def in_layer_call():
    """Whether a layer's `call` is running on this thread."""
    return bool(_frames())


@contextlib.contextmanager
def layer_call(training):
    """A layer call whose resolved ``training`` value the calls nested in it inherit; yields
    True for the outermost call."""
    frames = _frames()
    frames.append(training)
    try:
        yield len(frames) == 1
    finally:
        frames.pop()
