"""Whether code runs inside a `tf.function` trace, and whether a value is symbolic there (a
tensor whose value is known only when the traced graph runs)."""

from ferroflow import _core


def tracing():
    """True while a `tf.function` is being traced on this thread."""
    return _core.graph_tracing()


def is_symbolic(value):
    """True for a tensor produced inside the trace in progress from the function's inputs or
    variables: Python cannot branch on it, so control flow over it must be staged."""
    return _core.is_symbolic(value)
