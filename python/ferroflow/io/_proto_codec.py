"""`tf.io.decode_proto` and `tf.io.encode_proto`: fields of serialized protobuf messages to
dense tensors and back, as TensorFlow's `DecodeProtoV2` and `EncodeProto` kernels
(`decode_proto_op.cc`, `encode_proto_op.cc`) do, rule for rule: host ops (`io/_host.py`) that
read and write the wire format directly (`_proto_wire.py`) with schemas from the
`descriptor_source` (`_proto_pools.py`).

Decoding makes TensorFlow's two passes over the batch: one that counts each field's values
per message (and finds every malformed buffer first), then one that fills tensors of
``batch_shape + [max count]``, padding with the field's default value."""

import collections

import numpy as np
from google.protobuf import descriptor_pb2, text_format

from ferroflow import _tracing, errors
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor
from ferroflow.io import _host
from ferroflow.io import _proto_pools as _pools
from ferroflow.io import _proto_wire as _wire
from ferroflow.io._decode import _bool_attr, _str_attr, _type_name
from ferroflow.tensor_shape import TensorShape

__all__ = ["decode_proto", "encode_proto"]

DecodeProtoV2 = collections.namedtuple("DecodeProtoV2", ["sizes", "values"])

_F = descriptor_pb2.FieldDescriptorProto
_SUBMESSAGES = (_F.TYPE_MESSAGE, _F.TYPE_GROUP)
_INT_MAX = 2**31 - 1
_ENCODE = "EncodeProto"


def _invalid(message, op="DecodeProtoV2"):
    return errors.InvalidArgumentError(None, None, f"{message} [Op:{op}]")


def _data_loss(message):
    return errors.DataLossError(None, None, f"{message} [Op:DecodeProtoV2]")


def _list_attr(value, name, op):
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{name}' argument to '{op}' Op, not {value!r}.")
    return list(value)


def _text(value):
    return value.decode("utf-8", "surrogateescape")


def _shape_string(shape):
    """A shape as TensorShape::DebugString writes it: ``[2,3]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


# --- decode ----------------------------------------------------------------------------------


def _default_value(field, dtype):
    """The field's default as the output dtype holds it (`InitDefaultValueFromFieldDescriptor`):
    a submessage's is empty; a repeated field's is its type's zero."""
    if field.type in _SUBMESSAGES:
        return b""
    if field.is_repeated:
        if field.type == _F.TYPE_ENUM:
            return field.enum_type.values[0].number
        return b"" if dtype == _dtypes.string else dtype.as_numpy_dtype(0)
    value = field.default_value
    if isinstance(value, str):
        return value.encode()
    if field.type == _F.TYPE_FLOAT:
        return float(np.float32(value))  # C++ keeps a float field's default as a float
    return value


def _decode_fields(source_pool, message, message_type, field_names, output_types):
    """The requested fields, checked as the kernel's constructor checks them."""
    if len(field_names) != len(output_types):
        raise _invalid("field_names and output_types attributes must have the same length")
    fields = []
    for name, dtype in zip(field_names, output_types):
        field = _pools.find_field(
            source_pool, message, name, message_type, "DecodeProtoV2", extensions=True
        )
        if not _pools.is_compatible(field, dtype):
            raise _invalid(
                f"Unexpected output type for {field.full_name}: {_pools.cpp_type_name(field)} "
                f"to DT_{_type_name(dtype).upper()}"
            )
        fields.append(field)
    return fields


def _reserialized(buf, message_class, source_pool, binary):
    """A text message (or, to sanitize, a binary one) parsed and written back as binary; a
    message missing required fields does not parse, as in C++."""
    message = message_class()
    try:
        if binary:
            message.ParseFromString(buf)
        else:
            text_format.Parse(buf, message, descriptor_pool=source_pool)
        if not message.IsInitialized():
            raise ValueError("missing required fields")
    except Exception:  # noqa: BLE001 - every parse failure is the kernel's one DataLoss
        kind = "binary" if binary else "text"
        raise _data_loss(f"Unable to parse {kind} protobuf") from None
    return message.SerializeToString()


def _scan(buf, fields, collector_of, output_types):
    """The values of the requested fields in one message, in wire order, as events
    ``(output index, packed?, value or list of values)``; a malformed buffer raises the
    counting pass's DataLossError."""
    events, pos = [], 0
    while pos < len(buf):
        tag, pos = _wire.read_tag(buf, pos)
        if tag == 0 or tag & 7 == _wire.END_GROUP:
            raise _data_loss("CountFields: Failed to consume entire buffer")
        index = collector_of.get(tag >> 3)
        if index is None:
            try:
                pos = _wire.skip_field(buf, pos, tag)
            except _wire.WireError:
                raise _data_loss("Failed skipping unrequested field") from None
            continue
        field = fields[index]
        schema_wire_type = _wire.wire_type_of(field.type)
        if tag & 7 == _wire.LENGTH_DELIMITED and schema_wire_type != _wire.LENGTH_DELIMITED:
            chunk, pos = _packed_chunk(buf, pos)
            if chunk:
                try:
                    _wire.count_packed(chunk, field.type)
                except _wire.WireError as e:
                    raise _data_loss(str(e)) from None
                to_int64 = output_types[index] == _dtypes.int64
                events.append((index, True, _wire.read_packed(chunk, field.type, to_int64)))
            else:
                events.append((index, True, []))
        elif tag & 7 != schema_wire_type:
            # A value of another wire type than the schema's is skipped, not counted.
            try:
                pos = _wire.skip_field(buf, pos, tag)
            except _wire.WireError:
                raise _data_loss("CollectField: Failed skipping malformed field") from None
        else:
            try:
                value, pos = _wire.read_value(buf, pos, field.type, field.number)
            except _wire.WireError:
                raise _data_loss("ReadValue: Failed skipping field when counting") from None
            events.append((index, False, value))
    return events


def _packed_chunk(buf, pos):
    try:
        size, pos = _wire.read_varint(buf, pos)
    except _wire.WireError:
        size = _INT_MAX + 1
    if size > _INT_MAX:
        raise _data_loss("CollectField: Failed reading packed size")
    if pos + size > len(buf):
        raise _data_loss("ReadPackedValues: Skipping packed field failed")
    return buf[pos : pos + size], pos + size


def _count(events, fields, row):
    """`CountCollector`: an optional field counts once however often it appears."""
    for index, packed, value in events:
        repeated = fields[index].is_repeated
        if not packed:
            if row[index] == 0 or repeated:
                row[index] += 1
        elif value:
            row[index] += len(value)
            if not repeated and row[index] > 1:
                row[index] = 1


def _fill(events, fields, outputs, m, defaults):
    """`DenseCollector`: an optional field keeps the last value on the wire; a packed run of
    one only checks its room (its values are overwritten by the default fill, as in C++)."""
    next_index = [0] * len(fields)
    for index, packed, value in events:
        field, out = fields[index], outputs[index]
        if not packed:
            slot = next_index[index] if field.is_repeated else 0
            out[m, slot] = value
            next_index[index] = slot + 1
            continue
        if next_index[index] >= out.shape[1]:
            raise _data_loss(
                "ReadPackedValues: Tried to write more entries than allowed.  Field tag: "
                f"{field.number}, Max entries allowed: {out.shape[1]}"
            )
        if not _wire.is_packed_type(field.type):
            raise _data_loss("Non-primitive type encountered as packed")
        if field.is_repeated:
            out[m, next_index[index] : next_index[index] + len(value)] = value
            next_index[index] += len(value)
    for index, out in enumerate(outputs):
        out[m, next_index[index] :] = defaults[index]


def _decode_batch(attrs, bufs):
    source, message_type, field_names, output_types, message_format, sanitize = attrs
    source_pool = _pools.pool(source, "DecodeProtoV2")
    message = _pools.find_message(source_pool, message_type, "DecodeProtoV2")
    fields = _decode_fields(source_pool, message, message_type, field_names, output_types)
    if message_format not in ("binary", "text"):
        raise _invalid("format must be one of binary or text")
    flat = [bytes(b) for b in bufs.reshape(-1)]
    if not flat:
        raise _invalid("Bufs argument must contain at least one value")
    if message_format == "text" or sanitize:
        message_class = _pools.message_class(message)
        binary = message_format == "binary"
        flat = [_reserialized(b, message_class, source_pool, binary) for b in flat]

    # Of fields named twice, the first name collects the values; the others stay empty.
    collector_of = {}
    for index, field in enumerate(fields):
        collector_of.setdefault(field.number, index)
    scanned = [_scan(b, fields, collector_of, output_types) for b in flat]
    sizes = np.zeros((len(flat), len(fields)), np.int32)
    for m, events in enumerate(scanned):
        _count(events, fields, sizes[m])

    widths = [max(1, int(sizes[:, i].max())) for i in range(len(fields))]
    outputs = [
        np.empty((len(flat), w), object if d == _dtypes.string else d.as_numpy_dtype)
        for w, d in zip(widths, output_types)
    ]
    defaults = [_default_value(f, d) for f, d in zip(fields, output_types)]
    for m, events in enumerate(scanned):
        _fill(events, fields, outputs, m, defaults)
    batch = bufs.shape
    return [sizes.reshape(batch + (len(fields),))] + [
        out.reshape(batch + (out.shape[1],)) for out in outputs
    ]


def decode_proto(
    bytes,  # noqa: A002 - TensorFlow's argument name
    message_type,
    field_names,
    output_types,
    descriptor_source="local://",
    message_format="binary",
    sanitize=False,
    name=None,
):
    """The fields ``field_names`` of the serialized ``message_type`` messages in ``bytes``.

    Returns ``DecodeProtoV2(sizes, values)``: ``sizes`` (int32, ``bytes.shape +
    [len(field_names)]``) counts each field's values per message; ``values[i]``
    (``output_types[i]``, ``bytes.shape + [max count]``) holds them, padded with the field's
    default. Submessages come out as their serialized bytes; ``message_format="text"`` reads
    text-format messages. Schemas come from ``descriptor_source``: ``"local://"``, a file
    holding a serialized ``FileDescriptorSet``, or ``b"bytes://" + serialized set``.

    >>> import ferroflow as tf
    >>> example = tf.train.Example().SerializeToString()
    >>> tf.io.decode_proto([example], "tensorflow.Example", ["features"], [tf.string]).sizes
    <tf.Tensor: shape=(1, 1), dtype=int32, numpy=array([[0]], dtype=int32)>
    """
    op = "decode_proto_v2"
    message_type = _text(_str_attr(message_type, "message_type"))
    field_names = [
        _text(_str_attr(n, "field_names")) for n in _list_attr(field_names, "field_names", op)
    ]
    output_types = [_dtypes.as_dtype(t) for t in _list_attr(output_types, "output_types", op)]
    source = _str_attr(
        "local://" if descriptor_source is None else descriptor_source, "descriptor_source"
    )
    message_format = _text(
        _str_attr("binary" if message_format is None else message_format, "message_format")
    )
    sanitize = _bool_attr(False if sanitize is None else sanitize, "sanitize")
    tensor = _host.string_input(bytes, "DecodeProtoV2")

    attrs = (
        source,
        message_type,
        tuple(field_names),
        tuple(output_types),
        message_format,
        sanitize,
    )
    batch = TensorShape(tensor.shape)
    shapes = [batch.concatenate([len(field_names)])]
    shapes += [batch.concatenate([None])] * len(output_types)
    outputs = _host.run(
        lambda bufs: _decode_batch(attrs, bufs),
        [tensor],
        [_dtypes.int32] + output_types,
        shapes,
    )
    return DecodeProtoV2(outputs[0], outputs[1:])


# --- encode ----------------------------------------------------------------------------------


def _check_values(fields, field_names, sizes, values, value_dtypes):
    """`EncodeProto::Compute`'s checks, in its order; the batch shape."""
    if len(fields) != len(values):
        raise _invalid("Length of inputs list must match field_names", _ENCODE)
    prefix = None
    for field, name, value, dtype in zip(fields, field_names, values, value_dtypes):
        if not _pools.is_compatible(field, dtype):
            field_type = _F.Type.Name(field.type)[len("TYPE_") :].lower()
            raise _invalid(
                f"Incompatible type for field {name}.  Saw dtype: {_type_name(dtype)} but field "
                f"type is: {field_type}",
                _ENCODE,
            )
        if value.ndim < 2:
            raise _invalid(
                f"Invalid shape for field {name}.  Saw shape {_shape_string(value.shape)} but "
                "it should be at least a matrix.",
                _ENCODE,
            )
        if prefix is None:
            prefix = value.shape[:-1]
        elif value.shape[:-1] != prefix:
            raise _invalid("Values must match up to the last dimension", _ENCODE)
    expected = prefix + (len(fields),)
    if sizes.shape != expected:
        raise _invalid(
            f"sizes should be batch_size + [len(field_names)].  Saw: {_shape_string(sizes.shape)}"
            f" but expected: {_shape_string(expected)}",
            _ENCODE,
        )
    flat_sizes = sizes.reshape(-1, len(fields))
    for i, value in enumerate(values):
        width = value.shape[-1]
        for m, size in enumerate(flat_sizes[:, i]):
            if size > width:
                raise _invalid(
                    "Size to write must not be larger than value tensor; but saw: "
                    f"{size} > {width} at message {m} field {i}",
                    _ENCODE,
                )
    return prefix


def _write_field(out, field, row, size):
    """One field's ``size`` values of one message (`WriteField` and its relatives)."""
    number, field_type = field.number, field.type
    count = max(size, 0)  # a negative size writes no value
    if field_type in (_F.TYPE_STRING, _F.TYPE_BYTES, _F.TYPE_MESSAGE):
        for value in row[:count]:
            value = bytes(value)
            out += _wire.varint(_wire.make_tag(number, _wire.LENGTH_DELIMITED))
            out += _wire.varint(len(value)) + value
    elif field_type == _F.TYPE_GROUP:
        for value in row[:count]:
            out += _wire.varint(_wire.make_tag(number, 3)) + bytes(value)
            out += _wire.varint(_wire.make_tag(number, _wire.END_GROUP))
    elif field.is_packed:
        data = b"".join(_wire.encode_value(field_type, v) for v in row[:count])
        length = len(data)
        if size < 0 and _wire.wire_type_of(field_type) != _wire.VARINT:
            # C++ multiplies the (negative) count by the value size into a size_t.
            length = size * len(_wire.encode_value(field_type, 0))
        out += _wire.varint(_wire.make_tag(number, _wire.LENGTH_DELIMITED))
        out += _wire.varint(length & 0xFFFFFFFF) + data
    else:
        tag = _wire.varint(_wire.make_tag(number, _wire.wire_type_of(field_type)))
        for value in row[:count]:
            out += tag + _wire.encode_value(field_type, value)


def _encode_batch(attrs, value_dtypes, sizes, *values):
    source, message_type, field_names = attrs
    source_pool = _pools.pool(source, _ENCODE)
    message = _pools.find_message(source_pool, message_type, _ENCODE)
    fields = [
        _pools.find_field(source_pool, message, n, message_type, _ENCODE, extensions=False)
        for n in field_names
    ]
    prefix = _check_values(fields, field_names, sizes, values, value_dtypes)
    count = int(np.prod(prefix, dtype=np.int64))
    flat_sizes = sizes.reshape(count, len(fields))
    flat_values = [v.reshape(count, v.shape[-1]) for v in values]
    # Fields are written in ascending field number, as serialized protos should be.
    order = sorted(range(len(fields)), key=lambda i: fields[i].number)
    out = np.empty(count, object)
    for m in range(count):
        buf = bytearray()
        for i in order:
            size = int(flat_sizes[m, i])
            if size:
                _write_field(buf, fields[i], flat_values[i][m], size)
        out[m] = bytes(buf)
    return [out.reshape(prefix)]


def _static_batch_shape(values):
    """EncodeProto's shape function: the values' shapes less their last dimension, merged."""
    batch = TensorShape(None)
    for value in values:
        shape = TensorShape(value.shape)
        if shape.rank is not None and shape.rank < 2:
            raise ValueError(
                f"Shape must be at least rank 2 but is rank {shape.rank} for 'EncodeProto'"
            )
        batch = batch.merge_with(shape[:-1] if shape.rank is not None else TensorShape(None))
    return batch


def encode_proto(sizes, values, field_names, message_type, descriptor_source="local://", name=None):
    """Serialized ``message_type`` messages whose fields ``field_names`` hold ``values``.

    ``values[i]`` has shape ``batch_shape + [n_i]`` and a dtype the field converts from;
    ``sizes`` (int32, ``batch_shape + [len(field_names)]``) says how many of each row's values
    each message gets. Returns a string tensor of ``batch_shape``; fields are written in
    field-number order, repeated scalars packed where the schema packs them.

    >>> import ferroflow as tf
    >>> values = tf.constant([[1, 2]], tf.int64)
    >>> tf.io.encode_proto([[2]], [values], ["value"], "tensorflow.Int64List")
    <tf.Tensor: shape=(1,), dtype=string, numpy=array([b'\\n\\x02\\x01\\x02'], dtype=object)>
    """
    op = "encode_proto"
    field_names = [
        _text(_str_attr(n, "field_names")) for n in _list_attr(field_names, "field_names", op)
    ]
    message_type = _text(_str_attr(message_type, "message_type"))
    source = _str_attr(
        "local://" if descriptor_source is None else descriptor_source, "descriptor_source"
    )
    if _tracing.tracing():
        values = _list_attr(values, "values", _ENCODE)
    values = [convert_to_tensor(v) for v in values]  # eagerly, TensorFlow takes any iterable
    sizes = convert_to_tensor(sizes, dtype=_dtypes.int32)
    if not values:
        raise _invalid("Length for attr 'Tinput_types' of 0 must be at least minimum 1", _ENCODE)
    value_dtypes = [v.dtype for v in values]
    shape = _static_batch_shape(values) if _tracing.tracing() else None

    attrs = (source, message_type, tuple(field_names))
    return _host.run(
        lambda s, *v: _encode_batch(attrs, value_dtypes, s, *v),
        [sizes] + values,
        [_dtypes.string],
        [shape],
    )[0]
