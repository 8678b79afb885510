"""Symbolic calls for the functional API: a layer (or an operation such as ``+``) called on
`KerasTensor`s records a `Node` -- which operation ran on which tensors with which arguments --
and returns new `KerasTensor`s that remember the node that made them (their ``_keras_history``).
A functional model replays its nodes on real tensors."""

import collections
import inspect

from ferroflow import nest
from ferroflow.array_ops import zeros
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

# Shape inference runs the operation on zeros. The batch dimension (axis 0) is 1 when unknown;
# other unknown dimensions get two sizes large enough for kernels and pooling windows, and an
# output dimension that differs between the two runs is unknown. See `_output_keras_tensors`.
_UNKNOWN_SIZES = (64, 96)


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
    outputs = _output_keras_tensors(operation, call_args, kwargs)
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


def _zeros_like_symbolic(x, inner_size):
    dims = [(1 if axis == 0 else inner_size) if d is None else d for axis, d in enumerate(x.shape)]
    return zeros(dims, x.dtype)


def _run_on_zeros(operation, call_args, kwargs, inner_size):
    from ferroflow.keras.layers.layer import Layer

    keras_tensor = _keras_tensor_type()

    def concrete(x):
        return _zeros_like_symbolic(x, inner_size) if isinstance(x, keras_tensor) else x

    args = nest.map_structure(concrete, list(call_args))
    kwargs = nest.map_structure(concrete, dict(kwargs)) if kwargs else {}
    if not isinstance(operation, Layer):
        return operation.call(*args, **kwargs)
    if accepts_call_argument(operation, "training"):
        kwargs["training"] = False
    # This is not the layer's first real call: keep what Layer.__call__ records of that one.
    first_call_specs = operation.__dict__.get("_first_call_specs")
    try:
        return operation(*args, **kwargs)
    finally:
        if "_first_call_specs" in operation.__dict__:
            object.__setattr__(operation, "_first_call_specs", first_call_specs)


def _output_keras_tensors(operation, call_args, kwargs):
    """The outputs' shapes and dtypes, found by running ``operation`` for real on zeros: simple,
    exact for any layer or op (no per-layer shape rules to keep in step with `call`), and it
    costs one tiny forward pass (batch of 1) at model construction. An unknown batch dimension
    is put back as None. Unknown inner dimensions (variable lengths, image sizes) get a second
    pass with another size, and output dimensions that follow them become None too."""
    keras_tensor = _keras_tensor_type()
    symbolic = [
        x for x in nest.flatten((list(call_args), dict(kwargs))) if isinstance(x, keras_tensor)
    ]
    first = _run_on_zeros(operation, call_args, kwargs, _UNKNOWN_SIZES[0])
    second = None
    if any(d is None for x in symbolic for d in list(x.shape)[1:]):
        second = _run_on_zeros(operation, call_args, kwargs, _UNKNOWN_SIZES[1])
    unknown_batch = bool(symbolic) and all(x.shape.rank and x.shape[0] is None for x in symbolic)
    flat_first = nest.flatten(first)
    flat_second = nest.flatten(second) if second is not None else flat_first

    def symbolic_output(value, other):
        if not hasattr(value, "shape") or not hasattr(value, "dtype"):
            raise TypeError(
                f"{type(operation).__name__} '{operation.name}' returned {value!r}, which is not "
                "a tensor: layers used in functional models must return tensors."
            )
        dims = list(TensorShape(value.shape))
        other_dims = list(TensorShape(other.shape))
        if len(other_dims) == len(dims):
            dims = [a if a == b else None for a, b in zip(dims, other_dims)]
        if unknown_batch and dims:
            dims[0] = None
        return keras_tensor(shape=dims, dtype=value.dtype)

    flat_outputs = [symbolic_output(a, b) for a, b in zip(flat_first, flat_second)]
    return nest.pack_sequence_as(first, flat_outputs)
