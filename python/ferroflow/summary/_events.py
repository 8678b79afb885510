"""Event files as TensorFlow writes them (`core/util/events_writer.cc` and
`core/summary/summary_file_writer.cc`): TFRecords of `tensorflow.Event` protos named
``events.out.tfevents.<seconds>.<hostname>.<pid>.<n><suffix>``, the first record a
``file_version: "brain.Event:2"`` event; summaries wait in a queue written out when it holds
more than ``max_queue`` events, when ``flush_millis`` have passed since the last flush, on
`flush` and on `close`."""

import itertools
import os
import socket
import threading
import time

import numpy as np

from ferroflow import dtypes as _dtypes

__all__ = ["EventFileWriter", "message", "tensor_proto"]

# TensorFlow numbers its event files per process (`EventsWriter`'s unique id), from 0.
_file_numbers = itertools.count()
_SOURCE_WRITER = "tensorflow.core.util.events_writer"


def message(name, **fields):
    """A new ``tensorflow.<name>`` protocol buffer message."""
    from ferroflow import _proto

    return _proto.message_class("tensorflow." + name)(**fields)


def tensor_proto(value):
    """The `TensorProto` TensorFlow's `Tensor::AsProtoTensorContent` makes of a numpy array:
    strings in ``string_val``, every other dtype as raw little-endian ``tensor_content``."""
    if isinstance(value, (bytes, str)):
        value = np.array(value, dtype=object)  # numpy's fixed-width bytes drop trailing NULs
    array = np.asarray(value)
    proto = message("TensorProto")
    if array.dtype.kind in "OSU":
        proto.dtype = _dtypes.string.as_datatype_enum
        proto.string_val.extend(_as_bytes(v) for v in array.reshape(-1))
    else:
        proto.dtype = _dtypes.as_dtype(array.dtype).as_datatype_enum
        if array.size:
            proto.tensor_content = (
                np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
            )
    proto.tensor_shape.SetInParent()  # TensorFlow writes a scalar's empty shape too
    for size in array.shape:
        proto.tensor_shape.dim.add(size=size)
    return proto


def _as_bytes(value):
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


class EventFileWriter:
    """One events file: the header at creation, then queued events written on flush."""

    def __init__(self, logdir, max_queue=10, flush_millis=120000, filename_suffix=".v2"):
        from ferroflow import _core
        from ferroflow.io import _filesystem

        logdir = _filesystem.host_path(os.fspath(logdir))
        os.makedirs(logdir, exist_ok=True)
        seconds = int(time.time())
        name = (
            f"events.out.tfevents.{seconds:010d}.{socket.gethostname()}.{os.getpid()}."
            f"{next(_file_numbers)}{filename_suffix}"
        )
        self.path = os.path.join(logdir, name)
        self._max_queue = int(max_queue)
        self._flush_micros = 1000 * int(flush_millis)
        self._queue = []
        self._lock = threading.Lock()
        self._records = _core.TFRecordWriter(self.path)
        header = message("Event", wall_time=float(seconds), file_version="brain.Event:2")
        header.source_metadata.writer = _SOURCE_WRITER
        self._records.write(header.SerializeToString())
        self._records.flush()
        self._last_flush = time.time()
        self.closed = False

    def add_event(self, event):
        """Queues ``event`` (a `tensorflow.Event`), flushing as TensorFlow's writer does."""
        with self._lock:
            if self.closed:
                from ferroflow import errors

                # TensorFlow's writer resource is gone once closed: its WriteSummary fails so.
                raise errors.NotFoundError(
                    None, None, "Resource SummaryWriterInterface does not exist (writer closed)"
                )
            self._queue.append(event.SerializeToString())
            if (
                len(self._queue) > self._max_queue
                or (time.time() - self._last_flush) * 1e6 > self._flush_micros
            ):
                self._flush_locked()

    def flush(self):
        with self._lock:
            if not self.closed:
                self._flush_locked()

    def _flush_locked(self):
        for record in self._queue:
            self._records.write(record)
        self._queue.clear()
        self._records.flush()
        self._last_flush = time.time()

    def close(self):
        with self._lock:
            if self.closed:
                return
            self._flush_locked()
            self._records.close()
            self.closed = True
