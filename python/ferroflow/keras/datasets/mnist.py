"""`keras.datasets.mnist`: the MNIST digits from the Keras cache (``mnist.npz``)."""

import numpy as np

from ferroflow.keras.datasets._cache import ORIGIN, cached

__all__ = ["load_data"]


def load_data(path="mnist.npz"):
    """((x_train, y_train), (x_test, y_test)) as uint8 arrays."""
    path = cached(path, f"{ORIGIN}mnist.npz")
    with np.load(path, allow_pickle=False) as f:
        return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])
