"""`tf.lookup.StaticHashTable` and `StaticVocabularyTable` (and the hash-bucket table behind
`tf.data.experimental.table_from_dataset`): immutable tables filled by an initializer at
creation. Lookups accept dense, ragged and sparse keys, eagerly and in traced graphs."""

import collections

from ferroflow.array_ops import convert_to_tensor, where
from ferroflow.dtypes import int64, string
from ferroflow.lookup._store import Store, check_kernel, run
from ferroflow.math import add, cast, not_equal
from ferroflow.ragged.ragged_tensor import RaggedTensor
from ferroflow.sparse_tensor import SparseTensor
from ferroflow.strings import as_string, to_hash_bucket_fast, to_hash_bucket_strong

__all__ = [
    "FastHashSpec",
    "HasherSpec",
    "IdTableWithHashBuckets",
    "StaticHashTable",
    "StaticVocabularyTable",
    "StrongHashSpec",
]

# The key → value dtypes TensorFlow registers its HashTableV2 kernel for.
HASH_TABLE_KERNELS = {
    "string": ("string", "int64", "int32", "float32", "float64", "bool"),
    "int64": ("string", "int64", "int32", "float32", "float64"),
    "int32": ("string", "int32", "float32", "float64"),
}


def check_keys(keys, key_dtype):
    """TensorFlow's TypeError for keys of another dtype (keys must be tensors: a list has no
    dtype, an AttributeError as in TensorFlow)."""
    if keys.dtype.base_dtype != key_dtype:
        raise TypeError(f"Dtype of argument `keys` must be {key_dtype}, received: {keys.dtype}")


def with_values(keys, values):
    """``values`` in the structure of ``keys`` (sparse, ragged or dense)."""
    if isinstance(keys, SparseTensor):
        return SparseTensor(keys.indices, values, keys.dense_shape)
    if isinstance(keys, RaggedTensor):
        return keys.with_values(values)
    return values


def flat_keys(keys):
    return keys.values if isinstance(keys, (SparseTensor, RaggedTensor)) else keys


class StaticHashTable:
    """A generic hash table that is immutable once initialized."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self._initializer = initializer
        self._key_dtype = initializer.key_dtype
        self._value_dtype = initializer.value_dtype
        self._name = name or "hash_table"
        self._is_anonymous = experimental_is_anonymous
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        if self._default_value.shape.rank != 0:
            raise ValueError(f"Shapes {self._default_value.shape} and () are not compatible")
        check_kernel("HashTableV2", HASH_TABLE_KERNELS, self._key_dtype, self._value_dtype)
        self._store = Store(self._key_dtype, self._value_dtype)
        initializer.initialize(self)

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

    @property
    def default_value(self):
        """The value returned for missing keys."""
        return self._default_value

    def size(self, name=None):
        """The number of elements in the table, an int64 scalar."""
        return run(self._store.size, [], [int64], [()])[0]

    def lookup(self, keys, name=None):
        """The values of ``keys`` (a Tensor, RaggedTensor or SparseTensor), ``default_value``
        for missing keys, in the structure of ``keys``."""
        check_keys(keys, self._key_dtype)
        # A ragged tensor of ragged_rank > 1 has ragged values: ValueError, as TensorFlow.
        key_tensor = convert_to_tensor(flat_keys(keys))
        values = run(
            self._store.find,
            [key_tensor, self._default_value],
            [self._value_dtype],
            [key_tensor.shape],
        )[0]
        return with_values(keys, values)

    def __getitem__(self, keys):
        return self.lookup(keys)

    def export(self, name=None):
        """(keys, values): every entry of the table. *Departure:* in insertion order;
        TensorFlow's order is its hash map's, unspecified."""
        return tuple(
            run(self._store.export, [], [self._key_dtype, self._value_dtype], [[None], [None]])
        )


class HasherSpec(collections.namedtuple("HasherSpec", ["hasher", "key"])):
    """Which hash function assigns out-of-vocabulary buckets: "fasthash" or "stronghash"."""

    __slots__ = ()


FastHashSpec = HasherSpec("fasthash", None)


class StrongHashSpec(HasherSpec):
    """A keyed strong hash (two uint64 keys)."""

    __slots__ = ()

    def __new__(cls, key):
        if len(key) != 2:
            raise ValueError(f"`key` must have size 2, received {len(key)}")
        if not isinstance(key[0], int) or not isinstance(key[1], int):
            raise TypeError(f"Invalid key {key}. Must be unsigned integer values.")
        return super().__new__(cls, "stronghash", key)


def _as_string(tensor):
    return tensor if tensor.dtype == string else as_string(tensor)


def _buckets(values, num_buckets, hasher_spec=FastHashSpec):
    if hasher_spec.hasher == "fasthash":
        return to_hash_bucket_fast(_as_string(values), num_buckets=num_buckets)
    if hasher_spec.hasher == "stronghash":
        return to_hash_bucket_strong(_as_string(values), num_buckets, list(hasher_spec.key))
    raise ValueError(f"Found unknown hasher {hasher_spec.hasher} in `hasher_spec`")


def _lookup_with_buckets(keys, table, num_oov_buckets, hasher_spec, key_dtype):
    check_keys(keys, key_dtype)
    values = flat_keys(keys)
    if table is not None and table.key_dtype.base_dtype == int64:
        values = cast(values, int64)
    if num_oov_buckets == 0:
        ids = table.lookup(values)
    else:
        ids = _buckets(values, num_oov_buckets, hasher_spec)
        if table is not None:
            found = table.lookup(values)
            ids = where(not_equal(found, table.default_value), found, add(ids, table.size()))
    return with_values(keys, ids)


class StaticVocabularyTable:
    """String or integer keys to int64 ids: the initializer's ids for known keys, and for the
    others ``num_oov_buckets`` hash buckets after them (TensorFlow's Fingerprint64 of the key,
    of its decimal text for integers)."""

    def __init__(
        self,
        initializer,
        num_oov_buckets,
        lookup_key_dtype=None,
        name=None,
        experimental_is_anonymous=False,
    ):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if initializer:
            if lookup_key_dtype is None:
                lookup_key_dtype = initializer.key_dtype
            supported = (int64, string)
            if initializer.key_dtype not in supported:
                raise TypeError(
                    f"Invalid `key_dtype`, expected one of {supported}, but got "
                    f"{initializer.key_dtype}."
                )
            if initializer.key_dtype.is_integer != lookup_key_dtype.is_integer:
                raise TypeError(
                    "Invalid `key_dtype`, expected {} but got {}.".format(
                        "integer" if lookup_key_dtype.is_integer else "non-integer",
                        initializer.key_dtype,
                    )
                )
            if initializer.value_dtype != int64:
                raise TypeError(
                    f"Invalid `value_dtype`, expected {int64} but got {initializer.value_dtype}."
                )
            self._table = StaticHashTable(initializer, default_value=-1)
        else:
            lookup_key_dtype = string
            self._table = None
        if not lookup_key_dtype.is_integer and lookup_key_dtype != string:
            raise TypeError(
                f"Invalid `key_dtype`, expected integer or string, got {lookup_key_dtype}"
            )
        self._num_oov_buckets = num_oov_buckets
        self._key_dtype = lookup_key_dtype
        self._value_dtype = int64
        self._name = name

    key_dtype = StaticHashTable.key_dtype
    value_dtype = StaticHashTable.value_dtype

    @property
    def name(self):
        """The ``name`` given, if any (TensorFlow's eager tables have none)."""
        return self._name.rstrip("/").split("/")[-1] if self._name else None

    def size(self, name=None):
        """Vocabulary size plus ``num_oov_buckets``."""
        known = self._table.size() if self._table else convert_to_tensor(0, dtype=int64)
        return known + self._num_oov_buckets

    def lookup(self, keys, name=None):
        """Ids of ``keys`` (Tensor, RaggedTensor or SparseTensor), OOV keys hashed to
        buckets."""
        return _lookup_with_buckets(
            keys, self._table, self._num_oov_buckets, FastHashSpec, self._key_dtype
        )

    def __getitem__(self, keys):
        return self.lookup(keys)


class IdTableWithHashBuckets:
    """A table (or none) extended by ``num_oov_buckets`` hash buckets (TensorFlow's
    ``lookup_ops.IdTableWithHashBuckets``, what ``table_from_dataset`` returns with buckets)."""

    def __init__(self, table, num_oov_buckets, hasher_spec=FastHashSpec, name=None, key_dtype=None):
        if table:
            if key_dtype is None:
                key_dtype = table.key_dtype
            supported = (int64, string)
            if table.key_dtype not in supported:
                raise TypeError(
                    f"Invalid `key_dtype`, expected one of {supported}, but got {table.key_dtype}."
                )
            if table.key_dtype.is_integer != key_dtype.is_integer:
                raise TypeError(
                    "Invalid `key dtype`, expected {} but got {}.".format(
                        "integer" if key_dtype.is_integer else "non-integer", table.key_dtype
                    )
                )
            if table.value_dtype != int64:
                raise TypeError(
                    f"Invalid `value_dtype`: expected int64 but got {table.value_dtype}."
                )
        else:
            if num_oov_buckets <= 0:
                raise ValueError("`oov_buckets` must be > 0 if no `table` is supplied.")
            key_dtype = string if key_dtype is None else key_dtype
        if not key_dtype.is_integer and key_dtype != string:
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got {key_dtype}")
        if not isinstance(hasher_spec, HasherSpec):
            raise TypeError(f"`hasher_spec` must be of type HasherSpec, got {type(hasher_spec)}")
        self._table = table
        self._num_oov_buckets = num_oov_buckets
        self._hasher_spec = hasher_spec
        self._key_dtype = key_dtype
        self._value_dtype = int64
        self._name = name

    key_dtype = StaticHashTable.key_dtype
    value_dtype = StaticHashTable.value_dtype
    size = StaticVocabularyTable.size
    name = StaticVocabularyTable.name

    def lookup(self, keys, name=None):
        """Ids of ``keys``; OOV keys hashed with the table's ``hasher_spec``."""
        return _lookup_with_buckets(
            keys, self._table, self._num_oov_buckets, self._hasher_spec, self._key_dtype
        )

    def __getitem__(self, keys):
        return self.lookup(keys)
