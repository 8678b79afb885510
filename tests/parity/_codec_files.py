"""Small image files built byte by byte (no imaging library): PNGs of every colour type and bit
depth, GIFs (uncompressed LZW: a clear code before the table would widen), BMPs. The parity
tests hand the bytes to both frameworks."""

import struct
import zlib


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(width, height, depth, color_type, rows, extra=b"", interlace=0):
    """A PNG of filter-0 `rows` (bytes each); `extra` chunks (PLTE, tRNS) before IDAT."""
    header = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, interlace)
    raw = b"".join(b"\0" + r for r in rows)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + extra
        + _chunk(b"IDAT", zlib.compress(raw))
        + _chunk(b"IEND", b"")
    )


def png_chunk(kind, data):
    """One PNG chunk (for PLTE and tRNS)."""
    return _chunk(kind, data)


def _lzw(indices):
    """GIF LZW data with 8-bit codes: literals only, a clear code every 254 of them."""
    clear, end, bits, out, acc, n = 256, 257, 9, bytearray(), 0, 0
    codes = [clear]
    for k, v in enumerate(indices):
        if k and k % 254 == 0:
            codes.append(clear)
        codes.append(v)
    codes.append(end)
    for c in codes:
        acc |= c << n
        n += bits
        while n >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            n -= 8
    if n:
        out.append(acc & 0xFF)
    blocks = b"".join(
        bytes([len(out[i : i + 255])]) + bytes(out[i : i + 255]) for i in range(0, len(out), 255)
    )
    return bytes([8]) + blocks + b"\0"


def gif(width, height, palette, frames):
    """A GIF89a; `frames` are (left, top, w, h, indices, transparent index or None)."""
    size = len(palette) // 3
    bits = max(1, (size - 1).bit_length())
    table = palette + b"\0" * (3 * (1 << bits) - len(palette))
    out = b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80 | (bits - 1), 0, 0) + table
    for left, top, w, h, indices, transparent in frames:
        flags = 1 if transparent is not None else 0
        out += b"\x21\xf9\x04" + bytes([flags]) + b"\0\0" + bytes([transparent or 0]) + b"\0"
        out += b"\x2c" + struct.pack("<HHHHB", left, top, w, h, 0) + _lzw(indices)
    return out + b"\x3b"


def bmp(width, height, bpp, pixel_rows):
    """An uncompressed BMP with a 54-byte header; `pixel_rows` padded to 4 bytes by the caller."""
    data = b"".join(pixel_rows)
    header = b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, bpp, 0, len(data), 0, 0, 0, 0)
    return header + info + data


def webp_solid(width, height, rgba, alpha_used):
    """A lossless (VP8L) WebP of one colour: every prefix code has one symbol, so the pixels
    take no bits."""
    bits = []

    def put(value, n):
        bits.extend((value >> i) & 1 for i in range(n))

    put(0x2F, 8)
    put(width - 1, 14)
    put(height - 1, 14)
    put(int(alpha_used), 1)
    put(0, 3)
    put(0, 3)  # no transform, no colour cache, no meta prefix codes
    r, g, b, a = rgba
    for symbol in (g, r, b, a):
        put(1, 1)  # simple code
        put(0, 1)  # one symbol
        put(1, 1)  # of 8 bits
        put(symbol, 8)
    put(1, 1)  # the distance code: one 1-bit symbol, 0
    put(0, 1)
    put(0, 1)
    put(0, 1)
    bits.extend([0] * (-len(bits) % 8))
    data = bytes(
        sum(bit << i for i, bit in enumerate(bits[k : k + 8])) for k in range(0, len(bits), 8)
    )
    chunk = b"VP8L" + struct.pack("<I", len(data)) + data + b"\0" * (len(data) % 2)
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk
