"""`tf.io.read_file`, `write_file`, `matching_files` and `match_filenames_once`: host ops over
the local file system (`io/_filesystem.py`), eager or inside a `tf.function`."""

import os

import numpy as np

from ferroflow import _core, _tracing, errors
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor
from ferroflow.io import _filesystem as _fs
from ferroflow.io import _host
from ferroflow.io import _ram_filesystem as _ram

__all__ = ["match_filenames_once", "matching_files", "read_file", "write_file"]


def _string(value):
    return convert_to_tensor(value, dtype=_dtypes.string)


def _name(array):
    return array.item().decode("utf-8", "surrogateescape")


def _dims(tensor):
    """A shape as TensorFlow's messages print it: ``[2,3]``."""
    return "[" + ",".join(str(d) for d in tensor.shape.as_list()) + "]"


def _scalar(tensor, what, op):
    if tensor.shape.rank not in (None, 0):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Input {what} tensor must be scalar, but had shape: {_dims(tensor)} [Op:{op}]",
        )


def read_file(filename, name=None):
    """The whole content of the file ``filename`` (a scalar string tensor). Inside a graph it
    is the ReadFile primitive (Rust, no GIL: parallel `tf.data` maps read files in parallel),
    which follows the same file system rules as the eager read below."""
    filename = _string(filename)
    _scalar(filename, "filename", "ReadFile")
    if _tracing.tracing():
        return _core.raw_op("ReadFile", [filename], "{}")[0]

    def read(path):
        return [np.array(_fs.read_bytes(_name(path)), dtype=object)]

    return _host.run(read, [filename], [_dtypes.string], [[]])[0]


def write_file(filename, contents, name=None):
    """Writes the scalar string ``contents`` to the file ``filename`` (creating its missing
    parent directories, replacing the file)."""
    filename, contents = _string(filename), _string(contents)
    _scalar(filename, "filename", "WriteFile")
    if contents.shape.rank not in (None, 0):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Contents tensor must be scalar, but had shape: {_dims(contents)} [Op:WriteFile]",
        )

    def write(path, data):
        name = _name(path)
        if _ram.owns(name):
            # WriteFileOp creates the parent directory; a ram file is appended to.
            _ram.recursively_create_dir(_fs.dirname(name))
            with open(_ram.open_write(name), "ab") as f:
                f.write(data.item())
            return []
        local = _fs.local_path(name)
        parent = os.path.dirname(local)
        try:
            if parent:
                os.makedirs(parent, exist_ok=True)
            with open(local, "wb") as f:
                f.write(data.item())
        except OSError as e:
            raise _fs.os_error(e, e.filename or local) from None
        return []

    _host.run(write, [filename, contents], [], stateful=True)


def matching_files(pattern, name=None):
    """The sorted paths matching ``pattern`` (a scalar or a vector of glob patterns, all of
    whose matches are sorted together)."""
    pattern = _string(pattern)
    if pattern.shape.rank not in (None, 0, 1):
        raise errors.InvalidArgumentError(
            None,
            None,
            "Input patterns tensor must be scalar or vector, but had shape: "
            f"{_dims(pattern)} [Op:MatchingFiles]",
        )

    def match(patterns):
        found = []
        for p in np.asarray(patterns, dtype=object).reshape(-1):
            found.extend(_fs.get_matching_paths(p.decode("utf-8", "surrogateescape")))
        found.sort(key=lambda s: s.encode("utf-8", "surrogateescape"))
        return [np.array([s.encode("utf-8", "surrogateescape") for s in found], dtype=object)]

    return _host.run(match, [pattern], [_dtypes.string], [[None]])[0]


def match_filenames_once(pattern, name=None):
    """A non-trainable variable holding `matching_files(pattern)`, computed once."""
    from ferroflow.variables import Variable

    return Variable(
        matching_files(pattern), trainable=False, validate_shape=False, name=name or "Variable"
    )
