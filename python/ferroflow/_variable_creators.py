"""`tf.variable_creator_scope`'s stack: the creators in force on this thread, innermost last.
`Variable.__new__` hands its arguments to `create` while one is active."""

import contextlib
import threading


class _Creators(threading.local):
    stack = ()


_creators = _Creators()


def active():
    return bool(_creators.stack)


@contextlib.contextmanager
def scope(creator):
    previous = _creators.stack
    _creators.stack = (*previous, creator)
    try:
        yield
    finally:
        _creators.stack = previous


def create(make, kwargs):
    """Calls the innermost creator with a ``next_creator`` that continues outwards; past the
    outermost, ``make(**kwargs)`` builds the variable with no creator active."""
    stack = _creators.stack

    def level(i):
        def next_creator(**kw):
            if i < 0:
                saved = _creators.stack
                _creators.stack = ()
                try:
                    return make(**kw)
                finally:
                    _creators.stack = saved
            return stack[i](level(i - 1), **kw)

        return next_creator

    return level(len(stack) - 1)(**kwargs)
