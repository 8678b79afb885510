"""Nested structures of specs and plain values as TensorFlow's ``StructuredValue`` protos
(struct.proto), the encoding of TensorFlow's ``nested_structure_coder``: a saved dataset's
``dataset_spec.pb`` and, later, a SavedModel's signatures.

Encoded: None, bool, int (int64), float, str, list, tuple, dict (str keys), named tuples,
`TensorShape`, `DType`, `TensorSpec`, `RaggedTensorSpec`, `SparseTensorSpec`,
`tf.data.DatasetSpec` and `tf.OptionalSpec`. Anything else is `NotEncodableError`, as in
TensorFlow. Decoding a proto naming nothing decodable is `NotEncodableError` too (never a
crash).
"""

from __future__ import annotations

import collections

from ferroflow._proto import message_class

__all__ = ["NotEncodableError", "decode_proto", "encode_structure"]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class NotEncodableError(Exception):
    """A value (or a proto) the coder has no encoding for."""


def _message(name):
    return message_class(f"tensorflow.{name}")()


def _type_spec_classes():
    """The spec classes ferroflow encodes as TypeSpecProtos: each one's TypeSpecClass number,
    its state (TensorFlow's ``_serialize()`` tuple, also its constructor's arguments) and its
    number of flat components (TensorFlow's ``num_flat_components``)."""
    from ferroflow.data._specs import DatasetSpec
    from ferroflow.experimental_ops import OptionalSpec
    from ferroflow.ragged.ragged_tensor_spec import RaggedTensorSpec
    from ferroflow.sparse_tensor import SparseTensorSpec

    def ragged_state(s):
        state = (s._shape, s._dtype, s._ragged_rank, s._row_splits_dtype)
        return state if s._flat_values_spec is None else (*state, s._flat_values_spec)

    return (
        (SparseTensorSpec, 1, lambda s: (s.shape, s.dtype), lambda s: 3),
        (RaggedTensorSpec, 3, ragged_state, lambda s: s._ragged_rank + 1),
        (DatasetSpec, 5, lambda s: (s._element_spec, s._dataset_shape), lambda s: 1),
        (OptionalSpec, 7, lambda s: (s._element_spec,), lambda s: 1),
    )


def _shape_proto(shape, proto):
    if shape.rank is None:
        proto.unknown_rank = True
        return
    for d in shape.as_list():
        proto.dim.add().size = -1 if d is None else d


def _encode(value):
    from ferroflow.dtypes import DType
    from ferroflow.tensor_shape import TensorShape
    from ferroflow.tensor_spec import TensorSpec

    out = _message("StructuredValue")
    if value is None:
        out.none_value.SetInParent()
    elif isinstance(value, bool):
        out.bool_value = value
    elif isinstance(value, int):
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise NotEncodableError(f"No encoder for object {value} of type {type(value)}.")
        out.int64_value = value
    elif isinstance(value, float):
        out.float64_value = value
    elif isinstance(value, str):
        out.string_value = value
    elif isinstance(value, dict):
        out.dict_value.SetInParent()
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotEncodableError(f"A dict key must be a string, got {key!r}.")
            out.dict_value.fields[key].CopyFrom(_encode(item))
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        out.named_tuple_value.name = type(value).__name__
        for key, item in zip(value._fields, value):
            pair = out.named_tuple_value.values.add()
            pair.key = key
            pair.value.CopyFrom(_encode(item))
    elif isinstance(value, (tuple, list)):
        field = out.tuple_value if isinstance(value, tuple) else out.list_value
        field.SetInParent()
        for item in value:
            field.values.add().CopyFrom(_encode(item))
    elif isinstance(value, TensorShape):
        out.tensor_shape_value.SetInParent()
        _shape_proto(value, out.tensor_shape_value)
    elif isinstance(value, DType):
        out.tensor_dtype_value = value.as_datatype_enum
    elif type(value) is TensorSpec:
        spec = out.tensor_spec_value
        spec.name = value.name or ""
        spec.shape.SetInParent()
        _shape_proto(value.shape, spec.shape)
        spec.dtype = value.dtype.as_datatype_enum
    else:
        for cls, number, state, flat in _type_spec_classes():
            if type(value) is cls:
                proto = out.type_spec_value
                proto.type_spec_class = number
                proto.type_state.CopyFrom(_encode(state(value)))
                proto.type_spec_class_name = cls.__name__
                proto.num_flat_components = flat(value)
                return out
        raise NotEncodableError(f"No encoder for object {value} of type {type(value)}.")
    return out


def encode_structure(nested_structure):
    """The ``tensorflow.StructuredValue`` message of ``nested_structure``."""
    return _encode(nested_structure)


def _shape(proto):
    from ferroflow.tensor_shape import TensorShape

    if proto.unknown_rank:
        return TensorShape(None)
    for d in proto.dim:
        if d.size < -1:
            raise NotEncodableError(f"A dimension of a TensorShapeProto is {d.size}.")
    return TensorShape([None if d.size == -1 else d.size for d in proto.dim])


def _dtype(number):
    from ferroflow import dtypes

    try:
        return dtypes.as_dtype(number)
    except TypeError as e:
        raise NotEncodableError(f"The proto names an unknown DataType {number}.") from e


def _decode_type_spec(proto):
    for cls, number, _, _ in _type_spec_classes():
        if proto.type_spec_class == number:
            state = decode_proto(proto.type_state)
            if not isinstance(state, tuple):
                raise NotEncodableError(f"A {cls.__name__}'s state must be a tuple.")
            try:
                return cls(*state)
            except (TypeError, ValueError) as e:
                raise NotEncodableError(f"A {cls.__name__} cannot hold {state}: {e}") from e
    raise ValueError(
        f"The type '{proto.type_spec_class_name}' is not supported by this version of ferroflow."
    )


def decode_proto(proto):
    """The nested structure a ``tensorflow.StructuredValue`` message encodes."""
    from ferroflow.tensor_spec import TensorSpec

    kind = proto.WhichOneof("kind")
    if kind == "none_value":
        return None
    if kind in ("bool_value", "float64_value", "string_value"):
        return getattr(proto, kind)
    if kind == "int64_value":
        return int(proto.int64_value)
    if kind == "list_value":
        return [decode_proto(v) for v in proto.list_value.values]
    if kind == "tuple_value":
        return tuple(decode_proto(v) for v in proto.tuple_value.values)
    if kind == "dict_value":
        return {k: decode_proto(v) for k, v in proto.dict_value.fields.items()}
    if kind == "named_tuple_value":
        pairs = proto.named_tuple_value.values
        try:
            cls = collections.namedtuple(proto.named_tuple_value.name, [p.key for p in pairs])
        except ValueError as e:
            raise NotEncodableError(f"A NamedTupleValue cannot be a namedtuple: {e}") from e
        return cls(*(decode_proto(p.value) for p in pairs))
    if kind == "tensor_shape_value":
        return _shape(proto.tensor_shape_value)
    if kind == "tensor_dtype_value":
        return _dtype(proto.tensor_dtype_value)
    if kind == "tensor_spec_value":
        spec = proto.tensor_spec_value
        return TensorSpec(_shape(spec.shape), _dtype(spec.dtype), spec.name or None)
    if kind == "type_spec_value":
        return _decode_type_spec(proto.type_spec_value)
    raise NotEncodableError(f"No decoder for the StructuredValue {kind or 'with no value'}.")
