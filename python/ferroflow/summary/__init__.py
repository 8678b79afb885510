"""`tf.summary`: summaries for TensorBoard, written to TensorFlow's event files.

`create_file_writer(logdir)` makes a writer; inside ``with writer.as_default(step=...)``
`scalar`, `histogram`, `image`, `text`, `audio` and `write` add TensorBoard's tensor
summaries (the plugins' metadata as TensorBoard writes it), eagerly or each time a
`tf.function` runs. The files (``events.out.tfevents.*``, TFRecords of `tensorflow.Event`
protos) are TensorFlow's: TensorBoard reads them, and TensorFlow's readers too.
"""

from ferroflow.summary import experimental
from ferroflow.summary._graph import graph, trace_export, trace_off, trace_on
from ferroflow.summary._plugins import audio, histogram, image, scalar, text
from ferroflow.summary._state import record_if, should_record_summaries
from ferroflow.summary._write import write
from ferroflow.summary._writer import (
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    flush,
)

__all__ = [
    "SummaryWriter",
    "audio",
    "create_file_writer",
    "create_noop_writer",
    "experimental",
    "flush",
    "graph",
    "histogram",
    "image",
    "record_if",
    "scalar",
    "should_record_summaries",
    "text",
    "trace_export",
    "trace_off",
    "trace_on",
    "write",
]
