"""`tf.io.write_graph`: a graph's `GraphDef` to a file, in protobuf text format or binary, as
TensorFlow writes it (protobuf's text format, or deterministic binary)."""

import os

from google.protobuf import text_format

from ferroflow.io import gfile

__all__ = ["write_graph"]


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes `graph_or_graph_def` (a traced function's ``.graph`` or a `GraphDef` message) to
    ``logdir/name``, making `logdir` when missing; returns the path."""
    from ferroflow.framework_extra import Graph
    from ferroflow.summary._graph import graph_def

    if isinstance(graph_or_graph_def, Graph):
        graph_or_graph_def = graph_def(graph_or_graph_def)
    gfile.makedirs(logdir)
    path = os.path.join(logdir, name)
    if as_text:
        contents = text_format.MessageToString(graph_or_graph_def)
    else:
        contents = graph_or_graph_def.SerializeToString(deterministic=True)
    # Written whole to a temporary file first, so that a crash leaves no half-written graph.
    temporary = f"{path}.tmp{os.getpid()}"
    with gfile.GFile(temporary, "w" if as_text else "wb") as f:
        f.write(contents)
    gfile.rename(temporary, path, overwrite=True)
    return path
