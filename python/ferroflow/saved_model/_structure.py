"""Python argument and result structures as JSON, so a loaded function can rebuild them:
TensorSpecs and other TypeSpecs (RaggedTensorSpec, SparseTensorSpec, a registered
ExtensionType's Spec...), tensor and composite result slots, Python constants and the
containers around them.

    (TensorSpec([3], tf.int32, "x"), 2.0)  ->  {"tuple": [{"spec": ...}, 2.0]}
    RaggedTensorSpec([None, None], tf.int32)
        ->  {"typespec": {"name": "tf.RaggedTensorSpec", "state": {"tuple": [...]}}}

A TypeSpec is stored as its registered name and its `_serialize()` state (TensorShapes as
{"shape": dims}, DTypes as {"dtype": name}), as TensorFlow's nested structure coder does; an
ExtensionType's Spec is registered by the type's `__name__` (no `__name__`: NotEncodableError,
as in TensorFlow).
"""

import collections
import math

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow.concrete_function import _TENSOR, _CompositeSlot
from ferroflow.tensor_shape import TensorShape
from ferroflow.tensor_spec import TensorSpec
from ferroflow.type_spec import TypeSpec, lookup_type_spec, registered_name

__all__ = ["TENSOR", "NotEncodableError", "decode", "encode"]


# Where a result tensor goes in an output structure: ConcreteFunction's own marker.
TENSOR = _TENSOR

_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


class NotEncodableError(Exception):
    """A value a SavedModel cannot store (TensorFlow's class of the same name)."""


def _builtin_specs():
    """The TypeSpecs ferroflow defines, by TensorFlow's registered names."""
    from ferroflow.experimental_ops import OptionalSpec
    from ferroflow.indexed_slices import IndexedSlicesSpec
    from ferroflow.ragged.ragged_tensor_spec import RaggedTensorSpec
    from ferroflow.sparse_tensor import SparseTensorSpec
    from ferroflow.tensor_array_ops import TensorArraySpec
    from ferroflow.type_spec import NoneTensorSpec

    return {
        "tf.RaggedTensorSpec": RaggedTensorSpec,
        "tf.SparseTensorSpec": SparseTensorSpec,
        "tf.TensorArraySpec": TensorArraySpec,
        "tf.NoneTensorSpec": NoneTensorSpec,
        "tf.OptionalSpec": OptionalSpec,
        "tf.IndexedSlicesSpec": IndexedSlicesSpec,
    }


def _spec_name(spec_class):
    for name, known in _builtin_specs().items():
        if known is spec_class:
            return name
    return registered_name(spec_class)


def _spec_class(name):
    found = _builtin_specs().get(name) or lookup_type_spec(name)
    if found is None:
        raise ValueError(
            f"the SavedModel holds a value of the TypeSpec {name!r}, which no class in this "
            "process is registered as (define the ExtensionType with that `__name__` before "
            "loading)"
        )
    return found


def encode(value, is_slot=lambda v: False, where="function"):
    """JSON-ready form of ``value``; ``is_slot(v)`` marks values that stand for result tensors."""
    if is_slot(value):
        return {"tensor": True}
    if isinstance(value, _CompositeSlot):
        return {"composite": encode(value.spec, where=where)}
    if isinstance(value, TensorShape):
        return {"shape": None if value.rank is None else list(value.as_list())}
    if isinstance(value, _dtypes.DType):
        return {"dtype": value.name}
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
    if isinstance(value, TypeSpec):
        name = _spec_name(type(value))
        if name is None:
            raise NotEncodableError(f"No encoder for object {value} of type {type(value)}.")
        return {"typespec": {"name": name, "state": encode(value._serialize(), where=where)}}
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
        if kind == "composite":
            return _CompositeSlot(decode(body))
        if kind == "shape":
            return TensorShape(body)
        if kind == "dtype":
            return _dtypes.as_dtype(body)
        if kind == "typespec":
            return _spec_class(body["name"])._deserialize(decode(body["state"]))
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
