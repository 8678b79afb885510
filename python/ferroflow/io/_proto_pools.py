"""Where `tf.io.decode_proto` and `encode_proto` find message schemas (their
`descriptor_source`), and which dtypes a field may be read as or written from, as TensorFlow's
`util/proto/descriptors.cc` and `proto_utils.cc` decide.

A source is ``local://`` (TensorFlow's linked-in schemas: here ferroflow's TensorFlow protos
plus protobuf's well-known types), a file holding a serialized `FileDescriptorSet`, or
``bytes://`` followed by one. Every failure is TensorFlow's InvalidArgumentError."""

import functools

from google.protobuf import (
    any_pb2,
    api_pb2,
    descriptor_pb2,
    descriptor_pool,
    duration_pb2,
    empty_pb2,
    field_mask_pb2,
    message_factory,
    source_context_pb2,
    struct_pb2,
    timestamp_pb2,
    type_pb2,
    wrappers_pb2,
)

from ferroflow import _proto, errors

__all__ = ["cpp_type_name", "find_field", "find_message", "is_compatible", "message_class", "pool"]

_LOCAL = b"local://"
_BYTES = b"bytes://"

# The files a TensorFlow binary links besides its own protos, dependencies first.
_WELL_KNOWN = (
    descriptor_pb2,
    any_pb2,
    duration_pb2,
    empty_pb2,
    field_mask_pb2,
    source_context_pb2,
    struct_pb2,
    timestamp_pb2,
    type_pb2,
    api_pb2,
    wrappers_pb2,
)

_F = descriptor_pb2.FieldDescriptorProto

# `proto_utils::IsCompatibleType`: the dtypes each field type converts to and from.
_COMPATIBLE = {
    _F.TYPE_DOUBLE: ("float64",),
    _F.TYPE_FLOAT: ("float32", "float64"),
    _F.TYPE_INT64: ("int64",),
    _F.TYPE_UINT64: ("uint64",),
    _F.TYPE_INT32: ("int32", "int64"),
    _F.TYPE_FIXED64: ("uint64",),
    _F.TYPE_FIXED32: ("uint32", "uint64"),
    _F.TYPE_BOOL: ("bool",),
    _F.TYPE_STRING: ("string",),
    _F.TYPE_GROUP: ("string",),
    _F.TYPE_MESSAGE: ("string",),
    _F.TYPE_BYTES: ("string",),
    _F.TYPE_UINT32: ("uint32", "uint64"),
    _F.TYPE_ENUM: ("int32",),
    _F.TYPE_SFIXED32: ("int32", "int64"),
    _F.TYPE_SFIXED64: ("int64",),
    _F.TYPE_SINT32: ("int32", "int64"),
    _F.TYPE_SINT64: ("int64",),
}

# FieldDescriptor::CppTypeName, as TensorFlow's output-type error prints a field's C++ type.
_CPP_TYPE_NAMES = {
    1: "int32",
    2: "int64",
    3: "uint32",
    4: "uint64",
    5: "double",
    6: "float",
    7: "bool",
    8: "enum",
    9: "string",
    10: "message",
}


def _invalid(message, op=None):
    suffix = f" [Op:{op}]" if op else ""
    return errors.InvalidArgumentError(None, None, message + suffix)


def _pool_from_set(serialized):
    """A pool of the files of a serialized FileDescriptorSet; None when it does not parse."""
    try:
        files = descriptor_pb2.FileDescriptorSet.FromString(serialized)
    except Exception:  # noqa: BLE001 - protobuf's DecodeError, or worse on hostile bytes
        return None
    result = descriptor_pool.DescriptorPool()
    added = {}
    for file_proto in files.file:
        # C++'s BuildFile accepts a file identical to one already built; protobuf's Python
        # pool refuses any second file of a name.
        if added.get(file_proto.name) == file_proto:
            continue
        try:
            result.Add(file_proto)
        except Exception:  # noqa: BLE001 - TypeError from upb, others from pure Python
            raise _invalid(f"Failed to load FileDescriptorProto: {file_proto}") from None
        added[file_proto.name] = file_proto
    return result


@functools.cache
def _local_pool():
    result = descriptor_pool.DescriptorPool()
    for module in _WELL_KNOWN:
        file_proto = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(file_proto)
        result.Add(file_proto)
    with open(_proto._DESC_PATH, "rb") as f:
        files = descriptor_pb2.FileDescriptorSet.FromString(f.read())
    for file_proto in files.file:
        result.Add(file_proto)
    return result


@functools.lru_cache(maxsize=16)
def _bytes_pool(serialized):
    return _pool_from_set(serialized)


def _file_contents(path):
    from ferroflow.io import gfile

    try:
        name = path.decode()
        if not gfile.exists(name) or gfile.isdir(name):
            return None
        with gfile.GFile(name, "rb") as f:
            return f.read()
    except Exception:  # noqa: BLE001 - any unreadable path falls through, as in TensorFlow
        return None


def pool(source, op):
    """The descriptor pool of ``source`` (bytes), in TensorFlow's order: ``local://``, then a
    readable file, then ``bytes://``; errors name the kernel ``op``."""
    if source in (_LOCAL, b""):
        return _local_pool()
    contents = _file_contents(source)
    if contents is not None:
        # A file that is no FileDescriptorSet falls through to the bytes:// reading below.
        # Pools are cached by the file's contents: TensorFlow builds one per kernel, not per
        # call (a `Dataset.map` calls once per element).
        try:
            result = _bytes_pool(contents)
        except errors.InvalidArgumentError:
            result = None
        if result is not None:
            return result
    try:
        result = _bytes_pool(source[len(_BYTES) :]) if source.startswith(_BYTES) else None
    except errors.InvalidArgumentError as e:
        raise _invalid(e.message, op) from None
    if result is None:
        shown = source.decode("utf-8", "replace")
        raise _invalid(
            "Source does not represent serialized file descriptor set proto. This may be due "
            "to a missing dependency on the file containing "
            f'REGISTER_DESCRIPTOR_POOL("{shown}", ...);',
            op,
        )
    return result


def find_message(source_pool, message_type, op):
    """The descriptor of ``message_type`` (str), or TensorFlow's error."""
    try:
        return source_pool.FindMessageTypeByName(message_type)
    except KeyError:
        raise _invalid(f"No descriptor found for message type {message_type}", op) from None


def find_field(source_pool, message, name, message_type, op, extensions):
    """The field ``name`` of ``message``; with ``extensions``, also an extension of it by full
    name (DecodeProtoV2 looks them up, EncodeProto does not)."""
    field = message.fields_by_name.get(name)
    if field is None and extensions:
        field = next(
            (e for e in source_pool.FindAllExtensions(message) if e.full_name == name), None
        )
    if field is None:
        raise _invalid(f"Unknown field: {name} in message type {message_type}", op)
    return field


def is_compatible(field, dtype):
    """Whether a field of ``field``'s type converts to and from ``dtype``."""
    return dtype.name in _COMPATIBLE[field.type]


def cpp_type_name(field):
    return _CPP_TYPE_NAMES[field.cpp_type]


def message_class(message):
    """The Python class of a message descriptor (to parse text or re-serialize binary)."""
    return message_factory.GetMessageClass(message)
