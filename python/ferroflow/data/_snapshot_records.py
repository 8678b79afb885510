"""One element component as the ``TensorProto`` record TensorFlow's snapshot writer makes of
it (`Dataset.save`/`snapshot` shard files), and back.

- A dense tensor: numbers packed in ``tensor_content``; strings there too (every length as a
  varint, then all the bytes), so ferroflow's shard files are TensorFlow's byte for byte.
- A `RaggedTensorSpec` component: a scalar DT_VARIANT tensor whose ``tensor_content`` is the
  varint length of one ``VariantTensorDataProto`` (type ``RaggedTensorVariant``) and the
  proto: the row splits, outermost first, then the flat values.
- A `SparseTensorSpec` component: a DT_VARIANT vector of 3 ``VariantTensorDataProto``s of
  type ``tensorflow::Tensor`` (indices, values, dense shape): the 3 varint lengths, then the
  protos.

Reading trusts nothing: every length is checked against the bytes present, ragged row
splits are validated, and any damage is DataLossError.
"""

import numpy as np
from google.protobuf.message import DecodeError

from ferroflow import _core, errors
from ferroflow._proto import message_class
from ferroflow.data import _varint

__all__ = ["component_record", "parse_component", "record_dtype", "savable"]

_VARIANT = 21  # DT_VARIANT
_RAGGED = "RaggedTensorVariant"
_TENSOR = "tensorflow::Tensor"


def savable(spec):
    """Whether components of ``spec`` have a record encoding here."""
    from ferroflow.ragged.ragged_tensor_spec import RaggedTensorSpec
    from ferroflow.sparse_tensor import SparseTensorSpec
    from ferroflow.tensor_spec import TensorSpec

    return type(spec) in (TensorSpec, RaggedTensorSpec, SparseTensorSpec)


def record_dtype(spec):
    """The DataType number of ``spec``'s records (the metadata's dtype list)."""
    from ferroflow.tensor_spec import TensorSpec

    return spec.dtype.as_datatype_enum if type(spec) is TensorSpec else _VARIANT


def _tensor_proto(**fields):
    return message_class("tensorflow.TensorProto")(**fields)


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
        proto.tensor_content = b"".join(map(_varint.encode, map(len, values))) + b"".join(values)
    return proto.SerializeToString()


def _variant_record(groups, type_name):
    """A DT_VARIANT record of one ``VariantTensorDataProto`` of ``type_name`` per group of
    tensors in ``groups`` (a vector when there are several, as TensorFlow's sparse one)."""
    encoded = []
    for tensors in groups:
        data = message_class("tensorflow.VariantTensorDataProto")(type_name=type_name)
        for t in tensors:
            data.tensors.add().ParseFromString(_dense_record(t))
        encoded.append(data.SerializeToString())
    lengths = b"".join(_varint.encode(len(e)) for e in encoded)
    proto = _tensor_proto(dtype=_VARIANT, tensor_content=lengths + b"".join(encoded))
    proto.tensor_shape.SetInParent()
    if len(groups) > 1:
        proto.tensor_shape.dim.add().size = len(groups)
    return proto.SerializeToString()


def component_record(value, spec):
    """The record bytes of one component ``value`` of spec ``spec``."""
    from ferroflow.sparse_tensor import SparseTensorSpec
    from ferroflow.tensor_spec import TensorSpec

    if type(spec) is TensorSpec:
        return _dense_record(value)
    if type(spec) is SparseTensorSpec:
        parts = (value.indices, value.values, value.dense_shape)
        return _variant_record([[p] for p in parts], _TENSOR)
    if spec._ragged_rank == 0:
        return _variant_record([[value]], _RAGGED)
    return _variant_record([[*value.nested_row_splits, value.flat_values]], _RAGGED)


def _strings_in_content(proto):
    """``proto``'s string ``tensor_content`` moved into ``string_val`` (which
    `_core.parse_tensor` reads)."""
    count = 1
    for d in proto.tensor_shape.dim:
        count *= max(d.size, 0)
    proto.string_val.extend(_byte_strings(proto.tensor_content, count, "strings"))
    proto.tensor_content = b""


def _byte_strings(content, count, what):
    """The ``count`` byte strings packed in ``content`` as TensorFlow packs a list of them:
    every length as a varint, then all the bytes (which must fill ``content`` exactly)."""
    if count > len(content):  # every string takes at least its one-byte length
        raise ValueError(f"more {what} than bytes")
    lengths, at = [], 0
    for _ in range(count):
        n, at = _varint.read(content, at)
        lengths.append(n)
    if at + sum(lengths) != len(content):
        raise ValueError(f"the {what}' lengths do not match their content")
    out = []
    for n in lengths:
        out.append(content[at : at + n])
        at += n
    return out


def _parse_dense(proto, dtype):
    from ferroflow import string

    if dtype == string and proto.tensor_content:
        _strings_in_content(proto)
    return _core.parse_tensor(proto.SerializeToString(), dtype.as_datatype_enum)


def _variants(proto, shape, type_name, sizes):
    """The ``VariantTensorDataProto``s of a DT_VARIANT record of ``shape`` (``[]`` or
    ``[n]``), each checked to be of ``type_name`` and to hold a number of tensors in
    ``sizes``."""
    if proto.dtype != _VARIANT or [d.size for d in proto.tensor_shape.dim] != shape:
        raise ValueError(f"expected a DT_VARIANT tensor of shape {shape}")
    count = shape[0] if shape else 1
    if proto.variant_val:
        found = list(proto.variant_val)
    else:
        data_class = message_class("tensorflow.VariantTensorDataProto")
        packed = _byte_strings(proto.tensor_content, count, "variants")
        found = [data_class.FromString(b) for b in packed]
    if len(found) != count:
        raise ValueError(f"expected {count} variants, got {len(found)}")
    for data in found:
        if data.type_name != type_name or len(data.tensors) not in sizes:
            raise ValueError(
                f"expected a {type_name} of {sizes[0]} tensors, got {data.type_name!r} "
                f"holding {len(data.tensors)}"
            )
    return found


def _parse_sparse(proto, spec):
    from ferroflow import int64
    from ferroflow.sparse_tensor import SparseTensor

    indices, values, shape = (
        _parse_dense(d.tensors[0], dtype)
        for d, dtype in zip(_variants(proto, [3], _TENSOR, (1,)), (int64, spec.dtype, int64))
    )
    dims = shape.numpy()
    if (
        shape.shape.rank != 1
        or indices.shape.rank != 2
        or values.shape.rank != 1
        or indices.shape[0] != values.shape[0]
        or indices.shape[1] != dims.shape[0]
        or not spec.shape.is_compatible_with(dims.tolist())
        or (dims < 0).any()
        or (indices.numpy() < 0).any()
        or (indices.numpy() >= dims).any()
    ):
        raise ValueError("the sparse tensor's indices, values and shape do not fit")
    return SparseTensor(indices, values, shape)


def _parse_ragged(proto, spec):
    from ferroflow.ragged.ragged_tensor import RaggedTensor

    (data,) = _variants(proto, [], _RAGGED, (spec._ragged_rank + 1,))
    *splits, values = data.tensors
    values = _parse_dense(values, spec.dtype)
    if not splits:
        return values
    splits = [_parse_dense(s, spec._row_splits_dtype) for s in splits]
    return RaggedTensor.from_nested_row_splits(values, splits, validate=True)


def parse_component(record, spec, file, component=0):
    """The component of spec ``spec`` that ``record`` (read from ``file``) holds. A dense one
    of another dtype or an incompatible shape is TensorFlow's InvalidArgumentError naming
    ``component``; a record that is no tensor of the spec's kind is DataLossError."""
    from ferroflow.tensor_spec import TensorSpec

    try:
        value = _parse(record, spec)
    except (errors.InvalidArgumentError, DecodeError, ValueError) as e:
        if type(spec) is TensorSpec:
            _check_dtype(record, spec, component)
        raise errors.DataLossError(
            None, None, f"Unable to parse tensor from stored proto in {file}: {e}"
        ) from None
    if type(spec) is TensorSpec:
        from ferroflow.data._component_check import check_shape

        check_shape(component, tuple(value._dims), spec)
    return value


def _parse(record, spec):
    from ferroflow import string
    from ferroflow.sparse_tensor import SparseTensorSpec
    from ferroflow.tensor_spec import TensorSpec

    if type(spec) is TensorSpec and spec.dtype != string:
        return _core.parse_tensor(record, spec.dtype.as_datatype_enum)
    proto = message_class("tensorflow.TensorProto").FromString(record)
    if type(spec) is TensorSpec:
        return _parse_dense(proto, spec.dtype)
    if type(spec) is SparseTensorSpec:
        return _parse_sparse(proto, spec)
    return _parse_ragged(proto, spec)


def _check_dtype(record, spec, component):
    """Raises TensorFlow's error where ``record`` holds a tensor of another dtype than
    ``spec``'s (nothing where it is no tensor at all)."""
    from ferroflow.data._component_check import check_dtype
    from ferroflow.dtypes import as_dtype

    try:
        dtype = as_dtype(message_class("tensorflow.TensorProto").FromString(record).dtype)
    except (DecodeError, TypeError, ValueError):
        return
    check_dtype(component, dtype, spec)
