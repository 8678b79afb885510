"""Whether code runs inside a `tf.function` trace, and whether a value is symbolic there (a
tensor whose value is known only when the traced graph runs)."""

import weakref

from ferroflow import _core


def tracing():
    """True while a `tf.function` is being traced on this thread."""
    return _core.graph_tracing()


def is_symbolic(value):
    """True for a tensor produced inside the trace in progress from the function's inputs or
    variables: Python cannot branch on it, so control flow over it must be staged."""
    return _core.is_symbolic(value)


def staged(value):
    """True for any tensor while tracing: TensorFlow's function sees every tensor (a constant,
    an eager tensor it closes over) as a graph value, so `tf.cond`, `tf.switch_case` and
    AutoGraph's `if`/`while` over one become graph nodes, never Python branches, even where
    ferroflow knows the value. Gradients (a staged branch answers zeros for its inputs) and
    random ops (one op drawing anew each iteration) depend on it."""
    return isinstance(value, _core.Tensor) and tracing()


# `tf.range` results made while tracing, by id, with their bounds: a staged `for` over one
# computes its target as `start + index * delta` (as TensorFlow's AutoGraph does) instead of
# gathering from the range, which tracing with example values may have made empty.
_ranges = {}


def note_range(tensor, start, limit, delta):
    key = id(tensor)
    _ranges[key] = (weakref.ref(tensor, lambda _: _ranges.pop(key, None)), (start, limit, delta))


def range_bounds(tensor):
    """(start, limit, delta) if `tensor` is a `tf.range` made while tracing, else None."""
    entry = _ranges.get(id(tensor))
    if entry is not None and entry[0]() is tensor:
        return entry[1]
    return None
