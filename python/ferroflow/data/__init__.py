"""`tf.data`: input pipelines (`tf.data.Dataset`)."""

from ferroflow.data import experimental
from ferroflow.data._options import Options, ThreadingOptions
from ferroflow.data._readers import (  # io-files
    FixedLengthRecordDataset,
    TextLineDataset,
    TFRecordDataset,
)
from ferroflow.data._specs import DatasetSpec, IteratorSpec
from ferroflow.data.dataset import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    Iterator,
    NumpyIterator,
)

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetSpec",
    "FixedLengthRecordDataset",
    "Iterator",
    "IteratorSpec",
    "NumpyIterator",
    "Options",
    "TFRecordDataset",
    "TextLineDataset",
    "ThreadingOptions",
    "experimental",
]
