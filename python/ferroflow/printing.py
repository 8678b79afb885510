"""`tf.print`: prints tensors (TensorFlow's layout) and Python values; inside a `tf.function`
it prints each time the graph runs, not while tracing."""

import sys

from ferroflow import _core, nest
from ferroflow.variables import Variable

__all__ = ["print"]

_MARK = "\x00"


class _Slot:
    """Stands for a tensor inside a structure while it is turned into text."""

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"{_MARK}{self.index}{_MARK}"

    __str__ = __repr__


def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):  # noqa: A001
    stream = sys.stderr if output_stream is None else output_stream
    stream_name = _stream_name(stream)
    if isinstance(stream, str):
        stream = _FileStream(stream)
    tensors = []

    def slot(v):
        if isinstance(v, Variable):
            v = v.value()
        if isinstance(v, _core.Tensor):
            tensors.append(v)
            return _Slot(len(tensors) - 1)
        return v

    text = (
        sep.join(str(nest.map_structure(slot, v) if nest.is_nested(v) else slot(v)) for v in inputs)
        + end
    )
    pieces = []
    for k, part in enumerate(text.split(_MARK)):
        if k % 2:
            pieces.append(int(part))
        elif part:
            pieces.append(part)
    summarize = 1 << 62 if summarize is None or summarize < 0 else int(summarize)
    _core.print_tensors(pieces, tensors, summarize, stream, stream_name)
    from ferroflow.name_scope import traced_operation

    return traced_operation("PrintV2", name or "PrintV2")


def _stream_name(stream):
    """Where a saved graph's print goes after loading (see `PrintSpec::stream` in Rust)."""
    if stream is sys.stderr:
        return "stderr"
    if stream is sys.stdout:
        return "stdout"
    if isinstance(stream, str):
        return stream if stream.startswith("file://") else "file://" + stream
    return "other"


class _FileStream:
    """`output_stream="file:///path"` appends to that file."""

    def __init__(self, url):
        self._path = url[len("file://") :] if url.startswith("file://") else url

    def write(self, text):
        with open(self._path, "a", encoding="utf-8") as f:
            f.write(text)
