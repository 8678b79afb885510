"""The functions an object carries for a SavedModel: `tf.function` methods and attributes,
concrete functions, and functions of a loaded model (so a loaded model can be saved again)."""

import inspect

from ferroflow.concrete_function import ConcreteFunction
from ferroflow.function import BoundFunction, Function
from ferroflow.saved_model import _structure
from ferroflow.saved_model.restored import RestoredFunction

__all__ = ["concrete_functions_of", "functions_of", "has_input_signature", "parameters_of"]

_FUNCTION_TYPES = (Function, BoundFunction, ConcreteFunction, RestoredFunction)

# Attributes a loaded object carries that are not its own functions.
_RESERVED = frozenset({"signatures"})


def functions_of(obj):
    """{attribute name: function} of ``obj``, class-level `tf.function` methods first."""
    found = {}
    for name in sorted(dir(type(obj))):
        if isinstance(inspect.getattr_static(type(obj), name, None), Function):
            found[name] = getattr(obj, name)
    for name, value in sorted(getattr(obj, "__dict__", {}).items()):
        if isinstance(value, _FUNCTION_TYPES) and name not in _RESERVED:
            found[name] = value
    return found


def concrete_functions_of(fn, owner):
    """The concrete functions to save for ``fn`` found on ``owner``: every trace made for that
    object (a function with an input signature is traced now if it never was)."""
    if isinstance(fn, ConcreteFunction):
        return [fn]
    if isinstance(fn, RestoredFunction):
        return list(fn._concrete_functions)
    if isinstance(fn, BoundFunction):
        # Traced for the instance the method is bound to, which need not be the object it is
        # saved on (Keras's ExportArchive endpoints are other objects' methods).
        instance = fn._instance_ref()
        function, owner_id = fn._function, id(owner if instance is None else instance)
    else:
        function, owner_id = fn, None
    traced = _traced_for(function, owner_id)
    if not traced and function.input_signature is not None:
        fn.get_concrete_function()
        traced = _traced_for(function, owner_id)
    return traced


def _traced_for(function, owner_id):
    found = []
    for concrete in function._concrete.values():
        if concrete._owner == owner_id and not any(c is concrete for c in found):
            found.append(concrete)
    return found


def parameters_of(fn):
    """[name, kind, default?] per parameter a call binds (``self`` left out), so a loaded
    function binds calls as the original did."""
    if isinstance(fn, RestoredFunction):
        return fn._params
    if isinstance(fn, ConcreteFunction):
        return None
    function = fn._function if isinstance(fn, BoundFunction) else fn
    try:
        parameters = list(inspect.signature(function.python_function).parameters.values())
    except (TypeError, ValueError):
        return None
    if isinstance(fn, BoundFunction) and parameters:
        parameters = parameters[1:]
    described = []
    for p in parameters:
        entry = [p.name, int(p.kind)]
        if p.default is not inspect.Parameter.empty:
            try:
                entry.append(_structure.encode(p.default, where=f"the default of {p.name}"))
            except ValueError:
                pass  # a default a file cannot hold: the loaded function requires the argument
        described.append(entry)
    return described


def has_input_signature(fn):
    """Whether ``fn`` was a `tf.function` with an input_signature (a loaded one keeps it)."""
    if isinstance(fn, RestoredFunction):
        return fn._input_signature
    if isinstance(fn, ConcreteFunction):
        return False
    function = fn._function if isinstance(fn, BoundFunction) else fn
    return function.input_signature is not None and not getattr(function, "_saved_as_traced", False)
