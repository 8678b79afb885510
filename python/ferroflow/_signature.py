"""How `tf.function` tells calls apart: a hashable key per call (tensors by dtype and shape,
variables by identity, other Python values by value, nested structures by structure) and the
flat list of tensors the traced graph takes."""

import collections.abc

import numpy as np

from ferroflow import _core, nest
from ferroflow.array_ops import convert_to_tensor
from ferroflow.tensor_spec import TensorSpec
from ferroflow.type_spec import CompositeTensor, TypeSpec
from ferroflow.variables import Variable


class TensorLeaf:
    """A tensor argument's place in a key: dtype enum and dims (None where relaxed)."""

    __slots__ = ("dims", "dtype")

    def __init__(self, dtype, dims):
        self.dtype = dtype
        self.dims = dims

    def __eq__(self, other):
        return isinstance(other, TensorLeaf) and (self.dtype, self.dims) == (
            other.dtype,
            other.dims,
        )

    def __hash__(self):
        return hash((self.dtype, self.dims))

    def __repr__(self):
        return f"TensorLeaf({self.dtype}, {self.dims})"

    def admits(self, other):
        return (
            self.dtype == other.dtype
            and len(self.dims) == len(other.dims)
            and all(a is None or a == b for a, b in zip(self.dims, other.dims))
        )


def as_call_tensor(value):
    """Tensors and numpy arrays are graph inputs; everything else is part of the key."""
    if isinstance(value, _core.Tensor):
        return value
    if isinstance(value, np.ndarray):
        return convert_to_tensor(value)
    return None


def _value_key(value):
    """Python values key by equality, as TensorFlow's literal types do: `2` and `2.0`, `1`
    and `True` share a trace (which keeps the first one's value)."""
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return ("value", value)


def key_of(structure, tensors):
    """The key of `structure`; appends its tensor leaves (in `nest` order) to `tensors`."""
    # Checked cheapest and commonest first: every call of a tf.function computes its key.
    if type(structure) is _core.Tensor:
        tensors.append(structure)
        return TensorLeaf(structure._dtype_enum, tuple(structure._dims))
    if isinstance(structure, (list, tuple)):
        return (type(structure), tuple([key_of(v, tensors) for v in structure]))
    if isinstance(structure, Variable):
        return ("variable", structure._unique_id)
    if isinstance(structure, CompositeTensor):
        spec = structure._type_spec
        return _composite_key(spec, spec._to_tensor_list(structure), tensors)
    if type(structure).__name__ == "TensorArray":
        spec = tensor_array_spec(structure)
        if spec is not None:
            components = spec._to_tensor_list(structure)
            key = _composite_key(spec, components, tensors)
            if _core.is_symbolic(components[0]):
                return key
            # TensorFlow traces once per eager TensorArray object (a graph one by its spec).
            return ("tensor_array", id(structure), key)
    if isinstance(structure, TypeSpec) and not isinstance(structure, TensorSpec):
        # A composite spec given to get_concrete_function: example components stand for it.
        return _composite_key(structure, structure._example_tensor_list(), tensors)
    tensor = as_call_tensor(structure)
    if tensor is not None:
        tensors.append(tensor)
        return TensorLeaf(tensor._dtype_enum, tuple(tensor._dims))
    if isinstance(structure, collections.abc.Mapping):
        keys = sorted(structure)
        return ("dict", tuple(keys), tuple(key_of(structure[k], tensors) for k in keys))
    return _value_key(structure)


def _composite_key(spec, components, tensors):
    """A composite's key: its spec (values of one spec share a trace) and one leaf per
    component, with the dims its component spec leaves unknown unknown."""
    leaves = []
    for component, component_spec in zip(components, spec._flat_tensor_specs):
        tensor = as_call_tensor(component)
        if tensor is None:
            tensor = convert_to_tensor(component)
        tensors.append(tensor)
        shape = component_spec.shape
        dims = (None,) * len(tensor._dims) if shape.rank is None else tuple(shape.dims)
        leaves.append(TensorLeaf(tensor._dtype_enum, dims))
    return ("composite", spec, tuple(leaves))


def composite_specs(key):
    """The specs of the composite values of a key, in order."""
    if isinstance(key, tuple) and len(key) == 3 and key[0] == "composite":
        return [key[1]]
    if isinstance(key, tuple):
        out = []
        for part in key:
            out.extend(composite_specs(part))
        return out
    return []


def relax(key, other):
    """The key admitting both `key` and `other` with differing dims unknown, or None when
    they differ in more than dims (dtype, rank, structure or Python values)."""
    if isinstance(key, TensorLeaf) and isinstance(other, TensorLeaf):
        if key.dtype != other.dtype or len(key.dims) != len(other.dims):
            return None
        return TensorLeaf(
            key.dtype, tuple(a if a == b else None for a, b in zip(key.dims, other.dims))
        )
    if isinstance(key, TypeSpec) and isinstance(other, TypeSpec):
        return key.most_specific_common_supertype([other])
    if isinstance(key, tuple) and isinstance(other, tuple) and len(key) == len(other):
        parts = []
        for a, b in zip(key, other):
            r = relax(a, b)
            if r is None and a is not None:
                return None
            parts.append(r)
        return tuple(parts)
    return key if key == other else None


def admits(pattern, key):
    """True when a call with `key` can run the function traced for `pattern`."""
    if isinstance(pattern, TensorLeaf):
        return isinstance(key, TensorLeaf) and pattern.admits(key)
    if isinstance(pattern, tuple) and isinstance(key, tuple) and len(pattern) == len(key):
        return all(admits(a, b) for a, b in zip(pattern, key))
    if isinstance(pattern, TypeSpec) and isinstance(key, TypeSpec):
        return key.is_subtype_of(pattern)
    return pattern == key


def leaves(key):
    """The TensorLeaf entries of a key, in the order `key_of` appended tensors."""
    if isinstance(key, TensorLeaf):
        return [key]
    if isinstance(key, tuple) and key and key[0] in ("variable", "id"):
        return []
    if isinstance(key, tuple):
        out = []
        for part in key:
            out.extend(leaves(part))
        return out
    return []


def tensor_array_spec(value):
    """The TensorArraySpec a TensorArray argument is keyed by (TensorFlow's trace key), or
    None when it has no components to pass (nothing written, element rank unknown): such an
    array is then a Python value of the trace."""
    from ferroflow.tensor_array_ops import TensorArray, TensorArraySpec

    if not isinstance(value, TensorArray):
        return None
    spec = TensorArraySpec.from_value(value)
    try:
        spec._to_components(value)
    except ValueError:
        return None
    return spec


def _composite_spec(value):
    """The spec a composite argument (a composite value, a composite spec, a TensorArray)
    is taken apart by, or None for other values."""
    if isinstance(value, CompositeTensor):
        return value._type_spec
    if isinstance(value, TypeSpec):
        return None if isinstance(value, TensorSpec) else value
    if type(value).__name__ == "TensorArray":
        return tensor_array_spec(value)
    return None


def replace_tensors(structure, replacements, specs=None, composite=None):
    """`structure` with its tensor leaves replaced, in order, by `replacements`. A composite
    value (or composite spec) takes as many replacements as its spec has components and becomes
    `composite(spec, parts)` (by default the value `spec` rebuilds from them); `specs`, when
    given, are the specs to use for the composites in order (a trace's, whose shapes may be
    less known than the example's)."""
    it = iter(replacements)
    spec_it = None if specs is None else iter(specs)

    def walk(value):
        if isinstance(value, Variable):
            return value
        spec = _composite_spec(value)
        if spec is not None:
            if spec_it is not None:
                spec = next(spec_it)
            parts = [next(it) for _ in spec._flat_tensor_specs]
            if composite is not None:
                return composite(spec, parts)
            return spec._from_tensor_list(parts)
        if as_call_tensor(value) is not None:
            return next(it)
        if isinstance(value, collections.abc.Mapping):
            # Leaves are consumed in `key_of`'s order (sorted keys, as `tf.nest`), so each
            # entry gets its own tensor whatever order the caller built the dict in.
            walked = {k: walk(value[k]) for k in sorted(value)}
            return type(value)((k, walked[k]) for k in value)
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            return type(value)(*[walk(v) for v in value])
        if isinstance(value, (list, tuple)):
            return type(value)(walk(v) for v in value)
        return value

    return walk(structure)


def spec_of(leaf, name=None):
    from ferroflow.dtypes import as_dtype

    return TensorSpec(list(leaf.dims), as_dtype(leaf.dtype), name)


def python_values_as_tensors(values, signature):
    """The call's values with each Python or numpy value a `TensorSpec` describes (a whole
    nested list included) converted to a tensor of the spec's dtype, as TensorFlow binds
    them: the trace then takes it as an input, not as a constant. Values that do not fit are
    left for `check_against_signature` to refuse with TensorFlow's error."""

    def walk(spec, value):
        if isinstance(spec, TensorSpec):
            if isinstance(value, Variable) or as_call_tensor(value) is not None:
                return value
            try:
                return convert_to_tensor(value, dtype=spec.dtype)
            except (TypeError, ValueError):
                return value
        if isinstance(spec, collections.abc.Mapping) and isinstance(value, collections.abc.Mapping):
            if set(spec) != set(value):
                return value
            return type(value)((k, walk(spec[k], v)) for k, v in value.items())
        if (
            isinstance(spec, (list, tuple))
            and isinstance(value, (list, tuple))
            and len(spec) == len(value)
        ):
            walked = [walk(s, v) for s, v in zip(spec, value)]
            if isinstance(value, tuple) and hasattr(value, "_fields"):
                return type(value)(*walked)
            return type(value)(walked)
        return value

    return (*walk(list(signature), list(values[: len(signature)])), *values[len(signature) :])


def check_against_signature(values, signature):
    """Converts a call's arguments to the tensors `input_signature` describes, raising
    TensorFlow's TypeError when one does not fit."""
    flat_specs = nest.flatten(signature)
    try:
        nest.assert_same_structure(list(signature), list(values), check_types=False)
    except (TypeError, ValueError):
        raise TypeError(
            f"Binding inputs to tf.function failed: the arguments {values!r} do not match "
            f"input_signature {signature!r}."
        ) from None
    flat_values = nest.flatten(list(values))
    converted = []
    for value, spec in zip(flat_values, flat_specs):
        if not isinstance(spec, TensorSpec):
            converted.extend(_composite_against_spec(value, spec, values, signature))
            continue
        if isinstance(value, Variable):
            value = value.value()
        tensor = as_call_tensor(value)
        if tensor is None:
            try:
                tensor = convert_to_tensor(value, dtype=spec.dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(f"Binding inputs to tf.function failed: {e}") from None
        if not spec.is_compatible_with(tensor):
            got = TensorSpec(tensor.shape, tensor.dtype)
            raise TypeError(
                f"Binding inputs to tf.function failed due to `Can not cast {got!r} to "
                f"{TensorSpec(spec.shape, spec.dtype)!r}`. Received args: {tuple(values)!r} "
                f"for signature: {tuple(signature)!r}."
            )
        converted.append(tensor)
    return converted


def _composite_against_spec(value, spec, values, signature):
    """The component tensors of a composite argument its signature spec admits."""
    got = value._type_spec if isinstance(value, CompositeTensor) else tensor_array_spec(value)
    if got is None or not spec.is_compatible_with(got):
        shown = got if got is not None else value
        raise TypeError(
            f"Binding inputs to tf.function failed due to `Can not cast {shown!r} to "
            f"{spec!r}`. Received args: {tuple(values)!r} for signature: {tuple(signature)!r}."
        )
    return spec._to_tensor_list(value)
