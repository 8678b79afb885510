"""TensorFlow's SNAPPY-compressed record files (what `Dataset.save(compression="SNAPPY")` and
`snapshot`'s default ``"AUTO"`` write): a sequence of blocks, each a 4-byte big-endian
compressed length and a raw snappy block holding the next piece of the TFRecord stream.

Pure Python (ferroflow has no snappy library): reading decodes any valid snappy block,
checking every length and copy offset against the bytes present and the size the block
declares (never allocating from a declared size); writing emits valid snappy blocks of
literals only, which TensorFlow reads, but which are not compressed."""

from ferroflow import errors
from ferroflow.data import _varint

__all__ = ["compress_file", "decompress_file"]

_BLOCK = 1 << 16  # uncompressed bytes per written block (snappy's own block size)
_MAX_BLOCK = 1 << 30  # the largest block a reader accepts


def _take(block, at, n):
    if at + n > len(block):
        raise ValueError("a block or length is cut short")
    return block[at : at + n], at + n


def _decompress_block(block):
    size, at = _varint.read(block, 0, 32)
    if size > _MAX_BLOCK:
        raise ValueError(f"a block declares {size} bytes")
    out = bytearray()
    while at < len(block):
        tag = block[at]
        at += 1
        kind = tag & 3
        if kind == 0:  # a literal: its length in the tag or in 1-4 following bytes
            length = tag >> 2
            if length >= 60:
                raw, at = _take(block, at, length - 59)
                length = int.from_bytes(raw, "little")
            piece, at = _take(block, at, length + 1)
            out += piece
        else:  # a copy of earlier output
            if kind == 1:
                raw, at = _take(block, at, 1)
                length, offset = 4 + ((tag >> 2) & 7), ((tag >> 5) << 8) | raw[0]
            else:
                raw, at = _take(block, at, 2 if kind == 2 else 4)
                length, offset = (tag >> 2) + 1, int.from_bytes(raw, "little")
            if offset == 0 or offset > len(out):
                raise ValueError("a copy reaches before the start of the block")
            start = len(out) - offset
            if offset >= length:
                out += out[start : start + length]
            else:  # overlapping: the last `offset` bytes repeat
                pattern = bytes(out[start:])
                out += (pattern * (length // offset + 1))[:length]
        if len(out) > size:
            raise ValueError("a block holds more than it declares")
    if len(out) != size:
        raise ValueError("a block holds less than it declares")
    return bytes(out)


def decompress_file(path):
    """The TFRecord stream a SNAPPY file holds; DataLossError for a damaged one."""
    with open(path, "rb") as f:
        data = f.read()
    pieces, at = [], 0
    try:
        while at < len(data):
            raw, at = _take(data, at, 4)
            block, at = _take(data, at, int.from_bytes(raw, "big"))
            pieces.append(_decompress_block(block))
    except ValueError as e:
        raise errors.DataLossError(None, None, f"{path} is not a valid snappy file: {e}") from None
    return b"".join(pieces)


def _literal_block(chunk):
    n = len(chunk) - 1
    if n < 60:
        tag = bytes([n << 2])
    else:
        width = (n.bit_length() + 7) // 8
        tag = bytes([(59 + width) << 2]) + n.to_bytes(width, "little")
    block = _varint.encode(len(chunk)) + tag + chunk
    return len(block).to_bytes(4, "big") + block


def compress_file(data, path):
    """Writes the TFRecord stream ``data`` to ``path`` as SNAPPY blocks."""
    with open(path, "wb") as f:
        for at in range(0, len(data), _BLOCK):
            f.write(_literal_block(data[at : at + _BLOCK]))
