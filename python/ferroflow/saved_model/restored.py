"""What `tf.saved_model.load` returns: plain objects holding the saved variables and functions,
with no trace of the original Python classes. A restored function binds its arguments as the
original did and runs the first saved concrete function they fit."""

import collections.abc
import inspect

import numpy as np

from ferroflow import _core, nest
from ferroflow.array_ops import convert_to_tensor
from ferroflow.concrete_function import ConcreteFunction, GraphTensor
from ferroflow.saved_model import _structure
from ferroflow.tensor_spec import TensorSpec
from ferroflow.train.trackable import AutoTrackable
from ferroflow.type_spec import TypeSpec
from ferroflow.variables import Variable

__all__ = ["RestoredFunction", "SignatureFunction", "UserObject", "restored_concrete"]


class UserObject(AutoTrackable):
    """A loaded object: its saved attributes (variables, functions, child objects)."""

    def __repr__(self):
        return f"<ferroflow.saved_model.load._UserObject object at 0x{id(self):x}>"


UserObject.__name__ = UserObject.__qualname__ = "_UserObject"


class _CallableUserObject(UserObject):
    """A loaded object whose saved `__call__` makes it callable, as the original was."""

    def __call__(self, *args, **kwargs):
        return self.__dict__["__call__"](*args, **kwargs)


_CallableUserObject.__name__ = _CallableUserObject.__qualname__ = "_UserObject"


def user_object(callable_):
    return _CallableUserObject() if callable_ else UserObject()


def restored_concrete(core_graph, definition):
    """A loaded concrete function: the saved graph with the saved argument structure."""
    python = definition["python"]
    structured_inputs = (_structure.decode(python["args"]), _structure.decode(python["kwargs"]))
    template = _structure.decode(python["outputs"])
    outputs = [GraphTensor(n, d, t) for n, d, t in core_graph.outputs()]
    leaves = [_leaf(spec) for spec in definition["inputs"]]
    concrete = ConcreteFunction(
        definition["name"], core_graph, tuple(leaves), structured_inputs, template, outputs
    )
    concrete._input_specs = [
        TensorSpec(s["dims"], s["dtype"], s["name"]) for s in definition["inputs"]
    ]
    return concrete


def _leaf(spec):
    from ferroflow import _signature as sig
    from ferroflow.dtypes import as_dtype

    return sig.TensorLeaf(as_dtype(spec["dtype"]).as_datatype_enum, tuple(spec["dims"]))


class RestoredFunction:
    """A saved `tf.function`: calls pick the first concrete function their arguments fit."""

    def __init__(self, name, params, concrete_functions, input_signature=False):
        self.__name__ = name
        self._params = params
        self._concrete_functions = concrete_functions
        self._signature = _signature_from(params)
        # Saved from a tf.function with an input_signature: a call that does not fit it fails
        # binding, with TypeError (TensorFlow's class); other functions raise ValueError.
        self._input_signature = input_signature

    @property
    def concrete_functions(self):
        return list(self._concrete_functions)

    def get_concrete_function(self, *args, **kwargs):
        if not args and not kwargs and len(self._concrete_functions) == 1:
            return self._concrete_functions[0]
        found = self._match(args, kwargs)
        if found is None:
            raise ValueError(self._no_match_message(args, kwargs))
        return found[0]

    def __call__(self, *args, **kwargs):
        if not self._concrete_functions:
            raise ValueError("Found zero restored functions for caller function.")
        found = self._match(args, kwargs)
        if found is None:
            if self._input_signature:
                saved_args, _ = self._concrete_functions[0].structured_input_signature
                raise TypeError(
                    f"Binding inputs to tf.function failed: the arguments {args!r} (keyword "
                    f"arguments {kwargs!r}) do not fit the input signature {tuple(saved_args)!r}."
                )
            raise ValueError(self._no_match_message(args, kwargs))
        concrete, tensors = found
        return concrete._call_flat(tensors)

    def _bind(self, args, kwargs):
        if self._signature is None:
            return (tuple(args), dict(kwargs))
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        return (tuple(bound.arguments.values()), {})

    def _match(self, args, kwargs):
        bound = self._bind(args, kwargs)
        if bound is None:
            return None
        for concrete in self._concrete_functions:
            saved_args, saved_kwargs = concrete.structured_input_signature
            if self._signature is None:
                pattern, values = (list(saved_args), saved_kwargs), (list(bound[0]), bound[1])
            elif self._input_signature:
                # The parameters past the input signature are saved as their defaults (the
                # keyword-only ones by name); a `*args` or `**kwargs` there takes nothing.
                values = self._without_variadic(bound[0])
                if values is None:
                    continue
                pattern = list(saved_args) + list(saved_kwargs.values())
            else:
                pattern, values = list(saved_args), list(bound[0])
            tensors = []
            if not _fits(pattern, values, tensors):
                continue
            specs = concrete._input_specs
            if len(specs) == len(tensors) and all(
                s.is_compatible_with(t) for s, t in zip(specs, tensors)
            ):
                return concrete, tensors
        return None

    def _without_variadic(self, values):
        """`values` (bound in parameter order) less the `*args` and `**kwargs` entries, or
        None where one of those holds something."""
        variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        kept = []
        for param, value in zip(self._signature.parameters.values(), values):
            if param.kind not in variadic:
                kept.append(value)
            elif value:
                return None
        return kept

    def _no_match_message(self, args, kwargs):
        names = [p[0] for p in self._params or []]

        def shown(i, v):
            if isinstance(v, _core.Tensor):
                name = names[i] if i < len(names) else f"args_{i}"
                return f"<tf.Tensor '{name}:0' shape={v.shape} dtype={v.dtype.name}>"
            return repr(v)

        lines = [
            "Could not find matching concrete function to call loaded from the SavedModel. Got:",
            f"  Positional arguments ({len(args)} total):",
            *[f"    * {shown(i, a)}" for i, a in enumerate(args)],
            f"  Keyword arguments: {kwargs}",
            "",
            " Expected these arguments to match one of the following "
            f"{len(self._concrete_functions)} option(s):",
        ]
        for k, concrete in enumerate(self._concrete_functions, 1):
            saved_args, saved_kwargs = concrete.structured_input_signature
            lines += [
                "",
                f"Option {k}:",
                f"  Positional arguments ({len(saved_args)} total):",
                *[f"    * {a!r}" for a in saved_args],
                f"  Keyword arguments: {saved_kwargs}",
            ]
        return "\n".join(lines)

    def __repr__(self):
        return f"<ferroflow.saved_model.RestoredFunction object at 0x{id(self):x}>"


def _signature_from(params):
    if params is None:
        return None
    parameters = []
    for entry in params:
        name, kind = entry[0], inspect._ParameterKind(entry[1])
        default = _structure.decode(entry[2]) if len(entry) > 2 else inspect.Parameter.empty
        parameters.append(inspect.Parameter(name, kind, default=default))
    try:
        return inspect.Signature(parameters)
    except ValueError:
        return None


def _fits(pattern, value, tensors):
    """Whether a call's ``value`` fits the saved ``pattern`` (specs take tensors and values
    convertible to them, composite specs the composite values they are compatible with;
    Python values must be equal); appends the tensors it takes."""
    if isinstance(pattern, TypeSpec) and not isinstance(pattern, TensorSpec):
        got = _composite_spec(value)
        if got is None or not pattern.is_compatible_with(got):
            return False
        tensors.extend(pattern._to_tensor_list(value))
        return True
    if isinstance(pattern, TensorSpec):
        tensor = _as_tensor(value, pattern)
        if tensor is None:
            return False
        tensors.append(tensor)
        return True
    if isinstance(pattern, collections.abc.Mapping):
        if not isinstance(value, collections.abc.Mapping) or set(pattern) != set(value):
            return False
        return all(_fits(pattern[k], value[k], tensors) for k in sorted(pattern))
    if isinstance(pattern, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(pattern) != len(value):
            return False
        return all(_fits(p, v, tensors) for p, v in zip(pattern, value))
    if isinstance(value, (_core.Tensor, Variable, np.ndarray)):
        return False
    try:
        return bool(pattern == value) and type(pattern) is type(value)
    except (TypeError, ValueError):
        return False


def _composite_spec(value):
    from ferroflow._signature import tensor_array_spec
    from ferroflow.type_spec import CompositeTensor

    if isinstance(value, CompositeTensor):
        return value._type_spec
    return tensor_array_spec(value)


def _as_tensor(value, spec):
    if isinstance(value, Variable):
        value = value.value()
    if not isinstance(value, _core.Tensor):
        if nest.is_nested(value) and not isinstance(value, list):
            return None
        try:
            value = convert_to_tensor(value, dtype=spec.dtype)
        except (TypeError, ValueError):
            return None
    return value if spec.is_compatible_with(value) else None


class SignatureFunction:
    """A signature of a loaded model: named tensor inputs in, a dict of named tensors out.
    One input may be passed positionally; with more, all are keywords."""

    def __init__(self, key, concrete, input_names, output_names):
        from ferroflow.saved_model.signatures import output_layout

        self._key = key
        self._concrete = concrete
        self._input_names = input_names
        # [(name, first flat output, composite slot or None)]: a composite output (a
        # RaggedTensor...) is rebuilt from its components, as TensorFlow's signatures return it.
        try:
            self._layout = output_layout(concrete, key)
        except ValueError:
            self._layout = [(name, i, None) for name, i in output_names]
        self.graph = concrete.graph
        self.name = concrete.name

    @property
    def structured_input_signature(self):
        specs = self._concrete._input_specs
        return (), {n: TensorSpec(s.shape, s.dtype, n) for n, s in zip(self._input_names, specs)}

    @property
    def structured_outputs(self):
        outs = self._concrete.outputs
        return {
            n: TensorSpec(outs[i].shape, outs[i].dtype, n) if slot is None else slot.spec
            for n, i, slot in self._layout
        }

    @property
    def inputs(self):
        return self._concrete.inputs

    @property
    def outputs(self):
        return self._concrete.outputs

    def __call__(self, *args, **kwargs):
        if args:
            if len(args) > 1 or len(self._input_names) != 1 or kwargs:
                raise TypeError(
                    f"signature {self._key!r} takes its inputs as keyword arguments "
                    f"({', '.join(self._input_names)}); got {len(args)} positional"
                )
            kwargs = {self._input_names[0]: args[0]}
        missing = [n for n in self._input_names if n not in kwargs]
        extra = [n for n in kwargs if n not in self._input_names]
        if missing or extra:
            raise TypeError(
                f"signature {self._key!r} takes keyword arguments "
                f"{sorted(self._input_names)}, got {sorted(kwargs)}"
            )
        tensors = []
        for name, spec in zip(self._input_names, self._concrete._input_specs):
            tensor = _as_tensor(kwargs[name], spec)
            if tensor is None:
                raise TypeError(
                    f"signature {self._key!r}: input {name!r} must fit {spec!r}, "
                    f"got {kwargs[name]!r}"
                )
            tensors.append(tensor)
        outputs = self._concrete._core.call(tensors)
        return {
            name: outputs[i]
            if slot is None
            else slot.spec._from_tensor_list(outputs[i : i + slot.count])
            for name, i, slot in self._layout
        }

    def __repr__(self):
        inputs = ", ".join(f"{n}: {s!r}" for n, s in self.structured_input_signature[1].items())
        return f"<SignatureFunction {self._key} ({inputs}) -> {self.structured_outputs!r}>"


class SignatureMap(collections.abc.Mapping):
    """``loaded.signatures``: read-only, by signature key."""

    def __init__(self, signatures):
        self._signatures = dict(signatures)

    def __getitem__(self, key):
        return self._signatures[key]

    def __iter__(self):
        return iter(self._signatures)

    def __len__(self):
        return len(self._signatures)

    def __repr__(self):
        return f"_SignatureMap({self._signatures})"


SignatureMap.__name__ = SignatureMap.__qualname__ = "_SignatureMap"
