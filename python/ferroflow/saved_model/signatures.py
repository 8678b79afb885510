"""SavedModel signatures: named concrete functions with named tensor inputs and a dict of named
tensor outputs (what serving systems call). TensorFlow's rules: `signatures` may be one
function (saved as "serving_default") or a dict; with none given, a root that has exactly one
`tf.function` with an input signature gets it as "serving_default"."""

import collections.abc

from ferroflow import nest
from ferroflow.concrete_function import _TENSOR as _RESULT
from ferroflow.concrete_function import ConcreteFunction, _CompositeSlot
from ferroflow.function import BoundFunction, Function
from ferroflow.saved_model.function_like import functions_of
from ferroflow.tensor_spec import TensorSpec
from ferroflow.type_spec import TypeSpec

__all__ = [
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "canonicalize",
    "input_names",
    "output_layout",
    "output_names",
]

DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
_DEFAULT_SIGNATURE_ATTR = "_default_save_signature"


def _concrete_of(function):
    if isinstance(function, (Function, BoundFunction)):
        signature = getattr(function, "input_signature", None)
        if signature is None and isinstance(function, BoundFunction):
            signature = function._function.input_signature
        return None if signature is None else function.get_concrete_function()
    return function if isinstance(function, ConcreteFunction) else None


def canonicalize(root, signatures):
    """{signature key: ConcreteFunction} for `save`'s ``signatures`` argument."""
    if signatures is None:
        found = _find_default(root)
        return {} if found is None else {DEFAULT_SERVING_SIGNATURE_DEF_KEY: found}
    if not isinstance(signatures, collections.abc.Mapping):
        signatures = {DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    chosen = {}
    for key, function in signatures.items():
        concrete = _concrete_of(function)
        if concrete is None:
            raise ValueError(
                "Expected a TensorFlow function for which to generate a signature, but got "
                f"{function}. Only `tf.functions` with an input signature or concrete functions "
                "can be used as a signature."
            )
        _check_inputs(concrete)
        output_names(concrete, key)  # raises TensorFlow's ValueError for non-tensor outputs
        chosen[key] = concrete
    return chosen


def _find_default(root):
    candidates = []
    for name, function in functions_of(root).items():
        if not isinstance(function, (Function, BoundFunction, ConcreteFunction)):
            continue
        if name == _DEFAULT_SIGNATURE_ATTR:
            return _concrete_of(function)
        concrete = _concrete_of(function)
        if concrete is not None and _valid(concrete):
            candidates.append(concrete)
    return candidates[0] if len(candidates) == 1 else None


def _valid(concrete):
    if not concrete.outputs:
        return False
    try:
        _check_inputs(concrete)
        output_names(concrete, "unused")
    except ValueError:
        return False
    return True


def _check_inputs(concrete):
    args, kwargs = concrete.structured_input_signature
    for leaf in nest.flatten([list(args), kwargs]):
        if not isinstance(leaf, TypeSpec):
            raise ValueError(
                f"Function {concrete.name} used as a signature takes a non-tensor argument "
                f"{leaf!r}; signature inputs must all be tensors."
            )


def input_names(concrete):
    """One keyword per flat input (a composite argument's components each have one): the
    TensorSpec's name if it has one, else the parameter's, made unique with ``_1``, ``_2`` as
    TensorFlow does."""
    args, kwargs = concrete.structured_input_signature
    specs = nest.flatten([list(args), kwargs], expand_composites=True)
    specs = [s for s in specs if isinstance(s, TensorSpec)]
    bases = concrete._input_names or [t.name.rsplit(":", 1)[0] for t in concrete.inputs]
    names, used = [], set()
    for spec, parameter in zip(specs, bases):
        base = spec.name or parameter
        name, k = base, 0
        while name in used:
            k += 1
            name = f"{base}_{k}"
        used.add(name)
        names.append(name)
    return names


def output_layout(concrete, key):
    """[(name, first flat output, composite slot or None)] sorted by name: dict keys,
    namedtuple fields, or ``output_<i>`` for a tensor or a sequence of tensors; a composite
    output (RaggedTensor, SparseTensor...) stays one entry, as TensorFlow's signatures return
    it."""
    outputs = concrete._output_template
    if isinstance(outputs, collections.abc.Mapping):
        items = list(outputs.items())
    elif hasattr(outputs, "_asdict"):
        items = list(outputs._asdict().items())
    else:
        if not isinstance(outputs, (list, tuple)):
            outputs = [outputs]
        items = [(f"output_{i}", v) for i, v in enumerate(outputs)]
    for name, value in items:
        if not isinstance(name, str):
            raise ValueError(
                f"Got a dictionary with a non-string key {name!r} in the output of the function "
                f"{concrete.name} used to generate the SavedModel signature {key!r}."
            )
        if value is not _RESULT and not isinstance(value, _CompositeSlot):
            raise ValueError(
                f"Got a non-Tensor value {value!r} for key {name!r} in the output of the "
                f"function {concrete.name} used to generate the SavedModel signature {key!r}. "
                "Outputs for functions used as signatures must be a single Tensor, a sequence "
                "of Tensors, or a dictionary from string to Tensor."
            )
    # Every value is a tensor or composite leaf, so flat order is nest's: sorted keys for a
    # dict, and a composite takes as many outputs as it has components.
    ordered = sorted(items, key=lambda item: item[0]) if isinstance(outputs, dict) else items
    starts, position = {}, 0
    for name, value in ordered:
        starts[name] = position
        position += 1 if value is _RESULT else value.count
    layout = [(name, starts[name], None if v is _RESULT else v) for name, v in items]
    return sorted(layout, key=lambda entry: entry[0])


def output_names(concrete, key):
    """[(name, flat output index)] sorted by name, one per flat output (what the Rust loader
    returns): a composite output's components are named ``<key>``, ``<key>_1``, ..."""
    layout = output_layout(concrete, key)
    used = {name for name, _, _ in layout}
    named = []
    for name, start, slot in layout:
        named.append((name, start))
        for k in range(1, 1 if slot is None else slot.count):
            component, n = f"{name}_{k}", k
            while component in used:
                n += 1
                component = f"{name}_{n}"
            used.add(component)
            named.append((component, start + k))
    return sorted(named)
