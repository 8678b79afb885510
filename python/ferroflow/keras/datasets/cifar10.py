"""`keras.datasets.cifar10`: five training batches and a test batch from the cached archive."""

import os

import numpy as np

from ferroflow.keras.datasets.cifar import extracted, finish, load_batch

__all__ = ["load_data"]


def load_data():
    """((x_train, y_train), (x_test, y_test)): uint8 images 32x32x3 and labels (N, 1)."""
    path = extracted(
        "cifar-10-batches-py-target",
        "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
        "cifar-10-batches-py",
    )
    xs, ys = [], []
    for i in range(1, 6):
        x, y = load_batch(os.path.join(path, f"data_batch_{i}"))
        xs.append(x.astype("uint8"))
        ys.append(np.asarray(y, dtype="uint8"))
    x_train, y_train = np.concatenate(xs), np.concatenate(ys)
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))
    x_test = x_test.astype(x_train.dtype)
    y_test = np.asarray(y_test).astype(y_train.dtype)
    return finish(x_train, y_train, x_test, y_test)
