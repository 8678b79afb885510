"""`tf.saved_model.load` of a directory TensorFlow wrote (`saved_model.pb`): the Rust core reads
it and runs its functions by interpreting them (`src/saved_model/tensorflow/`); this module
rebuilds the saved object tree as TensorFlow's loader does: nested objects with their
attributes, variables (shared where the file shares them), lists and dicts, functions that bind
their arguments to one of their concrete functions, and ``.signatures`` mapping each key to a
function of keyword tensors that returns a dict of tensors.

Loaded functions run by interpretation, each TensorFlow op through ferroflow's dispatch: a
gradient tape records them (loaded functions are differentiable) and a `tf.function` calling
one traces them into its graph."""

from ferroflow import _core, _proto, _structure_coder, nest
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor
from ferroflow.saved_model.restored import SignatureMap, UserObject, user_object
from ferroflow.tensor_spec import TensorSpec
from ferroflow.variables import adopt

__all__ = ["load_tensorflow_format"]


def _spec(key, dtype, dims):
    return TensorSpec(dims, _dtypes.as_dtype(dtype), key)


class InterpretedSignature:
    """One signature of a TensorFlow-written SavedModel, called with keyword arguments."""

    def __init__(self, core, name):
        self._core = core
        self.name = name
        inputs, outputs = core.signature_specs(name)
        self._inputs = {key: _spec(key, dtype, dims) for key, dtype, dims in inputs}
        self._outputs = {key: _spec(key, dtype, dims) for key, dtype, dims in outputs}

    @property
    def structured_input_signature(self):
        return (), dict(self._inputs)

    @property
    def structured_outputs(self):
        return dict(self._outputs)

    def __call__(self, *args, **kwargs):
        if args:
            raise TypeError(
                f"signature_wrapper_{self.name}(*, {', '.join(self._inputs)}) takes keyword "
                f"arguments only; got {len(args)} positional argument(s)"
            )
        missing = [key for key in self._inputs if key not in kwargs]
        if missing:
            raise TypeError(
                f"signature_wrapper_{self.name}() missing required arguments: {', '.join(missing)}"
            )
        unexpected = [key for key in kwargs if key not in self._inputs]
        if unexpected:
            raise TypeError(
                f"signature_wrapper_{self.name}() got unexpected keyword arguments: "
                f"{', '.join(unexpected)}"
            )
        keys = list(self._inputs)
        values = [convert_to_tensor(kwargs[k], dtype=self._inputs[k].dtype) for k in keys]
        for key, value in zip(keys, values):
            spec = self._inputs[key]
            if not spec.shape.is_compatible_with(value.shape):
                given = TensorSpec(value.shape, value.dtype, key)
                raise TypeError(
                    "Binding inputs to tf.function failed due to `Can not cast "
                    f"{given} to {spec}`. Received args: () and kwargs: "
                    f"{ {k: kwargs[k] for k in keys} } for signature: {self}."
                )
        return dict(self._core.call_signature(self.name, keys, values))

    def __repr__(self):
        return f"<ConcreteFunction signature_wrapper_{self.name}(*, {', '.join(self._inputs)})>"


def _structure(data):
    if not data:
        return None
    message = _proto.message_class("tensorflow.StructuredValue").FromString(data)
    return _structure_coder.decode_proto(message)


class RestoredTfFunction:
    """A saved function (or bare concrete function): called like the original with tensors,
    it runs the first concrete function whose input signature the arguments fit."""

    def __init__(self, core, concrete_names, has_input_signature=False):
        self._core = core
        # Declared with an input signature, a call that fits it not is TensorFlow's binding
        # TypeError; otherwise no traced concrete function fits: ValueError.
        self._has_input_signature = has_input_signature
        self._concretes = []
        for name in concrete_names:
            inputs, outputs = core.concrete_function_structure(name)
            self._concretes.append((name, _structure(inputs), _structure(outputs)))

    def _bind(self, signature, args, kwargs):
        """The flat tensors of a call that fits ``signature`` ((args, kwargs) of specs), or
        None."""
        spec_args, spec_kwargs = signature if signature is not None else ((), {})
        spec_args, spec_kwargs = list(spec_args), dict(spec_kwargs or {})
        args, kwargs = list(args), dict(kwargs)
        # A keyword naming a positional spec (TensorSpec.name) stands in its place.
        for i in range(len(args), len(spec_args)):
            name = getattr(spec_args[i], "name", None)
            if name is None or name not in kwargs:
                return None
            args.append(kwargs.pop(name))
        if len(args) != len(spec_args) or set(kwargs) != set(spec_kwargs):
            return None
        structure = (tuple(spec_args), spec_kwargs)
        # Up to the specs: a list given for a tensor stays one value, and a dict argument must
        # have the spec's keys (binding by sorted position alone could swap tensors).
        try:
            values = nest.flatten_up_to(structure, (tuple(args), kwargs))
        except (TypeError, ValueError):
            return None
        specs = nest.flatten(structure)
        tensors = []
        for value, spec in zip(values, specs):
            try:
                tensor = convert_to_tensor(value, dtype=spec.dtype)
            except (TypeError, ValueError):
                return None
            if not spec.shape.is_compatible_with(tensor.shape):
                return None
            tensors.append(tensor)
        return tensors

    def __call__(self, *args, **kwargs):
        for name, inputs, outputs in self._concretes:
            tensors = self._bind(inputs, args, kwargs)
            if tensors is None:
                continue
            flat = self._core.call_concrete(name, tensors)
            if outputs is None:
                return None
            return nest.pack_sequence_as(outputs, flat)
        if self._has_input_signature:
            raise TypeError(
                "Binding inputs to tf.function failed: the arguments do not fit the input "
                f"signature {self._concretes[0][1] if self._concretes else None}. Received "
                f"args: {args} and kwargs: {kwargs}."
            )
        raise ValueError(
            "Could not find matching concrete function to call loaded from the SavedModel. "
            f"Got positional arguments ({len(args)} total) and keyword arguments "
            f"{sorted(kwargs)}; expected one of: "
            + "; ".join(str(inputs) for _, inputs, _ in self._concretes)
        )


_LIST_WRAPPERS = ("trackable_list_wrapper", "trackable_tuple_wrapper")


def _rebuild(core):
    nodes = core.objects()
    built = {}

    def build(index):
        if index in built:
            return built[index]
        kind, identifier, children, concretes, has_input_signature = nodes[index]
        if kind == "variable":
            built[index] = adopt(core.variable_of_node(index))
        elif kind in ("function", "bare_concrete_function"):
            built[index] = RestoredTfFunction(core, concretes, has_input_signature)
        elif identifier in _LIST_WRAPPERS:
            built[index] = items = []
            ordered = sorted((int(n), c) for n, c in children if n.isdigit())
            items.extend(build(c) for _, c in ordered)
            if identifier == "trackable_tuple_wrapper":
                built[index] = tuple(items)
        elif identifier == "trackable_dict_wrapper":
            built[index] = entries = {}
            for name, child in children:
                entries[name] = build(child)
        else:
            built[index] = obj = user_object(any(name == "__call__" for name, _ in children))
            for name, child in children:
                if name == "signatures" and index == 0:
                    continue  # the signature map: `.signatures` below
                value = build(child)
                if value is not None:
                    object.__setattr__(obj, name, value)
        return built[index]

    return build(0)


def load_tensorflow_format(local_dir):
    """The loaded object of a TensorFlow-written SavedModel in ``local_dir``."""
    core = _core.TfSavedModel(local_dir)
    root = _rebuild(core)
    signatures = {name: InterpretedSignature(core, name) for name in core.signature_names()}
    if isinstance(root, UserObject):
        object.__setattr__(root, "signatures", SignatureMap(signatures))
    return root
