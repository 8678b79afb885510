"""`tf.lookup.experimental`: the mutable tables."""

from ferroflow.lookup._mutable import DenseHashTable, MutableHashTable

__all__ = ["DenseHashTable", "MutableHashTable"]
