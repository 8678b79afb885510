"""`tf.saved_model.load`: the Rust core reads the directory (validating every file) and
rebuilds the graphs against fresh variables; this module rebuilds the object tree around them.
"""

import json
import os

from ferroflow import _core
from ferroflow._host_path import host_path as _host_path
from ferroflow.errors import DataLossError, NotFoundError
from ferroflow.saved_model.load_tensorflow import load_tensorflow_format
from ferroflow.saved_model.restored import (
    RestoredFunction,
    SignatureFunction,
    SignatureMap,
    restored_concrete,
    user_object,
)
from ferroflow.variables import adopt

__all__ = ["LoadOptions", "SavedModelNotFoundError", "load"]

MODEL_FILE = "saved_model.json"
# What TensorFlow writes (and reads): a SavedModel protobuf.
TENSORFLOW_MODEL_FILE = "saved_model.pb"


class SavedModelNotFoundError(NotFoundError, OSError):
    """No SavedModel where one was asked for: TensorFlow raises OSError; ferroflow's errors for
    missing files are NotFoundError. This is both."""

    def __init__(self, message):
        NotFoundError.__init__(self, None, None, message)


class LoadOptions:
    """Accepted for TensorFlow compatibility; ferroflow's loader has nothing these tune."""

    def __init__(
        self,
        allow_partial_checkpoint=False,
        experimental_io_device=None,
        experimental_skip_checkpoint=False,
        experimental_variable_policy=None,
        experimental_load_function_aliases=False,
    ):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device


def load(export_dir, tags=None, options=None):
    """Loads the SavedModel in ``export_dir``: an object with the saved variables, functions
    and child objects as attributes, and ``.signatures``."""
    if _core.graph_tracing():
        raise AssertionError("tf.saved_model.load is not supported inside a traced tf.function.")
    export_dir = os.fspath(export_dir)
    local = _host_path(export_dir)
    if not os.path.isfile(os.path.join(local, MODEL_FILE)):
        if os.path.isfile(os.path.join(local, TENSORFLOW_MODEL_FILE)):
            return load_tensorflow_format(local)
        raise SavedModelNotFoundError(
            f"SavedModel file does not exist at: {os.path.join(export_dir, MODEL_FILE)}"
        )
    core = _core.SavedModel(local)
    try:
        return _rebuild(core, json.loads(core.metadata()))
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise DataLossError(
            None, None, f"{export_dir}: the SavedModel's metadata is malformed: {e}"
        ) from None


def _rebuild(core, meta):
    variables = [adopt(v) for v in core.variables()]
    concretes = [
        restored_concrete(core.graph(i), definition)
        for i, definition in enumerate(meta["concrete_functions"])
    ]
    functions = [
        RestoredFunction(
            f["name"],
            f.get("python", {}).get("params"),
            [concretes[i] for i in f["concrete"]],
            bool(f.get("python", {}).get("input_signature", False)),
        )
        for f in meta["functions"]
    ]
    objects = meta["objects"]
    built = {}

    def build(index, path=()):
        if index in built:
            return built[index]
        if index in path:
            raise ValueError(f"object {index} contains itself through a tuple")
        definition = objects[index]
        kind = definition["kind"]
        children = definition.get("children", [])
        if kind == "variable":
            built[index] = variables[definition["variable"]]
        elif kind == "tuple":
            built[index] = tuple(build(c["node"], (*path, index)) for c in children)
        elif kind == "list":
            built[index] = items = []
            items.extend(build(c["node"], (*path, index)) for c in children)
        elif kind == "dict":
            built[index] = entries = {}
            for c in children:
                entries[c["name"]] = build(c["node"], (*path, index))
        else:
            names = definition.get("functions", {})
            built[index] = obj = user_object("__call__" in names)
            for name, f in names.items():
                object.__setattr__(obj, name, functions[f])
            for c in children:
                setattr(obj, c["name"], build(c["node"], (*path, index)))
        return built[index]

    root = build(0)
    signatures = {
        key: SignatureFunction(
            key, concretes[s["concrete"]], s["inputs"], [tuple(o) for o in s["outputs"]]
        )
        for key, s in meta.get("signatures", {}).items()
    }
    if not isinstance(root, (list, tuple, dict)) and not hasattr(type(root), "_fields"):
        object.__setattr__(root, "signatures", SignatureMap(signatures))
    return root
