"""The tape a traced function records on, for `tf.gradients` and `tf.hessians`.

TensorFlow differentiates a graph symbolically; ferroflow's gradients come from tapes. While a
tf.function traces, a persistent tape that records every op and variable read (Rust's
`Tape::watching_everything`) is active, so that `tf.gradients(ys, xs)` inside the function can
ask it for the gradient between any two values of the graph, as TensorFlow's graph
differentiation does. Only tracing pays for it: the graph that runs later has no tape.
"""

import contextlib
import threading

from ferroflow import _core

_local = threading.local()


@contextlib.contextmanager
def recording():
    """A trace's body runs inside: its ops are recorded on the trace's own tape."""
    tape = _core.Tape.watching_everything()
    stack = _local.__dict__.setdefault("tapes", [])
    tape.push()
    stack.append(tape)
    try:
        yield tape
    finally:
        stack.pop()
        tape.pop()


def innermost():
    """The tape of the innermost function being traced, or None."""
    stack = getattr(_local, "tapes", None)
    return stack[-1] if stack else None
