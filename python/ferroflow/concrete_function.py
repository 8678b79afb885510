"""`ConcreteFunction`: one trace of a `tf.function` — its Rust graph, the structure of its
inputs and outputs, and the `FuncGraph` view (`graph.get_operations()`)."""

from ferroflow import _core, nest
from ferroflow import _signature as sig
from ferroflow.dtypes import as_dtype
from ferroflow.tensor_shape import TensorShape
from ferroflow.tensor_spec import TensorSpec


class GraphTensor:
    """A value of a traced graph as TensorFlow shows it outside the trace."""

    __slots__ = ("dtype", "name", "shape")

    def __init__(self, name, dims, dtype_enum):
        self.name = name
        self.shape = TensorShape(dims)
        self.dtype = as_dtype(dtype_enum)

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __str__(self):
        if self.shape.rank is None:  # unknown rank (a py_function's result): no shape shown
            return f'Tensor("{self.name}", dtype={self.dtype.name})'
        return f'Tensor("{self.name}", shape={self.shape}, dtype={self.dtype.name})'


class Operation:
    """One node of a traced graph: `name`, `type`, `inputs`, `outputs`."""

    __slots__ = ("inputs", "name", "outputs", "type")

    def __init__(self, name, type_name, inputs, outputs):
        self.name = name
        self.type = type_name
        self.inputs = inputs
        self.outputs = outputs

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


class FuncGraph:
    """The graph of a concrete function, as traced (before optimisation)."""

    def __init__(self, name, core_graph):
        self.name = name
        self._core = core_graph
        self._operations = None

    def _build(self, rows):
        tensors = {}
        ops = []
        for name, type_name, input_names, outputs in rows:
            outs = [GraphTensor(f"{name}:{k}", d, t) for k, (d, t) in enumerate(outputs)]
            for t in outs:
                tensors[t.name] = t
            ops.append(Operation(name, type_name, [tensors.get(n) for n in input_names], outs))
        return ops

    def get_operations(self):
        if self._operations is None:
            self._operations = self._build(self._core.operations())
        return list(self._operations)

    def get_optimized_operations(self):
        """The operations that run, after folding, CSE, DCE and fusion (ferroflow only)."""
        return self._build(self._core.optimized_operations())

    def get_operation_by_name(self, name):
        for op in self.get_operations():
            if op.name == name:
                return op
        raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")

    def __repr__(self):
        return f"<FuncGraph name={self.name}>"


# Set once `tf.debugging.enable_check_numerics` was called (see `ferroflow.debugging`).
CHECK_NUMERICS = [False]


class ConcreteFunction:
    """A traced graph callable with tensors of the traced signature."""

    def __init__(self, name, core_graph, key, structured_inputs, output_template, output_tensors):
        self._name = name
        self._core = core_graph
        self._key = key
        self._leaves = sig.leaves(key)
        self._structured_inputs = structured_inputs
        self._output_template = output_template
        self._output_slots = [
            i for i, v in enumerate(nest.flatten(output_template)) if v is _TENSOR
        ]
        self.outputs = output_tensors
        self.graph = FuncGraph(name, core_graph)
        # The instance a method was traced for (SavedModel saves only the saved object's).
        self._owner = None
        self._examples = None
        # The parameter each flat input comes from (a composite's components share one).
        self._input_names = None

    @property
    def name(self):
        return self._name

    @property
    def structured_outputs(self):
        # A composite output shows as its TypeSpec (its components are graph tensors here); a
        # TensorArray as a TensorArray, as TensorFlow shows it.
        return fill_template(self._output_template, self.outputs, _output_description)

    @property
    def output_shapes(self):
        """The shape of each output, in the outputs' structure (unknown for a `None`)."""
        return nest.map_structure(
            lambda x: getattr(x, "shape", TensorShape(None)), self.structured_outputs
        )

    @property
    def output_dtypes(self):
        """The dtype of each output, in the outputs' structure."""
        return nest.map_structure(lambda x: getattr(x, "dtype", None), self.structured_outputs)

    @property
    def structured_input_signature(self):
        return self._structured_inputs

    @property
    def inputs(self):
        return [op.outputs[0] for op in self.graph.get_operations() if op.type == "Placeholder"]

    @property
    def variables(self):
        from ferroflow.variables import lookup

        return tuple(v for v in map(lookup, self._core.variable_ids()) if v is not None)

    @property
    def trainable_variables(self):
        return tuple(v for v in self.variables if v.trainable)

    def __call__(self, *args, **kwargs):
        tensors = []
        sig.key_of((args, kwargs), tensors)
        # Checked against the tensors themselves: a composite's key leaves leave sizes unknown.
        if len(tensors) != len(self._leaves) or not all(
            want.admits(_call_leaf(t, want)) for want, t in zip(self._leaves, tensors)
        ):
            raise TypeError(
                f"{self._name}: the arguments do not match the traced signature "
                f"{self._signature_text()}"
            )
        examples = getattr(self, "_examples", None)
        if self._core.specialised and examples is not None:
            traced = [tuple(t._dims) for t in examples]
            if traced != [tuple(t._dims) for t in tensors]:
                # The body read the example's sizes (a mean's count, a reshape target): this
                # graph is right only for them. The tf.function retraces; this object cannot.
                raise ValueError(
                    f"{self._name}: this concrete function was traced at shapes {traced} and "
                    "its graph depends on those sizes; call the tf.function itself (it traces "
                    "again for new sizes) or get a concrete function for these shapes"
                )
        return self._call_flat(tensors)

    def _call_flat(self, tensors):
        if CHECK_NUMERICS[0]:
            # Ops of the graph report NaN/Inf as "graph op"s of this function.
            previous = _core.set_check_numerics_graph(self._name)
            try:
                outputs = self._core.call(tensors)
            finally:
                _core.set_check_numerics_graph(previous)
        else:
            outputs = self._core.call(tensors)
        if self._output_template is _TENSOR:
            # One tensor out (the common case): nothing to rebuild.
            return outputs[0]
        return fill_template(self._output_template, outputs)

    def _signature_text(self):
        args, kwargs = self._structured_inputs
        parts = [f"{k}: {v!r}" for k, v in kwargs.items()] if kwargs else []
        return "(" + ", ".join([repr(a) for a in args] + parts) + ")"

    def __repr__(self):
        outs = nest.map_structure(
            lambda t: TensorSpec(t.shape, t.dtype) if isinstance(t, GraphTensor) else t,
            self.structured_outputs,
        )
        return f"<ConcreteFunction {self._signature_text()} -> {outs!r} at 0x{id(self):X}>"

    def pretty_printed_signature(self, verbose=True):
        return repr(self)


class _TensorSlot:
    """Marks where a tensor output goes in an output template."""

    def __repr__(self):
        return "<tensor>"


_TENSOR = _TensorSlot()


class _CompositeSlot:
    """Marks where a composite output (SparseTensor, ...) goes in an output template: its
    spec, which rebuilds it from its `count` component tensors."""

    __slots__ = ("count", "spec")

    def __init__(self, spec):
        self.spec = spec
        self.count = len(spec._flat_tensor_specs)

    def __repr__(self):
        return f"<{self.spec!r}>"


def _output_description(slot, parts):
    from ferroflow.tensor_array_ops import TensorArraySpec

    if isinstance(slot.spec, TensorArraySpec):
        return slot.spec._from_components(parts)
    return slot.spec


def _rebuild_composite(slot, parts):
    return slot.spec._from_tensor_list(parts)


def _call_leaf(tensor, want):
    """The key leaf of an argument of a call. A symbolic tensor (a concrete function called
    inside a trace) whose unknown sizes are unknown in the traced signature too is taken by
    its static shape: reading its example sizes would specialise the trace being recorded to
    them (a map function fused with the next, say). Where the signature fixes a size the
    tensor leaves unknown, its example size is read, as before, and checked."""
    if _core.is_symbolic(tensor):
        static = tensor.shape
        if static.rank is not None and static.rank == len(want.dims):
            dims = static.as_list()
            if all(d is not None or w is None for d, w in zip(dims, want.dims)):
                return sig.TensorLeaf(tensor._dtype_enum, tuple(dims))
    return sig.TensorLeaf(tensor._dtype_enum, tuple(tensor._dims))


def fill_template(template, tensors, composite=_rebuild_composite):
    """An output template with its tensor slots filled from `tensors` in order and its
    composite slots rebuilt (by `composite(slot, component tensors)`)."""
    if template is _TENSOR:
        return tensors[0]
    it = iter(tensors)
    values = []
    for v in nest.flatten(template):
        if v is _TENSOR:
            values.append(next(it))
        elif isinstance(v, _CompositeSlot):
            values.append(composite(v, [next(it) for _ in range(v.count)]))
        else:
            values.append(v)
    return nest.pack_sequence_as(template, values) if nest.is_nested(template) else values[0]


def output_template(outputs):
    """(template with tensors marked, flat tensors) of a traced function's return value; a
    composite value is one slot holding its spec, its component tensors flat in order."""
    from ferroflow.tensor_array_ops import TensorArray, TensorArraySpec
    from ferroflow.type_spec import CompositeTensor
    from ferroflow.variables import Variable

    flat = nest.flatten(outputs)
    tensors = []
    marked = []
    for v in flat:
        if isinstance(v, Variable):
            v = v.value()
        if isinstance(v, (CompositeTensor, TensorArray)):
            # A TensorArray leaves as its buffer and length (TensorFlow returns its flow, a
            # variant tensor ferroflow has no dtype for); the caller gets a TensorArray.
            spec = TensorArraySpec.from_value(v) if isinstance(v, TensorArray) else v._type_spec
            tensors.extend(spec._to_tensor_list(v))
            marked.append(_CompositeSlot(spec))
            continue
        if v is not None and not isinstance(v, _core.Tensor):
            v = _returned_value_as_tensor(v)
        if isinstance(v, _core.Tensor):
            tensors.append(v)
            marked.append(_TENSOR)
        else:
            marked.append(v)
    if not nest.is_nested(outputs):
        return marked[0], tensors
    return nest.pack_sequence_as(outputs, marked), tensors


def _returned_value_as_tensor(value):
    """TensorFlow's functions return tensors: Python numbers, bools and arrays a traced body
    returns become constants of the graph (None stays None)."""
    from ferroflow.array_ops import convert_to_tensor

    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(
            "To be compatible with tf.function, Python functions must return zero or more "
            f"Tensors or ExtensionTypes or None values; found return value of type "
            f"{type(value)}, which is not a Tensor or ExtensionType."
        ) from None
