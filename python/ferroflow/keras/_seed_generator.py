"""Keras 3's seed generator (``keras.random.SeedGenerator``) for layers with random draws:
a non-trainable int64 variable ``[seed, counter]`` whose value seeds TensorFlow's stateless
random ops and whose counter is incremented by each draw.

The variable's update is part of the computation, so a traced function draws new numbers on
each run; two generators made with the same seed give the same sequence. With the stateless
ops' Philox stream, which ferroflow reproduces bit for bit, the numbers are Keras's."""

import random

from ferroflow import array_ops, dtypes
from ferroflow import math as tf_math
from ferroflow.variables import Variable

__all__ = ["SeedGenerator", "draw_seed"]

_INT32_MAX = 2**31 - 1


class SeedGenerator:
    """A sequence of seeds for stateless random ops, starting from ``seed`` (an int; None
    picks one at random, as Keras does)."""

    def __init__(self, seed=None):
        self._initial_seed = seed
        if seed is None:
            seed = random.randint(1, int(1e9))
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        self.state = Variable(
            [seed, 0], dtype=dtypes.int64, trainable=False, name="seed_generator_state"
        )

    def next(self):
        """The current ``[seed, counter]`` (a tensor), then the counter moves on by one."""
        value = self.state.value() * 1
        self.state.assign(value + array_ops.constant([0, 1], dtype=dtypes.int64))
        return value


def draw_seed(generator):
    """The next seed of ``generator`` as the int32 pair the stateless ops take (Keras's TF
    backend folds the int64 state with ``floormod(state, int32.max - 1)``)."""
    value = generator.next()
    return array_ops.cast(tf_math.floormod(value, _INT32_MAX - 1), dtypes.int32)
