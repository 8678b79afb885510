"""Inspecting a checkpoint without restoring it: `tf.train.load_checkpoint`,
`tf.train.list_variables` and `tf.train.load_variable`. As in TensorFlow, the object graph is
listed as the entry ``_CHECKPOINTABLE_OBJECT_GRAPH``, a string scalar holding a serialized
``TrackableObjectGraph`` (a checkpoint in ferroflow's first format holds its JSON text)."""

import os

import numpy as np

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow._host_path import host_path as _host_path
from ferroflow._host_path import is_directory as _is_directory
from ferroflow.errors import NotFoundError
from ferroflow.train import checkpoint_management
from ferroflow.train.object_graph import OBJECT_GRAPH_KEY

__all__ = ["CheckpointReader", "list_variables", "load_checkpoint", "load_variable"]


class CheckpointReader:
    """The keys, dtypes, shapes and values of one checkpoint."""

    def __init__(self, prefix):
        self._reader = _core.CheckpointReader(_host_path(os.fspath(prefix)))
        self._entries = {key: (dtype, dims) for key, dtype, dims in self._reader.entries()}

    def has_tensor(self, tensor_str):
        return tensor_str == OBJECT_GRAPH_KEY or tensor_str in self._entries

    def get_tensor(self, tensor_str):
        """The stored value as numpy (a numpy scalar for a scalar, bytes for the graph)."""
        if tensor_str == OBJECT_GRAPH_KEY:
            return self._reader.object_graph_bytes
        if tensor_str not in self._entries:
            raise NotFoundError(None, None, f"Key {tensor_str} not found in checkpoint")
        value = np.asarray(self._reader.tensor(tensor_str).numpy())
        return value[()] if value.ndim == 0 else value

    def object_graph_json(self):
        """The object graph in the JSON form the Python side works with (`object_graph.py`),
        whichever format the checkpoint is in."""
        return self._reader.object_graph

    def get_variable_to_shape_map(self):
        shapes = {key: list(dims) for key, (_, dims) in self._entries.items()}
        shapes[OBJECT_GRAPH_KEY] = []
        return dict(sorted(shapes.items()))

    def get_variable_to_dtype_map(self):
        dtypes = {key: _dtypes.as_dtype(dtype) for key, (dtype, _) in self._entries.items()}
        dtypes[OBJECT_GRAPH_KEY] = _dtypes.string
        return dict(sorted(dtypes.items()))


def _checkpoint_filename(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    # gfile's isdir: a ram:// prefix of names is a directory, as TensorFlow finds it.
    if _is_directory(path):
        return checkpoint_management.latest_checkpoint(path)
    return path


def load_checkpoint(ckpt_dir_or_file):
    """A `CheckpointReader` for a checkpoint prefix, or for a directory's latest checkpoint."""
    filename = _checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        raise ValueError(
            "Couldn't find 'checkpoint' file or checkpoints in given directory "
            f"{os.fspath(ckpt_dir_or_file)}"
        )
    return CheckpointReader(filename)


def load_variable(ckpt_dir_or_file, name):
    """The stored value of key ``name`` (a trailing ":0" is ignored)."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file):
    """[(key, shape as a list)] of every entry, sorted by key."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]
