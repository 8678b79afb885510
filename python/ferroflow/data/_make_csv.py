"""`tf.data.experimental.make_csv_dataset`: batches of CSV columns as a dict of features (and a
label), built as TensorFlow builds it: the files matching the pattern (sorted, then shuffled),
column names from the header, column types inferred from the first rows, `CsvDataset` per
file interleaved ``num_parallel_reads`` at a time, shuffle, repeat, batch, then the dict."""

import collections
import csv
import gzip

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import constant
from ferroflow.data._readers import CsvDataset
from ferroflow.data.dataset import AUTOTUNE, Dataset
from ferroflow.io import gfile

__all__ = ["make_csv_dataset"]

_CSV_TYPES = (_dtypes.float32, _dtypes.float64, _dtypes.int32, _dtypes.int64, _dtypes.string)


def _file_names(file_pattern):
    if isinstance(file_pattern, list):
        if not file_pattern:
            raise ValueError("Argument `file_pattern` should not be empty.")
        names = [n for entry in file_pattern for n in gfile.glob(entry)]
    else:
        names = list(gfile.glob(file_pattern))
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return sorted(names)


def _is_int32(text):
    try:
        return np.int32(text) == np.int64(text)
    except (ValueError, OverflowError):
        return False


def _is_int64(text):
    try:
        np.int64(text)
        return True
    except (ValueError, OverflowError):
        return False


def _is_float(text, np_type):
    try:
        with np.errstate(over="ignore"):  # a float32 overflow is inf: not a float32 column
            return np_type(text) < np.inf
    except ValueError:
        return False


_INFERENCE = (
    (_dtypes.int32, _is_int32),
    (_dtypes.int64, _is_int64),
    (_dtypes.float32, lambda s: _is_float(s, np.float32)),
    (_dtypes.float64, lambda s: _is_float(s, np.float64)),
    (_dtypes.string, lambda s: True),
)


def _infer_type(text, na_value, previous):
    """The least permissive type that holds ``text`` and everything seen before (TensorFlow's
    `_infer_type`: int32, int64, float32, float64, string)."""
    if text in ("", na_value):
        return previous
    seen = [t for t, _ in _INFERENCE]
    for i, (dtype, valid) in enumerate(_INFERENCE):
        if valid(text) and (previous is None or previous in seen[: i + 1]):
            return dtype
    return None


def _reader(opener, delim, use_quote_delim):
    def rows(name):
        f = opener(name)
        quoting = csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE
        return f, csv.reader(f, delimiter=delim, quoting=quoting)

    return rows


def _column_names(names, rows):
    f, reader = rows(names[0])
    with f:
        try:
            columns = next(reader)
        except StopIteration:
            raise ValueError(
                f"Failed when reading the header line of {names[0]}. Is it an empty file?"
            ) from None
    for name in names[1:]:
        f, reader = rows(name)
        with f:
            try:
                if next(reader) != columns:
                    raise ValueError(
                        "All input CSV files should have the same column names in the header "
                        f"row. File {name} has different column names."
                    )
            except StopIteration:
                raise ValueError(
                    f"Failed when reading the header line of {name}. Is it an empty file?"
                ) from None
    return columns


def _inferred_defaults(names, rows, num_cols, na_value, header, limit, select):
    columns = range(num_cols) if select is None else select
    types = [None] * len(columns)
    seen = 0
    for name in names:
        f, reader = rows(name)
        with f:
            row_num = 1
            if header:
                next(reader)
                row_num += 1
            for row in reader:
                if limit is not None and seen >= limit:
                    break
                if len(row) != num_cols:
                    raise ValueError(
                        f"Problem inferring types: CSV row {row_num} has {len(row)} number of "
                        f"fields. Expected: {num_cols}."
                    )
                row_num += 1
                for j, k in enumerate(columns):
                    types[j] = _infer_type(row[k], na_value, types[j])
                seen += 1
        if limit is not None and seen >= limit:
            break
    types = [t or _dtypes.string for t in types]
    return [constant(["" if t == _dtypes.string else 0], dtype=t) for t in types]


def _sorted_indices(select_columns, column_names):
    index = {n: i for i, n in enumerate(column_names)}
    out = []
    for v in select_columns:
        if isinstance(v, int):
            if v < 0 or v >= len(column_names):
                raise ValueError(
                    f"Column index {v} specified in `select_columns` should be > 0  and <= "
                    f"{len(column_names)}, which is the number of columns."
                )
            out.append(v)
        elif v not in index:
            raise ValueError(
                f"Column {v} specified in `select_columns` must be of one of the columns: "
                f"{index.keys()}."
            )
        else:
            out.append(index[v])
    out = sorted(set(out))
    if len(out) != len(select_columns):
        raise ValueError("The `select_columns` argument contains duplicate columns.")
    return out


def _duplicates(names):
    ordered = sorted(names)
    return {a for a, b in zip(ordered[:-1], ordered[1:]) if a == b}


def make_csv_dataset(
    file_pattern,
    batch_size,
    column_names=None,
    column_defaults=None,
    label_name=None,
    select_columns=None,
    field_delim=",",
    use_quote_delim=True,
    na_value="",
    header=True,
    num_epochs=None,
    shuffle=True,
    shuffle_buffer_size=10000,
    shuffle_seed=None,
    prefetch_buffer_size=None,
    num_parallel_reads=None,
    sloppy=False,
    num_rows_for_inference=100,
    compression_type=None,
    ignore_errors=False,
    encoding="utf-8",
):
    """Batches of ``batch_size`` CSV rows from the files matching ``file_pattern``: an ordered
    dict of columns by name (``(features, label)`` with ``label_name``). Column names come from
    the header and types from the first ``num_rows_for_inference`` rows unless given; the rows
    are shuffled (``shuffle_seed``) and repeated ``num_epochs`` times (forever when None, the
    last partial batch dropped then), as TensorFlow's."""
    if num_parallel_reads is None:
        num_parallel_reads = 1
    if prefetch_buffer_size is None:
        prefetch_buffer_size = AUTOTUNE
    names = _file_names(file_pattern)
    dataset = Dataset.from_tensor_slices(names)
    if shuffle:
        dataset = dataset.shuffle(len(names), shuffle_seed)
    rows = None
    if column_names is None or column_defaults is None:

        def opener(name):
            return gfile.GFile(name, "r")

        if compression_type is not None:
            if compression_type == "GZIP":

                def opener(name):
                    return gzip.open(name, "rt", encoding=encoding)

            elif compression_type == "ZLIB":
                raise ValueError(
                    f"`compression_type` {compression_type} is not supported for probing columns."
                )
            elif compression_type != "":
                raise ValueError(
                    f"Received unknown `compression_type` {compression_type}. Expected: GZIP, "
                    "ZLIB or  (empty string)."
                )
        rows = _reader(opener, field_delim, use_quote_delim)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        column_names = _column_names(names, rows)
    if len(column_names) != len(set(column_names)):
        raise ValueError(
            "Either `column_names` argument or CSV header row contains duplicate column names: "
            f"{_duplicates(column_names)}."
        )
    if select_columns is not None:
        select_columns = _sorted_indices(select_columns, column_names)
    if column_defaults is not None:
        column_defaults = [
            constant([], dtype=x) if isinstance(x, _dtypes.DType) and x in _CSV_TYPES else x
            for x in column_defaults
        ]
    else:
        column_defaults = _inferred_defaults(
            names, rows, len(column_names), na_value, header, num_rows_for_inference,
            select_columns,
        )  # fmt: skip
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError(
            "If specified, `column_defaults` and `select_columns` must have the same length: "
            f"`column_defaults` has length {len(column_defaults)}, `select_columns` has length "
            f"{len(select_columns)}."
        )
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError(
            f"`label_name` provided must be one of the columns: {column_names}. Received: "
            f"{label_name}."
        )

    def filename_to_dataset(filename):
        ds = CsvDataset(
            filename,
            record_defaults=column_defaults,
            field_delim=field_delim,
            use_quote_delim=use_quote_delim,
            na_value=na_value,
            select_cols=select_columns,
            header=header,
            compression_type=compression_type,
        )
        return ds.ignore_errors() if ignore_errors else ds

    def map_fn(*columns):
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is not None:
            label = features.pop(label_name)
            return features, label
        return features

    if num_parallel_reads == AUTOTUNE:
        dataset = dataset.interleave(filename_to_dataset, num_parallel_calls=AUTOTUNE)
    else:
        dataset = dataset.interleave(
            filename_to_dataset, cycle_length=num_parallel_reads, block_length=1
        )
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size=batch_size, drop_remainder=num_epochs is None)
    dataset = dataset.map(map_fn)
    return dataset.prefetch(prefetch_buffer_size)
