"""`keras.datasets.fashion_mnist`: the four gzipped IDX files from
``~/.keras/datasets/fashion-mnist``."""

import gzip
import os

import numpy as np

from ferroflow.keras.datasets._cache import ORIGIN, cached

__all__ = ["load_data"]

_FILES = (
    "train-labels-idx1-ubyte.gz",
    "train-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
)


def _read(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


def load_data():
    """((x_train, y_train), (x_test, y_test)) as uint8 arrays, images 28x28."""
    dirname = os.path.join("datasets", "fashion-mnist")
    paths = [cached(f, ORIGIN + f, cache_subdir=dirname) for f in _FILES]
    y_train = _read(paths[0], 8)
    x_train = _read(paths[1], 16).reshape(len(y_train), 28, 28)
    y_test = _read(paths[2], 8)
    x_test = _read(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
