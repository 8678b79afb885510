"""`tf.train.Checkpoint`: saves and restores the variables reachable from the objects given to
it, in TensorFlow's object-based scheme (keys like ``model/layer/kernel/.ATTRIBUTES/
VARIABLE_VALUE``). The files are written by the Rust core, each atomically, data before index.

>>> import os, tempfile
>>> import ferroflow as tf
>>> directory = tempfile.TemporaryDirectory()
>>> v = tf.Variable(3.0)
>>> path = tf.train.Checkpoint(v=v).save(os.path.join(directory.name, "ckpt"))
>>> os.path.basename(path)
'ckpt-1'
>>> _ = v.assign(0.0)
>>> status = tf.train.Checkpoint(v=v).restore(path)
>>> v.numpy()
np.float32(3.0)
>>> directory.cleanup()
"""

import json
import os

from ferroflow import _core, device_scope
from ferroflow import dtypes as _dtypes
from ferroflow._host_path import host_path as _host_path
from ferroflow._host_path import shown as _shown
from ferroflow.errors import DataLossError, NotFoundError
from ferroflow.train import _deferred, checkpoint_management
from ferroflow.train.object_graph import ObjectGraph, serialize
from ferroflow.train.options import CheckpointOptions, run_write_callbacks
from ferroflow.train.restore import Restoration
from ferroflow.train.status import CheckpointLoadStatus, InitializationOnlyStatus
from ferroflow.train.trackable import AutoTrackable, children_of, is_trackable
from ferroflow.variables import Variable

__all__ = ["Checkpoint"]

_SAVE_COUNTER = "save_counter"


def _assert_trackable(obj, name):
    if not is_trackable(obj):
        raise ValueError(
            f"`Checkpoint` was expecting {name} to be a trackable object (an object derived from "
            f"`Trackable`), got {obj}. If you believe this object should be trackable (i.e. it "
            "is part of the TensorFlow Python API and manages state), please open an issue."
        )


def _not_in_function(method):
    if _core.graph_tracing():
        raise NotImplementedError(
            f"Calling tf.train.Checkpoint.{method}() from a function is not supported: "
            "ferroflow writes and reads checkpoints eagerly. Call it outside the tf.function."
        )


class Checkpoint(AutoTrackable):
    """Groups trackable objects, saving and restoring them.

    ``Checkpoint(model=m, optimizer=opt)`` saves ``m`` under "model" and ``opt`` under
    "optimizer"; ``Checkpoint(root, **kwargs)`` saves ``root``'s own attributes at the top
    level instead, with the keyword arguments beside them.
    """

    _no_dependency_attributes = frozenset(("_root", "_attached", "_save_counter"))

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_save_counter", None)  # created on first use, as TensorFlow
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_attached", {})
        if root is not None:
            _assert_trackable(root, "root")
            kwargs["root"] = root
            own = dict(children_of(root))
        for name, value in sorted(kwargs.items(), key=lambda item: item[0]):
            setattr(self, name, value)
            _assert_trackable(value, name)
            if root is not None:
                existing = own.get(name)
                if existing is None:
                    self._attached[name] = value
                elif existing is not value:
                    raise ValueError(
                        f"Cannot create a Checkpoint with keyword argument {name} if "
                        f"root.{name} already exists."
                    )

    # --- the object graph --------------------------------------------------------------------

    def _trackable_children(self):
        if self._root is None:
            children = [
                (n, v) for n, v in vars(self).items() if n not in self._no_dependency_attributes
            ]
            children = [(n, v) for n, v in children if is_trackable(v)]
        else:
            children = list(self._attached.items())
        if self._save_counter is not None:
            children.append((_SAVE_COUNTER, self._save_counter))
        return children

    def _graph_root(self):
        """(the object at node 0, its extra edges): this Checkpoint, or the root it was given
        with this Checkpoint's own children attached."""
        if self._root is None:
            return self, ()
        return self._root, tuple(self._trackable_children())

    def _attached_dependency_names(self):
        return (*self._attached, _SAVE_COUNTER) if self._root is not None else ()

    # --- the save counter --------------------------------------------------------------------

    def _maybe_create_save_counter(self):
        if self._save_counter is None:
            with device_scope.device("/cpu:0"):
                counter = Variable(0, dtype=_dtypes.int64, trainable=False, name=_SAVE_COUNTER)
            object.__setattr__(self, "_save_counter", counter)
            # A restore may be waiting for it (restore-on-create).
            _deferred.note_attribute(self, _SAVE_COUNTER, counter)

    @property
    def save_counter(self):
        """An int64 variable incremented by `save()`, numbering the checkpoints."""
        self._maybe_create_save_counter()
        return self._save_counter

    # --- writing -----------------------------------------------------------------------------

    def _write(self, file_prefix, options=None):
        if file_prefix is None:  # TensorFlow converts the prefix to a string tensor first
            raise ValueError(
                "Attempt to convert a value (None) with an unsupported type "
                "(<class 'NoneType'>) to a Tensor."
            )
        _deferred.sweep()  # values waiting for objects attached since the restore land first
        root, extras = self._graph_root()
        graph, keys, values = serialize(root, extras)
        file_prefix = os.fspath(file_prefix)
        _core.checkpoint_write(_host_path(file_prefix), keys, values, json.dumps(graph))
        run_write_callbacks(options.experimental_write_callbacks if options else None, file_prefix)
        return file_prefix

    def write(self, file_prefix, options=None):
        """Writes ``<file_prefix>.index`` and ``<file_prefix>.data-00000-of-00001``; returns
        ``file_prefix``. Neither numbers the checkpoint nor updates the ``checkpoint`` file."""
        _not_in_function("write")
        return self._write(file_prefix, options)

    def save(self, file_prefix, options=None):
        """Writes ``<file_prefix>-<N>`` with N the incremented `save_counter`, records it in the
        directory's ``checkpoint`` file (for `tf.train.latest_checkpoint`) and returns it."""
        _not_in_function("save")
        file_prefix = os.fspath(file_prefix)
        counter = self.save_counter
        counter.assign_add(1, read_value=False)
        number = int(counter.numpy())
        callbacks = list((options.experimental_write_callbacks if options else None) or ())
        callbacks.append(_record_in_state_file)
        written = CheckpointOptions(experimental_write_callbacks=callbacks)
        return self._write(f"{file_prefix}-{number}", written)

    # --- reading -----------------------------------------------------------------------------

    def read(self, save_path, options=None):
        """Restores what a checkpoint written by `write` holds (like `restore`, without
        expecting the save counter). Returns a load status."""
        _not_in_function("read")
        if save_path is None:
            return InitializationOnlyStatus(self)
        save_path = os.fspath(save_path)
        reader = _open(save_path)
        graph = ObjectGraph.parse(
            reader.object_graph, {key for key, _, _ in reader.entries()}, save_path
        )
        restoration = Restoration(reader, graph, save_path)
        restoration.match_root(self._graph_root()[0], self)
        return CheckpointLoadStatus(restoration, self)

    def restore(self, save_path, options=None):
        """Restores a checkpoint written by `save`: variables that exist take their values now,
        the others when they are attached (restore-on-create). Returns a load status whose
        assertions check how well the checkpoint and the objects matched."""
        original = save_path
        try:
            status = self.read(save_path, options)
        except NotFoundError as e:
            raise NotFoundError(
                None,
                None,
                f"Error when restoring from checkpoint or SavedModel at {original}: "
                f"{_shown(e.message)}"
                "\nPlease double-check that the path is correct. You may be missing the "
                "checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1').",
            ) from None
        self._maybe_create_save_counter()
        return status

    def sync(self):
        """Writes are synchronous: nothing is outstanding."""


def _open(save_path):
    local = _host_path(save_path)
    if os.path.isdir(local) and not os.path.exists(local + ".index"):
        raise DataLossError(
            None,
            None,
            f"Unable to open table file {save_path}: FAILED_PRECONDITION: {save_path}; Is a "
            "directory: perhaps your file is in a different file format and you need to use a "
            "different restore operator?",
        )
    return _core.CheckpointReader(local)


def _record_in_state_file(save_path):
    checkpoint_management.update_checkpoint_state_internal(
        save_dir=os.path.dirname(save_path),
        model_checkpoint_path=save_path,
        all_model_checkpoint_paths=[save_path],
        save_relative_paths=True,
    )
