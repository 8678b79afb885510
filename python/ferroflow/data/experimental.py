"""`tf.data.experimental`: the constants and helpers TensorFlow kept there."""

from ferroflow.data.dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality"]


def cardinality(dataset):
    """``dataset.cardinality()``."""
    return dataset.cardinality()
