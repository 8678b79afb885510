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
- A `tf.experimental.Optional` component (`OptionalSpec`): a scalar DT_VARIANT of one
  ``VariantTensorDataProto`` of type ``tensorflow::data::Optional``: metadata byte 1 and one
  tensor per component of the value (a composite one as its own variant), or byte 0 and none.
- A nested dataset (`DatasetSpec`): TensorFlow writes a ``tensorflow::DatasetVariantWrapper``
  holding nothing, so ferroflow writes the same; reading one back is DataLossError in both.

The tensors inside a variant are written as ``Tensor::AsProtoField`` writes them
(`_tensor_fields`), as TensorFlow's are. Reading trusts nothing: every length is checked
against the bytes present, ragged row splits are validated, and any damage is DataLossError.
"""

import numpy as np
from google.protobuf.message import DecodeError

from ferroflow import _core, errors
from ferroflow._proto import message_class
from ferroflow.data import _structure, _varint
from ferroflow.data._tensor_fields import field_proto

__all__ = ["component_record", "parse_component", "record_dtype", "savable"]

_VARIANT = 21  # DT_VARIANT
_RAGGED = "RaggedTensorVariant"
_TENSOR = "tensorflow::Tensor"
_OPTIONAL = "tensorflow::data::Optional"
_DATASET = "tensorflow::DatasetVariantWrapper"


def savable(spec):
    """Whether components of ``spec`` have a record encoding here."""
    from ferroflow.data._specs import DatasetSpec
    from ferroflow.experimental_ops import OptionalSpec
    from ferroflow.ragged.ragged_tensor_spec import RaggedTensorSpec
    from ferroflow.sparse_tensor import SparseTensorSpec
    from ferroflow.tensor_spec import TensorSpec

    if type(spec) is OptionalSpec:
        return all(savable(s) for s in _structure.flatten(spec.element_spec))
    return type(spec) in (TensorSpec, RaggedTensorSpec, SparseTensorSpec, DatasetSpec)


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


def _variant_data(type_name, tensors=(), metadata=b""):
    data = message_class("tensorflow.VariantTensorDataProto")(
        type_name=type_name, metadata=metadata
    )
    data.tensors.extend(tensors)
    return data


def _variant_datas(value, spec):
    """The ``VariantTensorDataProto``s TensorFlow encodes a composite component as, and the
    shape of its variant tensor (a vector of 3 for a sparse one, else a scalar)."""
    from ferroflow.data._specs import DatasetSpec
    from ferroflow.experimental_ops import OptionalSpec
    from ferroflow.sparse_tensor import SparseTensorSpec

    if type(spec) is SparseTensorSpec:
        parts = (value.indices, value.values, value.dense_shape)
        return [3], [_variant_data(_TENSOR, [field_proto(p)]) for p in parts]
    if type(spec) is DatasetSpec:
        return [], [_variant_data(_DATASET)]
    if type(spec) is OptionalSpec:
        if not bool(value.has_value().numpy()):
            return [], [_variant_data(_OPTIONAL, metadata=b"\x00")]
        leaves = zip(_structure.flatten(value._value), _structure.flatten(spec.element_spec))
        tensors = [_field_message(v, s) for v, s in leaves]
        return [], [_variant_data(_OPTIONAL, tensors, metadata=b"\x01")]
    if spec._ragged_rank == 0:
        return [], [_variant_data(_RAGGED, [field_proto(value)])]
    parts = [*value.nested_row_splits, value.flat_values]
    return [], [_variant_data(_RAGGED, [field_proto(p) for p in parts])]


def _field_message(value, spec):
    """A component inside a variant (an optional's value): a dense tensor as its field proto,
    a composite one as a DT_VARIANT tensor listing its variants in ``variant_val``."""
    from ferroflow.tensor_spec import TensorSpec

    if type(spec) is TensorSpec:
        return field_proto(value)
    shape, datas = _variant_datas(value, spec)
    proto = _tensor_proto(dtype=_VARIANT)
    proto.tensor_shape.SetInParent()
    for d in shape:
        proto.tensor_shape.dim.add().size = d
    proto.variant_val.extend(datas)
    return proto


def component_record(value, spec):
    """The record bytes of one component ``value`` of spec ``spec``: a dense tensor's values in
    ``tensor_content``; a composite's variants there too, each length as a varint first."""
    from ferroflow.tensor_spec import TensorSpec

    if type(spec) is TensorSpec:
        return _dense_record(value)
    shape, datas = _variant_datas(value, spec)
    encoded = [d.SerializeToString() for d in datas]
    lengths = b"".join(_varint.encode(len(e)) for e in encoded)
    proto = _tensor_proto(dtype=_VARIANT, tensor_content=lengths + b"".join(encoded))
    proto.tensor_shape.SetInParent()
    for d in shape:
        proto.tensor_shape.dim.add().size = d
    return proto.SerializeToString()


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
    from ferroflow.tensor_spec import TensorSpec

    if type(spec) is TensorSpec and spec.dtype != string:
        return _core.parse_tensor(record, spec.dtype.as_datatype_enum)
    return _parse_message(message_class("tensorflow.TensorProto").FromString(record), spec)


def _parse_message(proto, spec):
    """The component of spec ``spec`` the ``TensorProto`` message ``proto`` holds."""
    from ferroflow.data._specs import DatasetSpec
    from ferroflow.experimental_ops import OptionalSpec
    from ferroflow.sparse_tensor import SparseTensorSpec
    from ferroflow.tensor_spec import TensorSpec

    if type(spec) is TensorSpec:
        return _parse_dense(proto, spec.dtype)
    if type(spec) is SparseTensorSpec:
        return _parse_sparse(proto, spec)
    if type(spec) is OptionalSpec:
        return _parse_optional(proto, spec)
    if type(spec) is DatasetSpec:
        # TensorFlow's encoding of a dataset keeps nothing of it: nothing to read back.
        _variants(proto, [], _DATASET, (0,))
        raise ValueError("a nested dataset's record holds no dataset")
    return _parse_ragged(proto, spec)


def _parse_optional(proto, spec):
    from ferroflow import constant

    leaves = _structure.flatten(spec.element_spec)
    (data,) = _variants(proto, [], _OPTIONAL, (len(leaves), 0))
    has_value = data.metadata == b"\x01" and len(data.tensors) == len(leaves)
    if not has_value and (data.metadata != b"\x00" or data.tensors):
        raise ValueError("the optional's metadata does not fit its tensors")
    if not has_value:
        from ferroflow.experimental_ops import Optional

        return Optional.empty(spec.element_spec)
    values = []
    for tensor, leaf in zip(data.tensors, leaves):
        value = _parse_message(tensor, leaf)
        if hasattr(leaf, "shape") and not leaf.shape.is_compatible_with(value.shape):
            raise ValueError(f"the optional's value {value.shape} does not fit {leaf}")
        values.append(value)
    return spec._from_components((constant(True), _structure.pack_as(spec.element_spec, values)))


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
