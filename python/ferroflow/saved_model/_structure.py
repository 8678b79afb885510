"""Python argument and result structures as JSON, so a loaded function can rebuild them:
TensorSpecs, tensor slots, Python constants and the containers around them.

    (TensorSpec([3], tf.int32, "x"), 2.0)  ->  {"tuple": [{"spec": ...}, 2.0]}
"""

import collections
import math

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow.concrete_function import _TENSOR
from ferroflow.tensor_spec import TensorSpec

__all__ = ["TENSOR", "decode", "encode"]


# Where a result tensor goes in an output structure: ConcreteFunction's own marker.
TENSOR = _TENSOR

_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def encode(value, is_slot=lambda v: False, where="function"):
    """JSON-ready form of ``value``; ``is_slot(v)`` marks values that stand for result tensors."""
    if is_slot(value):
        return {"tensor": True}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        value = value.item()
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, TensorSpec):
        dims = value.shape.dims
        return {
            "spec": {
                "dims": None if dims is None else list(dims),
                "dtype": value.dtype.name,
                "name": value.name,
            }
        }
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return {
            "namedtuple": {
                "name": type(value).__name__,
                "fields": list(type(value)._fields),
                "values": [encode(v, is_slot, where) for v in value],
            }
        }
    if isinstance(value, (list, tuple)):
        kind = "list" if isinstance(value, list) else "tuple"
        return {kind: [encode(v, is_slot, where) for v in value]}
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise ValueError(f"Unable to save {where}: a dict key {k!r} is not a str or int.")
            items.append([k, encode(v, is_slot, where)])
        return {"dict": items}
    raise ValueError(
        f"Unable to save {where}: it was traced with a Python value of type "
        f"{type(value).__name__} ({value!r}), which a SavedModel cannot store. Pass tensors, "
        "Python numbers, strings, None, or lists, tuples and dicts of these."
    )


def decode(data):
    """The structure ``encode`` described, with TENSOR where result tensors go."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, dict) and len(data) == 1:
        ((kind, body),) = data.items()
        if kind == "tensor":
            return TENSOR
        if kind == "float":
            return _NON_FINITE[body]
        if kind == "spec":
            return TensorSpec(body["dims"], _dtypes.as_dtype(body["dtype"]), body["name"])
        if kind == "list":
            return [decode(v) for v in body]
        if kind == "tuple":
            return tuple(decode(v) for v in body)
        if kind == "dict":
            return {k: decode(v) for k, v in body}
        if kind == "namedtuple":
            cls = collections.namedtuple(body["name"], body["fields"])
            return cls(*[decode(v) for v in body["values"]])
    raise ValueError(f"the SavedModel holds a structure ferroflow cannot read: {data!r}")
