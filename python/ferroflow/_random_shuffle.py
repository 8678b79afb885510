"""`tf.random.shuffle` run eagerly, in TensorFlow's order for the same seeds.

TensorFlow's `RandomShuffle` kernel holds a Philox stream started from its op seeds
(`random::PhiloxRandom(seed, seed2)`); a call on ``n >= 2`` rows reserves ``ceil((n - 1) / 4)``
Philox calls of it and swaps row ``i`` with row ``i + word % (n - i)`` for ``i < n - 1`` (a
Fisher-Yates pass, one 32-bit word each). Eagerly the kernel is cached per (seeds, dtype), so
calls with the same op seed continue one stream, until `tf.random.set_seed` clears the cache.
"""

import random

import numpy as np

from ferroflow._philox_stream import PhiloxStream

__all__ = ["clear_kernels", "permutation"]

# Philox calls each cached kernel has reserved, by (seed, seed2, dtype name).
_kernels = {}


def clear_kernels():
    """`tf.random.set_seed`'s clearing of TensorFlow's eager kernel cache."""
    _kernels.clear()


def permutation(n, seeds, dtype_name):
    """The row order of a shuffle of ``n >= 2`` rows by the kernel of ``seeds`` (None for an
    unseeded op, whose kernel seeds itself randomly) for ``dtype_name`` values."""
    if seeds == (None, None):
        seeds = (random.getrandbits(64), random.getrandbits(64))
        key = None
    else:
        key = (*seeds, dtype_name)
    reserved = _kernels.get(key, 0)
    if key is not None:
        _kernels[key] = reserved + (n - 1 + 3) // 4
    words = PhiloxStream(*seeds, skip=reserved)
    order = np.arange(n)
    for i in range(n - 1):
        j = i + next(words) % (n - i)
        order[i], order[j] = order[j], order[i]
    return order
