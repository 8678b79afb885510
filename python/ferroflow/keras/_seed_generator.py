"""Keras 3's seed generator (``keras.random.SeedGenerator``) for layers with random draws:
a non-trainable int64 variable ``[seed, counter]`` whose value seeds TensorFlow's stateless
random ops and whose counter is incremented by each draw.

The variable's update is part of the computation, so a traced function draws new numbers on
each run; two generators made with the same seed give the same sequence. With the stateless
ops' Philox stream, which ferroflow reproduces bit for bit, the numbers are Keras's.

ferroflow's stateless ops need the shape while tracing. For a shape known only at run time
(an unknown batch size in a traced function), an unseeded layer draws from the stateful ops
(the same law, new numbers on each run, as Keras's random default seed gives); a seeded one
raises NotImplementedError rather than give other numbers than Keras's."""

import random

from ferroflow import array_ops, dtypes
from ferroflow import math as tf_math
from ferroflow import random as tf_random
from ferroflow.variables import Variable

__all__ = ["SeedGenerator", "draw_seed", "normal", "uniform"]

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


def _known(dims):
    return all(isinstance(d, int) for d in dims)


def _check_seedless(dims, generator):
    if generator._initial_seed is not None:
        raise NotImplementedError(
            f"A seeded Keras random layer cannot draw a shape known only at run time "
            f"({[d if isinstance(d, int) else None for d in dims]}) inside a traced function: "
            "ferroflow's stateless random ops need the shape while tracing. Give the traced "
            "function fully known input shapes, or leave `seed` unset."
        )


def uniform(dims, generator, dtype=dtypes.float32):
    """Keras's ``random.uniform(shape, seed=generator)`` in [0, 1); ``dims`` are ints or
    scalar tensors (run-time sizes)."""
    if _known(dims):
        return tf_random.stateless_uniform(dims, seed=draw_seed(generator), dtype=dtype)
    _check_seedless(dims, generator)
    return tf_random.uniform(array_ops.stack(dims), dtype=dtype)


def normal(dims, generator, mean, stddev, dtype=dtypes.float32):
    """Keras's ``random.normal(shape, mean, stddev, seed=generator)``; ``dims`` as in
    `uniform`."""
    if _known(dims):
        return tf_random.stateless_normal(
            dims, seed=draw_seed(generator), mean=mean, stddev=stddev, dtype=dtype
        )
    _check_seedless(dims, generator)
    return tf_random.normal(array_ops.stack(dims), mean, stddev, dtype=dtype)
