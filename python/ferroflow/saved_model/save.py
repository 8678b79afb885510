"""`tf.saved_model.save`: the object tree reachable from a root (as a checkpoint walks it), the
concrete functions of its `tf.function` attributes, and signatures, written by the Rust core.

>>> import tempfile, ferroflow as tf
>>> class Doubler(tf.Module):
...     @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
...     def __call__(self, x):
...         return 2.0 * x
>>> directory = tempfile.mkdtemp()
>>> tf.saved_model.save(Doubler(), directory)
>>> tf.saved_model.load(directory)(tf.constant([1.0, 2.0])).numpy()
array([2., 4.], dtype=float32)
"""

import json
import logging
import os

from ferroflow import _core
from ferroflow._host_path import host_path as _host_path
from ferroflow.concrete_function import _TENSOR as _RESULT
from ferroflow.dtypes import as_dtype
from ferroflow.saved_model import _structure, _tensorflow_structures, signatures
from ferroflow.saved_model.function_like import (
    concrete_functions_of,
    functions_of,
    has_input_signature,
    parameters_of,
)
from ferroflow.train import object_graph
from ferroflow.train.trackable import is_trackable, is_variable

__all__ = ["SaveOptions", "save"]

_log = logging.getLogger("ferroflow")


class SaveOptions:
    """Accepted for TensorFlow compatibility; ferroflow's format has nothing these tune."""

    def __init__(
        self,
        namespace_whitelist=None,
        save_debug_info=False,
        function_aliases=None,
        experimental_debug_stripper=False,
        experimental_io_device=None,
        experimental_variable_policy=None,
        experimental_custom_gradients=True,
        experimental_image_format=False,
        experimental_skip_saver=False,
        experimental_sharding_callback=None,
    ):
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases or {}
        self.experimental_io_device = experimental_io_device


def save(obj, export_dir, signatures=None, options=None):
    """Saves ``obj``'s variables and traced functions to the directory ``export_dir``."""
    if _core.graph_tracing():
        raise AssertionError(
            "tf.saved_model.save is not supported inside a traced @tf.function. Move the call "
            "to the outer eagerly-executed context."
        )
    if not is_trackable(obj) or is_variable(obj) or isinstance(obj, (list, tuple, dict)):
        raise ValueError(
            "Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the "
            f"`Trackable` class, for export. Got {obj} with type {type(obj)}."
        )
    _Saver(obj, signatures).write(_host_path(os.fspath(export_dir)))


class _Saver:
    def __init__(self, root, signature_arg):
        self.graph, _, _, self.objects = object_graph.walk(root)
        self.variables = []
        self.variable_defs = []
        self.concretes = []
        self.concrete_defs = []
        self.function_defs = []
        # TensorFlow's structures per concrete function and per function (None: not writable).
        self.tf_concretes = []
        self.tf_functions = []
        self.not_writable = None
        self.object_defs = [self._object_def(i, obj) for i, obj in enumerate(self.objects)]
        self.signature_defs = self._signatures(root, signature_arg)

    def write(self, export_dir):
        meta = {
            "objects": self.object_defs,
            "variables": self.variable_defs,
            "functions": self.function_defs,
            "concrete_functions": self.concrete_defs,
            "signatures": self.signature_defs,
        }
        if self.not_writable is None:
            meta["tensorflow"] = {
                "concrete_functions": self.tf_concretes,
                "functions": self.tf_functions,
            }
        not_written = _core.saved_model_write(
            export_dir,
            json.dumps(meta, allow_nan=False),
            [c._core for c in self.concretes],
            self.variables,
            json.dumps(self.graph, allow_nan=False),
        )
        if not_written is not None:
            # ferroflow loads the directory; TensorFlow would not find its saved_model.pb.
            _log.warning(
                "The SavedModel at %s was written in ferroflow's format only: TensorFlow "
                "cannot load it, because %s.",
                export_dir,
                self.not_writable or not_written,
            )

    # --- objects and variables ------------------------------------------------------------

    def _object_def(self, index, obj):
        node = self.graph["nodes"][index]
        children = [{"name": e["local_name"], "node": e["node_id"]} for e in node["children"]]
        if is_variable(obj):
            key = node["attributes"][0]["checkpoint_key"]
            return {"kind": "variable", "variable": self._variable(obj, key)}
        if isinstance(obj, (list, tuple, dict)):
            kind = "list" if isinstance(obj, list) else "dict" if isinstance(obj, dict) else "tuple"
            return {"kind": kind, "children": children}
        functions = {name: self._function(name, fn, obj) for name, fn in functions_of(obj).items()}
        return {"kind": "user_object", "children": children, "functions": functions}

    def _variable(self, variable, key):
        self.variables.append(variable)
        # A Keras variable's TensorFlow variable is named by its path (`dense/kernel`), which
        # is the name TensorFlow's loaded variable has.
        name = getattr(variable, "path", None) or variable.name
        self.variable_defs.append(
            {
                "name": name[: -len(":0")] if name.endswith(":0") else name,
                "checkpoint_key": key,
                "dtype": variable.dtype.name,
                "dims": list(variable.shape.as_list()),
                "declared": variable._declared,
                "trainable": bool(variable.trainable),
            }
        )
        return len(self.variables) - 1

    # --- functions ------------------------------------------------------------------------

    def _function(self, name, fn, owner):
        concretes = [self._concrete(c, name) for c in concrete_functions_of(fn, owner)]
        python = {"params": parameters_of(fn), "input_signature": has_input_signature(fn)}
        self.function_defs.append({"name": name, "concrete": concretes, "python": python})
        self.tf_functions.append(self._tensorflow(_tensorflow_structures.function_structures, fn))
        return len(self.function_defs) - 1

    def _concrete(self, concrete, name):
        for i, known in enumerate(self.concretes):
            if known is concrete:
                return i
        args, kwargs = concrete.structured_input_signature
        where = f"function {name!r}"
        self.concretes.append(concrete)
        self.tf_concretes.append(
            self._tensorflow(_tensorflow_structures.concrete_structures, concrete)
        )
        self.concrete_defs.append(
            {
                "name": name,
                "inputs": flat_input_specs(concrete),
                "outputs": [_spec_def(t.name, t.dtype, t.shape) for t in concrete.outputs],
                "python": {
                    "args": _structure.encode(args, where=where),
                    "kwargs": _structure.encode(kwargs, where=where),
                    "outputs": _structure.encode(
                        concrete._output_template, lambda v: v is _RESULT, where
                    ),
                },
            }
        )
        return len(self.concretes) - 1

    def _tensorflow(self, describe, fn):
        try:
            return describe(fn)
        except _tensorflow_structures.NotWritable as e:
            self.not_writable = self.not_writable or f"a function's structure holds {e}"
            return None

    # --- signatures -----------------------------------------------------------------------

    def _signatures(self, root, signature_arg):
        chosen = signatures.canonicalize(root, signature_arg)
        defs = {}
        for key, concrete in chosen.items():
            index = self._concrete(concrete, getattr(concrete, "name", key))
            defs[key] = {
                "concrete": index,
                "inputs": signatures.input_names(concrete),
                "outputs": signatures.output_names(concrete, key),
            }
        return defs


def _spec_def(name, dtype, shape):
    dims = shape.dims
    return {"name": name.rsplit(":", 1)[0], "dtype": dtype.name, "dims": list(dims or [])}


def flat_input_specs(concrete):
    """The specs a saved concrete function's flat inputs must meet: the traced ones, or the
    exact example shapes when the graph was specialised to them."""
    names = [t.name.rsplit(":", 1)[0] for t in concrete.inputs]
    if concrete._core.specialised and concrete._examples is not None:
        dims = [list(t._dims) for t in concrete._examples]
    else:
        dims = [list(leaf.dims) for leaf in concrete._leaves]
    dtypes = [as_dtype(leaf.dtype).name for leaf in concrete._leaves]
    return [{"name": n, "dtype": d, "dims": s} for n, d, s in zip(names, dtypes, dims)]
