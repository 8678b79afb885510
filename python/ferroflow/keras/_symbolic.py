"""Symbolic calls for the functional API: a layer (or an operation such as ``+``) called on
`KerasTensor`s records a `Node` -- which operation ran on which tensors with which arguments --
and returns new `KerasTensor`s that remember the node that made them (their ``_keras_history``).
A functional model replays its nodes on real tensors."""

import collections
import inspect

from ferroflow import nest
from ferroflow.keras._shape_inference import output_keras_tensors
from ferroflow.tensor_shape import TensorShape

__all__ = [
    "KerasHistory",
    "Node",
    "NodeList",
    "accepts_call_argument",
    "any_symbolic",
    "inbound_nodes",
    "symbolic_call",
]

KerasHistory = collections.namedtuple("KerasHistory", ["operation", "node_index", "tensor_index"])


def _keras_tensor_type():
    from ferroflow.keras.layers.input_layer import KerasTensor

    return KerasTensor


class NodeList:
    """The nodes an operation was called in, in call order. Deliberately not a list: containers
    assigned to a layer's attributes become checkpoint dependencies, and call history must not
    change what a checkpoint holds."""

    __slots__ = ("_nodes",)

    def __init__(self):
        self._nodes = []

    def append(self, node):
        self._nodes.append(node)

    def index(self, node):
        for i, known in enumerate(self._nodes):
            if known is node:
                return i
        raise ValueError(f"{node} is not an inbound node")

    def __getitem__(self, index):
        return self._nodes[index]

    def __len__(self):
        return len(self._nodes)

    def __iter__(self):
        return iter(self._nodes)

    def __repr__(self):
        return f"NodeList({self._nodes})"


def inbound_nodes(operation):
    """``operation._inbound_nodes``, created on first use (layers do not declare it)."""
    nodes = operation.__dict__.get("_inbound_nodes")
    if nodes is None:
        nodes = NodeList()
        object.__setattr__(operation, "_inbound_nodes", nodes)
    return nodes


class Node:
    """One call of ``operation``: its arguments (with `KerasTensor`s where tensors flow) and
    its output `KerasTensor`s. Creating a node registers it with the operation and stamps the
    outputs' ``_keras_history``."""

    def __init__(self, operation, call_args=(), call_kwargs=None, outputs=None):
        keras_tensor = _keras_tensor_type()
        self.operation = operation
        self.call_args = tuple(call_args)
        self.call_kwargs = dict(call_kwargs or {})
        self.outputs = outputs
        self.output_tensors = [x for x in nest.flatten(outputs) if isinstance(x, keras_tensor)]
        self.input_tensors = [
            x
            for x in nest.flatten((self.call_args, self.call_kwargs))
            if isinstance(x, keras_tensor)
        ]
        self.is_input = not self.input_tensors
        nodes = inbound_nodes(operation)
        node_index = len(nodes)
        nodes.append(self)
        for tensor_index, tensor in enumerate(self.output_tensors):
            tensor._keras_history = KerasHistory(operation, node_index, tensor_index)

    @property
    def parent_nodes(self):
        """The nodes that produced this node's input tensors."""
        parents = []
        for x in self.input_tensors:
            if x._keras_history is None:  # a bare `KerasTensor` (a `keras.Function` input)
                continue
            operation, node_index, _ = x._keras_history
            parents.append(inbound_nodes(operation)[node_index])
        return parents

    def fill_in(self, tensor_by_id):
        """The call's (args, kwargs) with each `KerasTensor` replaced by its computed value."""
        keras_tensor = _keras_tensor_type()

        def value(x):
            return tensor_by_id[id(x)] if isinstance(x, keras_tensor) else x

        args = nest.map_structure(value, list(self.call_args)) if self.call_args else []
        kwargs = nest.map_structure(value, self.call_kwargs) if self.call_kwargs else {}
        return args, kwargs

    def __repr__(self):
        index = inbound_nodes(self.operation).index(self)
        return f"<Node operation={self.operation.name}, index={index}>"


def any_symbolic(inputs):
    """Whether ``inputs`` (a tensor or a structure of them) holds a `KerasTensor`."""
    keras_tensor = _keras_tensor_type()
    if isinstance(inputs, keras_tensor):
        return True
    if not nest.is_nested(inputs):
        return False
    return any(isinstance(x, keras_tensor) for x in nest.flatten(inputs))


_accepts_cache = {}


def accepts_call_argument(operation, name):
    """Whether ``operation.call`` takes keyword ``name`` (explicitly or through ``**kwargs``)."""
    call = getattr(type(operation), "call", None)
    key = (call, name)
    if key not in _accepts_cache:
        try:
            parameters = inspect.signature(call).parameters.values()
        except (TypeError, ValueError):
            parameters = ()
        _accepts_cache[key] = any(
            p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters
        )
    return _accepts_cache[key]


def symbolic_call(operation, inputs, args, kwargs):
    """``operation(inputs, *args, **kwargs)`` where a `KerasTensor` appears: builds a layer
    from the symbolic shapes, infers the outputs, records the node and returns its outputs."""
    from ferroflow.keras.layers.layer import Layer

    call_args = (inputs, *args)
    if isinstance(operation, Layer) and not operation.built:
        _build_from_symbolic(operation, inputs)
    outputs = output_keras_tensors(operation, call_args, kwargs)
    Node(operation, call_args, kwargs, outputs)
    return outputs


def _single_shape_build(layer):
    """Whether ``layer.build`` takes just the inputs' shape (one required argument)."""
    try:
        parameters = list(inspect.signature(layer.build).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [
        p
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    required = [p for p in positional if p.default is inspect.Parameter.empty]
    return len(positional) >= 1 and len(required) <= 1


def _build_from_symbolic(layer, inputs):
    # Keras builds layers from the symbolic shapes, batch dimension None included, so weights
    # never see the sizes the shape inference below makes up. Layers whose
    # `build` takes several shapes are left to build on the inference call.
    if not _single_shape_build(layer):
        return
    shapes = nest.map_structure(_shape_tuple, inputs)
    layer.build(shapes)
    layer.built = True


def _shape_tuple(value):
    # What `build` receives for each input, as in Layer.__call__ (and Keras 3): a tuple.
    shape = getattr(value, "shape", None)
    return tuple(TensorShape(shape).as_list()) if shape is not None else value
