"""One element component as the ``TensorProto`` record TensorFlow's snapshot writer makes of
it (`Dataset.save`/`snapshot` shard files), and back.

- A dense tensor: numbers packed in ``tensor_content``; strings there too (every length as a
  varint, then all the bytes), so ferroflow's shard files are TensorFlow's byte for byte.
- A `RaggedTensorSpec` component: a scalar DT_VARIANT tensor whose ``tensor_content`` is the
  varint length of one ``VariantTensorDataProto`` (type ``RaggedTensorVariant``) and the
  proto: the row splits, outermost first, then the flat values.

Reading trusts nothing: every length is checked against the bytes present, ragged row
splits are validated, and any damage is DataLossError.
"""

import numpy as np
from google.protobuf.message import DecodeError

from ferroflow import _core, errors
from ferroflow._proto import message_class

__all__ = ["component_record", "parse_component", "record_dtype", "savable"]

_VARIANT = 21  # DT_VARIANT
_RAGGED = "RaggedTensorVariant"


def savable(spec):
    """Whether components of ``spec`` have a record encoding here."""
    from ferroflow.ragged.ragged_tensor_spec import RaggedTensorSpec
    from ferroflow.tensor_spec import TensorSpec

    return type(spec) in (TensorSpec, RaggedTensorSpec)


def record_dtype(spec):
    """The DataType number of ``spec``'s records (the metadata's dtype list)."""
    from ferroflow.tensor_spec import TensorSpec

    return spec.dtype.as_datatype_enum if type(spec) is TensorSpec else _VARIANT


def _tensor_proto(**fields):
    return message_class("tensorflow.TensorProto")(**fields)


def _varint_bytes(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _varint(data, at):
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise ValueError("a truncated length")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        shift += 7
        if not byte & 0x80:
            return value, at


def _dense_record(tensor):
    from ferroflow import string

    if tensor.dtype != string:
        return _core.serialize_tensor(tensor)
    values = [bytes(v) for v in np.asarray(tensor.numpy(), dtype=object).reshape(-1)]
    proto = _tensor_proto(dtype=tensor.dtype.as_datatype_enum)
    proto.tensor_shape.SetInParent()
    for d in tensor.shape:
        proto.tensor_shape.dim.add().size = d
    if values:
        proto.tensor_content = b"".join(map(_varint_bytes, map(len, values))) + b"".join(values)
    return proto.SerializeToString()


def component_record(value, spec):
    """The record bytes of one component ``value`` of spec ``spec``."""
    from ferroflow.tensor_spec import TensorSpec

    if type(spec) is TensorSpec:
        return _dense_record(value)
    if spec._ragged_rank == 0:
        parts = [value]
    else:
        parts = [*value.nested_row_splits, value.flat_values]
    data = message_class("tensorflow.VariantTensorDataProto")(type_name=_RAGGED)
    for part in parts:
        data.tensors.add().ParseFromString(_dense_record(part))
    encoded = data.SerializeToString()
    proto = _tensor_proto(dtype=_VARIANT, tensor_content=_varint_bytes(len(encoded)) + encoded)
    proto.tensor_shape.SetInParent()
    return proto.SerializeToString()


def _strings_in_content(proto):
    """``proto``'s string ``tensor_content`` moved into ``string_val`` (which
    `_core.parse_tensor` reads)."""
    content = proto.tensor_content
    count = 1
    for d in proto.tensor_shape.dim:
        count *= max(d.size, 0)
    if count > len(content):  # every string takes at least its one-byte length
        raise ValueError("more strings than bytes")
    lengths, at = [], 0
    for _ in range(count):
        n, at = _varint(content, at)
        lengths.append(n)
    if at + sum(lengths) != len(content):
        raise ValueError("string lengths do not match the content")
    for n in lengths:
        proto.string_val.append(content[at : at + n])
        at += n
    proto.tensor_content = b""


def _parse_dense(proto, dtype):
    from ferroflow import string

    if dtype == string and proto.tensor_content:
        _strings_in_content(proto)
    return _core.parse_tensor(proto.SerializeToString(), dtype.as_datatype_enum)


def _parse_ragged(proto, spec):
    from ferroflow.ragged.ragged_tensor import RaggedTensor

    if proto.dtype != _VARIANT or len(proto.tensor_shape.dim) != 0:
        raise ValueError("a ragged component must be a scalar DT_VARIANT tensor")
    if proto.variant_val:
        (data,) = proto.variant_val
    else:
        content = proto.tensor_content
        n, at = _varint(content, 0)
        if at + n != len(content):
            raise ValueError("the variant's length does not match its content")
        data = message_class("tensorflow.VariantTensorDataProto").FromString(content[at:])
    if data.type_name != _RAGGED or len(data.tensors) != spec._ragged_rank + 1:
        raise ValueError(
            f"expected a {_RAGGED} of ragged rank {spec._ragged_rank}, got "
            f"{data.type_name!r} holding {len(data.tensors)} tensors"
        )
    *splits, values = data.tensors
    values = _parse_dense(values, spec.dtype)
    if not splits:
        return values
    splits = [_parse_dense(s, spec._row_splits_dtype) for s in splits]
    return RaggedTensor.from_nested_row_splits(values, splits, validate=True)


def parse_component(record, spec, file):
    """The component of spec ``spec`` that ``record`` (read from ``file``) holds."""
    from ferroflow import string
    from ferroflow.tensor_spec import TensorSpec

    try:
        if type(spec) is TensorSpec and spec.dtype != string:
            return _core.parse_tensor(record, spec.dtype.as_datatype_enum)
        proto = message_class("tensorflow.TensorProto").FromString(record)
        if type(spec) is TensorSpec:
            return _parse_dense(proto, spec.dtype)
        return _parse_ragged(proto, spec)
    except (errors.InvalidArgumentError, DecodeError, ValueError) as e:
        raise errors.DataLossError(
            None, None, f"Unable to parse tensor from stored proto in {file}: {e}"
        ) from None
