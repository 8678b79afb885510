"""`tf.data.experimental`: the constants and helpers TensorFlow kept there."""

from ferroflow.data.dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "cardinality",
    "dense_to_ragged_batch",
    "dense_to_sparse_batch",
]


def cardinality(dataset):
    """``dataset.cardinality()``."""
    return dataset.cardinality()


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=None):
    """A transformation for `Dataset.apply`: ``dataset.ragged_batch(...)``."""
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


def dense_to_sparse_batch(batch_size, row_shape):
    """A transformation for `Dataset.apply`: ``dataset.sparse_batch(...)``."""
    return lambda dataset: dataset.sparse_batch(batch_size, row_shape)
