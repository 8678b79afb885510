"""The contents of a `DenseHashTable` laid out as TensorFlow's MutableDenseHashTable kernel lays
them out: a power-of-two array of key buckets (empty ones hold ``empty_key``, removed ones
``deleted_key``) with quadratic probing from the key's hash (the integer itself, TensorFlow's
Hash64 of a string), grown when an insert would pass the load factor, so that ``export``
returns TensorFlow's bucket arrays and a checkpoint holds them."""

import numpy as np

from ferroflow import errors
from ferroflow.dtypes import string
from ferroflow.lookup._store import key_list, shape_text

__all__ = ["DenseStore", "hash64"]

_MASK = (1 << 64) - 1
_M = 0xC6A4A7935BD1E995
_SEED = 0xDECAFCAFFE


def hash64(data):
    """TensorFlow's ``Hash64(data, n)`` (a 64-bit MurmurHash2 variant, seed 0xDECAFCAFFE)."""
    n = len(data)
    h = (_SEED ^ (n * _M)) & _MASK
    whole = n - n % 8
    for i in range(0, whole, 8):
        k = int.from_bytes(data[i : i + 8], "little")
        k = (k * _M) & _MASK
        k ^= k >> 47
        k = (k * _M) & _MASK
        h ^= k
        h = (h * _M) & _MASK
    tail = data[whole:]
    if tail:
        for i in range(len(tail) - 1, -1, -1):
            h ^= tail[i] << (8 * i)
        h = (h * _M) & _MASK
    h ^= h >> 47
    h = (h * _M) & _MASK
    h ^= h >> 47
    return h


def _hash_scalar(key):
    return hash64(key) if isinstance(key, bytes) else key & _MASK


def _hash(key):
    """TensorFlow's HashKey: a scalar's hash, or the Hash64Combine fold of an element-wise
    key's scalar hashes."""
    if not isinstance(key, tuple):
        return _hash_scalar(key)
    result = 0
    for part in key:
        b = _hash_scalar(part)
        result = (
            result ^ ((b + 0x9E3779B97F4A7800 + (result << 10) + (result >> 4)) & _MASK)
        ) & _MASK
    return result


class DenseStore:
    """Bucket arrays with TensorFlow's insert, find, remove, grow and export."""

    MAX_LOAD_FACTOR = 0.8

    def __init__(self, key_dtype, value_dtype, value_shape, empty, deleted, num_buckets):
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.value_shape = tuple(int(d) for d in value_shape)
        self._value_size = int(np.prod(self.value_shape, dtype=np.int64))
        self._np = object if value_dtype == string else value_dtype.as_numpy_dtype
        self._knp = object if key_dtype == string else key_dtype.as_numpy_dtype
        self.key_shape = tuple(empty.shape)
        self._key_size = int(np.prod(self.key_shape, dtype=np.int64))
        self.empty, self.deleted = self._rows(np.stack([empty, deleted]))
        self.slots = None
        self.stale = False
        self._allocate(num_buckets)
        self.entries = 0

    def _allocate(self, num_buckets):
        self.keys = [self.empty] * num_buckets
        self.values = np.zeros((num_buckets, self._value_size), dtype=self._np)
        if self._np is object:
            self.values[...] = b""

    def _refresh(self):
        if not self.stale:
            return
        self.stale = False
        keys, values = (np.asarray(slot._peek().numpy()) for slot in self.slots)
        self.keys = self._rows(keys)
        self.values = values.reshape(len(self.keys), self._value_size).astype(self._np)
        self.entries = sum(k != self.empty and k != self.deleted for k in self.keys)

    def _rows(self, keys):
        """The keys of ``keys`` (a batch of keys) as hashable values: scalars, or tuples of a
        key's elements when keys are not scalars."""
        flat = key_list(keys)
        if not self.key_shape:
            return flat
        size = self._key_size
        return [tuple(flat[i : i + size]) for i in range(0, len(flat), size)]

    def _check(self, keys, op):
        """TensorFlow reads keys as a [dim 0, key size] matrix; the batch shape is what is
        left of the keys' shape without the key dimensions."""
        rank = len(self.key_shape)
        if rank and (keys.ndim < rank or tuple(keys.shape[keys.ndim - rank :]) != self.key_shape):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Input key shape {shape_text(keys.shape)} must end with the table's key shape "
                f"{shape_text(self.key_shape)} [Op:{op}]",
            )
        rows = keys.shape[0] if keys.ndim else 1
        if keys.size != rows * self._key_size:
            expected = shape_text((rows, *self.key_shape))
            raise errors.InvalidArgumentError(
                None, None, f"Expected key shape {expected} got {shape_text(keys.shape)} [Op:{op}]"
            )
        return tuple(keys.shape[: keys.ndim - len(self.key_shape)])

    def _refuse(self, key, op):
        for which, reserved in (("empty_key", self.empty), ("deleted_key", self.deleted)):
            if key == reserved:
                raise errors.InvalidArgumentError(
                    None, None, f"Using the {which} as a table key is not allowed [Op:{op}]"
                )

    def _probe(self, key):
        """Bucket indices in TensorFlow's probe order for ``key``."""
        mask = len(self.keys) - 1
        bucket = _hash(key) & mask
        for probes in range(1, len(self.keys) + 1):
            yield bucket
            bucket = (bucket + probes) & mask

    def _put(self, key, row, op):
        for bucket in self._probe(key):
            held = self.keys[bucket]
            if held == key:
                self.values[bucket] = row
                return
            if held == self.empty or held == self.deleted:
                self.keys[bucket] = key
                self.values[bucket] = row
                self.entries += 1
                return
        raise errors.InternalError(None, None, f"Internal error in MutableDenseHashTable {op}")

    def _grow(self, pending):
        size = len(self.keys)
        if pending <= size * self.MAX_LOAD_FACTOR:
            return
        while pending > size * self.MAX_LOAD_FACTOR:
            size <<= 1
        old_keys, old_values = self.keys, self.values
        self._allocate(size)
        self.entries = 0
        for key, row in zip(old_keys, old_values):
            if key != self.empty and key != self.deleted:
                self._put(key, row, "insert")

    # --- host functions -----------------------------------------------------------------------

    def find(self, keys, default):
        self._refresh()
        op = "LookupTableFindV2"
        keys = np.asarray(keys)
        batch = self._check(keys, op)
        default = np.asarray(default, dtype=self._np).reshape(self._value_size)
        rows = self._rows(keys)
        out = np.empty((len(rows), self._value_size), dtype=self._np)
        for i, key in enumerate(rows):
            self._refuse(key, op)
            out[i] = default
            for bucket in self._probe(key):
                held = self.keys[bucket]
                if held == key:
                    out[i] = self.values[bucket]
                    break
                if held == self.empty:
                    break
        return [out.reshape(batch + self.value_shape)]

    def insert(self, keys, values):
        self._refresh()
        op = "LookupTableInsertV2"
        keys = np.asarray(keys)
        batch = self._check(keys, op)
        values = np.asarray(values, dtype=self._np)
        expected = batch + self.value_shape
        if tuple(values.shape) != expected:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Expected shape {shape_text(expected)} for value, got "
                f"{shape_text(values.shape)} [Op:{op}]",
            )
        flat = self._rows(keys)
        # As TensorFlow: grow as if every key were new, then insert key by key (a reserved key
        # stops the batch where it stands).
        self._grow(self.entries + len(flat))
        for key, row in zip(flat, values.reshape(len(flat), self._value_size)):
            self._refuse(key, op)
            self._put(key, row, "insert")
        return []

    def remove(self, keys):
        self._refresh()
        op = "LookupTableRemoveV2"
        keys = np.asarray(keys)
        self._check(keys, op)
        for key in self._rows(keys):
            self._refuse(key, op)
            for bucket in self._probe(key):
                held = self.keys[bucket]
                if held == key:
                    self.keys[bucket] = self.deleted
                    self.entries -= 1
                    break
                if held == self.empty:
                    break
        return []

    def size(self):
        self._refresh()
        return [np.int64(self.entries)]

    def export(self):
        """TensorFlow's export: the bucket arrays, [buckets, key size] keys, [buckets, value
        size] values."""
        self._refresh()
        keys = np.empty((len(self.keys), max(self._key_size, 1)), dtype=self._knp)
        if self.key_shape:
            keys[...] = self.keys
        else:
            keys[:, 0] = self.keys
        return [keys, self.values.copy()]
