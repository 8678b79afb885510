"""The file datasets: `TextLineDataset`, `FixedLengthRecordDataset`, `TFRecordDataset`,
`experimental.CsvDataset` and `Dataset.list_files`.

Each reads its files in order (``num_parallel_reads=None``) or interleaved one element at a
time from ``num_parallel_reads`` files, as TensorFlow's readers build on `flat_map` and the
deterministic parallel interleave. Files are read when iterated, so a missing file raises
`NotFoundError` at the first element, as in TensorFlow. Compression (``"ZLIB"``, ``"GZIP"``)
is inflated as TensorFlow's `ZlibInputStream` does.
"""

import zlib

import numpy as np

from ferroflow import _core, _tracing, errors
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import constant, convert_to_tensor, reshape
from ferroflow.data.dataset import (
    AUTOTUNE,
    UNKNOWN_CARDINALITY,
    Dataset,
    check_count,
    dataset_construction,
)
from ferroflow.io import _decode, _filesystem
from ferroflow.tensor_spec import TensorSpec

__all__ = [
    "CsvDataset",
    "FixedLengthRecordDataset",
    "TFRecordDataset",
    "TextLineDataset",
    "list_files",
]

_CHUNK = 256 * 1024
_STRING_SPEC = TensorSpec([], _dtypes.string)
_STRING = _dtypes.string.as_datatype_enum


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return value


def _scalar_value(value):
    """A Python value from a Python scalar or a scalar tensor."""
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        value = value.item()
    return _text(value) if isinstance(value, bytes) else value


# --- filenames -------------------------------------------------------------------------------


def filenames_dataset(filenames):
    """TensorFlow's `_create_or_validate_filenames_dataset`: a dataset of scalar strings."""
    if isinstance(filenames, Dataset):
        spec = filenames.element_spec
        if not isinstance(spec, TensorSpec) or spec.dtype != _dtypes.string:
            kind = spec.dtype if isinstance(spec, TensorSpec) else type(spec)
            raise TypeError(
                "The `filenames` argument must contain `tf.string` elements. Got a dataset of "
                f"`{kind!r}` elements."
            )
        if not spec.shape.is_compatible_with([]):
            raise TypeError(
                "The `filenames` argument must contain `tf.string` elements of shape [] (i.e. "
                f"scalars). Got a dataset of element shape {spec.shape!r}."
            )
        return filenames
    tensor = convert_to_tensor(filenames, dtype_hint=_dtypes.string)
    if tensor.dtype != _dtypes.string:
        raise TypeError(
            "The `filenames` argument must contain `tf.string` elements. Got "
            f"`{tensor.dtype!r}` elements."
        )
    return Dataset.from_tensor_slices(reshape(tensor, [-1]))


class _FilesDataset(Dataset):
    """The records of each file of a filenames dataset, file after file (`flat_map`)."""

    _repr_name = "_FlatMapDataset"

    def __init__(self, filenames, read, spec):
        self._filenames = filenames
        self._read = read
        self._spec = spec
        # A reader that reads many records into one tensor sets this: a file's name to a
        # function of `n` giving up to `n` records as a `[k]` tensor, None at the end.
        self.open_batches = None

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _elements(self):
        return _Chain(self._filenames._elements(), self._read)

    def batches(self, size, drop_remainder):
        """The records in batches of ``size`` (`batch` fused with the reader: the records of
        a batch are read into one tensor, none is made per record), or None where the reader
        cannot. A batch may span files, as `batch` of the records does."""
        if self.open_batches is None:
            return None
        return self._batches(size, drop_remainder)

    def _batches(self, size, drop_remainder):
        from ferroflow.array_ops import concat

        parts, have = [], 0
        for name in self._filenames._elements():
            take = self.open_batches(name)
            while True:
                part = take(size - have)
                if part is None:
                    break
                parts.append(part)
                have += part.shape[0]
                if have == size:
                    yield parts[0] if len(parts) == 1 else concat(parts, 0)
                    parts, have = [], 0
        if parts and not drop_remainder:
            yield parts[0] if len(parts) == 1 else concat(parts, 0)


class _Chain:
    """The records of file after file. An iterator object rather than a generator, so that
    `ignore_errors` can go on past a bad record (or a file that cannot be read), as
    TensorFlow's reader iterators do."""

    def __init__(self, names, read):
        self._names = iter(names)
        self._read = read
        self._current = None

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            if self._current is None:
                name = next(self._names)
                self._current = iter(())  # a file whose reading fails is skipped next time
                self._current = iter(self._read(name))
            try:
                return next(self._current)
            except StopIteration:
                self._current = None


class _OneFile(Dataset):
    """The records of one file (what `interleave`'s function returns)."""

    def __init__(self, name, read, spec):
        self._name = name
        self._read = read
        self._spec = spec

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _elements(self):
        return self._read(self._name)


def reader(filenames, read, spec, num_parallel_reads):
    """TensorFlow's `_create_dataset_reader`: the files' records in order, or interleaved from
    ``num_parallel_reads`` files at a time (one record from each in turn)."""
    files = filenames_dataset(filenames)
    if num_parallel_reads is None:
        return _FilesDataset(files, read, spec)
    n = check_count(num_parallel_reads, "num_parallel_reads")
    one = lambda name: _OneFile(name, read, spec)  # noqa: E731
    if n == AUTOTUNE:
        return files.interleave(one, num_parallel_calls=AUTOTUNE)
    if n <= 0:
        raise _invalid("`cycle_length` must be > 0")
    return files.interleave(one, cycle_length=n, block_length=1, num_parallel_calls=n)


class _ReaderDataset(Dataset):
    """A public reader class: its records come from the `reader` it builds."""

    def __init__(self, impl):
        self._impl = impl

    @property
    def element_spec(self):
        return self._impl.element_spec

    def _cardinality(self):
        return self._impl._cardinality()

    def _elements(self):
        return self._impl._elements()

    def _record_batches(self, size, drop_remainder):
        """Batches read whole by the reader (see `_FilesDataset.batches`), or None."""
        batches = getattr(self._impl, "batches", None)
        return None if batches is None else batches(size, drop_remainder)


# --- reading files ---------------------------------------------------------------------------


def _compression(compression_type):
    kind = _scalar_value(compression_type)
    return "" if kind is None else kind


def _check_compression(kind):
    if kind not in ("", "ZLIB", "GZIP"):
        raise _invalid("Unsupported compression_type.")


def _open(name):
    """The file ``name`` (bytes from a filename tensor) opened for reading."""
    text = _text(name)
    path = _filesystem.readable_path(text)
    try:
        if _filesystem.is_directory(text):
            raise IsADirectoryError(21, "Is a directory")
        return open(path, "rb")  # noqa: SIM115 - closed by the readers
    except OSError as e:
        raise _filesystem.os_error(e, text) from None


def _zlib_error(error):
    text = str(error)
    if "Error" in text and ":" in text:
        code = text.split()[1]
        reason = text.split(": ", 1)[1]
        text = f"{code}: {reason}"
    return errors.DataLossError(None, None, f"inflate() failed with error {text}")


def _chunks(name, kind, size=_CHUNK):
    """The (inflated) bytes of file ``name``, chunk by chunk."""
    with _open(name) as f:
        if kind == "":
            while True:
                chunk = f.read(size)
                if not chunk:
                    return
                yield chunk
        wbits = zlib.MAX_WBITS + (16 if kind == "GZIP" else 0)
        inflater = zlib.decompressobj(wbits)
        while True:
            raw = f.read(size)
            if not raw:
                return
            while raw:
                try:
                    out = inflater.decompress(raw)
                except zlib.error as e:
                    raise _zlib_error(e) from None
                if out:
                    yield out
                raw = b""
                if inflater.eof:
                    if kind != "GZIP":
                        return  # bytes after a ZLIB stream are not read
                    raw = inflater.unused_data
                    inflater = zlib.decompressobj(wbits)


def _check_buffer_size(buffer_size, message):
    size = _scalar_value(buffer_size)
    if size is not None and size < 0:
        raise _invalid(message)


# --- TextLineDataset -------------------------------------------------------------------------


def _line_lists(name, kind):
    """The lines of a file without their line breaks, as lists of bytes (one per chunk read);
    every carriage return is dropped, as TensorFlow's `BufferedInputStream::ReadLine` drops
    them."""
    _check_compression(kind)
    pending = b""
    for chunk in _chunks(name, kind):
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        if b"\r" in chunk:
            lines = [line.replace(b"\r", b"") for line in lines]
        if lines:
            yield lines
    pending = pending.replace(b"\r", b"")
    if pending:
        yield [pending]


def _text_lines(name, kind):
    """The lines of a file as scalar string tensors."""
    make = _core.constant
    for lines in _line_lists(name, kind):
        for line in lines:
            yield make(line, _STRING, None)


def _line_batches(name, kind):
    """A function of ``n`` giving up to ``n`` more lines of the file as one `[k]` string
    tensor, None at the end (`_FilesDataset.open_batches`): lines are sliced out of each
    chunk's list, never handled one by one."""
    lists = _line_lists(name, kind)
    buffer, start = [], 0

    def take(n):
        nonlocal buffer, start
        out = []
        while len(out) < n:
            if start >= len(buffer):
                buffer, start = next(lists, None), 0
                if buffer is None:
                    buffer = []
                    break
                continue
            piece = buffer[start : start + n - len(out)]
            out.extend(piece)
            start += len(piece)
        return _core.constant(out, _STRING, None) if out else None

    return take


class TextLineDataset(_ReaderDataset):
    """The lines of one or more text files (without their line breaks), as scalar strings.

    >>> import ferroflow as tf
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "lines.txt")
    >>> tf.io.write_file(path, "one\\ntwo\\n")
    >>> [line.numpy() for line in tf.data.TextLineDataset(path)]
    [b'one', b'two']
    """

    _repr_name = "TextLineDatasetV2"

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None,
                 name=None):  # fmt: skip
        kind = _compression(compression_type)

        def read(filename):
            _check_buffer_size(buffer_size, "`buffer_size` must be >= 0 (0 == default)")
            yield from _text_lines(filename.numpy(), kind)

        def open_batches(filename):
            _check_buffer_size(buffer_size, "`buffer_size` must be >= 0 (0 == default)")
            return _line_batches(filename.numpy(), kind)

        impl = reader(filenames, read, _STRING_SPEC, num_parallel_reads)
        if isinstance(impl, _FilesDataset):
            # `batch` right after reads whole batches of lines (see `_FilesDataset.batches`).
            impl.open_batches = open_batches
        super().__init__(impl)


# --- FixedLengthRecordDataset ----------------------------------------------------------------


def _fixed_records(name, kind, record, header, footer):
    """The records of one file. An uncompressed file whose body is not a whole number of
    records fails before its first record (InvalidArgumentError); a compressed one yields its
    whole records first (then DataLossError), as TensorFlow reads it as a stream."""
    _check_compression(kind)
    data = b"".join(_chunks(name, kind))
    body = (len(data) - header - footer) % 2**64
    error = None
    if body % record != 0:
        cls = errors.InvalidArgumentError if kind == "" else errors.DataLossError
        error = cls(
            None,
            None,
            f"Excluding the header ({header} bytes) and footer ({footer} bytes), input file "
            f'"{_text(name)}" has body length {body} bytes, which is not an exact multiple of '
            f"the record length ({record} bytes).",
        )
        if kind == "":
            raise error
    make = _core.constant
    start = header
    while start + record + footer <= len(data):
        yield make(data[start : start + record], _STRING, None)
        start += record
    if error is not None:
        raise error


class FixedLengthRecordDataset(_ReaderDataset):
    """Records of ``record_bytes`` bytes each from one or more files, after ``header_bytes``
    and before ``footer_bytes`` (the rest of each file must be a whole number of records)."""

    _repr_name = "FixedLengthRecordDatasetV2"

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None,
                 name=None):  # fmt: skip
        kind = _compression(compression_type)
        values = [_scalar_value(v) for v in (record_bytes, header_bytes, footer_bytes)]
        record, header, footer = values[0], values[1] or 0, values[2] or 0

        def read(filename):
            if header < 0:
                raise _invalid("`header_bytes` must be >= 0")
            if record <= 0:
                raise _invalid("`record_bytes` must be > 0")
            if footer < 0:
                raise _invalid("`footer_bytes` must be >= 0")
            _check_buffer_size(buffer_size, "`buffer_size` must be >= 0")
            yield from _fixed_records(filename.numpy(), kind, record, header, footer)

        super().__init__(reader(filenames, read, _STRING_SPEC, num_parallel_reads))


# --- TFRecordDataset -------------------------------------------------------------------------


class TFRecordDataset(_ReaderDataset):
    """The records of one or more TFRecord files (``compression_type`` "", "ZLIB" or "GZIP"); a
    damaged record raises `DataLossError`."""

    _repr_name = "TFRecordDatasetV2"

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):  # fmt: skip
        kind = _compression(compression_type)
        size = _scalar_value(buffer_size)

        def open_records(filename):
            if kind not in ("", "ZLIB", "GZIP"):
                raise _invalid(f"Unsupported compression_type: {kind}")
            if size is not None and size < 0:
                raise _invalid("`buffer_size` must be >= 0 (0 == no buffering)")
            name = _text(filename.numpy())
            path = _filesystem.readable_path(name)
            if _filesystem.is_directory(name):
                raise errors.FailedPreconditionError(None, None, f"{name}; Is a directory")
            try:
                return _core.TFRecordReader(path, kind, size or 256 * 1024)
            except OSError as e:
                raise _filesystem.os_error(e, name) from None

        def read(filename):
            make = _core.constant
            for record in open_records(filename):
                yield make(record, _STRING, None)

        impl = reader(filenames, read, _STRING_SPEC, num_parallel_reads)
        if isinstance(impl, _FilesDataset):
            # `batch` right after reads whole batches of records (see `_FilesDataset.batches`).
            impl.open_batches = lambda filename: open_records(filename).read_batch
        super().__init__(impl)


# --- CsvDataset ------------------------------------------------------------------------------

_CSV_TYPES = (_dtypes.float32, _dtypes.float64, _dtypes.int32, _dtypes.int64, _dtypes.string)


class _CsvRecords:
    """TensorFlow's `CSVDatasetOp` iterator over one file's bytes: records end at a line break
    outside quotes (a quoted field may span lines; an empty line is a record of one empty
    field); a bad record raises when it is reached and reading goes on after it."""

    def __init__(self, data, dataset):
        self._data = data
        self._pos = 0
        self._ds = dataset
        self._error_at = 0  # how many fields the record's parse error came after

    def _fields(self, include):
        """The fields of the next record (``include(k)`` says whether field k is kept) and
        the record's first error, or None at the end of the data."""
        data, delim, quotes = self._data, self._ds.delim, self._ds.use_quote_delim
        n = len(data)
        if self._pos >= n:
            return None
        fields, error, k = [], None, 0
        end_of_record = False
        while not end_of_record:
            keep = include(k)
            pos = self._pos
            if pos >= n:  # the previous field ended with a delimiter at the end of the data
                end_of_record = True
                if keep:
                    fields.append(b"")
            elif quotes and data[pos] == 34:
                pos += 1
                while True:
                    q = data.find(b'"', pos)
                    if q < 0:
                        self._pos = n
                        if error is None:
                            self._error_at = len(fields)
                            error = _invalid(
                                "Reached end of file without closing quoted field in record"
                            )
                        return fields, error
                    pos = q + 1
                    if pos >= n:
                        end_of_record = True
                        break
                    nxt = data[pos]
                    pos += 1
                    if nxt == delim:
                        break
                    if nxt in (10, 13):
                        end_of_record = True
                        if nxt == 13 and pos < n and data[pos] == 10:
                            pos += 1
                        break
                    if nxt != 34 and error is None:
                        keep = False
                        self._error_at = len(fields)
                        error = _invalid("Quote inside a string has to be escaped by another quote")
                    elif nxt != 34:
                        keep = False
                if keep:
                    raw = data[self._pos + 1 : q]
                    fields.append(raw.replace(b'""', b'"'))
            else:
                end = pos
                while end < n and data[end] not in (delim, 10, 13):
                    end += 1
                raw = data[pos:end]
                if quotes and b'"' in raw and error is None:
                    self._error_at = len(fields)
                    error = _invalid("Unquoted fields cannot have quotes inside")
                if keep:
                    fields.append(raw)
                if end >= n:
                    end_of_record = True
                    pos = end
                else:
                    pos = end + 1
                    if data[end] in (10, 13):
                        end_of_record = True
                        if data[end] == 13 and pos < n and data[pos] == 10:
                            pos += 1
            self._pos = pos
            k += 1
        return fields, error

    def skip_header(self):
        got = self._fields(lambda k: False)
        if got is None or got[1] is not None:
            raise _invalid("Can't read header of file")

    def __iter__(self):
        return self

    def __next__(self):
        ds = self._ds
        got = self._fields(ds.include)
        if got is None:
            raise StopIteration
        fields, error = got
        n = len(ds.defaults)
        values = []
        # TensorFlow converts each field as it is parsed and reports the record's first error.
        for i, field in enumerate(fields):
            if error is not None and i == self._error_at:
                raise error
            if i >= n:
                raise _invalid(f"Expect {n} fields but have more in record")
            values.append(ds.value(i, field))
        if error is not None:
            raise error
        if len(values) != n:
            raise _invalid(f"Expect {n} fields but have {len(values)} in record")
        return tuple(values)


class _CsvOptions:
    """What one `CsvDataset` reads: defaults, columns and the field conversion."""

    def __init__(self, defaults, delim, use_quote_delim, na_value, select, exclude):
        self.defaults = defaults
        self.delim = delim
        self.use_quote_delim = use_quote_delim
        self.na = na_value
        self.kinds = [_decode._CSV_TYPES[d.dtype] for d in defaults]
        self.dtypes = [d.dtype for d in defaults]
        self.fallback = [
            constant(np.asarray(d.numpy()).reshape(-1)[0], dtype=d.dtype)
            if d.shape.num_elements() == 1
            else None
            for d in defaults
        ]
        if select:
            wanted = set(select)
            self.include = wanted.__contains__
        elif exclude:
            dropped = set(exclude)
            self.include = lambda k: k not in dropped
        else:
            self.include = lambda k: True

    def value(self, i, field):
        if not field or field == self.na:
            if self.fallback[i] is None:
                raise _invalid(f"Field {i} is required but missing in record!")
            return self.fallback[i]
        kind = self.kinds[i]
        if kind == "string":
            return _core.constant(field, _STRING, None)
        number = _decode._number(field, kind)
        if number is None:
            text = field.decode("utf-8", "replace")
            raise _invalid(f"Field {i} in record is not a valid {kind}: {text}")
        return constant(number, dtype=self.dtypes[i])


def _int_list(values, what):
    if values is None:
        return []
    out = [int(v) for v in np.asarray(_scalar_value(values) if hasattr(values, "numpy") else
                                      values).reshape(-1)]  # fmt: skip
    if any(v < 0 for v in out):
        raise _invalid(f"{what} should be non-negative indices")
    if any(a >= b for a, b in zip(out, out[1:])):
        raise _invalid(f"{what} should be strictly increasing indices")
    return out


class CsvDataset(_ReaderDataset):
    """The records of CSV files as tuples of scalars, one per entry of ``record_defaults`` (a
    dtype or an empty tensor: the column is required; a one-element tensor: its default)."""

    _repr_name = "CsvDatasetV2"

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None, name=None):  # fmt: skip
        files = convert_to_tensor(filenames, dtype=_dtypes.string)
        defaults = []
        for d in record_defaults:
            if isinstance(d, _dtypes.DType) and d in _CSV_TYPES:
                defaults.append(constant([], dtype=d))
            else:
                defaults.append(convert_to_tensor(d))
        for d in defaults:
            if d.dtype not in _CSV_TYPES:
                raise _invalid(
                    f"Value for attr 'output_types' of {_decode._type_name(d.dtype)} is not in "
                    "the list of allowed values: float, double, int32, int64, string"
                )
        for i, d in enumerate(defaults):
            if d.shape.num_elements() not in (0, 1) or (d.shape.rank or 0) > 1:
                raise _invalid(f"There should be at most one default value per field {i}")
        select = _int_list(select_cols, "select_cols")
        exclude = _int_list(exclude_cols, "exclude_cols")
        if select and exclude:
            raise _invalid("Either select_cols or exclude_cols should be empty")
        if select and len(select) != len(defaults):
            raise _invalid("select_cols should match output size")
        delim = field_delim.encode() if isinstance(field_delim, str) else bytes(field_delim)
        if len(delim) != 1:
            raise _invalid("field_delim should be only 1 char")
        kind = _compression(compression_type)
        _check_compression(kind)
        _check_buffer_size(buffer_size, "buffer_size should be positive")
        na = na_value.encode() if isinstance(na_value, str) else bytes(na_value)
        options = _CsvOptions(defaults, delim[0], bool(use_quote_delim), na, select, exclude)
        with_header = bool(_scalar_value(header))

        def read(filename):
            records = _CsvRecords(b"".join(_chunks(filename.numpy(), kind)), options)
            if with_header:
                records.skip_header()
            return records

        spec = tuple(TensorSpec([], d.dtype) for d in defaults)
        self._impl = _FilesDataset(Dataset.from_tensor_slices(reshape(files, [-1])), read, spec)


# --- list_files ------------------------------------------------------------------------------


def _matches_now(patterns):
    """`matching_files` of eager ``patterns``, run now."""
    found = []
    for p in np.asarray(patterns.numpy(), dtype=object).reshape(-1):
        found.extend(_filesystem.get_matching_paths(p.decode("utf-8", "surrogateescape")))
    found.sort(key=lambda s: s.encode("utf-8", "surrogateescape"))
    encoded = [s.encode("utf-8", "surrogateescape") for s in found]
    return convert_to_tensor(np.array(encoded, dtype=object), dtype=_dtypes.string)


def list_files(file_pattern, shuffle=None, seed=None, name=None):
    """The files matching ``file_pattern`` (a glob or a list of them), sorted, in a random
    order each iteration unless ``shuffle=False``; no match is InvalidArgumentError."""
    patterns = convert_to_tensor(file_pattern, dtype=_dtypes.string)
    if _tracing.tracing() and not _core.is_symbolic(patterns):
        # A constant pattern inside a tf.function: TensorFlow's graph folds its matches once
        # (files made after the trace are not listed, in any call); the op would be a node
        # of the trace. Only the shuffle of those matches is made again in each call.
        return _files_dataset(_matches_now(patterns), patterns, shuffle, seed)
    return _listed_files(file_pattern, shuffle, seed)


@dataset_construction(element_spec=lambda *args, **kwargs: TensorSpec([], _dtypes.string))
def _listed_files(file_pattern, shuffle, seed):
    """`list_files` globbing when the dataset is made: eagerly, or in each run of a graph
    whose pattern is computed."""
    from ferroflow.io._files import matching_files

    patterns = convert_to_tensor(file_pattern, dtype=_dtypes.string)
    return _files_dataset(matching_files(patterns), patterns, shuffle, seed)


def _files_dataset(matched, patterns, shuffle, seed):
    if int(np.asarray(matched.numpy()).size) == 0:
        shown = b", ".join(np.asarray(patterns.numpy()).reshape(-1).tolist())
        raise _invalid(
            "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
            f"{b'No files matched pattern: ' + shown!r}"
        )
    dataset = Dataset.from_tensor_slices(matched)
    if shuffle is None:
        shuffle = True
    if shuffle:
        count = int(np.asarray(matched.numpy()).size)
        dataset = dataset.shuffle(count, seed=seed)
    return dataset
