"""`tf.lookup.experimental.MutableHashTable` and `DenseHashTable`: tables written by
insert/remove after creation, with scalar or tensor values."""

import numpy as np

from ferroflow import errors
from ferroflow.array_ops import convert_to_tensor
from ferroflow.dtypes import as_dtype, int64
from ferroflow.lookup._checkpoint import table_children
from ferroflow.lookup._store import Store, check_kernel, key_list, shape_text

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
        return self._store.run(self._store.size, [], [int64], [()])[0]

    def _insert(self, keys, values):
        keys = convert_to_tensor(keys, self._key_dtype)
        values = convert_to_tensor(values, self._value_dtype)
        self._store.run(self._checked_insert, [keys, values], [])

    def _checked_insert(self, keys, values):
        return self._store.insert(keys, values)

    def _find(self, keys, default):
        return self._store.find(keys, default)

    def export(self, name=None):
        """(keys, values): every entry. *Departure:* in insertion order; TensorFlow's order
        is its hash map's, unspecified."""
        shapes = [[None], [None, *self._value_shape]]
        return tuple(
            self._store.run(self._store.export, [], [self._key_dtype, self._value_dtype], shapes)
        )

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
        self._store.run(self._store.remove, [keys], [])

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """Values of ``keys``; missing keys get ``dynamic_default_values`` (one per key) when
        given, else ``default_value``."""
        keys = convert_to_tensor(keys, dtype=self._key_dtype)
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
        return self._store.run(self._find, [keys, default], [self._value_dtype], [shape])[0]


class DenseHashTable(_MutableBase):
    """A mutable hash table with two reserved keys: ``empty_key`` and ``deleted_key`` may
    never be inserted or looked up."""

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
        self._initial_num_buckets = initial_num_buckets
        empty = convert_to_tensor(empty_key, dtype=self._key_dtype)
        deleted = convert_to_tensor(deleted_key, dtype=self._key_dtype)
        check_kernel(
            "MutableDenseHashTableV2", DENSE_TABLE_KERNELS, self._key_dtype, self._value_dtype
        )
        self._empty = np.asarray(empty.numpy())
        self._deleted = np.asarray(deleted.numpy())
        if self._empty.shape != self._deleted.shape or np.array_equal(self._empty, self._deleted):
            op = "MutableDenseHashTableV2"
            message = (
                "Empty and deleted keys cannot be equal"
                if self._empty.shape == self._deleted.shape
                else "Empty and deleted keys must have same shape, got shapes: "
                f"{list(self._empty.shape)} and {list(self._deleted.shape)}"
            )
            raise errors.InvalidArgumentError(None, None, f"{message} [Op:{op}]")
        if self._empty.ndim != 0:
            raise errors.UnimplementedError(
                None, None, "DenseHashTable with non-scalar keys is not supported by ferroflow"
            )
        self._reserved = key_list(np.stack([self._empty, self._deleted]))

    def _refuse_reserved(self, keys, op):
        # TensorFlow reads keys as a [dim 0, key size] matrix: with scalar keys, a key tensor
        # of rank 2 or more must have every dimension after the first equal to one.
        rows = keys.shape[0] if keys.ndim else 1
        if keys.size != rows:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Expected key shape [{rows}] got {shape_text(keys.shape)} [Op:{op}]",
            )
        found = set(key_list(keys))
        for which, key in zip(("empty_key", "deleted_key"), self._reserved):
            if key in found:
                raise errors.InvalidArgumentError(
                    None, None, f"Using the {which} as a table key is not allowed [Op:{op}]"
                )

    def _checked_insert(self, keys, values):
        self._refuse_reserved(keys, "LookupTableInsertV2")
        return self._store.insert(keys, values)

    def _find(self, keys, default):
        self._refuse_reserved(keys, "LookupTableFindV2")
        return self._store.find(keys, default)

    def _checked_remove(self, keys):
        self._refuse_reserved(keys, "LookupTableRemoveV2")
        return self._store.remove(keys)

    def lookup(self, keys, name=None):
        """Values of ``keys``, ``default_value`` for missing ones."""
        keys = convert_to_tensor(keys, dtype=self._key_dtype)
        shape = keys.shape.concatenate(self._value_shape)
        return self._store.run(
            self._find, [keys, self._default_value], [self._value_dtype], [shape]
        )[0]

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
        self._store.run(self._checked_remove, [keys], [])

    remove = erase

    def export(self, name=None):
        """Not available: TensorFlow exports its bucket arrays (empty buckets included, in
        its hash order), which ferroflow's table does not reproduce."""
        raise errors.UnimplementedError(
            None,
            None,
            "DenseHashTable.export returns TensorFlow's internal bucket layout, which ferroflow "
            "does not reproduce",
        )
