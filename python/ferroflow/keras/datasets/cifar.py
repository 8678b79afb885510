"""The CIFAR batch files that cifar10 and cifar100 read (pickled dicts, bytes keys)."""

import os

import numpy as np

from ferroflow.keras import backend
from ferroflow.keras.datasets._cache import RestrictedUnpickler, cached


def load_batch(fpath, label_key="labels"):
    """(data as N x 3 x 32 x 32, labels) of one CIFAR batch file."""
    with open(fpath, "rb") as f:
        d = RestrictedUnpickler(f, encoding="bytes").load()
    d = {k.decode("utf8"): v for k, v in d.items()}
    data = d["data"]
    return data.reshape(data.shape[0], 3, 32, 32), d[label_key]


def extracted(dirname, origin, inner):
    """The extracted archive's directory ``inner`` (the archive comes from the cache)."""
    return os.path.join(cached(dirname, origin, extract=True), inner)


def finish(x_train, y_train, x_test, y_test):
    """Labels as columns and images channels-last, as Keras returns them."""
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    if backend.image_data_format() == "channels_last":
        x_train = x_train.transpose(0, 2, 3, 1)
        x_test = x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test, y_test)
