"""Traceback filtering (`tf.debugging.enable_traceback_filtering` and friends): exceptions that
leave a `tf.function` call lose the frames of ferroflow's own Python files, so the traceback shows
the user's code. On by default, per thread, as in TensorFlow."""

import functools
import os
import threading
import traceback
import types

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class _Flag(threading.local):
    enabled = True


_flag = _Flag()


def is_traceback_filtering_enabled():
    """Whether ferroflow-internal frames are removed from exceptions' tracebacks (the default)."""
    return _flag.enabled


def enable_traceback_filtering():
    """Removes ferroflow-internal frames from the tracebacks of exceptions that leave
    `tf.function` calls."""
    _flag.enabled = True


def disable_traceback_filtering():
    """Keeps every frame (for debugging ferroflow itself)."""
    _flag.enabled = False


def _user_frames(tb):
    """``tb`` without the frames of ferroflow's files (the innermost frame if nothing is left)."""
    walked = list(traceback.walk_tb(tb))
    kept = [(f, line) for f, line in walked if not f.f_code.co_filename.startswith(_PACKAGE_DIR)]
    if not kept and walked:
        kept = walked[-1:]
    new_tb = None
    for frame, line in reversed(kept):
        new_tb = types.TracebackType(new_tb, frame, frame.f_lasti, line)
    return new_tb


def filter_traceback(fn):
    """Decorates ``fn`` so that exceptions leaving it carry filtered tracebacks while filtering
    is on (TensorFlow also drops their chained context, ``from None``)."""

    @functools.wraps(fn)
    def with_filtered_traceback(*args, **kwargs):
        if not _flag.enabled:
            return fn(*args, **kwargs)
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            raise e.with_traceback(_user_frames(e.__traceback__)) from None

    return with_filtered_traceback
