"""Graph summaries: `tf.summary.graph` (a traced function's graph as a `GraphDef` event, for
TensorBoard's Graphs dashboard) and `trace_on`/`trace_export`/`trace_off` (the graphs of the
`tf.function` calls made in between, as TensorBoard's "graph_run_metadata_graph" summary)."""

import logging
import threading
import time

from ferroflow import _tracing
from ferroflow.summary import _events
from ferroflow.summary._state import recording_condition, state
from ferroflow.summary._write import choose_step, summary_scope, write

__all__ = ["graph", "graph_def", "trace_export", "trace_off", "trace_on"]

_log = logging.getLogger("ferroflow")


def _input_name(tensor):
    name = tensor.name
    return name[:-2] if name.endswith(":0") else name


def graph_def(func_graph):
    """A `tensorflow.GraphDef` of a traced graph: one `NodeDef` per operation with its type,
    inputs and (as TensorFlow's ``add_shapes=True``) ``_output_shapes``."""
    proto = _events.message("GraphDef")
    for op in func_graph.get_operations():
        node = proto.node.add(name=op.name, op=op.type)
        node.input.extend(_input_name(t) for t in op.inputs if t is not None)
        if op.outputs:
            shapes = node.attr["_output_shapes"].list.shape
            for t in op.outputs:
                shape = shapes.add()
                if t.shape.rank is None:
                    shape.unknown_rank = True
                    continue
                for d in t.shape.as_list():
                    shape.dim.add(size=-1 if d is None else d)
    return proto


def graph(graph_data):
    """Writes a graph (a traced function's ``.graph`` or a `GraphDef`) to the default writer,
    eagerly only. Returns a bool tensor: whether it wrote."""
    from ferroflow.array_ops import constant
    from ferroflow.framework_extra import Graph

    if _tracing.tracing():
        raise ValueError("graph() cannot be invoked inside a graph context.")
    writer = state.writer
    if writer is None or not bool(recording_condition()):
        return constant(False)
    if isinstance(graph_data, Graph):
        serialized = graph_def(graph_data).SerializeToString()
    elif type(graph_data).__name__ == "GraphDef" and hasattr(graph_data, "SerializeToString"):
        serialized = graph_data.SerializeToString()
    else:
        raise ValueError(
            "Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. Received "
            f"graph_data={graph_data} of type {type(graph_data).__name__}."
        )
    event = _events.message("Event", wall_time=time.time(), graph_def=serialized)
    writer.write_event(event)
    return constant(True)


# --- trace_on / trace_export -------------------------------------------------------------

_lock = threading.Lock()
_trace = None  # the concrete functions called since trace_on, in call order (or None)
_original_call = None


def _record_calls():
    """Notes every concrete function that runs while a trace is on. ferroflow's runtime has
    no graph-collection switch, so the call entry point is wrapped for the trace's time."""
    global _original_call
    from ferroflow.concrete_function import ConcreteFunction

    original = ConcreteFunction._call_flat
    _original_call = original

    def call_flat(self, tensors):
        with _lock:
            if _trace is not None and all(f is not self for f in _trace):
                _trace.append(self)
        return original(self, tensors)

    ConcreteFunction._call_flat = call_flat


def _stop_recording():
    global _original_call
    from ferroflow.concrete_function import ConcreteFunction

    if _original_call is not None:
        ConcreteFunction._call_flat = _original_call
        _original_call = None


def trace_on(graph=True, profiler=False, profiler_outdir=None):  # noqa: A002 - TensorFlow's
    """Starts collecting the graphs of the `tf.function` calls that follow (eagerly only)."""
    global _trace
    if profiler:
        raise NotImplementedError(
            "tf.summary.trace_on(profiler=True): ferroflow has no TensorFlow profiler"
        )
    if _tracing.tracing():
        _log.warning("Cannot enable trace inside a tf.function.")
        return
    with _lock:
        if _trace is not None:
            _log.warning("Trace already enabled")
            return
        _trace = []
    _record_calls()


def trace_off():
    """Stops the trace and discards what it collected."""
    global _trace
    with _lock:
        if _trace is None:
            return
        _trace = None
    _stop_recording()


def trace_export(name, step=None, profiler_outdir=None):
    """Writes the graphs collected since `trace_on` as a "graph_run_metadata_graph" summary
    named ``name`` at ``step`` (a `RunMetadata` with one `function_graphs` entry per function
    called), then stops the trace."""
    if step is not None:
        choose_step(step)
    if _tracing.tracing():
        _log.warning("Cannot export trace inside a tf.function.")
        return
    with _lock:
        if _trace is None:
            raise ValueError("Must enable trace before export through tf.summary.trace_on.")
        functions = list(_trace)
    run_metadata = _events.message("RunMetadata")
    for f in functions:
        run_metadata.function_graphs.add().pre_optimization_graph.CopyFrom(graph_def(f.graph))
    run_metadata = run_metadata.SerializeToString()
    metadata = _events.message("SummaryMetadata")
    metadata.plugin_data.plugin_name = "graph_run_metadata_graph"
    metadata.plugin_data.content = b"1"
    with summary_scope(name, "graph_run_metadata_graph_summary", [step]) as (tag, _):
        write(tag=tag, tensor=run_metadata, step=step, metadata=metadata)
    trace_off()
