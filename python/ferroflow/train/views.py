"""`tf.train.TrackableView` (the object graph a checkpoint of a Python object would save) and
`tf.train.CheckpointView` (the object graph a written checkpoint holds), as TensorFlow's: both
list children by edge name and descendants breadth first, and a CheckpointView matches its
nodes against a live object graph."""

import collections

from ferroflow.train import checkpoint_management
from ferroflow.train.object_graph import ObjectGraph
from ferroflow.train.reader import CheckpointReader
from ferroflow.train.trackable import children_of

__all__ = ["CheckpointView", "TrackableView"]


class TrackableView:
    """The trackable objects reachable from `root`, by the edges a checkpoint would save."""

    def __init__(self, root):
        self._root = root

    @property
    def root(self):
        return self._root

    @classmethod
    def children(cls, obj, save_type="checkpoint", **kwargs):
        """``{edge name: child}`` of `obj`, in the order a checkpoint saves them."""
        return dict(children_of(obj))

    def descendants(self):
        """Every object reachable from the root, breadth first, each once (root first)."""
        seen, order = {id(self._root)}, [self._root]
        queue = collections.deque([self._root])
        while queue:
            for _, child in children_of(queue.popleft()):
                if id(child) not in seen:
                    seen.add(id(child))
                    order.append(child)
                    queue.append(child)
        return order


class CheckpointView:
    """The object graph stored in the checkpoint at `save_path` (a prefix or a directory)."""

    def __init__(self, save_path):
        prefix = checkpoint_management.latest_checkpoint(save_path) or save_path
        reader = CheckpointReader(prefix)
        keys = set(reader.get_variable_to_shape_map())
        self._graph = ObjectGraph.parse(reader.object_graph_json(), keys, prefix)

    def children(self, node_id):
        """``{edge name: child node id}`` of node `node_id` (0 is the root)."""
        return {name: child for name, child in self._graph.nodes[node_id].children}

    def descendants(self):
        """The node ids reachable from the root, breadth first (root first)."""
        seen, order = {0}, [0]
        queue = collections.deque([0])
        while queue:
            for _, child in self._graph.nodes[queue.popleft()].children:
                if child not in seen:
                    seen.add(child)
                    order.append(child)
                    queue.append(child)
        return order

    def match(self, obj):
        """``{node id: object}`` for the nodes of this checkpoint that `obj`'s graph has at
        the same edge path (what a restore into `obj` would fill)."""
        return self.diff(obj)[0]

    def diff(self, obj):
        """(matched ``{node id: object}``, node ids only the checkpoint has, objects only `obj`'s
        graph has), walking both graphs from their roots by edge names."""
        matched, node_of = {0: obj}, {id(obj): 0}
        queue = collections.deque([(0, obj)])
        only_objects = []
        while queue:
            node_id, current = queue.popleft()
            stored = self.children(node_id)
            for name, child in children_of(current):
                target = stored.get(name)
                if target is None:
                    if id(child) not in node_of:
                        only_objects.append(child)
                    continue
                if target not in matched:
                    matched[target] = child
                    node_of[id(child)] = target
                    queue.append((target, child))
        only_nodes = [n for n in self.descendants() if n not in matched]
        return matched, only_nodes, only_objects
