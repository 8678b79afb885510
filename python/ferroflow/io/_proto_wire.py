"""The protobuf wire format as TensorFlow's proto kernels read and write it: protobuf's
`CodedInputStream` / `WireFormatLite` rules (ten-byte varints, 32-bit reads that keep the low
bits, groups skipped to their matching end tag, a nesting limit of 100) and the value readers
of `util/proto/decode.h`, whose one quirk is kept: a *packed* int32 read as int64 is
zero-extended (a negative value comes out as its unsigned 32-bit pattern).

Readers take ``(buf, pos)`` and return ``(value, new_pos)``; a malformed buffer raises
`WireError`, which the kernels' code turns into DataLossError with its own message."""

import math
import struct

from google.protobuf import descriptor_pb2

__all__ = [
    "END_GROUP",
    "LENGTH_DELIMITED",
    "WireError",
    "count_packed",
    "encode_value",
    "is_packed_type",
    "make_tag",
    "read_packed",
    "read_tag",
    "read_value",
    "read_varint",
    "skip_field",
    "varint",
    "wire_type_of",
]

VARINT, FIXED64, LENGTH_DELIMITED, START_GROUP, END_GROUP, FIXED32 = range(6)
_RECURSION_LIMIT = 100
_U32 = 0xFFFFFFFF
_U64 = 0xFFFFFFFFFFFFFFFF

_F = descriptor_pb2.FieldDescriptorProto
_T = _F.Type

_FIXED = {  # field type: struct format of its little-endian value
    _F.TYPE_DOUBLE: "<d",
    _F.TYPE_FLOAT: "<f",
    _F.TYPE_FIXED64: "<Q",
    _F.TYPE_SFIXED64: "<q",
    _F.TYPE_FIXED32: "<I",
    _F.TYPE_SFIXED32: "<i",
}
_VARINTS = {
    _F.TYPE_INT64,
    _F.TYPE_UINT64,
    _F.TYPE_INT32,
    _F.TYPE_BOOL,
    _F.TYPE_UINT32,
    _F.TYPE_ENUM,
    _F.TYPE_SINT32,
    _F.TYPE_SINT64,
}
_BYTES = {_F.TYPE_STRING, _F.TYPE_BYTES, _F.TYPE_MESSAGE}


class WireError(Exception):
    """The buffer is not valid wire format where the reader needed it to be."""


def wire_type_of(field_type):
    """`WireFormatLite::WireTypeForFieldType`."""
    if field_type in _VARINTS:
        return VARINT
    if field_type in _BYTES:
        return LENGTH_DELIMITED
    if field_type == _F.TYPE_GROUP:
        return START_GROUP
    return FIXED64 if struct.calcsize(_FIXED[field_type]) == 8 else FIXED32


def is_packed_type(field_type):
    """Whether values of this type can be packed (scalars): the others are never packed."""
    return field_type in _VARINTS or field_type in _FIXED


def make_tag(number, wire_type):
    return ((number << 3) | wire_type) & _U32


# --- reading ---------------------------------------------------------------------------------


def read_varint(buf, pos):
    """A varint of at most ten bytes, as an unsigned 64-bit value (higher bits dropped)."""
    result = shift = 0
    for i in range(10):
        if pos + i >= len(buf):
            raise WireError("truncated varint")
        byte = buf[pos + i]
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result & _U64, pos + i + 1
        shift += 7
    raise WireError("varint longer than ten bytes")


def read_tag(buf, pos):
    """The next tag (32 bits), or 0 where protobuf's ReadTag gives 0: a malformed varint."""
    try:
        value, pos = read_varint(buf, pos)
    except WireError:
        return 0, pos
    return value & _U32, pos


def _take(buf, pos, count):
    if count < 0 or pos + count > len(buf):
        raise WireError("truncated value")
    return buf[pos : pos + count], pos + count


def varint(value):
    """The varint encoding of ``value`` taken as unsigned 64-bit."""
    value &= _U64
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def skip_field(buf, pos, tag, out=None, depth=0):
    """The position after the value of ``tag`` (already read), as `WireFormatLite::SkipField`;
    with ``out`` (a bytearray), also appends the tag and value re-encoded, as the overload
    TensorFlow uses to capture a group's bytes."""
    wire_type = tag & 7
    if wire_type in (END_GROUP, 6, 7):
        raise WireError("unexpected wire type")
    if out is not None:
        out += varint(tag)
    if wire_type == VARINT:
        value, pos = read_varint(buf, pos)
        if out is not None:
            out += varint(value)
    elif wire_type in (FIXED64, FIXED32):
        raw, pos = _take(buf, pos, 8 if wire_type == FIXED64 else 4)
        if out is not None:
            out += raw
    elif wire_type == LENGTH_DELIMITED:
        length, pos = read_varint(buf, pos)
        raw, pos = _take(buf, pos, length & _U32 if length & _U32 < 2**31 else -1)
        if out is not None:
            out += varint(len(raw)) + raw
    else:
        if depth >= _RECURSION_LIMIT:
            raise WireError("groups nested too deeply")
        pos = _skip_group_body(buf, pos, tag >> 3, out, depth + 1)
    return pos


def _skip_group_body(buf, pos, number, out, depth):
    """Skips to the end tag of group ``number``: a missing or mismatched end is an error."""
    while pos < len(buf):
        tag, pos = read_tag(buf, pos)
        if tag == 0:
            break
        if tag & 7 == END_GROUP:
            if tag != make_tag(number, END_GROUP):
                break
            if out is not None:
                out += varint(tag)
            return pos
        pos = skip_field(buf, pos, tag, out, depth)
    raise WireError("group without its end tag")


def _signed(value, bits):
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _zigzag(value):
    return (value >> 1) ^ -(value & 1)


def _from_varint(field_type, raw, packed_int64):
    """The value of a scalar varint field as TensorFlow stores it."""
    if field_type == _F.TYPE_INT64:
        return _signed(raw, 64)
    if field_type == _F.TYPE_UINT64:
        return raw
    if field_type == _F.TYPE_BOOL:
        return raw != 0
    if field_type == _F.TYPE_SINT64:
        return _zigzag(raw)
    low = raw & _U32
    if field_type == _F.TYPE_UINT32:
        return low
    if field_type == _F.TYPE_SINT32:
        return _signed(_zigzag(low), 32)
    if field_type == _F.TYPE_INT32 and packed_int64:
        return low  # decode.h's ReadFromArray<int64, TYPE_INT32> keeps the uint32 bits
    return _signed(low, 32)  # int32, enum


def read_value(buf, pos, field_type, number):
    """One unpacked value of a field of ``field_type`` (its wire type already checked)."""
    if field_type in _VARINTS:
        raw, pos = read_varint(buf, pos)
        return _from_varint(field_type, raw, False), pos
    if field_type in _FIXED:
        fmt = _FIXED[field_type]
        raw, pos = _take(buf, pos, struct.calcsize(fmt))
        return struct.unpack(fmt, raw)[0], pos
    if field_type in _BYTES:
        length, pos = read_varint(buf, pos)
        return _take(buf, pos, length & _U32 if length & _U32 < 2**31 else -1)
    # A group's value is its bytes from its start tag through its end tag.
    out = bytearray()
    pos = skip_field(buf, pos, make_tag(number, START_GROUP), out)
    return bytes(out), pos


def count_packed(chunk, field_type):
    """The number of values in a packed chunk, checked as TensorFlow's counting pass does;
    a WireError carries its message."""
    if field_type in _FIXED:
        size = struct.calcsize(_FIXED[field_type])
        if len(chunk) % size:
            raise WireError(f"Illegal data length for packed fixed-size type: {len(chunk)}")
        return len(chunk) // size
    if field_type not in _VARINTS:
        kind = _T.Name(field_type)
        raise WireError(f"{kind} encountered as packed")
    if chunk[-1] & 0x80:
        raise WireError("Corrupt packed varint")
    count = pos = 0
    try:
        while pos < len(chunk):
            _, pos = read_varint(chunk, pos)
            count += 1
    except WireError:
        raise WireError("Corrupt packed varint") from None
    return count


def read_packed(chunk, field_type, to_int64):
    """The values of a packed chunk (already counted), ``to_int64`` when the output is
    int64 (for the int32 quirk)."""
    if field_type in _FIXED:
        fmt = _FIXED[field_type]
        return [v for (v,) in struct.iter_unpack(fmt, chunk)]
    values, pos = [], 0
    while pos < len(chunk):
        raw, pos = read_varint(chunk, pos)
        values.append(_from_varint(field_type, raw, to_int64))
    return values


# --- writing ---------------------------------------------------------------------------------


def encode_value(field_type, value):
    """One value without tag, as WireFormatLite's `Write*NoTag` writes it from a tensor element
    (integers truncated to the field's width first, as the C++ casts do)."""
    if field_type in _FIXED:
        fmt = _FIXED[field_type]
        if fmt in ("<d", "<f"):
            try:
                return struct.pack(fmt, value)
            except OverflowError:  # a double beyond float's range casts to infinity in C++
                return struct.pack(fmt, math.copysign(math.inf, value))
        bits = struct.calcsize(fmt) * 8
        return struct.pack(fmt.upper(), int(value) & ((1 << bits) - 1))
    value = int(value)
    if field_type in (_F.TYPE_INT32, _F.TYPE_ENUM):
        return varint(_signed(value, 32))  # sign-extended to ten bytes when negative
    if field_type == _F.TYPE_UINT32:
        return varint(value & _U32)
    if field_type == _F.TYPE_SINT32:
        v = _signed(value, 32)
        return varint(((v << 1) ^ (v >> 31)) & _U32)
    if field_type == _F.TYPE_SINT64:
        v = _signed(value, 64)
        return varint((v << 1) ^ (v >> 63))
    if field_type == _F.TYPE_BOOL:
        return varint(1 if value else 0)
    return varint(value)  # int64, uint64
