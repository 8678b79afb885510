"""`tf.keras.utils.set_random_seed`."""

import random

import numpy as np

from ferroflow import random as tf_random

__all__ = ["set_random_seed"]


def set_random_seed(seed):
    """Seeds Python's `random`, numpy's global generator and ferroflow's (`tf.random`), which
    between them decide weight initialisation, `fit`'s shuffling and `Dataset.shuffle`."""
    if not isinstance(seed, int):
        raise ValueError(
            f"Expected `seed` argument to be an integer. Received: seed={seed} (of type "
            f"{type(seed)})"
        )
    from ferroflow.keras import _seed_generator

    # As Keras: unseeded `keras.random` draws start a new global seed generator.
    _seed_generator.reset_global_seed_generator()
    random.seed(seed)
    np.random.seed(seed)
    tf_random.set_seed(seed)
