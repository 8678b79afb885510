"""Functional models: `tf.keras.Model(inputs, outputs)` over the graph of layer calls recorded
on `KerasTensor`s. Calling the model replays the calls in topological order on real tensors;
`get_config` / `from_config` use Keras 3's functional layout (layers with their inbound nodes,
``input_layers``, ``output_layers``)."""

import collections
import copy
import inspect
import warnings

from ferroflow import nest
from ferroflow.array_ops import cast, convert_to_tensor, expand_dims, is_tensor, squeeze
from ferroflow.keras import _symbolic
from ferroflow.keras.layers import serialization
from ferroflow.keras.layers._masking import get_keras_mask, set_keras_mask
from ferroflow.keras.layers.input_layer import Input, KerasTensor
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.models.model import Model
from ferroflow.sparse_tensor import SparseTensor

__all__ = [
    "Functional",
    "functional_from_config",
    "functional_like_constructor",
    "run_nodes",
]


class Functional(Model):
    """A model defined as a directed acyclic graph of layers: ``Functional(inputs, outputs)``
    where ``inputs`` come from `tf.keras.Input` and ``outputs`` from layer calls on them (each
    a KerasTensor or a list/tuple/dict of them). Usually made as ``tf.keras.Model(inputs,
    outputs)``."""

    # Graph bookkeeping is not checkpointed; `_operations` (the layers, in order) is, as in Keras.
    _no_dependency_attributes = Model._no_dependency_attributes | frozenset(
        {
            "_inputs_struct",
            "_outputs_struct",
            "_inputs",
            "_outputs",
            "_nodes",
            "_nodes_by_depth",
            "_manual_input_spec",
            "_inbound_nodes",
            "output_names",
        }
    )

    def __init__(self, inputs, outputs, name=None, **kwargs):
        trainable = kwargs.pop("trainable", True)
        if isinstance(inputs, dict):
            for key, value in inputs.items():
                if isinstance(value, KerasTensor) and key != value.name:
                    warnings.warn(
                        "When providing `inputs` as a dict, all keys in the dict must match the "
                        f"names of the corresponding tensors. Received key '{key}' mapping to "
                        f"value {value} which has name '{value.name}'. Change the tensor name "
                        f"to '{key}' (via `Input(..., name='{key}')`)",
                        stacklevel=2,
                    )
        _check_keras_tensors("inputs", inputs)
        _check_keras_tensors("outputs", outputs)
        Model.__init__(self, name=name, **kwargs)
        if not all(_is_input_keras_tensor(x) for x in nest.flatten(inputs)):
            inputs, outputs = _clone_graph_nodes(inputs, outputs)
        self._inputs_struct = _copy_structure(inputs)
        self._outputs_struct = _copy_structure(outputs)
        self._inputs = nest.flatten(inputs)
        self._outputs = nest.flatten(outputs)
        self._nodes, self._nodes_by_depth, operations = _map_graph(
            self._inputs, self._outputs, _paths(outputs)
        )
        self._operations = operations
        object.__setattr__(self, "_layers", [op for op in operations if isinstance(op, Layer)])
        self.built = True
        # Built from its graph, with no shape: Keras's build config of a functional model.
        object.__setattr__(self, "_build_shapes_dict", {"input_shape": None})
        if not trainable:
            self.trainable = False
        self.output_names = [x._keras_history.operation.name for x in self._outputs]

    # --- structure ----------------------------------------------------------------------------

    @property
    def layers(self):
        return [op for op in self._operations if isinstance(op, Layer)]

    @property
    def operations(self):
        return list(self._operations)

    @property
    def inputs(self):
        return list(self._inputs)

    @property
    def outputs(self):
        return list(self._outputs)

    @property
    def input(self):
        return self._inputs_struct

    @property
    def output(self):
        return self._outputs_struct

    @property
    def input_shape(self):
        return _unpack_singleton([tuple(x.shape) for x in self._inputs])

    @property
    def output_shape(self):
        return _unpack_singleton([tuple(x.shape) for x in self._outputs])

    @property
    def input_spec(self):
        """One InputSpec per input: its shape with any batch size, named after its layer."""
        manual = self.__dict__.get("_manual_input_spec")
        if manual is not None:
            return manual
        from ferroflow.keras.layers.input_spec import InputSpec

        def spec(x, name=None):
            shape = list(x.shape)
            if shape:
                shape[0] = None
            layer = x._keras_history.operation
            return InputSpec(
                shape=shape,
                allow_last_axis_squeeze=True,
                name=layer.name if name is None else name,
                optional=bool(getattr(layer, "optional", False)),
            )

        if isinstance(self._inputs_struct, dict):
            if all(isinstance(x, KerasTensor) for x in self._inputs_struct.values()):
                return [spec(self._inputs_struct[k], name=k) for k in sorted(self._inputs_struct)]
            return None
        return [spec(x) for x in self._inputs]

    @input_spec.setter
    def input_spec(self, value):
        object.__setattr__(self, "_manual_input_spec", value)

    def build(self, input_shape=None):
        self.built = True

    # --- calling ------------------------------------------------------------------------------

    def call(self, inputs, training=None, mask=None):
        flat_inputs = self._standardize_inputs(inputs)
        if mask is not None:
            for x, m in zip(flat_inputs, nest.flatten(mask)):
                if m is not None:
                    set_keras_mask(x, m)
        computed = {id(x): y for x, y in zip(self._inputs, flat_inputs)}
        run_nodes(self._nodes_by_depth, computed, training)
        results = [computed[id(x)] for x in self._outputs]
        return _unpack_singleton(nest.pack_sequence_as(self._outputs_struct, results))

    def _standardize_inputs(self, inputs):
        struct = self._inputs_struct
        if isinstance(struct, list) and len(struct) == 1 and not nest.is_nested(inputs):
            inputs = [inputs]
        elif isinstance(inputs, dict) and not isinstance(struct, dict):
            names = [x.name for x in self._inputs]
            missing = [name for name in names if name not in inputs]
            if missing:
                raise ValueError(
                    "The structure of `inputs` doesn't match the expected structure.\n"
                    f"Expected: {names}\nReceived: inputs with keys {list(inputs)}"
                )
            inputs = [inputs[name] for name in names]
        flat = nest.flatten(inputs)
        if len(flat) != len(self._inputs):
            raise ValueError(
                f'Layer "{self.name}" expects {len(self._inputs)} input(s), but it received '
                f"{len(flat)} input tensors. Inputs received: {inputs}"
            )
        standardized = []
        for i, (x, ref) in enumerate(zip(flat, self._inputs)):
            y = self._adjust_rank(i, _as_dtype(x, ref.dtype, ref.sparse))
            mask = get_keras_mask(x)
            if mask is not None and y is not x:
                set_keras_mask(y, mask)  # a cast or reshaped input keeps its mask
            standardized.append(y)
        return standardized

    def _adjust_rank(self, index, x):
        if x is None:  # an optional input left out
            return x
        ref_shape = list(self._inputs[index].shape)
        rank, ref_rank = len(x.shape), len(ref_shape)
        if rank == ref_rank:
            return x
        if rank == ref_rank + 1 and x.shape[-1] == 1:
            return squeeze(x, axis=-1)
        if rank == ref_rank - 1 and ref_shape[-1] == 1:
            return expand_dims(x, axis=-1)
        raise ValueError(
            f"Invalid input shape for input {x} with name '{self._inputs[index].name}'. "
            f"Expected shape {tuple(ref_shape)}, but input has incompatible shape "
            f"{tuple(x.shape)}"
        )

    # --- serialisation ------------------------------------------------------------------------

    def get_config(self):
        if not functional_like_constructor(type(self)):
            # A subclass with its own constructor: its arguments, as for subclassed models.
            config = Layer.get_config(self)
            arguments = self.__dict__.get("_auto_config")
            if arguments is None:
                raise NotImplementedError(
                    f"Model {type(self).__name__} was created by passing non-serializable "
                    "argument values in `__init__()`, and therefore must override "
                    "`get_config()` in order to be serializable."
                )
            return {**config, **arguments}
        config = {"name": self.name, "trainable": self.trainable}
        # Node indices in the config count only the nodes of this model; a nested functional
        # model's index 0 stands for its own graph, as in Keras.
        reindexed = {}
        for operation in self._operations:
            kept = 1 if isinstance(operation, Functional) else 0
            for node in _symbolic.inbound_nodes(operation):
                if node in self._nodes:
                    reindexed[id(node)] = kept
                    kept += 1
        layer_configs = []
        for operation in self._operations:
            inbound = []
            for node in _symbolic.inbound_nodes(operation):
                if node in self._nodes and not node.is_input:
                    inbound.append(_serialize_node(node, self._nodes))
            layer_config = serialization.serialize(operation)
            layer_config["name"] = operation.name
            layer_config["inbound_nodes"] = inbound
            layer_configs.append(layer_config)
        config["layers"] = layer_configs

        def tensor_config(x):
            operation, node_index, tensor_index = x._keras_history
            node = _symbolic.inbound_nodes(operation)[node_index]
            return [operation.name, reindexed[id(node)], tensor_index]

        config["input_layers"] = _map_keras_tensors(tensor_config, self._inputs_struct)
        config["output_layers"] = _map_keras_tensors(tensor_config, self._outputs_struct)
        return copy.deepcopy(config)


def run_nodes(nodes_by_depth, computed, training=None):
    """Runs the graph's nodes, deepest first, on the values in ``computed`` (``id`` of a
    symbolic tensor to its value), adding each node's outputs to ``computed``; nodes whose
    inputs are not all known are skipped. ``training`` goes to the layers that take it."""
    for depth in sorted(nodes_by_depth, reverse=True):
        for node in nodes_by_depth[depth]:
            if node.is_input or any(id(x) not in computed for x in node.input_tensors):
                continue
            args, kwargs = node.fill_in(computed)
            operation = node.operation
            if (
                training is not None
                and isinstance(operation, Layer)
                and _symbolic.accepts_call_argument(operation, "training")
            ):
                kwargs["training"] = training
            outputs = operation(*args, **kwargs)
            for x, y in zip(node.output_tensors, nest.flatten(outputs)):
                computed[id(x)] = y


def functional_like_constructor(cls):
    """Whether ``cls(inputs=..., outputs=..., name=...)`` can rebuild an instance of ``cls``
    from a functional config (Functional's own arguments, or ``*args, **kwargs``)."""
    spec = inspect.getfullargspec(cls.__init__)
    if spec.varargs is not None and spec.varkw is not None:
        return True
    return spec.args[1:] == inspect.getfullargspec(Functional.__init__).args[1:]


# --- graph construction ---------------------------------------------------------------------


def _check_keras_tensors(kind, structure):
    flat = nest.flatten(structure)
    if not flat:
        raise ValueError(f"`{kind}` argument cannot be empty. Received:\n{kind}={structure}")
    for x in flat:
        if not isinstance(x, KerasTensor):
            raise ValueError(
                f"All `{kind}` values must be KerasTensors. Received: {kind}={structure} "
                f"including invalid value {x} of type {type(x)}"
            )
        if x._keras_history is None:
            raise ValueError(
                f"{kind} tensor {x} was not made by `tf.keras.Input` or a layer call, so it "
                "cannot be part of a functional model."
            )


def _copy_structure(structure):
    return nest.map_structure(lambda x: x, structure)


def _is_input_keras_tensor(x):
    operation, node_index, _ = x._keras_history
    return _symbolic.inbound_nodes(operation)[node_index].is_input


def _build_map(inputs, outputs):
    """The nodes behind ``outputs`` in an inputs-to-outputs order (depth-first from each
    output), and each operation's first-seen position. Traversal stops at ``inputs``."""
    finished, in_progress = set(), set()
    ordered_nodes, operation_indices = [], {}
    input_ids = {id(x) for x in inputs}

    def visit(tensor):
        if tensor._keras_history is None and id(tensor) in input_ids:
            return  # a bare `KerasTensor` input (of a `keras.Function`): nothing behind it
        operation, node_index, _ = tensor._keras_history
        node = _symbolic.inbound_nodes(operation)[node_index]
        if node in finished:
            return
        if not node.is_input and id(tensor) in input_ids:
            finished.add(node)
            return
        if node in in_progress:
            raise ValueError(
                f"Tensor {tensor} from operation '{operation.name}' is part of a cycle."
            )
        operation_indices.setdefault(operation, len(operation_indices))
        in_progress.add(node)
        if not node.is_input:
            for x in node.input_tensors:
                visit(x)
        finished.add(node)
        in_progress.remove(node)
        ordered_nodes.append(node)

    for output in outputs:
        visit(output)
    return ordered_nodes, operation_indices


def _paths(structure, prefix=()):
    """The path (keys and indices joined by dots) of each leaf of ``structure``, in
    `nest.flatten` order."""
    if isinstance(structure, dict):
        return [p for k in sorted(structure) for p in _paths(structure[k], (*prefix, str(k)))]
    if isinstance(structure, (list, tuple)):
        return [p for i, v in enumerate(structure) for p in _paths(v, (*prefix, str(i)))]
    return [".".join(prefix)]


def _map_graph(inputs, outputs, output_paths):
    """(nodes, nodes_by_depth, operations) of the graph from ``inputs`` to ``outputs``, with
    Keras's depths (distance from the outputs) and operation order (deepest first, then by
    traversal order)."""
    ordered_nodes, operation_indices = _build_map(inputs, outputs)
    nodes_in_graph = set(ordered_nodes)
    node_depths, operation_depths = {}, {}
    for node in reversed(ordered_nodes):
        depth = node_depths.setdefault(node, 0)
        # A shared operation takes the largest depth of its nodes.
        depth = max(depth, operation_depths.get(node.operation, 0))
        operation_depths[node.operation] = depth
        node_depths[node] = depth
        for parent in node.parent_nodes:
            if parent in nodes_in_graph:
                node_depths[parent] = max(depth + 1, node_depths.get(parent, 0))
    for x in inputs:
        if x._keras_history is None:
            continue
        # Inputs that no output depends on stay part of the model.
        operation, node_index, _ = x._keras_history
        if operation not in operation_depths:
            node = _symbolic.inbound_nodes(operation)[node_index]
            if node.is_input:
                operation_depths[operation] = 0
                operation_indices[operation] = -1
                node_depths[node] = 0
                nodes_in_graph.add(node)

    nodes_by_depth = collections.defaultdict(list)
    for node, depth in node_depths.items():
        nodes_by_depth[depth].append(node)
    operations_by_depth = collections.defaultdict(list)
    for operation, depth in operation_depths.items():
        operations_by_depth[depth].append(operation)
    operations = []
    for depth in sorted(operations_by_depth, reverse=True):
        operations.extend(sorted(operations_by_depth[depth], key=lambda op: operation_indices[op]))

    # What a call can compute from the inputs alone (other Inputs feed nothing).
    computable = {id(x) for x in inputs}
    for depth in sorted(nodes_by_depth, reverse=True):
        for node in nodes_by_depth[depth]:
            if not node.is_input and all(id(x) in computable for x in node.input_tensors):
                computable.update(id(x) for x in node.output_tensors)
    for x, path in zip(outputs, output_paths):
        if id(x) not in computable:
            raise ValueError(f"Output with path `{path}` is not connected to `inputs`")

    names = [op.name for op in operations]
    for name in names:
        if names.count(name) != 1:
            raise ValueError(
                f'The name "{name}" is used {names.count(name)} times in the model. All '
                "operation names should be unique."
            )
    return set(nodes_in_graph), dict(nodes_by_depth), operations


def _clone_graph_nodes(inputs, outputs):
    """New inputs and outputs for a model whose inputs include intermediate tensors: each such
    input becomes a fresh `Input`, and the calls between inputs and outputs are recorded again
    on cloned tensors (the layers are shared, as in Keras)."""
    nodes_to_clone, _ = _build_map(nest.flatten(inputs), nest.flatten(outputs))
    clones, operation_clones = {}, {}
    cloned_inputs = []
    for x in nest.flatten(inputs):
        if _is_input_keras_tensor(x):
            clones[id(x)] = x
            cloned_inputs.append(x)
            continue
        clone = Input(batch_shape=tuple(x.shape), dtype=x.dtype, name=f"{x.name}CLONE")
        clones[id(x)] = clone
        operation_clones[id(x._keras_history.operation)] = clone._keras_history.operation
        cloned_inputs.append(clone)
    cloned_outputs = []
    for x in nest.flatten(outputs):
        clone = KerasTensor(x.shape, dtype=x.dtype, name=f"{x.name}_clone")
        clone._keras_history = x._keras_history
        clones[id(x)] = clone
        cloned_outputs.append(clone)

    def clone_of(x):
        if not isinstance(x, KerasTensor):
            return x
        if id(x) not in clones:
            clones[id(x)] = KerasTensor(x.shape, dtype=x.dtype, name=f"{x.name}_clone")
        return clones[id(x)]

    for node in nodes_to_clone:
        if node.is_input:
            continue  # real inputs are kept as they are, with their own nodes
        operation = operation_clones.get(id(node.operation), node.operation)
        outputs_copy = nest.map_structure(clone_of, node.outputs)
        _symbolic.Node(
            operation,
            nest.map_structure(clone_of, list(node.call_args)),
            nest.map_structure(clone_of, node.call_kwargs),
            outputs_copy,
        )
    return (
        nest.pack_sequence_as(inputs, cloned_inputs),
        nest.pack_sequence_as(outputs, cloned_outputs),
    )


# --- helpers --------------------------------------------------------------------------------


def _unpack_singleton(x):
    if isinstance(x, (list, tuple)) and len(x) == 1:
        return x[0]
    return x


def _as_dtype(x, dtype, sparse=False):
    if x is None:
        return x
    if isinstance(x, SparseTensor):
        # As Keras: kept sparse (values cast) for a sparse Input, made dense for another.
        from ferroflow.keras.ops.core import convert_to_tensor as keras_convert

        return keras_convert(x, dtype=dtype, sparse=bool(sparse))
    if not is_tensor(x):
        return convert_to_tensor(x, dtype=dtype)
    return x if x.dtype == dtype else cast(x, dtype)


def _map_keras_tensors(fn, structure):
    """``fn`` over the KerasTensors of ``structure``, keeping tuples as lists (as Keras's
    configs hold them) and a lone tensor as a lone entry."""
    if isinstance(structure, KerasTensor):
        return fn(structure)
    if isinstance(structure, dict):
        return {k: _map_keras_tensors(fn, v) for k, v in structure.items()}
    return [_map_keras_tensors(fn, v) for v in structure]


def _serialize_node(node, own_nodes):
    def keras_tensor_config(x):
        operation, node_index, tensor_index = x._keras_history
        nodes = _symbolic.inbound_nodes(operation)
        foreign = sum(1 for n in list(nodes)[:node_index] if n not in own_nodes)
        return {
            "class_name": "__keras_tensor__",
            "config": {
                "shape": tuple(x.shape),
                "dtype": x.dtype,
                "keras_history": [operation.name, node_index - foreign, tensor_index],
            },
        }

    def serialize(value):
        if isinstance(value, KerasTensor):
            return keras_tensor_config(value)
        if isinstance(value, (list, tuple)):
            items = [serialize(v) for v in value]
            return tuple(items) if isinstance(value, tuple) else items
        if isinstance(value, dict):
            return {k: serialize(v) for k, v in value.items()}
        return serialization.serialize_argument(value)

    return {"args": serialize(node.call_args), "kwargs": serialize(node.call_kwargs)}


# --- from_config ----------------------------------------------------------------------------


def _is_keras_tensor_config(value):
    return isinstance(value, dict) and value.get("class_name") == "__keras_tensor__"


def _node_arguments(node_data, created_layers):
    """(args, kwargs) of a serialised call, KerasTensors taken from the layers made so far;
    IndexError while a producing call is not there yet."""

    def tensor(layer_name, node_index, tensor_index):
        if layer_name not in created_layers:
            raise ValueError(f"Unknown layer: {layer_name}")
        nodes = _symbolic.inbound_nodes(created_layers[layer_name])
        if len(nodes) <= node_index:
            raise IndexError(f"Layer node index out of bounds: {layer_name}[{node_index}]")
        return nodes[node_index].output_tensors[tensor_index]

    if isinstance(node_data, list):
        # Keras 2's layout: [[layer_name, node_index, tensor_index, kwargs], ...].
        tensors = [tensor(*entry[:3]) for entry in node_data]
        kwargs = node_data[0][3] if node_data and len(node_data[0]) == 4 else {}
        return [_unpack_singleton(tensors)], dict(kwargs)

    def revive(value):
        if _is_keras_tensor_config(value):
            return tensor(*value["config"]["keras_history"])
        if isinstance(value, list):
            return [revive(v) for v in value]
        if isinstance(value, tuple):
            return tuple(revive(v) for v in value)
        if isinstance(value, dict) and "class_name" not in value:
            return {k: revive(v) for k, v in value.items()}
        return serialization.deserialize_argument(value)

    return list(revive(list(node_data.get("args", ())))), revive(dict(node_data.get("kwargs", {})))


def functional_from_config(cls, config, custom_objects=None):
    """An instance of ``cls`` (Model, Functional or a functional-style subclass) rebuilt from
    a functional config: every layer deserialised, then called again node by node."""
    config = dict(config)
    created_layers = {}
    unprocessed = collections.OrderedDict()
    layer_configs = config.pop("layers")
    for layer_data in layer_configs:
        layer = serialization.deserialize(layer_data, custom_objects=custom_objects)
        created_layers[layer_data["name"]] = layer
        nodes = [n for n in layer_data.get("inbound_nodes", []) if n]
        if nodes:
            unprocessed[layer_data["name"]] = list(nodes)
    # A shared layer's later calls may need outputs of layers deeper in the list: process what
    # can be processed, in layer order, until everything has been.
    while unprocessed:
        progressed = False
        for name in list(unprocessed):
            pending = unprocessed[name]
            while pending:
                try:
                    args, kwargs = _node_arguments(pending[0], created_layers)
                except IndexError:
                    break
                created_layers[name](*args, **kwargs)
                pending.pop(0)
                progressed = True
            if not pending:
                del unprocessed[name]
        if not progressed:
            raise ValueError(
                "Invalid Functional model configuration. The graph of the Functional model "
                "either has loops or disconnected nodes. The following nodes failed to be "
                f"resolved: {dict(unprocessed)}"
            )

    def output_of(layer_name, node_index, tensor_index):
        layer = created_layers[layer_name]
        if isinstance(layer, Functional):
            node_index -= 1  # index 0 is the nested model's own graph
        return _symbolic.inbound_nodes(layer)[node_index].output_tensors[tensor_index]

    def tensors(spec):
        if isinstance(spec, (list, tuple)) and len(spec) == 3 and isinstance(spec[0], str):
            return output_of(*spec)
        if isinstance(spec, dict):
            return {k: tensors(v) for k, v in spec.items()}
        return [tensors(v) for v in spec]

    inputs = tensors(config.pop("input_layers"))
    outputs = tensors(config.pop("output_layers"))
    name = config.pop("name", None)
    trainable = config.pop("trainable", None)
    extra = {} if trainable is None else {"trainable": trainable}
    config.pop("dtype", None)
    return cls(inputs=inputs, outputs=outputs, name=name, **extra, **config)
