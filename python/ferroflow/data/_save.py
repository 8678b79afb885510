"""`Dataset.save`, `Dataset.load` and `Dataset.snapshot`: elements kept in a directory.

The directory holds ferroflow's own layout (one pickled file of the element spec and the
elements as numpy arrays, gzip-compressed with ``compression="GZIP"``), not TensorFlow's
snapshot format: TensorFlow cannot read what ferroflow saves, nor ferroflow what TensorFlow
saves (both raise rather than misread). Reading rebuilds only containers, numpy values and
spec classes: a file naming anything else is DataLossError, never code run."""

import collections
import gzip
import os
import pickle
import sys

from ferroflow import errors
from ferroflow.data import _structure
from ferroflow.data.dataset import Dataset

__all__ = ["SnapshotDataset", "load", "load_pickle", "save"]

_FILE = "ferroflow_dataset.pkl"
_SNAPSHOT = "ferroflow_snapshot.pkl"
_COMPRESSIONS = (None, "", "NONE", "GZIP", "AUTO", "SNAPPY")


def _check_compression(compression):
    if compression not in _COMPRESSIONS:
        raise ValueError(f"Unsupported compression: {compression!r}.")
    return "GZIP" if compression == "GZIP" else None


def _write(path, payload, compression):
    partial = f"{path}.tmp-{os.getpid()}"
    opener = gzip.open if compression == "GZIP" else open
    with opener(partial, "wb") as f:
        pickle.dump(payload, f)
    os.replace(partial, path)


def _read(path, compression):
    with open(path, "rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    if gzipped != (compression == "GZIP"):
        raise errors.DataLossError(
            None,
            None,
            f"{path} was written with another compression than {compression or 'none'}.",
        )
    opener = gzip.open if gzipped else open
    with opener(path, "rb") as f:
        return load_pickle(f, path)


def load_pickle(file, path):
    """What `save` (or `cache` to a file) pickled into ``file``, rebuilt by `_Unpickler`;
    DataLossError for a damaged or hostile file."""
    try:
        return _Unpickler(file).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError) as e:
        raise errors.DataLossError(None, None, f"{path} is not a saved dataset: {e}") from None


# What a saved dataset may rebuild: containers, numpy arrays and scalars, and the element
# spec's classes. A file is never trusted to name anything else (unpickling a global is
# calling it, so an open unpickler would run whatever a hostile file names).
_BUILTINS = {"list", "dict", "tuple", "set", "frozenset", "slice", "complex", "bytearray"}
_NUMPY = {"_reconstruct", "scalar", "ndarray", "dtype"}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        from ferroflow.dtypes import DType
        from ferroflow.tensor_shape import TensorShape
        from ferroflow.type_spec import TypeSpec

        if module == "builtins" and name in _BUILTINS:
            return super().find_class(module, name)
        if module.split(".")[0] == "numpy" and (name in _NUMPY or name.endswith("DType")):
            return super().find_class(module, name)
        if (module, name) == ("ferroflow.dtypes", "as_dtype"):  # how a DType pickles
            return super().find_class(module, name)
        # Only classes of modules already imported: naming a module must not import it.
        found = getattr(sys.modules.get(module), name, None)
        if isinstance(found, type) and (
            issubclass(found, (TypeSpec, DType, TensorShape))
            or found is collections.OrderedDict
            or (issubclass(found, tuple) and hasattr(found, "_fields"))
        ):
            return found
        raise pickle.UnpicklingError(f"a saved dataset does not hold {module}.{name}")


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """Writes every element of ``dataset`` under the directory ``path``."""
    if checkpoint_args is not None:
        raise NotImplementedError("`checkpoint_args` is not supported by ferroflow's `save`.")
    compression = _check_compression(compression)
    path = os.fspath(path)
    spec = dataset.element_spec
    elements = []
    for element in dataset._elements():
        if shard_func is not None:
            # Called as TensorFlow calls it (its result picks a shard file; ferroflow keeps
            # one file, so the shard does not change what `load` reads back).
            from ferroflow.data import _calls

            _calls.call(shard_func, element)
        elements.append(_structure.to_arrays(element, spec))
    os.makedirs(path, exist_ok=True)
    _write(
        os.path.join(path, _FILE),
        {"element_spec": spec, "elements": elements},
        compression,
    )


class _Loaded(Dataset):
    _repr_name = "_LoadDataset"

    def __init__(self, spec, arrays):
        self._spec = spec
        self._arrays = arrays

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return len(self._arrays)

    def _elements(self):
        return (_structure.from_arrays(a, self._spec) for a in self._arrays)


def load(path, element_spec=None, compression=None, reader_func=None, wait=False):
    """The dataset `save` wrote under ``path``."""
    compression = _check_compression(compression)
    path = os.fspath(path)
    file = os.path.join(path, _FILE)
    if not os.path.exists(file):
        raise errors.NotFoundError(
            None, None, f"Could not find a dataset saved by ferroflow under {path}."
        )
    payload = _read(file, compression)
    spec = payload["element_spec"]
    if element_spec is not None and element_spec != spec:
        raise ValueError(
            f"The `element_spec` {element_spec} does not match the saved dataset's {spec}."
        )
    dataset = _Loaded(spec, payload["elements"])
    if reader_func is None:
        return dataset
    from ferroflow.data._nested import ListDataset
    from ferroflow.data._specs import DatasetSpec

    return reader_func(ListDataset([dataset], DatasetSpec(spec)))


class SnapshotDataset(Dataset):
    """The elements, written under ``path`` by the first complete iteration and read back
    from there afterwards (by any snapshot of a pipeline of the same fingerprint)."""

    _repr_name = "_SnapshotDataset"

    def __init__(self, input_dataset, path, compression, reader_func, shard_func):
        self._input = input_dataset
        self._path = os.fspath(path)
        self._compression = _check_compression(compression)
        self._reader_func = reader_func
        self._shard_func = shard_func

    @property
    def element_spec(self):
        return self._input.element_spec

    def _cardinality(self):
        n = self._input._cardinality()
        return n

    def _file(self):
        from ferroflow.data._options import fingerprint

        key = int(fingerprint(self._input).numpy())
        return os.path.join(self._path, f"{key:016x}", _SNAPSHOT)

    def _elements(self):
        file = self._file()
        if os.path.exists(file):
            spec = self.element_spec
            stored = _Loaded(spec, _read(file, self._compression))
            if self._reader_func is None:
                return iter(stored._elements())
            from ferroflow.data._nested import ListDataset
            from ferroflow.data._specs import DatasetSpec

            read = self._reader_func(ListDataset([stored], DatasetSpec(spec)))
            return iter(read._elements())
        return self._recording(file)

    def _recording(self, file):
        spec = self.element_spec
        kept = []
        for element in self._input._elements():
            kept.append(_structure.to_arrays(element, spec))
            yield element
        os.makedirs(os.path.dirname(file), exist_ok=True)
        _write(file, kept, self._compression)
