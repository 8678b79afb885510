"""Protobuf-style varints (7 bits a byte, low first), as TensorFlow packs the lengths of the
strings and variants in a TensorProto's ``tensor_content``."""

__all__ = ["encode", "read"]


def encode(n):
    """The varint bytes of the non-negative ``n``."""
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def read(data, at, bits=64):
    """The varint at ``data[at:]`` (at most ``bits`` wide) and the position after it;
    ValueError when it is cut short or wider."""
    value = shift = 0
    while True:
        if at >= len(data) or shift >= bits:
            raise ValueError("a truncated or oversized length")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        shift += 7
        if not byte & 0x80:
            return value, at
