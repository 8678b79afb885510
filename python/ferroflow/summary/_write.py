"""`tf.summary.write` and `write_raw_pb`: one summary value to the default writer. Eagerly the
event is queued at once; inside a `tf.function` the write is a host-call node that runs each
time the graph runs (with that run's tensor, step and recording condition), never while
tracing, as TensorFlow's `WriteSummary` op does."""

import re
import time

import numpy as np

from ferroflow import _core, _tracing
from ferroflow import dtypes as _dtypes
from ferroflow.summary import _events
from ferroflow.summary._state import get_step, recording_condition, state

__all__ = ["summary_scope", "write", "write_raw_pb", "write_with"]

_NO_STEP = (
    "No step set. Please specify one either through the `step` argument or through "
    "tf.summary.experimental.set_step()"
)
_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")


class summary_scope:  # noqa: N801 - TensorFlow's name
    """A name scope for a custom summary op that also yields its tag: ``with
    summary_scope(name, default_name) as (tag, scope)``. The tag is ``name`` under the
    enclosing name scopes, never made unique and keeping characters a scope cannot hold."""

    def __init__(self, name, default_name="summary", values=None):
        self._name = name or default_name
        self._default_name = default_name
        self._scope = None

    def __enter__(self):
        from ferroflow.name_scope import current_name_scope, name_scope_v2

        outer = current_name_scope().rstrip("/")
        tag = f"{outer}/{self._name}" if outer else self._name
        scope_name = _INVALID_SCOPE_CHARACTERS.sub("", self._name) or self._default_name
        self._scope = name_scope_v2(scope_name)
        return tag, self._scope.__enter__()

    def __exit__(self, *exc):
        return self._scope.__exit__(*exc)


def choose_step(step):
    """``step`` as an int64 scalar tensor (TensorFlow's `_choose_step`)."""
    from ferroflow.array_ops import convert_to_tensor

    step = convert_to_tensor(step, _dtypes.int64)
    if step.shape.num_elements() != 1:
        raise ValueError(
            f"Argument `step` must be a scalar. Received step with shape {step.shape}."
        )
    return step


def _false():
    from ferroflow.array_ops import constant

    return constant(False)


def _metadata_bytes(metadata):
    if metadata is None:
        return b""
    if hasattr(metadata, "SerializeToString"):
        return metadata.SerializeToString()
    if isinstance(metadata, str):
        return metadata.encode("utf-8")
    return bytes(metadata)


def _tensor_event(tag, value, step, metadata):
    event = _events.message("Event", wall_time=time.time(), step=int(step))
    summary_value = event.summary.value.add(tag=tag)
    summary_value.tensor.CopyFrom(_events.tensor_proto(value))
    if metadata:
        summary_value.metadata.ParseFromString(metadata)
    return [event]


def _raw_events(tensor, step):
    from ferroflow import errors

    events = []
    for record in np.asarray(tensor, dtype=object).reshape(-1):
        summary = _events.message("Summary")
        try:
            summary.ParseFromString(_events._as_bytes(record))
        except Exception as e:  # protobuf's DecodeError
            raise errors.DataLossError(
                None,
                None,
                f"Bad tf.compat.v1.Summary binary proto tensor string at index {len(events)}",
            ) from e
        event = _events.message("Event", wall_time=time.time(), step=int(step))
        event.summary.CopyFrom(summary)
        events.append(event)
    return events


def _numpy(value):
    if isinstance(value, _core.Tensor):
        value = value.numpy()
    return value


def emit(tensor, step, make_events, host=None):
    """Writes ``make_events(value, step)`` to the default writer where recording, ``value``
    being ``tensor`` (or what the callable ``tensor`` gives) passed through ``host`` (a numpy
    function) when given. Returns a bool tensor: whether it wrote."""
    from ferroflow.array_ops import convert_to_tensor, identity

    writer = state.writer
    if writer is None:
        return _false()
    condition = recording_condition()
    if condition is False:
        return _false()
    if step is None:
        raise ValueError(_NO_STEP)
    value = tensor() if callable(tensor) else tensor
    finish = host or (lambda v: v)
    if not _tracing.tracing():
        if condition is not True and not bool(_numpy(condition)):
            return _false()
        step_value = int(_numpy(convert_to_tensor(step, _dtypes.int64)))
        for event in make_events(finish(_numpy(identity(value))), step_value):
            writer.write_event(event)
        from ferroflow.array_ops import constant

        return constant(True)
    return _staged_write(writer, value, step, condition, make_events, finish)


def _staged_write(writer, value, step, condition, make_events, finish):
    from ferroflow.array_ops import convert_to_tensor, ensure_shape
    from ferroflow.script_ops import numpy_function

    inputs = [convert_to_tensor(value), convert_to_tensor(step, _dtypes.int64)]
    if condition is not True:
        inputs.append(condition)

    def run(value, step, condition=True):
        if not bool(condition):
            return np.bool_(False)
        for event in make_events(finish(value), int(step)):
            writer.write_event(event)
        return np.bool_(True)

    return ensure_shape(numpy_function(run, inputs, Tout=_dtypes.bool, stateful=True), [])


def _tag_text(tag):
    """The tag as TensorFlow's `WriteSummary` reads its string tensor (the first element)."""
    from ferroflow.array_ops import convert_to_tensor

    tag = convert_to_tensor(tag, _dtypes.string)
    if _tracing.is_symbolic(tag):
        raise NotImplementedError("tf.summary.write: a tag computed inside the tf.function")
    value = np.asarray(tag.numpy(), dtype=object).reshape(-1)[0]
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def write(tag, tensor, step=None, metadata=None, name=None):
    """Writes a generic summary: ``tensor`` (or the callable giving it, called only when
    recording) under ``tag`` at ``step`` (`experimental.get_step()` when None) with
    ``metadata`` (a `SummaryMetadata` or its bytes). Returns a bool tensor, False where no
    default writer is set or `record_if` says not to record."""
    return write_with(tag, tensor, step, metadata, name)


def write_with(tag, tensor, step=None, metadata=None, name=None, host=None):
    """`write`, the value passed through the numpy function ``host`` before it is written
    (the plugins' computations that run on the host each time a graph runs)."""
    from ferroflow.name_scope import name_scope_v2

    if step is not None:
        choose_step(step)
    with name_scope_v2(name or "write_summary"):
        if state.writer is None:
            return _false()
        if step is None:
            step = get_step()
        meta = _metadata_bytes(metadata)
        tag = _tag_text(tag)
        return emit(tensor, step, lambda v, s: _tensor_event(tag, v, s, meta), host)


def write_raw_pb(tensor, step=None, name=None):
    """Writes serialized `Summary` protos (a string tensor of one or more) at ``step``."""
    from ferroflow.name_scope import name_scope_v2

    if step is not None:
        choose_step(step)
    with name_scope_v2(name or "write_raw_pb"):
        if state.writer is None:
            return _false()
        if step is None:
            step = get_step()
            if step is None:
                raise ValueError(_NO_STEP)
        return emit(tensor, step, _raw_events)
