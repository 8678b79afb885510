"""The per-thread state of `tf.summary` (TensorFlow's `_summary_state`): the default writer,
the default step and the recording condition, with the functions that read and set them."""

import contextlib
import threading

from ferroflow import _core, _tracing

__all__ = ["get_step", "record_if", "set_step", "should_record_summaries"]


class _SummaryState(threading.local):
    def __init__(self):
        super().__init__()
        self.is_recording = None
        self.writer = None
        self.step = None


state = _SummaryState()


def get_step():
    """The default summary step of this thread set by `set_step` (a number, tensor or
    `tf.Variable`), or None."""
    return state.step


def set_step(step):
    """Sets this thread's default summary step (a constant or a `tf.Variable`; None unsets).

    Inside a `tf.function` the step is captured when the function is traced: use a
    `tf.Variable` to have later changes seen, as in TensorFlow."""
    state.step = step


@contextlib.contextmanager
def record_if(condition):
    """Records summaries inside the block only where ``condition`` (a Python bool, a scalar
    bool tensor, or a callable giving one, called at each summary) holds."""
    old = state.is_recording
    try:
        state.is_recording = condition
        yield
    finally:
        state.is_recording = old


def recording_condition():
    """Whether summaries record now: False (no default writer or a false condition), True,
    or a traced bool tensor decided each time the graph runs."""
    if state.writer is None:
        return False
    condition = state.is_recording
    if callable(condition):
        condition = condition()
    if condition is None:
        return True
    if isinstance(condition, _core.Tensor) and _tracing.is_symbolic(condition):
        return condition
    if hasattr(condition, "numpy"):
        condition = condition.numpy()
    return bool(condition)


def should_record_summaries():
    """A bool tensor: True where a default writer is set and the `record_if` condition (True
    when none is set) holds."""
    from ferroflow.array_ops import constant

    condition = recording_condition()
    if isinstance(condition, _core.Tensor):
        return condition
    return constant(condition)
