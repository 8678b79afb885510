"""`tf.lookup.KeyValueTensorInitializer`, `TextFileInitializer` and `TextFileIndex`: what fills a
static table when it is created. ``initialize(table)`` writes into the table's store."""

import threading

import numpy as np

from ferroflow import errors
from ferroflow.array_ops import convert_to_tensor
from ferroflow.dtypes import as_dtype, int64, string
from ferroflow.framework_ops import get_static_value
from ferroflow.lookup._store import convert, key_list, run, shape_text

__all__ = [
    "KeyValueTensorInitializer",
    "TableInitializerBase",
    "TextFileIndex",
    "TextFileInitializer",
]


def check_table_dtypes(table, key_dtype, value_dtype):
    """TensorFlow's TypeError when an initializer's dtypes differ from the table's."""
    if key_dtype.base_dtype != table.key_dtype:
        raise TypeError(
            f"Invalid key dtype for table, expected {table.key_dtype} but got {key_dtype}."
        )
    if value_dtype.base_dtype != table.value_dtype:
        raise TypeError(
            f"Invalid value dtype for table, expected {table.value_dtype} but got {value_dtype}."
        )


def _numpy(tensor):
    """The value of an initializer's tensor, also when it was made inside a trace."""
    value = get_static_value(tensor)
    if value is None:
        raise errors.UnimplementedError(
            None, None, "a table initializer needs values known outside the traced function"
        )
    return np.asarray(value)


def import_pairs(store, keys, values, op="LookupTableImportV2", check_duplicates=True):
    """Fills a static table as TensorFlow's import kernel: equal shapes, no empty input, and a
    key given twice must keep its value."""
    if tuple(values.shape[: keys.ndim]) != tuple(keys.shape) or values.ndim != keys.ndim:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Expected shape {shape_text(keys.shape)} for value, got "
            f"{shape_text(values.shape)} [Op:{op}]",
        )
    if keys.size == 0:
        raise errors.InvalidArgumentError(
            None, None, f"keys and values cannot be empty tensors. [Op:{op}]"
        )
    for k, v, shown in zip(key_list(keys), values.reshape(-1).tolist(), keys.reshape(-1)):
        old = store.data.get(k, _ABSENT)
        if old is _ABSENT:
            store.data[k] = v
        elif check_duplicates and old != v:
            name = shown.decode(errors="replace") if isinstance(shown, bytes) else shown
            raise errors.FailedPreconditionError(
                None,
                None,
                f"HashTable has different value for same key. Key {name} has "
                f"{_shown(old)} and trying to add value {_shown(v)} [Op:{op}]",
            )


_ABSENT = object()


def _shown(value):
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if isinstance(value, bool):
        return str(int(value))
    return str(value)


class TableInitializerBase:
    """The key and value dtypes of what an initializer puts into a table."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = as_dtype(key_dtype)
        self._value_dtype = as_dtype(value_dtype)

    @property
    def key_dtype(self):
        """The expected table key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The expected table value dtype."""
        return self._value_dtype

    def initialize(self, table):
        """Fills ``table``."""
        raise NotImplementedError

    @property
    def _shared_name(self):
        return None


class KeyValueTensorInitializer(TableInitializerBase):
    """Table initializer from a ``keys`` tensor and a ``values`` tensor of the same shape."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert(keys, key_dtype, "keys")
        self._values = convert(values, value_dtype, "values")
        self._name = name if name is not None else "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        """Imports the keys and values into ``table`` (TensorFlow's LookupTableImportV2).
        Keys or values known only when a traced function runs (its inputs) are imported by a
        node of that graph when it first runs; as TensorFlow's function-local tables (one
        resource per trace, initialized once), later runs keep the first run's contents."""
        check_table_dtypes(table, self._keys.dtype, self._values.dtype)
        keys, values = get_static_value(self._keys), get_static_value(self._values)
        if keys is not None and values is not None:
            import_pairs(table._store, np.asarray(keys), np.asarray(values))
            return
        store = table._store
        done = []
        lock = threading.Lock()  # a map graph may run on several threads

        def first_import(keys, values):
            with lock:
                if not done:
                    import_pairs(store, keys, values)
                    done.append(True)
            return []

        run(first_import, [self._keys, self._values], [])


class TextFileIndex:
    """The key and value content of a line: ``WHOLE_LINE``, ``LINE_NUMBER`` or a column >= 0."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TextFileInitializer(TableInitializerBase):
    """Table initializer from a text file: one entry per line, key and value from the whole
    line, the line number, or a column split on ``delimiter``."""

    def __init__(
        self,
        filename,
        key_dtype,
        key_index,
        value_dtype,
        value_index,
        vocab_size=None,
        delimiter="\t",
        name=None,
        value_index_offset=0,
    ):
        from ferroflow._core import Tensor

        if not isinstance(filename, Tensor) and not filename:
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        key_dtype = as_dtype(key_dtype)
        value_dtype = as_dtype(value_dtype)
        for what, index, dtype in (
            ("key", key_index, key_dtype),
            ("value", value_index, value_dtype),
        ):
            if index < -2:
                end = "." if what == "key" else ""
                raise ValueError(f"`{what}_index` should be >= -2, received: {index}{end}")
            if index == TextFileIndex.LINE_NUMBER and dtype != int64:
                verb = "must be int64 if" if what == "key" else "must be int64 for"
                raise ValueError(
                    f"`{what}_dtype` {verb} `{what}_index` is {TextFileIndex.LINE_NUMBER}, "
                    f"received: {dtype}"
                    if what == "key"
                    else f"`{what}_dtype` {verb} `{what}_index` {TextFileIndex.LINE_NUMBER}, "
                    f"received: {dtype}"
                )
            if index == TextFileIndex.WHOLE_LINE and not dtype.is_integer and dtype != string:
                raise ValueError(
                    f"`{what}_dtype` should be either integer or string for `{what}_index` "
                    f"{TextFileIndex.WHOLE_LINE}, received: {dtype}"
                )
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._filename = filename
        self._key_index = key_index
        self._value_index = value_index
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._name = name
        self._offset = value_index_offset
        super().__init__(key_dtype, value_dtype)

    def _lines(self, path):
        from ferroflow.io import gfile

        op = "InitializeTableFromTextFileV2"
        if not gfile.exists(path):
            raise errors.NotFoundError(None, None, f"{path}; No such file or directory [Op:{op}]")
        with gfile.GFile(path, "rb") as f:
            data = f.read()
        position = 0
        for number, line in enumerate(data.split(b"\n")):
            if position >= len(data):
                break
            position += len(line) + 1
            if line.endswith(b"\r"):
                line = line[:-1]
            if self._vocab_size is not None and number >= self._vocab_size:
                break
            if not line:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Invalid content in {path}: empty line found at position {position}. "
                    f"[Op:{op}]",
                )
            yield number, line

    def _field(self, number, line, columns, index, dtype):
        op = "InitializeTableFromTextFileV2"
        if index == TextFileIndex.LINE_NUMBER:
            return number
        text = line if index == TextFileIndex.WHOLE_LINE else columns[index]
        if dtype == string:
            return text
        shown = text.decode(errors="replace")
        try:
            # Python also reads '1_0' and non-ASCII digits, which TensorFlow's parsers refuse.
            if not shown.isascii() or "_" in shown:
                raise ValueError
            if dtype.is_integer:
                value = int(shown.strip(), 10)
                info = np.iinfo(dtype.as_numpy_dtype)
                if not info.min <= value <= info.max:
                    raise ValueError
                return value
            body = shown.strip().lstrip("+-")
            if body[:2] in ("0x", "0X"):  # strtod's hexadecimal floats
                return float.fromhex(shown.strip())
            return float(shown)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"Field {shown} in line {number} is not a valid {dtype.name}. [Op:{op}]"
            ) from None

    def initialize(self, table):
        """Reads the file into ``table`` (TensorFlow's InitializeTableFromTextFileV2)."""
        check_table_dtypes(table, self.key_dtype, self.value_dtype)
        path = self._filename
        if not isinstance(path, (str, bytes)):
            path = _numpy(convert_to_tensor(path)).item()
        path = path.decode() if isinstance(path, bytes) else str(path)
        op = "InitializeTableFromTextFileV2"
        need = max(self._key_index, self._value_index) + 1
        keys, values, count = [], [], 0
        for number, line in self._lines(path):
            columns = line.split(self._delimiter.encode()) if need > 0 else None
            if need > 0 and len(columns) < need:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Invalid number of columns in {path} line {number} "
                    f"({line.decode(errors='replace')}) : expected at least {need} got "
                    f"{len(columns)} [Op:{op}]",
                )
            keys.append(self._field(number, line, columns, self._key_index, self._key_dtype))
            value = self._field(number, line, columns, self._value_index, self._value_dtype)
            # TensorFlow adds value_index_offset to every integer value it extracts.
            values.append(value + self._offset if self._value_dtype.is_integer else value)
            count += 1
        if self._vocab_size is not None and count < self._vocab_size:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Invalid vocab_size in {path}: expected {self._vocab_size} but got {count} "
                f"[Op:{op}]",
            )
        store = table._store
        for k, v in zip(key_list(np.array(keys, dtype=store._knp)), values):
            old = store.data.get(k, _ABSENT)
            if old is not _ABSENT and old != v:
                raise errors.FailedPreconditionError(
                    None,
                    None,
                    f"HashTable has different value for same key. Key {_shown(k)} has "
                    f"{_shown(old)} and trying to add value {_shown(v)} [Op:{op}]",
                )
            store.data[k] = v
