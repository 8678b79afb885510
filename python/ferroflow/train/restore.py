"""One `restore()`/`read()` of a checkpoint: pairs Python objects with the checkpoint's nodes by
walking both graphs from the root along equally named edges, assigns each paired variable its
stored value (checking dtype and shape as TensorFlow does), and leaves nodes whose Python object
does not exist yet waiting in `_deferred` until it is attached. Values are always assigned
eagerly, also when the attachment happens while a `tf.function` is traced."""

import collections
import logging
import threading
import weakref

from ferroflow import _core, errors
from ferroflow.tensor_shape import TensorShape
from ferroflow.train import _deferred
from ferroflow.train.trackable import MISSING, child_named, is_anchor, is_variable

__all__ = ["Restoration"]

_log = logging.getLogger("ferroflow")

# TensorFlow's names for dtypes in kernel messages (DataTypeString).
_KERNEL_DTYPE_NAMES = {"float16": "half", "float32": "float", "float64": "double"}


def _kernel_dtype_name(dtype):
    return _KERNEL_DTYPE_NAMES.get(dtype.name, dtype.name)


class _Ref:
    """A weak reference where the object allows one, else an identity (containers)."""

    __slots__ = ("_ref", "_id")

    def __init__(self, obj):
        self._id = id(obj)
        try:
            self._ref = weakref.ref(obj)
        except TypeError:
            self._ref = None

    def get(self):
        return None if self._ref is None else self._ref()

    def refers_to(self, obj):
        return self.get() is obj if self._ref is not None else self._id == id(obj)


class _UnrestoredReport:
    """Logs, when its restoration is collected, the checkpoint values that never found an
    object (TensorFlow's warning), unless `expect_partial()` was called. Kept apart from the
    restoration so that logging never keeps it alive."""

    def __init__(self, graph, bound, unused_attributes):
        self.graph = graph
        self.bound = bound
        self.unused_attributes = unused_attributes
        self.expect_partial = False

    def __del__(self):
        if self.expect_partial or logging is None:
            return
        unused = [
            self.graph.path_name(node_id)
            for node_id, node in enumerate(self.graph.nodes)
            if node.attributes
            and node_id not in self.bound
            and node_id not in self.unused_attributes
        ]
        attributes = [
            (self.graph.path_name(node_id), name)
            for node_id, (_, names) in self.unused_attributes.items()
            for name in names
        ]
        if not unused and not attributes:
            return
        try:
            _log.warning(
                "Detecting that an object or model or tf.train.Checkpoint is being deleted with "
                "unrestored values. See the following logs for the specific values in question. "
                "To silence these warnings, use `status.expect_partial()`. See "
                "https://www.tensorflow.org/api_docs/python/tf/train/Checkpoint#restore"
                "for details about the status object returned by the restore function."
            )
            for name in unused:
                _log.warning(
                    "Value in checkpoint could not be found in the restored object: %s", name
                )
            for path, name in attributes:
                _log.warning(
                    "An attribute in the restored object could not be found in the checkpoint. "
                    "Object: %s, attribute: %s",
                    path,
                    name,
                )
        except Exception:  # interpreter shutdown: logging may be half torn down
            pass


class Restoration:
    """The state of one load: which node holds which object, and the reader for the values."""

    def __init__(self, reader, graph, save_path):
        self.reader = reader
        self.graph = graph
        self.save_path = save_path
        # node id -> _Ref of the object restored from it (variables and anchors: those with
        # an identity worth keeping); containers only count in `matched`.
        self.bound = {}
        self.matched = set()
        # node id -> (the object's text, attribute names) for values nothing could take.
        self.unused_attributes = {}
        self._node_of_object = {}  # id(object) -> node id, for `holds`
        # A Checkpoint saving another root object owns some of node 0's edges; it is held
        # weakly, as waiting restorations must not keep what they wait on alive.
        self._checkpoint = lambda: None
        self._extras_names = frozenset()
        self.report = _UnrestoredReport(graph, self.bound, self.unused_attributes)

    def bound_object(self, node_id):
        ref = self.bound.get(node_id)
        return None if ref is None else ref.get()

    def holds(self, obj):
        """Whether ``obj`` was restored from some node of this checkpoint."""
        node_id = self._node_of_object.get(id(obj))
        return node_id is not None and self.bound[node_id].refers_to(obj)

    def match_root(self, root, checkpoint):
        """Pairs ``root`` with node 0. When ``root`` is not ``checkpoint`` itself, the edges
        of node 0 that ``checkpoint`` attaches (its keyword arguments and save counter) are
        looked up on, and wait on, ``checkpoint``."""
        self._checkpoint = weakref.ref(checkpoint)
        self._extras_names = frozenset(checkpoint._attached_dependency_names())
        self.match(root, 0, root, ())

    def _child(self, obj, node_id, name):
        if node_id == 0 and name in self._extras_names:
            checkpoint = self._checkpoint()
            extras = dict(checkpoint._graph_root()[1]) if checkpoint is not None else {}
            return extras.get(name, MISSING)
        return child_named(obj, name)

    def match(self, obj, node_id, anchor, path):
        """Pairs ``obj`` (at ``path`` below ``anchor``) with ``node_id`` and everything below
        them, restoring variables now and leaving absent objects waiting."""
        queue = collections.deque([(obj, node_id, anchor, path)])
        while queue:
            obj, node_id, anchor, path = queue.popleft()
            if self.bound_object(node_id) is not None or self.holds(obj):
                continue  # shared in the checkpoint or in Python: the first pairing wins
            if is_variable(obj):
                key = self.graph.value_key(node_id)
                if key is not None:  # else paired all the same, as TensorFlow does
                    self._restore_variable(obj, key)
                self._bind(node_id, obj)
                continue
            if node_id in self.matched and not is_anchor(obj):
                continue  # a container met again through a shared edge
            self._bind(node_id, obj)
            attributes = [name for name, _, _ in self.graph.nodes[node_id].attributes]
            if attributes:  # a variable's values, but the object here is not a variable
                self.unused_attributes[node_id] = (str(obj), attributes)
            if is_anchor(obj):
                anchor, path = obj, ()
            for name, child_id in self.graph.nodes[node_id].children:
                child = self._child(obj, node_id, name)
                if child is not MISSING:
                    queue.append((child, child_id, anchor, (*path, name)))
                elif node_id == 0 and name in self._extras_names:
                    if self._checkpoint() is not None:
                        _deferred.wait(self._checkpoint(), (name,), self, child_id)
                else:
                    _deferred.wait(anchor, (*path, name), self, child_id)

    def _bind(self, node_id, obj):
        self.matched.add(node_id)
        if is_variable(obj) or is_anchor(obj):
            self.bound[node_id] = _Ref(obj)
            self._node_of_object[id(obj)] = node_id

    def _restore_variable(self, variable, key):
        value = self.reader.tensor(key)
        if value.dtype != variable.dtype:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"tensor_name = {key}; expected dtype {_kernel_dtype_name(variable.dtype)} does "
                f"not equal original dtype {_kernel_dtype_name(value.dtype)} [Op:RestoreV2]",
            )
        stored = TensorShape(value.shape)
        if not variable.shape.is_compatible_with(stored):
            raise ValueError(
                f"Received incompatible tensor with shape {stored} when attempting to restore "
                f"variable with shape {variable.shape} and name {variable.name}."
            )
        _assign_eagerly(variable, value)


def _assign_eagerly(variable, value):
    """Assigns now, even while a `tf.function` is being traced: a variable created by the first
    trace (an optimizer's slot, say) takes its checkpointed value once, as TensorFlow restores
    under `init_scope`, instead of the trace recording an assignment that every call would
    repeat. Traces are per thread, so a helper thread sees no trace and assigns eagerly."""
    if not _core.graph_tracing():
        variable.assign(value, read_value=False)
        return
    failure = []

    def assign():
        try:
            variable.assign(value, read_value=False)
        except BaseException as e:  # re-raised in the tracing thread
            failure.append(e)

    helper = threading.Thread(target=assign, name="ferroflow-restore")
    helper.start()
    helper.join()
    if failure:
        raise failure[0]
