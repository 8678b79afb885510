"""`Dataset.save`, `Dataset.load` and `Dataset.snapshot` in TensorFlow's snapshot layout, so
that saved datasets move between TensorFlow and ferroflow in both directions:

- ``path/snapshot.metadata``: a ``SnapshotMetadataRecord`` (run id, version 2, component
  dtypes, element count, finalized);
- ``path/dataset_spec.pb``: the element spec as a ``StructuredValue`` (`_structure_coder`);
- ``path/<run_id>/<shard:08d>.shard/<checkpoint:08d>.snapshot``: TFRecords (GZIP/ZLIB/
  SNAPPY compressed or not), one ``TensorProto`` per component of each element, in order.

`save` writes the spec, then an unfinalized metadata record naming a new run, then the
elements, then the finalized record; a save that fails leaves what it wrote, as TensorFlow's.
With ``checkpoint_args`` it checkpoints as it goes (`_save_checkpoints`): a shard then holds
one file per checkpoint, and a reader, as TensorFlow's, reads a shard's first file and raises
InternalError where a second one follows. `snapshot` writes the same files under
``path/<fingerprint>/`` (no ``dataset_spec.pb``). How a component becomes a record (dense
tensors; ragged, sparse, optional and nested-dataset ones as TensorFlow's DT_VARIANT
encodings) is `_snapshot_records`; ``shard_func`` is traced as TensorFlow traces it
(`_shard_func`). SNAPPY files go through `_snappy` (pure Python)."""

import contextlib
import multiprocessing
import os
import secrets
import shutil
import tempfile
import time

from google.protobuf.message import DecodeError

from ferroflow import _core, _tracing, errors
from ferroflow import _structure_coder as coder
from ferroflow._proto import message_class
from ferroflow.data import _snappy, _structure
from ferroflow.data import _snapshot_records as records
from ferroflow.data._shard_func import trace_shard_func
from ferroflow.data.dataset import Dataset
from ferroflow.io import _filesystem

__all__ = ["SnapshotDataset", "load", "save", "snapshot"]

_METADATA = "snapshot.metadata"
_SPEC = "dataset_spec.pb"
_VERSION = 2
_UNKNOWN = -2  # tf.data.UNKNOWN_CARDINALITY
_RAW = ".records"  # a SNAPPY shard's records before they are compressed


def _metadata_class():
    return message_class("tensorflow.data.experimental.SnapshotMetadataRecord")


def _record_compression(compression):
    """The TFRecord compression of ``compression``. TensorFlow writes any name it does not
    know (None, "", "AUTO", "NONE", ...) uncompressed, and so does ferroflow."""
    return compression if compression in ("GZIP", "ZLIB", "SNAPPY") else ""


def _flat_specs(spec, what):
    from ferroflow.type_spec import TypeSpec

    flat = _structure.flatten(spec)
    for s in flat:
        if not isinstance(s, TypeSpec):
            raise TypeError(f"An element_spec must hold `tf.TypeSpec`s, got {s!r}.")
        if not records.savable(s):
            raise errors.UnimplementedError(
                None,
                None,
                f"ferroflow cannot {what} a dataset whose elements hold a {type(s).__name__} "
                "(TensorFlow saves it as a DT_VARIANT tensor ferroflow cannot encode).",
            )
    return flat


def _write_atomically(path, data):
    """``data`` as the file ``path``, which readers see whole or not at all: written beside it
    and renamed over it; a failed write leaves no partial file behind."""
    partial = f"{path}.tmp-{os.getpid()}"
    try:
        with open(partial, "wb") as f:
            f.write(data)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(partial)
        raise


def shard_file(run_dir, shard, checkpoint=0):
    """The file of checkpoint ``checkpoint`` of shard ``shard`` (TensorFlow names a shard by
    its index as an unsigned 64-bit number: -1 is 18446744073709551615)."""
    return os.path.join(run_dir, f"{shard % 2**64:08d}.shard", f"{checkpoint:08d}.snapshot")


class ShardWriters:
    """One TFRecord file per shard index under ``run_dir`` (checkpoint ``checkpoint``'s),
    opened on first use; a file already there (a resumed save's) is added to, as TensorFlow
    appends to it."""

    def __init__(self, run_dir, compression, flat, checkpoint=0):
        self._run_dir = run_dir
        self._compression = compression
        self._flat = flat
        self._checkpoint = checkpoint
        self._writers = {}

    def _open(self, shard):
        file = shard_file(self._run_dir, shard, self._checkpoint)
        os.makedirs(os.path.dirname(file), exist_ok=True)
        kept = list(_records_of(file, self._compression)) if os.path.exists(file) else []
        if self._compression == "SNAPPY":  # records first, compressed on closing
            file += _RAW
        compression = "" if self._compression == "SNAPPY" else self._compression
        writer = self._writers[shard] = _core.TFRecordWriter(file, compression)
        for record in kept:
            writer.write(record)
        return writer

    def write(self, shard, element):
        writer = self._writers.get(shard) or self._open(shard)
        for component, spec in zip(_structure.flatten(element), self._flat):
            writer.write(records.component_record(component, spec))

    def close(self):
        """Closes every shard's file (all of them, even after one fails: the first failure is
        raised once the others are closed)."""
        failure = None
        writers, self._writers = self._writers, {}
        for shard, writer in writers.items():
            try:
                writer.close()
                if self._compression == "SNAPPY":
                    file = shard_file(self._run_dir, shard, self._checkpoint)
                    with open(file + _RAW, "rb") as f:
                        _snappy.compress_file(f.read(), file)
                    os.remove(file + _RAW)
            except Exception as e:  # noqa: BLE001 - re-raised below, after the other shards
                failure = failure or e
        if failure is not None:
            raise failure

    def close_after_failure(self):
        """Closes the files (whole, for a reader) while another error is being raised."""
        with contextlib.suppress(Exception):
            self.close()


def _metadata(run_id, flat, count, graph_hash="", finalized=True):
    record = _metadata_class()(
        graph_hash=graph_hash,
        run_id=str(run_id),
        creation_timestamp=int(time.time() * 1e6),
        version=_VERSION,
        dtype=[records.record_dtype(s) for s in flat],
        # A snapshot's record leaves the count out, as TensorFlow's does.
        num_elements=0 if graph_hash else count,
        finalized=finalized,
    )
    return record.SerializeToString()


def write_metadata(path, run_id, flat, count, finalized):
    """``path``'s metadata record: run ``run_id`` of ``count`` elements, finalized or not."""
    data = _metadata(run_id, flat, count, finalized=finalized)
    _write_atomically(os.path.join(path, _METADATA), data)


def start_save(dataset, path, compression, shard_func):
    """What TensorFlow's save does before the first element: traces ``shard_func`` and writes
    ``path/dataset_spec.pb``. Returns (host path, flat specs, record compression, the shard
    function traced or None)."""
    path = _filesystem.host_path(os.fspath(path))
    spec = dataset.element_spec
    flat = _flat_specs(spec, "save")
    traced = None if shard_func is None else trace_shard_func(shard_func, spec)
    encoded = coder.encode_structure(spec).SerializeToString()
    os.makedirs(path, exist_ok=True)
    _write_atomically(os.path.join(path, _SPEC), encoded)
    return path, flat, _record_compression(compression), traced


def start_run(path, flat):
    """A new run of ``path``: its directory and an unfinalized metadata record naming it.
    Returns its id and directory."""
    run_id = secrets.randbits(64)
    run_dir = os.path.join(path, str(run_id))
    os.makedirs(run_dir)  # also for no elements, as TensorFlow
    write_metadata(path, run_id, flat, 0, finalized=False)
    return run_id, run_dir


def _write_run(elements, directory, flat, compression, shard_of, graph_hash=""):
    """Writes ``elements`` (shard ``shard_of(element, index)``) into a new run directory of
    ``directory``, then its finalized metadata; a write left unfinished removes its run."""
    run_id = secrets.randbits(64)
    run_dir = os.path.join(directory, str(run_id))
    os.makedirs(run_dir)  # also for no elements, as TensorFlow
    writers = ShardWriters(run_dir, compression, flat)
    count = 0
    done = False
    try:
        for element in elements:
            writers.write(shard_of(element, count), element)
            count += 1
            yield element
        # Closing flushes (and for SNAPPY compresses) the shards: a run is finished only
        # once its files are whole.
        writers.close()
        done = True
    finally:
        if not done:
            with contextlib.suppress(Exception):
                writers.close()
            shutil.rmtree(run_dir, ignore_errors=True)
    _write_atomically(
        os.path.join(directory, _METADATA), _metadata(run_id, flat, count, graph_hash)
    )


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """Writes every element of ``dataset`` under the directory ``path``; with
    ``checkpoint_args`` (outside a `tf.function`, as TensorFlow) checkpointing as it goes."""
    if checkpoint_args and not _tracing.tracing():
        from ferroflow.data._save_checkpoints import checkpointed_save

        return checkpointed_save(dataset, path, compression, shard_func, checkpoint_args)
    path, flat, compression, traced = start_save(dataset, path, compression, shard_func)
    run_id, run_dir = start_run(path, flat)
    writers = ShardWriters(run_dir, compression, flat)
    count = 0
    try:
        for element in dataset._elements():
            # Without a shard function every element goes to shard 0, as TensorFlow's.
            writers.write(0 if traced is None else traced(element), element)
            count += 1
    except BaseException:
        writers.close_after_failure()
        raise
    writers.close()
    write_metadata(path, run_id, flat, count, finalized=True)


def _data_loss(message):
    return errors.DataLossError(None, None, message)


def _read_metadata(directory):
    file = os.path.join(directory, _METADATA)
    try:
        with open(file, "rb") as f:
            record = _metadata_class().FromString(f.read())
    except FileNotFoundError:
        shown = _filesystem.shown(file)
        raise errors.NotFoundError(None, None, f"{shown}; No such file or directory") from None
    except DecodeError as e:
        raise _data_loss(f"Could not parse the snapshot metadata {file}: {e}") from None
    run_id = record.run_id
    if not run_id or run_id in (".", "..") or "/" in run_id or os.sep in run_id:
        raise _data_loss(f"The snapshot metadata {file} names no valid run: {run_id!r}.")
    if record.version != _VERSION:
        raise _data_loss(f"Unsupported snapshot version {record.version} in {file}.")
    return record


def _records_of(file, compression):
    """The records of one shard file (a SNAPPY one decompressed into a temporary file)."""
    if compression != "SNAPPY":
        yield from _core.TFRecordReader(file, compression)
        return
    stream = _snappy.decompress_file(file)
    with tempfile.TemporaryDirectory() as scratch:
        raw = os.path.join(scratch, "records")
        with open(raw, "wb") as f:
            f.write(stream)
        del stream
        yield from _core.TFRecordReader(raw, "")


class _ShardDataset(Dataset):
    """The elements of one shard directory, read file by file."""

    _repr_name = "_ShardDataset"

    def __init__(self, directory, spec, compression):
        self._directory = directory
        self._spec = spec
        self._compression = compression

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return _UNKNOWN

    def _elements(self):
        flat = _structure.flatten(self._spec)
        file = os.path.join(self._directory, f"{0:08d}.snapshot")
        if not os.path.exists(file):
            shown = _filesystem.shown(file)
            raise errors.NotFoundError(None, None, f"{shown}; No such file or directory")
        pending = []
        for record in _records_of(file, self._compression):
            if len(pending) >= len(flat):
                raise _data_loss(f"{file} holds records the element spec has no place for.")
            component = len(pending)
            pending.append(records.parse_component(record, flat[component], file, component))
            if len(pending) == len(flat):
                yield _structure.pack_as(self._spec, pending)
                pending = []
        if pending:
            raise _data_loss(f"{file} ends inside an element.")
        if os.path.exists(os.path.join(self._directory, f"{1:08d}.snapshot")):
            # A checkpointed save's next file: TensorFlow's reader moves on to it without
            # reading an element and fails on the empty one it returns.
            raise errors.InternalError(None, None, f"Expected {len(flat)} components but got 0.")


class _Shards(Dataset):
    """The datasets of the shards of a saved run (listed when iterated)."""

    _repr_name = "_ShardsDataset"

    def __init__(self, directory, spec, compression):
        from ferroflow.data._specs import DatasetSpec

        self._directory = directory
        self._spec = spec
        self._compression = compression
        self._dataset_spec = DatasetSpec(spec)

    @property
    def element_spec(self):
        return self._dataset_spec

    def _cardinality(self):
        return _UNKNOWN

    def _elements(self):
        run_dir = os.path.join(self._directory, _read_metadata(self._directory).run_id)
        # A run directory that is not there holds no shards, as TensorFlow reads it.
        names = sorted(os.listdir(run_dir)) if os.path.isdir(run_dir) else []
        names = [n for n in names if n.endswith(".shard")]
        for name in names:
            yield _ShardDataset(os.path.join(run_dir, name), self._spec, self._compression)


def _default_reader(datasets):
    from ferroflow.data import AUTOTUNE

    return datasets.interleave(
        lambda x: x, cycle_length=multiprocessing.cpu_count(), num_parallel_calls=AUTOTUNE
    )


def _read(directory, spec, compression, reader_func):
    """``reader_func`` applied to the dataset of ``directory``'s shard datasets."""
    _flat_specs(spec, "load")
    records = _record_compression(compression)
    read = (reader_func or _default_reader)(_Shards(directory, spec, records))
    if not isinstance(read, Dataset):
        raise TypeError(f"`reader_func` must return a `tf.data.Dataset`, got {read!r}.")
    return read


class _Loaded(Dataset):
    _repr_name = "_LoadDataset"

    def __init__(self, path, spec, read):
        self._path = path
        self._spec = spec
        self._read = read

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        try:
            record = _read_metadata(self._path)
        except (errors.NotFoundError, errors.DataLossError):
            return _UNKNOWN
        return record.num_elements if record.finalized else _UNKNOWN

    def _elements(self):
        return self._read._elements()


def _load_element_spec(path):
    file = os.path.join(path, _SPEC)
    if not os.path.exists(file):
        raise errors.NotFoundError(
            None, None, f"tf.data snapshot element_spec file not found: {_filesystem.shown(file)}."
        )
    with open(file, "rb") as f:
        # A file protobuf cannot parse raises its DecodeError, as TensorFlow's load does.
        proto = message_class("tensorflow.StructuredValue").FromString(f.read())
    try:
        return coder.decode_proto(proto)
    except coder.NotEncodableError:
        raise errors.NotFoundError(
            None,
            None,
            f"tf.data snapshot element_spec file not found or invalid: {_filesystem.shown(file)}.",
        ) from None


def load(path, element_spec=None, compression=None, reader_func=None, wait=False):
    """The dataset `save` (TensorFlow's or ferroflow's) wrote under ``path``; ``wait`` retries
    every 5 seconds until it is there, as TensorFlow does."""
    path = _filesystem.host_path(os.fspath(path))
    while True:
        try:
            spec = _load_element_spec(path) if element_spec is None else element_spec
            break
        except errors.NotFoundError:
            if not wait:
                raise
            time.sleep(5)
    if not _structure.flatten(spec):
        # TensorFlow's reader dataset needs at least one component type.
        raise ValueError(
            "Attr 'output_types' of 'ParallelInterleaveDatasetV4' Op passed list of length 0 "
            "less than minimum 1."
        )
    return _Loaded(path, spec, _read(path, spec, compression, reader_func))


class SnapshotDataset(Dataset):
    """The elements, written under ``path/<fingerprint>/`` in TensorFlow's snapshot layout by
    the first complete iteration and read back from there afterwards (by any snapshot of a
    pipeline of the same fingerprint). The fingerprint is ferroflow's, so TensorFlow and
    ferroflow never find each other's snapshots."""

    _repr_name = "_SnapshotDataset"

    def __init__(self, input_dataset, path, compression, reader_func, shard_func):
        self._input = input_dataset
        self._path = _filesystem.host_path(os.fspath(path))
        # "AUTO" is snappy in TensorFlow's snapshots (a plain `save` writes it uncompressed).
        self._records = "SNAPPY" if compression == "AUTO" else _record_compression(compression)
        self._flat = _flat_specs(input_dataset.element_spec, "snapshot")
        self._reader_func = reader_func
        # Traced when the dataset is made, as TensorFlow's: Python side effects run once.
        self._shard_of = trace_shard_func(
            shard_func, input_dataset.element_spec, "Dataset.snapshot()", check_scalar=True
        )

    @property
    def element_spec(self):
        return self._input.element_spec

    def _cardinality(self):
        return self._input._cardinality()

    def _hash(self):
        from ferroflow.data._options import fingerprint

        return str(int(fingerprint(self._input).numpy()) % 2**64)

    def _elements(self):
        graph_hash = self._hash()
        directory = os.path.join(self._path, graph_hash)
        try:
            finalized = _read_metadata(directory).finalized
        except (errors.NotFoundError, errors.DataLossError):
            finalized = False
        if finalized:
            spec = self.element_spec
            return iter(_read(directory, spec, self._records, self._reader_func)._elements())

        def shard_of(element, _):
            return self._shard_of(element)

        return _write_run(
            self._input._elements(), directory, self._flat, self._records, shard_of, graph_hash
        )


def snapshot(dataset, path, compression="AUTO", reader_func=None, shard_func=None):
    """`Dataset.snapshot`: as TensorFlow, without a ``shard_func`` the elements are numbered,
    kept as ``(index, element)`` in shard ``index % cpu_count()`` and the number dropped
    after reading."""
    if shard_func is not None:
        return SnapshotDataset(dataset, path, compression, reader_func, shard_func)
    cpus = multiprocessing.cpu_count()
    numbered = dataset.enumerate()
    kept = SnapshotDataset(numbered, path, compression, reader_func, lambda i, _: i % cpus)
    return kept.map(lambda _, element: element)
