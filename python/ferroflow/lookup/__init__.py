"""`tf.lookup`: hash tables from keys to values, filled by initializers (tensors or text files)
or by inserts, with lookups eagerly, in `tf.function` and in `tf.data` pipelines."""

from ferroflow.lookup import experimental
from ferroflow.lookup._initializers import (
    KeyValueTensorInitializer,
    TextFileIndex,
    TextFileInitializer,
)
from ferroflow.lookup._static import StaticHashTable, StaticVocabularyTable

__all__ = [
    "KeyValueTensorInitializer",
    "StaticHashTable",
    "StaticVocabularyTable",
    "TextFileIndex",
    "TextFileInitializer",
    "experimental",
]
