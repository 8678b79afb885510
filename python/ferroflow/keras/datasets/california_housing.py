"""`keras.datasets.california_housing` from the Keras cache, shuffled and split as Keras does."""

from ferroflow.keras.datasets._cache import load_regression

__all__ = ["load_data"]


def load_data(version="large", path="california_housing.npz", test_split=0.2, seed=113):
    """((x_train, y_train), (x_test, y_test)); ``version="small"`` keeps the first 600 rows."""
    if version not in ("small", "large"):
        raise ValueError(
            f"Argument `version` must be one of 'small', 'large'. Received: version={version}"
        )
    return load_regression(path, seed, test_split, limit=600 if version == "small" else None)
