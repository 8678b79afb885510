"""The object graph a checkpoint stores (TensorFlow's `TrackableObjectGraph`, as JSON): one
node per trackable object reached from the root, breadth first, each with its named child
edges and, for a variable, the attribute naming its value's key in the data file.

    {"nodes": [{"children": [{"node_id": 1, "local_name": "model"}],
                "attributes": [{"name": "VARIABLE_VALUE", "full_name": "Variable",
                                "checkpoint_key": "model/.ATTRIBUTES/VARIABLE_VALUE"}]}]}

An object reached twice is one node (its key comes from the first, shortest path). Keys follow
TensorFlow: escaped edge names joined by '/', then '/.ATTRIBUTES/VARIABLE_VALUE'.
"""

import collections
import json

from ferroflow.errors import DataLossError
from ferroflow.train import _text_format
from ferroflow.train.trackable import children_of, escape_local_name, is_variable

__all__ = ["OBJECT_GRAPH_KEY", "VARIABLE_VALUE", "ObjectGraph", "Node", "serialize"]

# The pseudo-entry TensorFlow lists for the graph itself (ferroflow keeps it in the index).
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"


def checkpoint_key(path, attribute=VARIABLE_VALUE):
    return "/".join(escape_local_name(name) for name in path) + "/.ATTRIBUTES/" + attribute


def _full_name(variable):
    name = variable.name
    return name[: -len(":0")] if name.endswith(":0") else name


def serialize(root, root_extras=()):
    """(graph as a JSON-ready dict, keys, values) for everything reachable from ``root``;
    ``root_extras`` are further (name, object) edges of the root (a Checkpoint's own children
    when it checkpoints another root object)."""
    graph, keys, values, _ = walk(root, root_extras)
    return graph, keys, values


def walk(root, root_extras=()):
    """As `serialize`, with the objects too: ``objects[i]`` is node ``i`` (SavedModel builds
    its object tree on the checkpoint's)."""
    nodes, objects, paths, node_of = [], [], [], {}

    def add(obj, path):
        node_of[id(obj)] = len(nodes)
        nodes.append({"children": [], "attributes": []})
        objects.append(obj)
        paths.append(path)

    add(root, ())
    keys, values = [], []
    i = 0
    while i < len(objects):  # breadth first, so each object is named by a shortest path
        obj, path = objects[i], paths[i]
        edges = children_of(obj)
        if i == 0:
            edges = [*edges, *root_extras]
        for name, child in edges:
            if id(child) not in node_of:
                add(child, (*path, name))
            nodes[i]["children"].append({"node_id": node_of[id(child)], "local_name": name})
        if is_variable(obj):
            key = checkpoint_key(path)
            nodes[i]["attributes"].append(
                {"name": VARIABLE_VALUE, "full_name": _full_name(obj), "checkpoint_key": key}
            )
            keys.append(key)
            values.append(obj._peek())
        i += 1
    return {"nodes": nodes}, keys, values, objects


Node = collections.namedtuple("Node", ["children", "attributes"])
Node.__doc__ = """children: [(local name, node id)]; attributes: [(name, full name, key)]."""


class ObjectGraph:
    """A stored graph, validated: every malformed or hostile part is a DataLossError."""

    def __init__(self, nodes):
        self.nodes = nodes
        self._names = None

    @classmethod
    def parse(cls, text, keys, where):
        """The graph in JSON ``text``, whose attributes must name entries among ``keys``."""

        def corrupt(why):
            return DataLossError(None, None, f"{where}: the checkpoint's object graph {why}")

        try:
            graph = json.loads(text)
        except (ValueError, RecursionError):
            raise corrupt("is not JSON") from None
        raw_nodes = graph.get("nodes") if isinstance(graph, dict) else None
        if not isinstance(raw_nodes, list) or not raw_nodes:
            raise corrupt("has no list of nodes")
        nodes = []
        for index, raw in enumerate(raw_nodes):
            if not isinstance(raw, dict):
                raise corrupt(f"has a node {index} that is not an object")
            children = []
            for edge in _list_field(raw, "children", corrupt, index):
                target = edge.get("node_id") if isinstance(edge, dict) else None
                name = edge.get("local_name") if isinstance(edge, dict) else None
                if type(target) is not int or not 0 <= target < len(raw_nodes):
                    raise corrupt(f"has an edge from node {index} to no node")
                if not isinstance(name, str):
                    raise corrupt(f"has an unnamed edge from node {index}")
                children.append((name, target))
            attributes = []
            for attribute in _list_field(raw, "attributes", corrupt, index):
                fields = [
                    attribute.get(f) if isinstance(attribute, dict) else None
                    for f in ("name", "full_name", "checkpoint_key")
                ]
                if not all(isinstance(f, str) for f in fields):
                    raise corrupt(f"has a malformed attribute on node {index}")
                if fields[2] not in keys:
                    raise corrupt(f"names an entry {fields[2]!r} that the data file lacks")
                attributes.append(tuple(fields))
            nodes.append(Node(children, attributes))
        return cls(nodes)

    def value_key(self, node_id):
        """The data key of node ``node_id``'s variable value, or None."""
        for name, _, key in self.nodes[node_id].attributes:
            if name == VARIABLE_VALUE:
                return key
        return None

    def path_name(self, node_id):
        """TensorFlow's name for a node in messages: "(root).model.layer"."""
        if self._names is None:
            names = {0: "(root)"}
            queue = collections.deque([0])
            while queue:
                parent = queue.popleft()
                for local_name, child in self.nodes[parent].children:
                    if child not in names:
                        names[child] = f"{names[parent]}.{local_name}"
                        queue.append(child)
            self._names = names
        return self._names.get(node_id, f"(unreachable node {node_id})")

    def node_text(self, node_id):
        """The node in protobuf text format, as TensorFlow's messages quote it."""
        node = self.nodes[node_id]
        lines = []
        for local_name, child in node.children:
            lines += ["children {", f"  node_id: {child}"]
            lines += [f"  local_name: {_text_format.quote(local_name)}", "}"]
        for name, full_name, key in node.attributes:
            lines += ["attributes {", f"  name: {_text_format.quote(name)}"]
            lines += [f"  full_name: {_text_format.quote(full_name)}"]
            lines += [f"  checkpoint_key: {_text_format.quote(key)}", "}"]
        lines += ["has_checkpoint_values {", "  value: true", "}"]
        return "\n".join(lines) + "\n"


def _list_field(raw, field, corrupt, index):
    value = raw.get(field, [])
    if not isinstance(value, list):
        raise corrupt(f"has a node {index} whose {field} are not a list")
    return value
