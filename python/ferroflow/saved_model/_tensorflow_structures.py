"""What TensorFlow's `saved_model.pb` needs from Python: each concrete function's argument and
result structures and each function's Python signature, as JSON for the Rust core to write
as TensorFlow's `StructuredValue`s (see `src/saved_model/to_tensorflow/structured.rs`).

A structure holding something TensorFlow's format cannot describe here (a composite tensor's
spec, an arbitrary Python object) raises `NotWritable`: the model is then saved in ferroflow's
format only, with a warning.
"""

import inspect

from ferroflow import nest
from ferroflow.dtypes import as_dtype
from ferroflow.function import BoundFunction, Function
from ferroflow.tensor_spec import TensorSpec

__all__ = ["NotWritable", "concrete_structures", "function_structures"]


class NotWritable(Exception):
    """A structure TensorFlow's SavedModel format cannot hold as ferroflow writes it."""


def _dims(shape):
    dims = getattr(shape, "dims", None)
    return None if dims is None else [None if d is None else int(d) for d in dims]


def _spec(name, dtype, shape):
    return {"tensor_spec": {"name": name, "dtype": as_dtype(dtype).name, "dims": _dims(shape)}}


def encode(value):
    """The JSON form of ``value`` (TensorSpecs and tensors as TensorSpecs)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    if isinstance(value, float):
        return {"float": value}
    if isinstance(value, str):
        return {"string": value}
    if isinstance(value, TensorSpec):
        return _spec(value.name, value.dtype, value.shape)
    if hasattr(value, "dtype") and hasattr(value, "shape") and not nest.is_nested(value):
        return _spec(None, value.dtype, value.shape)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        values = [[field, encode(getattr(value, field))] for field in value._fields]
        return {"named_tuple": {"name": type(value).__name__, "values": values}}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return {"list": [encode(v) for v in value]}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise NotWritable("a dict with keys other than strings")
        return {"dict": {k: encode(v) for k, v in value.items()}}
    raise NotWritable(f"a value of type {type(value).__name__}")


def concrete_structures(concrete):
    """{"input_signature", "output_signature"} of a concrete function."""
    args, kwargs = concrete.structured_input_signature
    return {
        "input_signature": {"tuple": [encode(tuple(args)), encode(dict(kwargs))]},
        "output_signature": encode(concrete.structured_outputs),
    }


def _named_tuple(name, fields):
    return {"named_tuple": {"name": name, "values": [[k, v] for k, v in fields]}}


def function_structures(fn):
    """{"fullargspec", "input_signature"} of a saved function (``self`` left out)."""
    function = fn._function if isinstance(fn, BoundFunction) else fn
    input_signature = getattr(function, "input_signature", None)
    args, kwonly, defaults = [], [], []
    python_function = getattr(function, "python_function", None)
    if isinstance(function, Function) and python_function is not None:
        try:
            parameters = list(inspect.signature(python_function).parameters.values())
        except (TypeError, ValueError):
            parameters = []
        if isinstance(fn, BoundFunction) and parameters:
            parameters = parameters[1:]
        for p in parameters:
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                args.append(p.name)
                if p.default is not p.empty:
                    defaults.append(p.default)
            elif p.kind == p.KEYWORD_ONLY:
                kwonly.append(p.name)
    try:
        encoded_defaults = encode(tuple(defaults)) if defaults else "none"
    except NotWritable:
        encoded_defaults = "none"
    fullargspec = _named_tuple(
        "FullArgSpec",
        [
            ("args", {"list": [{"string": a} for a in args]}),
            ("varargs", "none"),
            ("varkw", "none"),
            ("defaults", encoded_defaults),
            ("kwonlyargs", {"list": [{"string": a} for a in kwonly]}),
            ("kwonlydefaults", "none"),
            ("annotations", {"dict": {}}),
        ],
    )
    signature = "none" if input_signature is None else encode(tuple(input_signature))
    return {"fullargspec": fullargspec, "input_signature": signature}
