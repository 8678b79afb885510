"""`tf.lookup.experimental.MutableHashTable` and `DenseHashTable`: tables written by
insert/remove after creation, with scalar or tensor values."""

import numpy as np

from ferroflow import errors
from ferroflow.array_ops import convert_to_tensor
from ferroflow.dtypes import as_dtype, int64
from ferroflow.lookup._checkpoint import table_children
from ferroflow.lookup._dense_store import DenseStore
from ferroflow.lookup._store import Store, check_kernel, convert, run, shape_text

__all__ = ["DenseHashTable", "MutableHashTable"]

MUTABLE_TABLE_KERNELS = {
    "string": ("int64", "int32", "float32", "float64", "bool"),
    "int64": ("string", "int64", "int32", "float32", "float64"),
    "int32": ("int32", "float32", "float64"),
}
DENSE_TABLE_KERNELS = {
    "string": ("int64", "int32", "float32", "float64", "bool"),
    "int64": ("int64", "int32", "float32", "float64", "bool"),
    "int32": ("int32", "float32", "float64"),
}


class _MutableBase:
    """What both mutable tables share: a store, dtypes, size, insert and lookup."""

    def _setup(self, key_dtype, value_dtype, default_value, name, checkpoint):
        self._key_dtype = as_dtype(key_dtype)
        self._value_dtype = as_dtype(value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._value_shape = self._default_value.shape
        self._name = name
        self._checkpoint = checkpoint
        self._store = Store(self._key_dtype, self._value_dtype, tuple(self._value_shape))

    @property
    def key_dtype(self):
        """The table key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The table value dtype."""
        return self._value_dtype

    @property
    def name(self):
        """None when created eagerly, as TensorFlow's."""
        return None

    def size(self, name=None):
        """The number of elements in the table, an int64 scalar."""
        return run(self._store.size, [], [int64], [()])[0]

    def _insert(self, keys, values):
        keys = convert(keys, self._key_dtype, "keys")
        values = convert(values, self._value_dtype, "values")
        run(self._store.insert, [keys, values], [])

    def export(self, name=None):
        """(keys, values): every entry. *Departure:* in insertion order; TensorFlow's order
        is its hash map's, unspecified."""
        shapes = [[None], [None, *self._value_shape]]
        return tuple(run(self._store.export, [], [self._key_dtype, self._value_dtype], shapes))

    def __getitem__(self, keys):
        return self.lookup(keys)

    def _trackable_children(self, *args, **kwargs):
        """Checkpoint children: the contents as ``table-keys``/``table-values`` variables
        (none when ``checkpoint=False``)."""
        return table_children(self)


class MutableHashTable(_MutableBase):
    """A generic mutable hash table: keys of any shape map to values of the default value's
    shape; missing keys give ``default_value`` (or ``dynamic_default_values``)."""

    def __init__(
        self,
        key_dtype,
        value_dtype,
        default_value,
        name="MutableHashTable",
        checkpoint=True,
        experimental_is_anonymous=False,
    ):
        self._setup(key_dtype, value_dtype, default_value, name, checkpoint)
        check_kernel(
            "MutableHashTableV2", MUTABLE_TABLE_KERNELS, self._key_dtype, self._value_dtype
        )

    def insert(self, keys, values, name=None):
        """Associates ``keys`` with ``values`` (shape: keys' shape + value shape)."""
        self._insert(keys, values)

    def remove(self, keys, name=None):
        """Removes ``keys`` (a tensor of the key dtype); missing keys are ignored."""
        if keys.dtype != self._key_dtype:
            raise TypeError(
                f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}"
            )
        run(self._store.remove, [keys], [])

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """Values of ``keys``; missing keys get ``dynamic_default_values`` (one per key) when
        given, else ``default_value``."""
        keys = convert(keys, self._key_dtype, "keys")
        if dynamic_default_values is None:
            default = self._default_value
        else:
            default = convert_to_tensor(dynamic_default_values)
            if default.dtype != self._value_dtype:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Signature mismatch, have: resource, {self._key_dtype.name}, "
                    f"{default.dtype.name}->{default.dtype.name} expected: resource, "
                    f"{self._key_dtype.name}, {self._value_dtype.name}->"
                    f"{self._value_dtype.name} [Op:LookupTableFindV2]",
                )
        shape = keys.shape.concatenate(self._value_shape)
        return run(self._store.find, [keys, default], [self._value_dtype], [shape])[0]


class DenseHashTable(_MutableBase):
    """A mutable hash table with two reserved keys: ``empty_key`` and ``deleted_key`` may
    never be inserted or looked up. Its contents are TensorFlow's bucket arrays (see
    ``_dense_store.py``), so ``export`` gives TensorFlow's result."""

    def __init__(
        self,
        key_dtype,
        value_dtype,
        default_value,
        empty_key,
        deleted_key,
        initial_num_buckets=None,
        name="MutableDenseHashTable",
        checkpoint=True,
        experimental_is_anonymous=False,
    ):
        self._setup(key_dtype, value_dtype, default_value, name, checkpoint)
        self._initial_num_buckets = 2**17 if initial_num_buckets is None else initial_num_buckets
        empty = np.asarray(convert_to_tensor(empty_key, dtype=self._key_dtype).numpy())
        deleted = np.asarray(convert_to_tensor(deleted_key, dtype=self._key_dtype).numpy())
        check_kernel(
            "MutableDenseHashTableV2", DENSE_TABLE_KERNELS, self._key_dtype, self._value_dtype
        )
        op = "MutableDenseHashTableV2"
        buckets = self._initial_num_buckets
        if buckets < 4 or buckets & (buckets - 1):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Number of buckets must be at least 4 and a power of 2, got: {buckets} [Op:{op}]",
            )
        if empty.shape != deleted.shape:
            raise errors.InvalidArgumentError(
                None,
                None,
                "Empty and deleted keys must have same shape, got shapes: "
                f"{shape_text(empty.shape)} and {shape_text(deleted.shape)} [Op:{op}]",
            )
        if np.array_equal(empty, deleted):
            raise errors.InvalidArgumentError(
                None, None, f"Empty and deleted keys cannot be equal [Op:{op}]"
            )
        self._store = DenseStore(
            self._key_dtype, self._value_dtype, tuple(self._value_shape), empty, deleted, buckets
        )

    def lookup(self, keys, name=None):
        """Values of ``keys``, ``default_value`` for missing ones."""
        keys = convert(keys, self._key_dtype, "keys")
        key_rank = len(self._store.key_shape)
        rank = keys.shape.rank
        shape = None
        if rank is not None and rank >= key_rank:
            shape = keys.shape[: rank - key_rank].concatenate(self._value_shape)
        return run(self._store.find, [keys, self._default_value], [self._value_dtype], [shape])[0]

    def insert_or_assign(self, keys, values, name=None):
        """Associates ``keys`` with ``values``."""
        self._insert(keys, values)

    insert = insert_or_assign

    def erase(self, keys, name=None):
        """Removes ``keys`` (a tensor of the key dtype)."""
        if keys.dtype != self._key_dtype:
            raise TypeError(
                f"Signature mismatch. Keys must be dtype {self._key_dtype}, got {keys.dtype}."
            )
        run(self._store.remove, [keys], [])

    remove = erase

    def export(self, name=None):
        """(keys, values): TensorFlow's bucket arrays, ``[buckets, 1]`` keys (empty buckets
        hold ``empty_key``, removed entries ``deleted_key``) and ``[buckets, value size]``
        values (zeros in unused buckets)."""
        size = self._store._value_size
        shapes = [[None, max(self._store._key_size, 1)], [None, size]]
        return tuple(run(self._store.export, [], [self._key_dtype, self._value_dtype], shapes))
