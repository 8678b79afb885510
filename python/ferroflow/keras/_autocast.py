"""Keras's autocast scope: inside the call of a layer whose policy computes in another dtype
than its variables are stored in ("mixed_float16"), reading a floating Keras variable that
was made with ``autocast=True`` gives its value in the compute dtype. The read happens in
Rust (the thread's autocast dtype, ``_core._set_autocast``), so the cast is on every tape and
in every trace like any other op."""

import contextlib

from ferroflow import _core
from ferroflow import dtypes as _dtypes

__all__ = ["autocast_scope", "current_autocast_dtype"]


def _code(dtype):
    return None if dtype is None else _dtypes.enum_of(dtype)


# An extension built before autocasting existed has no scope: nothing is ever autocast, and
# asking for a cast says so instead of computing in the wrong dtype.
_set = getattr(_core, "_set_autocast", None)


def current_autocast_dtype():
    """The dtype name variables are read in now, or None."""
    if _set is None:
        return None
    previous = _set(None)
    _set(previous)
    return None if previous is None else _dtypes.as_dtype(previous).name


@contextlib.contextmanager
def autocast_scope(dtype):
    """Reads autocasting variables in ``dtype`` (None: in their own dtype) inside the block."""
    if _set is None:
        if dtype is not None:
            raise RuntimeError(
                "This ferroflow extension predates mixed precision; rebuild it "
                "(maturin develop) to compute in a policy's compute dtype."
            )
        yield
        return
    previous = _set(_code(dtype))
    try:
        yield
    finally:
        _set(previous)
