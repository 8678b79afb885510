"""`tf.summary.SummaryWriter`, `create_file_writer` and `create_noop_writer`."""

import contextlib
import weakref

from ferroflow import _core, _tracing, errors
from ferroflow.summary import _events
from ferroflow.summary._state import state

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "flush"]


class _SummaryContextManager:
    """`SummaryWriter.as_default()`: a class, so that `set_as_default` can enter it without
    ever leaving (TensorFlow's reason too)."""

    def __init__(self, writer, step=None):
        self._writer = writer
        self._step = step
        self._old_writer = None
        self._old_step = None

    def __enter__(self):
        self._old_writer = state.writer
        state.writer = self._writer
        if self._step is not None:
            self._old_step = state.step
            state.step = self._step
        return self._writer

    def __exit__(self, *exc):
        state.writer.flush()
        state.writer = self._old_writer
        if self._step is not None:
            state.step = self._old_step
        return False


class SummaryWriter:
    """A stateful summary writer: `as_default()` makes it the one `tf.summary` functions
    write to; `flush()` and `close()` act on its file."""

    def set_as_default(self, step=None):
        """Makes this writer the default of the current thread (and ``step``, when given, the
        default step) until another is set."""
        self.as_default(step).__enter__()

    def as_default(self, step=None):
        """A context manager making this writer (and ``step``, when not None) the default;
        leaving it flushes the writer and restores the previous ones."""
        return _SummaryContextManager(self, step)

    def init(self):
        """Initializes the summary writer."""
        raise NotImplementedError()

    def flush(self):
        """Flushes any buffered data."""
        raise NotImplementedError()

    def close(self):
        """Flushes and closes the summary writer."""
        raise NotImplementedError()


def _close_file(files):
    if files:
        files[0].close()


class _FileWriter(SummaryWriter):
    """Writes one events file under ``logdir``. The file is created (with its header) at
    once, as TensorFlow's eager `create_file_writer` does; a writer that is garbage collected
    flushes and closes it."""

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        self._files = [_events.EventFileWriter(logdir, max_queue, flush_millis, filename_suffix)]
        self._closed = False
        self._finalizer = weakref.finalize(self, _close_file, self._files)

    @property
    def _file(self):
        return self._files[0]

    def _check_open(self):
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def set_as_default(self, step=None):
        self._check_open()
        super().set_as_default(step)

    def as_default(self, step=None):
        self._check_open()
        return super().as_default(step)

    def init(self):
        """The file exists from creation on: nothing to do but refuse a closed writer."""
        self._check_open()

    def flush(self):
        """Writes the queued events out (each time the graph runs, inside a `tf.function`)."""
        if self._closed:
            return None
        if _tracing.tracing():
            return _staged(self._file.flush)
        self._file.flush()
        return None

    def close(self):
        """Flushes and closes the file; the writer cannot be used afterwards."""
        if self._closed:
            return None
        if _tracing.tracing():
            # Closing from a traced function happens each time the graph runs.
            return _staged(self._file.close)
        self._file.close()
        self._closed = True
        return None

    def write_event(self, event):
        self._file.add_event(event)


def _staged(action):
    """Runs ``action`` each time the traced graph runs (a host-call node)."""
    from ferroflow.script_ops import py_function

    def run():
        action()
        return []

    py_function(run, [], [])


class _NoopSummaryWriter(SummaryWriter):
    """A summary writer that does nothing (`create_noop_writer`)."""

    def set_as_default(self, step=None):
        pass

    @contextlib.contextmanager
    def as_default(self, step=None):
        yield

    def init(self):
        pass

    def flush(self):
        pass

    def close(self):
        pass


def _plain(value, name):
    """A Python value of a `create_file_writer` argument; a graph tensor is TensorFlow's
    ValueError (the writer is made eagerly, outside any trace)."""
    if isinstance(value, _core.Tensor):
        if _tracing.is_symbolic(value):
            where = (
                "inside an @tf.function. The create call will be lifted into the outer eager "
                "execution context, so it cannot consume graph tensors defined inside the "
                "function body."
            )
            raise ValueError(
                f"Invalid graph Tensor argument '{name}={value}' to create_file_writer() {where}"
            )
        value = value.numpy()
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    return value


def _text(value, name):
    """A string argument of the writer as TensorFlow converts it to a string scalar: another
    Python scalar is TypeError, a sequence (not a scalar) InvalidArgumentError; either used to
    name a directory by its `str`."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, dict, set)) or getattr(value, "ndim", 0):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{name} must be a scalar string, got {value!r} [Op:CreateSummaryFileWriter]",
        )
    raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype string")


def create_file_writer(
    logdir,
    max_queue=None,
    flush_millis=None,
    filename_suffix=None,
    name=None,
    experimental_trackable=False,
    experimental_mesh=None,
):
    """A `SummaryWriter` writing an events file under ``logdir`` (made if missing).

    ``max_queue`` (10) summaries wait in memory at most, ``flush_millis`` (120000) bound the
    time between flushes, ``filename_suffix`` (".v2") ends the file's name.

    >>> import ferroflow as tf, tempfile
    >>> writer = tf.summary.create_file_writer(tempfile.mkdtemp())
    >>> with writer.as_default(step=1):
    ...     _ = tf.summary.scalar("loss", 0.25)
    """
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    if experimental_mesh is not None:
        raise NotImplementedError(
            "create_file_writer: experimental_mesh (DTensor) is not supported"
        )
    if experimental_trackable:
        raise NotImplementedError(
            "create_file_writer: experimental_trackable (a SavedModel-tracked writer) is not "
            "supported"
        )
    logdir = _text(_plain(logdir, "logdir"), "logdir")
    max_queue = 10 if max_queue is None else int(_plain(max_queue, "max_queue"))
    flush_millis = 120000 if flush_millis is None else int(_plain(flush_millis, "flush_millis"))
    suffix = ".v2" if filename_suffix is None else _plain(filename_suffix, "filename_suffix")
    suffix = _text(suffix, "filename_suffix")
    del name  # the resource's name in TensorFlow's graph; ferroflow has no resource to name
    return _FileWriter(str(logdir), max_queue, flush_millis, str(suffix))


def create_noop_writer():
    """A summary writer that does nothing, for code that expects one."""
    return _NoopSummaryWriter()


def flush(writer=None, name=None):
    """Flushes ``writer`` (the default writer when None; nothing when there is none)."""
    del name
    if writer is None:
        writer = state.writer
        if writer is None:
            from ferroflow.framework_ops import no_op

            return no_op()
    if isinstance(writer, SummaryWriter):
        return writer.flush()
    raise ValueError(f"Invalid argument to flush(): {writer!r}")
