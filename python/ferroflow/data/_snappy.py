"""TensorFlow's SNAPPY-compressed record files (what `Dataset.save(compression="SNAPPY")` and
`snapshot`'s default ``"AUTO"`` write): the TFRecord stream in blocks, each a 4-byte
big-endian length and a raw snappy block. The blocks are made and read in Rust with the
`snap` crate (`src/io/snappy.rs`); a damaged file is DataLossError, and no block's declared
size is allocated before it is checked against the bytes present."""

from ferroflow import _core

__all__ = ["compress_file", "decompress_file"]


def decompress_file(path):
    """The TFRecord stream a SNAPPY file holds; DataLossError for a damaged one."""
    with open(path, "rb") as f:
        data = f.read()
    return _core.snappy_decompress_blocks(data, str(path))


def compress_file(data, path):
    """Writes the TFRecord stream ``data`` to ``path`` as SNAPPY blocks."""
    with open(path, "wb") as f:
        f.write(_core.snappy_compress_blocks(bytes(data)))
