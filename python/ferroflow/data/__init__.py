"""`tf.data`: input pipelines (`tf.data.Dataset`)."""

from ferroflow.data import experimental
from ferroflow.data.dataset import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    Iterator,
)

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "Iterator",
    "experimental",
]
