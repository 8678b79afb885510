"""`tf.io.TFRecordWriter` and `tf.io.TFRecordOptions`: TensorFlow's TFRecord files, written by
Rust (``ferroflow._core.TFRecordWriter``) with the GIL released."""

from __future__ import annotations

from ferroflow import _core, errors
from ferroflow.io import _filesystem as _fs
from ferroflow.io import _ram_filesystem as _ram


class TFRecordCompressionType:
    """The compression of a TFRecord file, as TensorFlow 1's integer constants."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """Options of a TFRecord file: its compression and zlib's tuning knobs.

    Only ``compression_type`` and ``compression_level`` change what ferroflow writes; the other
    zlib options are accepted and kept (they tune how zlib compresses, never what a reader reads
    back), except values ferroflow's compressor cannot honour, which raise.
    """

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(
        self,
        compression_type=None,
        flush_mode=None,
        input_buffer_size=None,
        output_buffer_size=None,
        window_bits=None,
        compression_level=None,
        compression_method=None,
        mem_level=None,
        compression_strategy=None,
    ):
        # Validated now, kept as given (TensorFlow keeps the original value too).
        self.get_compression_type_string(compression_type)
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """``"ZLIB"``, ``"GZIP"`` or ``""`` for options, a compression-type constant or a string.

        Raises ValueError for anything else.
        """
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if isinstance(options, (int, str)):
            if options in cls.compression_type_map:
                return cls.compression_type_map[options]
            if options in cls.compression_type_map.values():
                return options
        raise ValueError(f'Not a valid compression_type: "{options}"')

    def _writer_arguments(self):
        """(compression string, zlib level) for the Rust writer; raises for unsupported knobs."""
        # zlib's window is 2**window_bits; a smaller one only compresses less, but 8 and values
        # outside 9..15 change the stream format, which ferroflow's compressor cannot write.
        if self.window_bits is not None and not 9 <= self.window_bits <= 15:
            raise errors.UnimplementedError(
                None, None, f"TFRecordOptions window_bits={self.window_bits} is not supported"
            )
        if self.compression_method not in (None, 8):  # Z_DEFLATED is zlib's only method.
            raise errors.InvalidArgumentError(
                None, None, f"Invalid compression_method: {self.compression_method}"
            )
        level = -1 if self.compression_level is None else int(self.compression_level)
        return self.get_compression_type_string(self.compression_type), level


class TFRecordWriter:
    """Writes records (``bytes``) to a TFRecord file, optionally ZLIB- or GZIP-compressed.

    >>> import os, tempfile, ferroflow as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "data.tfrecord")
    >>> with tf.io.TFRecordWriter(path) as writer:
    ...     writer.write(b"record")
    >>> os.path.getsize(path)
    22
    """

    def __init__(self, path, options=None):
        if not isinstance(options, TFRecordOptions):
            options = TFRecordOptions(compression_type=options)
        compression, level = options._writer_arguments()
        name = _path_string(path)
        # TensorFlow's ram files are appended to: the records follow what was there.
        append = _ram.owns(name)
        if append:
            name = _fs.writable_path(name)
        self._writer = _core.TFRecordWriter(name, compression, level, append)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()

    def write(self, record):
        """Appends one record (``bytes``; a ``str`` is written as UTF-8)."""
        if isinstance(record, str):
            record = record.encode("utf-8")
        elif not isinstance(record, (bytes, bytearray, memoryview)):
            raise TypeError(
                "write(): incompatible function arguments. The record must be bytes or str, "
                f"got {type(record).__name__}"
            )
        self._writer.write(bytes(record))

    def flush(self):
        """Pushes the records written so far to the file."""
        self._writer.flush()

    def close(self):
        """Finishes and closes the file; later writes raise FailedPreconditionError."""
        self._writer.close()


def _path_string(path):
    """The writer's path as text: a str or bytes only, as TensorFlow's `compat.as_bytes` takes
    (anything else used to be written to a file named by its `str`)."""
    if isinstance(path, bytes):
        return path.decode("utf-8")
    if not isinstance(path, str):
        raise TypeError(f"Expected binary or unicode string, got {path!r}")
    return path


__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter"]
