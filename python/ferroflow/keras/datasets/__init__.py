"""`tf.keras.datasets`: Keras's small datasets, read from the Keras cache
(``~/.keras/datasets`` or ``$KERAS_HOME/datasets``) with Keras's parsing. ferroflow does not
download: a dataset whose files are not cached raises `get_file`'s error naming the path."""

from ferroflow.keras.datasets import (
    boston_housing,
    california_housing,
    cifar10,
    cifar100,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
)

__all__ = [
    "boston_housing",
    "california_housing",
    "cifar10",
    "cifar100",
    "fashion_mnist",
    "imdb",
    "mnist",
    "reuters",
]
