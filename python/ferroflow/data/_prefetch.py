"""`Dataset.prefetch`: a background thread computes elements ahead into a bounded buffer.

The thread pulls from the input's iterator (made on the consumer's thread, when the prefetch
iterator is) and puts each element, or the exception computing it raised, into a queue of
``buffer_size`` entries; the consumer takes them in order, so errors are raised where they
happened and iteration may go on after them, as in TensorFlow. The thread runs its ops on the
host, as TensorFlow's input pipelines do, and stops when the consumer's iterator is dropped
(and at interpreter exit). Rows of `from_tensor_slices` data (an index stream for `batch`) and
iteration while a `tf.function` traces are passed through unbuffered: there is nothing to
compute ahead, or the trace must see the ops.
"""

import atexit
import contextvars
import os
import queue
import threading
import weakref

from ferroflow import _core, errors
from ferroflow.data.dataset import Dataset, PassThroughDataset, check_count
from ferroflow.device_scope import device

__all__ = ["PrefetchDataset", "Prefetcher"]

AUTOTUNE = -1

# How long the filling thread waits on a full buffer before checking whether to stop.
_POLL_SECONDS = 0.1

_VALUE, _ERROR, _END = range(3)

# The stop events of the running threads, set at exit so none is left mid-element.
_running = weakref.WeakSet()


class _Stop(threading.Event):
    """A stop flag that a WeakSet can hold."""


class PrefetchDataset(PassThroughDataset):
    _repr_name = "_PrefetchDataset"

    def __init__(self, input_dataset, buffer_size):
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"Expected a tf.data.Dataset, got {type(input_dataset).__name__}.")
        size = check_count(buffer_size, "buffer_size")
        if size < AUTOTUNE:
            raise errors.InvalidArgumentError(
                None,
                None,
                "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning "
                "[Op:PrefetchDataset]",
            )
        self._input = input_dataset
        self._buffer_size = max(2, os.cpu_count() or 1) if size == AUTOTUNE else size

    def _elements(self):
        if self._slice_source() is not None:
            return super()._elements()
        if self._buffer_size == 0 or _core.graph_tracing():
            return self._input._elements()
        return Prefetcher(self._input._elements(), self._buffer_size)


class Prefetcher:
    """An iterator over ``upstream``'s elements, computed ahead by a background thread into a
    buffer of ``size`` entries."""

    def __init__(self, upstream, size):
        self._queue = queue.Queue(maxsize=size)
        self._finished = False
        stop = _Stop()
        _running.add(stop)
        # The thread computes elements for the iterator that made it (data/_instances.py).
        context = contextvars.copy_context()
        thread = threading.Thread(
            target=context.run, args=(_fill, iter(upstream), self._queue, stop), daemon=True
        )
        thread.start()
        # The thread holds no reference to this object: dropping it stops the thread.
        weakref.finalize(self, stop.set)

    def __iter__(self):
        return self

    def __next__(self):
        if self._finished:
            raise StopIteration
        kind, value = self._queue.get()
        if kind == _END:
            self._finished = True
            raise StopIteration
        if kind == _ERROR:
            raise value
        return value


def _fill(upstream, buffer, stop):
    """The background thread: elements of ``upstream`` into ``buffer`` until the end, or
    until ``stop`` is set."""
    with device("/device:CPU:0"):
        while not stop.is_set():
            try:
                item = (_VALUE, next(upstream))
            except StopIteration:
                item = (_END, None)
            except BaseException as e:  # noqa: BLE001 - the consumer raises it in its place
                item = (_ERROR, e)
            while not stop.is_set():
                try:
                    buffer.put(item, timeout=_POLL_SECONDS)
                    break
                except queue.Full:
                    continue
            if item[0] == _END:
                return


@atexit.register
def _stop_all():
    for stop in list(_running):
        stop.set()
