"""`keras.datasets.cifar100`: the cached archive's train and test files, fine or coarse labels."""

import os

from ferroflow.keras.datasets.cifar import extracted, finish, load_batch

__all__ = ["load_data"]


def load_data(label_mode="fine"):
    """((x_train, y_train), (x_test, y_test)) with ``label_mode`` "fine" or "coarse" labels."""
    if label_mode not in ["fine", "coarse"]:
        raise ValueError(
            f'`label_mode` must be one of `"fine"`, `"coarse"`. Received: label_mode={label_mode}.'
        )
    path = extracted(
        "cifar-100-python-target",
        "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz",
        "cifar-100-python",
    )
    key = f"{label_mode}_labels"
    x_train, y_train = load_batch(os.path.join(path, "train"), label_key=key)
    x_test, y_test = load_batch(os.path.join(path, "test"), label_key=key)
    return finish(x_train, y_train, x_test, y_test)
