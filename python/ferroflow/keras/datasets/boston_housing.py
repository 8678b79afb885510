"""`keras.datasets.boston_housing` from the Keras cache, shuffled and split as Keras does."""

from ferroflow.keras.datasets._cache import load_regression

__all__ = ["load_data"]


def load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """((x_train, y_train), (x_test, y_test))."""
    return load_regression(path, seed, test_split)
