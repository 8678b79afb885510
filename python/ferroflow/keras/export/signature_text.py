"""The endpoint descriptions `ExportArchive.write_out` prints, in the layout of TensorFlow's
``ConcreteFunction.pretty_printed_signature``: each parameter with its kind and spec, the
output structure, and the captured variables."""

import inspect

from ferroflow.tensor_spec import TensorSpec

__all__ = ["endpoint_text"]


def endpoint_text(name, function, concrete):
    """``* Endpoint '<name>'`` then the parameters, ``Output Type:`` and ``Captures:``."""
    lines = [f"* Endpoint '{name}'"]
    args, kwargs = concrete.structured_input_signature
    for parameter, spec in zip(_parameters(function, len(args)), args):
        lines.append(f"  {parameter}: {_type_text(spec)}")
    for key, spec in kwargs.items():
        lines.append(f"  {key} (KEYWORD_ONLY): {_type_text(spec)}")
    lines += ["Output Type:", f"  {_type_text(_unnamed(concrete.structured_outputs))}"]
    lines.append("Captures:")
    captured = concrete.variables
    if not captured:
        lines.append("  None")
    resource = TensorSpec((), dtype="resource")
    lines += [f"  {id(variable)}: {resource!r}" for variable in captured]
    return "\n".join(lines)


def _parameters(function, count):
    """``name (KIND)`` for the first ``count`` parameters of the traced Python function."""
    python_function = getattr(function, "python_function", None)
    try:
        parameters = list(inspect.signature(python_function).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    described = [f"{p.name} ({p.kind.name})" for p in parameters[:count]]
    return described + [f"args_{i} (POSITIONAL_ONLY)" for i in range(len(described), count)]


def _unnamed(structure):
    from ferroflow import nest

    def spec(leaf):
        return TensorSpec(leaf.shape, leaf.dtype) if hasattr(leaf, "dtype") else leaf

    return nest.map_structure(spec, structure)


def _type_text(value):
    """TensorFlow's rendering of a structure of specs: ``List[...]``, ``Tuple[...]``,
    ``Dict[['key', ...], ...]``."""
    if isinstance(value, dict):
        items = ", ".join(f"[{key!r}, {_type_text(v)}]" for key, v in value.items())
        return f"Dict[{items}]"
    if isinstance(value, list):
        return f"List[{', '.join(_type_text(v) for v in value)}]"
    if isinstance(value, tuple):
        return f"Tuple[{', '.join(_type_text(v) for v in value)}]"
    return repr(value)
