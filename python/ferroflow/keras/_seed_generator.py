"""Keras 3's seed generator (``keras.random.SeedGenerator``) and how its TensorFlow backend turns
a ``seed`` argument into the seed of a stateless random op.

A generator is a non-trainable int64 variable ``[seed, counter]`` (named
``<generator name>/seed_generator_state`` as Keras names it) whose value seeds TensorFlow's
stateless random ops and whose counter each draw moves on by one. The update is part of the
computation, so a traced function draws new numbers on each run; two generators made with the
same seed give the same sequence. With the stateless ops' Philox stream, which ferroflow
reproduces bit for bit, the numbers are Keras's: eagerly, in traced functions (shapes known
only at run time included) and in `fit`.

``seed`` arguments, as Keras's ``draw_seed``: a `SeedGenerator` draws its next seed, an int is
the fixed seed ``[seed, 0]`` (the same numbers on every call), None draws from the global
generator (reset by ``keras.utils.set_random_seed``)."""

import random

import numpy as np

from ferroflow import array_ops, dtypes
from ferroflow import math as tf_math
from ferroflow import random as tf_random
from ferroflow.keras import _naming

__all__ = ["SeedGenerator", "draw_seed", "global_seed_generator", "normal", "uniform"]

_INT32_MAX = 2**31 - 1
_GLOBAL = [None]


def make_default_seed():
    """A seed for a generator made without one, from Python's `random` (as Keras)."""
    return random.randint(1, int(1e9))


class SeedGenerator:
    """A sequence of seeds for stateless random ops, starting from ``seed`` (an int; None
    picks one at random, as Keras does)."""

    def __init__(self, seed=None, name=None, **kwargs):
        from ferroflow.keras._variables import Variable

        kwargs.pop("backend", None)  # Keras's backend choice: ferroflow is the only one
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
        self.name = _naming.auto_name(type(self).__name__) if name is None else name
        self._initial_seed = seed
        if seed is None:
            seed = make_default_seed()
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        self.state = Variable(
            np.array([seed, 0], np.int64),
            dtype="int64",
            trainable=False,
            name="seed_generator_state",
        )
        self.state.path = f"{self.name}/seed_generator_state"

    def next(self, ordered=True):
        """The current ``[seed, counter]`` (a tensor); then the counter moves on by one
        (``ordered``), or the state is scrambled as Keras's global generator does."""
        value = self.state.value() * 1
        if ordered:
            self.state.assign(value + array_ops.constant([0, 1], dtype=dtypes.int64))
        else:
            self.state.assign((value + 1) * 5387 % 933199)
        return value

    def get_config(self):
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def global_seed_generator():
    """The generator unseeded draws use (made on first use, after `set_random_seed`)."""
    if _GLOBAL[0] is None:
        _GLOBAL[0] = SeedGenerator()
    return _GLOBAL[0]


def reset_global_seed_generator():
    """Forgets the global generator (``keras.utils.set_random_seed``)."""
    _GLOBAL[0] = None


def draw_seed(seed):
    """The int32 pair a stateless op takes for a Keras ``seed`` argument (Keras's TensorFlow
    backend folds the int64 state with ``floormod(state, int32.max - 1)``)."""
    if isinstance(seed, SeedGenerator):
        value = seed.next()
    elif isinstance(seed, int) and not isinstance(seed, bool):
        value = array_ops.constant([seed, 0], dtype=dtypes.int64)
    elif seed is None:
        value = global_seed_generator().next(ordered=False)
    else:
        raise ValueError(
            "Argument `seed` must be either an integer or an instance of `SeedGenerator`. "
            f"Received: seed={seed} (of type {type(seed)})"
        )
    return array_ops.cast(tf_math.floormod(value, _INT32_MAX - 1), dtypes.int32)


def uniform(dims, generator, dtype=dtypes.float32):
    """Keras's ``random.uniform(shape, seed=generator)`` in [0, 1); ``dims`` are ints or
    scalar tensors (run-time sizes)."""
    return tf_random.stateless_uniform(dims, seed=draw_seed(generator), dtype=dtype)


def normal(dims, generator, mean, stddev, dtype=dtypes.float32):
    """Keras's ``random.normal(shape, mean, stddev, seed=generator)``; ``dims`` as in
    `uniform`."""
    return tf_random.stateless_normal(
        dims, seed=draw_seed(generator), mean=mean, stddev=stddev, dtype=dtype
    )
