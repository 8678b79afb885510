"""`tf.data.experimental`'s dataset sinks and device moves: `TFRecordWriter` (a dataset of
scalar strings written as TFRecords), `SqlDataset` (the rows of an SQLite query) and
`prefetch_to_device`/`copy_to_device` (elements placed on a device)."""

import sqlite3

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow import errors
from ferroflow.array_ops import convert_to_tensor, identity
from ferroflow.data import _structure
from ferroflow.data.dataset import UNKNOWN_CARDINALITY, Dataset
from ferroflow.tensor_spec import TensorSpec

__all__ = ["DeviceDataset", "SqlDataset", "TFRecordWriter"]


class TFRecordWriter:
    """Writes a dataset of scalar strings to ``filename`` as TFRecords (``compression_type``
    "", "ZLIB" or "GZIP"), one record per element."""

    def __init__(self, filename, compression_type=None):
        from ferroflow.array_ops import convert_to_tensor

        # TensorFlow converts the name to a string tensor now: None is ValueError, a number
        # TypeError (they used to name a file by their `str`).
        self._filename = convert_to_tensor(filename, _dtypes.string)
        self._compression_type = compression_type

    def write(self, dataset):
        """Writes every element of ``dataset`` (scalar `tf.string`s)."""
        from ferroflow.io import TFRecordWriter as RecordWriter

        if not isinstance(dataset, Dataset):
            raise TypeError(
                f"Invalid `dataset.` Expected a `tf.data.Dataset` object but got {type(dataset)}."
            )
        if dataset.element_spec != TensorSpec([], _dtypes.string):
            raise TypeError(
                "Invalid `dataset.` Expected `dataset` to produce scalar `tf.string` tensors, "
                f"but got {dataset.element_spec}."
            )
        if self._filename.shape.rank != 0:
            raise errors.InvalidArgumentError(
                None, None, f"filename must be a scalar, got shape {self._filename.shape}"
            )
        filename = self._filename.numpy().decode("utf-8")
        with RecordWriter(filename, self._compression_type or "") as writer:
            for element in dataset._elements():
                writer.write(bytes(element.numpy()))


def _sql_value(value, dtype, column):
    """One SQLite column value as TensorFlow's SqlDataset converts it."""
    if value is None:
        raise errors.InvalidArgumentError(
            None, None, f"Column {column} of the result is NULL, which has no tensor value."
        )
    if dtype == _dtypes.string:
        if isinstance(value, bytes):
            return convert_to_tensor(value)
        return convert_to_tensor(str(value).encode())
    if dtype == _dtypes.bool:
        return convert_to_tensor(bool(int(value)))
    if dtype.is_floating:
        return convert_to_tensor(np.array(float(value), dtype.as_numpy_dtype))
    return convert_to_tensor(np.array(int(value), dtype.as_numpy_dtype))


_SQL_TYPES = (
    _dtypes.string,
    _dtypes.int8,
    _dtypes.int16,
    _dtypes.int32,
    _dtypes.int64,
    _dtypes.uint8,
    _dtypes.uint16,
    _dtypes.bool,
    _dtypes.float64,
)


class SqlDataset(Dataset):
    """The rows of ``query`` run against the SQLite database ``data_source_name`` (the only
    ``driver_name`` TensorFlow supports is "sqlite"), each row a tuple of scalars of
    ``output_types``."""

    _repr_name = "SqlDatasetV2"

    def __init__(self, driver_name, data_source_name, query, output_types):
        self._types = _structure.map_element(_dtypes.as_dtype, output_types)
        self._driver = str(
            driver_name.numpy().decode() if hasattr(driver_name, "numpy") else driver_name
        )
        self._source = str(data_source_name)
        self._query = str(query)
        for dtype in _structure.flatten(self._types):
            if dtype not in _SQL_TYPES:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    "Each element of `output_types_` must be one of: DT_STRING, DT_INT8, "
                    "DT_INT16, DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, DT_BOOL, DT_DOUBLE",
                )
        self._spec = _structure.map_element(lambda t: TensorSpec([], t), self._types)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _elements(self):
        if self._driver != "sqlite":
            raise errors.InvalidArgumentError(
                None, None, f"The database type, {self._driver}, is not supported by SqlDataset."
            )
        types = _structure.flatten(self._types)
        try:
            connection = sqlite3.connect(f"file:{self._source}?mode=ro", uri=True)
        except sqlite3.Error as error:
            raise errors.FailedPreconditionError(None, None, str(error)) from None
        try:
            try:
                cursor = connection.execute(self._query)
            except sqlite3.Error as error:
                raise errors.UnknownError(None, None, str(error)) from None
            for row in cursor:
                if len(row) != len(types):
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        f"The number of columns in the query result ({len(row)}) does not "
                        f"match the number of output types ({len(types)}).",
                    )
                values = [_sql_value(v, t, i) for i, (v, t) in enumerate(zip(row, types))]
                yield _structure.pack_as(self._types, values)
        finally:
            connection.close()


class DeviceDataset(Dataset):
    """Its input's elements, copied onto ``device``."""

    _repr_name = "_CopyToDeviceDataset"

    def __init__(self, input_dataset, device):
        self._input = input_dataset
        self._device = device

    @property
    def element_spec(self):
        return self._input.element_spec

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _elements(self):
        from ferroflow.device_scope import device

        for element in self._input._elements():
            # The scope must close before the yield: a generator suspended inside it would
            # leave the device pushed on the consumer's thread, and one closed later by the
            # garbage collector would pop whatever scope is on top then.
            with device(self._device):
                moved = _structure.map_element(
                    lambda t: identity(t) if hasattr(t, "numpy") and hasattr(t, "dtype") else t,
                    element,
                )
            yield moved
