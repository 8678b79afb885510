"""The contents of a lookup table: a Python dict from key to value row, read and written by host
functions (eagerly a direct call on numpy values; inside a `tf.function` or a `Dataset.map` graph
a stateful host-call node, so every run of the graph reads the table as it is then, as
TensorFlow's resource ops do). TensorFlow's lookup kernels are CPU host kernels too."""

import numpy as np

from ferroflow import errors
from ferroflow.dtypes import as_dtype, string
from ferroflow.io import _host

__all__ = ["Store", "check_kernel", "convert", "key_list", "run", "shape_text"]


def shape_text(shape):
    """A shape as TensorFlow's messages print it: ``[2,3]``."""
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def convert(value, dtype, name):
    """``convert_to_tensor(value, dtype, name=name)``: TensorFlow names the argument in the
    error for a tensor of another dtype."""
    from ferroflow._core import Tensor
    from ferroflow.array_ops import convert_to_tensor

    try:
        return convert_to_tensor(value, dtype=dtype)
    except ValueError as e:
        if isinstance(value, Tensor):
            raise ValueError(f"{name}: {e}") from None
        raise


def key_list(keys):
    """The keys of a numpy array as hashable Python values (bytes for strings)."""
    flat = np.asarray(keys).reshape(-1).tolist()
    if flat and isinstance(flat[0], (bytes, str)) and any(type(k) is not bytes for k in flat):
        return [k if isinstance(k, bytes) else str(k).encode() for k in flat]
    return flat


def check_kernel(op, supported, key_dtype, value_dtype, extra=""):
    """TensorFlow's NotFoundError for a key/value dtype pair its table kernel is not registered
    for (``supported``: {key dtype name: value dtype names})."""
    if value_dtype.name in supported.get(key_dtype.name, ()):
        return
    listing = "".join(
        f"  device='CPU'; key_dtype in [DT_{k.upper()}]; value_dtype in [DT_{v.upper()}]\n"
        for k, values in supported.items()
        for v in values
    )
    raise errors.NotFoundError(
        None,
        None,
        f"Could not find device for node: {{{{node {op}}}}} = {op}[{extra}"
        f"key_dtype=DT_{key_dtype.name.upper()}, value_dtype=DT_{value_dtype.name.upper()}]\n"
        f"All kernels registered for op {op}:\n{listing} [Op:{op}]",
    )


class Store:
    """A table's key → value map. ``value_shape`` is the shape of one value (``()`` for
    scalar tables); insertion order is kept (export order: *departure*, TensorFlow's follows
    its hash map's buckets, which no program may rely on)."""

    def __init__(self, key_dtype, value_dtype, value_shape=()):
        self.key_dtype = as_dtype(key_dtype)
        self.value_dtype = as_dtype(value_dtype)
        self.value_shape = tuple(int(d) for d in value_shape)
        self.data = {}
        # Checkpoint variables (see _checkpoint.py) and whether a restore wrote them since.
        self.slots = None
        self.stale = False
        self._index = None  # sorted numeric keys and their values, for vectorized finds
        self._np = object if self.value_dtype == string else self.value_dtype.as_numpy_dtype
        self._knp = object if self.key_dtype == string else self.key_dtype.as_numpy_dtype

    def _values_for(self, keys, values, op):
        expected = tuple(keys.shape) + self.value_shape
        if tuple(values.shape) != expected:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Expected shape {shape_text(expected)} for value, got "
                f"{shape_text(values.shape)} [Op:{op}]",
            )
        return values.reshape((-1, *self.value_shape))

    def _refresh(self):
        """Reloads the contents a checkpoint restore wrote into the slot variables."""
        if not self.stale:
            return
        self.stale = False
        keys, values = (slot._peek().numpy() for slot in self.slots)
        self.data = {}
        self.insert(keys, values, "LookupTableImportV2")

    # --- host functions (numpy in, list of numpy out) ----------------------------------------

    def find(self, keys, default):
        """Values of ``keys`` (any shape); ``default`` is one value or one per key."""
        self._refresh()
        keys = np.asarray(keys)
        default = np.asarray(default, dtype=self._np)
        per_key = default.shape == tuple(keys.shape) + self.value_shape and default.ndim > len(
            self.value_shape
        )
        if not per_key and default.shape != self.value_shape:
            raise errors.InvalidArgumentError(
                None,
                None,
                "Expected shape "
                f"{shape_text(self.value_shape)} or {shape_text(keys.shape + self.value_shape)} "
                f"for default value, got {shape_text(default.shape)} [Op:LookupTableFindV2]",
            )
        if not self.value_shape and not per_key:
            return [self._find_scalars(keys, default[()])]
        out = np.empty((keys.size, *self.value_shape), dtype=self._np)
        defaults = default.reshape((-1, *self.value_shape)) if per_key else None
        for i, k in enumerate(key_list(keys)):
            row = self.data.get(k)
            out[i] = row if row is not None else (defaults[i] if per_key else default)
        return [out.reshape(tuple(keys.shape) + self.value_shape)]

    def _find_scalars(self, keys, fill):
        """Scalar values with one default: a binary search over sorted keys for numbers, dict
        reads for strings."""
        if keys.dtype != object:
            if self._index is None:
                ks = np.fromiter(self.data.keys(), dtype=self._knp, count=len(self.data))
                vs = np.array(list(self.data.values()), dtype=self._np).reshape(len(ks))
                order = np.argsort(ks, kind="stable")
                self._index = (ks[order], vs[order])
            ks, vs = self._index
            if not len(ks):
                return np.full(keys.shape, fill, dtype=self._np)
            at = np.minimum(np.searchsorted(ks, keys), len(ks) - 1)
            return np.where(ks[at] == keys, vs[at], np.asarray(fill, dtype=self._np))
        get = self.data.get
        out = np.empty(keys.size, dtype=self._np)
        out[:] = [get(k, fill) for k in key_list(keys)]
        return out.reshape(keys.shape)

    def insert(self, keys, values, op="LookupTableInsertV2"):
        self._refresh()
        self._index = None
        keys = np.asarray(keys)
        rows = self._values_for(keys, np.asarray(values, dtype=self._np), op)
        for k, row in zip(key_list(keys), rows):
            self.data[k] = row.copy() if self.value_shape else row
        return []

    def remove(self, keys):
        self._refresh()
        self._index = None
        for k in key_list(keys):
            self.data.pop(k, None)
        return []

    def size(self):
        self._refresh()
        return [np.int64(len(self.data))]

    def export(self):
        self._refresh()
        keys = np.empty(len(self.data), dtype=self._knp)
        for i, k in enumerate(self.data):
            keys[i] = k
        values = np.empty((len(self.data), *self.value_shape), dtype=self._np)
        for i, row in enumerate(self.data.values()):
            values[i] = row
        return [keys, values]


def run(fn, inputs, out_dtypes, out_shapes=None):
    """A table's host function ``fn`` as an op: now when eager, a stateful host-call node when
    tracing (stateful: the table may change between runs)."""
    return _host.run(fn, inputs, out_dtypes, out_shapes, stateful=True)
