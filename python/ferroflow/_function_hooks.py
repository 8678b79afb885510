"""What a `tf.function` trace in progress needs to hear from the rest of the package: the
traces open on this thread, and variables created while one runs."""

import contextlib
import threading

from ferroflow import _core

_local = threading.local()

_SINGLETON_MESSAGE = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the "
    "tf.Variable is only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information."
)


class TraceContext:
    """One trace of one function: whether it may create variables, and those it made."""

    def __init__(self, allow_variables):
        self.allow_variables = allow_variables
        self.created = 0


def _stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


@contextlib.contextmanager
def tracing(context):
    _stack().append(context)
    try:
        yield context
    finally:
        _stack().pop()


def note_variable_created(initial_value):
    """Called by `tf.Variable`: variables may be made only by a function's first trace, and
    from values that do not depend on its inputs (they are initialised once, eagerly)."""
    stack = _stack()
    if not stack:
        return
    context = stack[-1]
    if not context.allow_variables:
        raise ValueError(_SINGLETON_MESSAGE)
    if _core.is_symbolic(initial_value):
        raise ValueError(
            "A tf.Variable created inside a tf.function must have an initial value that does not "
            "depend on the function's arguments or other variables (it is initialised once, "
            "when the function is first traced)."
        )
    context.created += 1
