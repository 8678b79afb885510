"""TensorFlow's `RandomShuffle` kernel, for `tf.random.shuffle` run eagerly and for Keras's
shuffles of array data in `fit`, in TensorFlow's order for the same seeds.

The kernel holds a Philox stream started from its op seeds (`random::PhiloxRandom(seed,
seed2)`); a call on ``n >= 2`` rows reserves ``ceil((n - 1) / 4)`` Philox calls of it and
swaps row ``i`` with row ``i + word % (n - i)`` for ``i < n - 1`` (a Fisher-Yates pass, one
32-bit word each). Eagerly TensorFlow caches the kernel per (seeds, dtype), so calls with the
same op seed continue one stream, until `tf.random.set_seed` clears the cache.
"""

import random

import numpy as np

from ferroflow._philox_stream import PhiloxStream

__all__ = ["ShuffleKernel", "clear_kernels", "eager_permutation"]


class ShuffleKernel:
    """One kernel: the row orders its successive calls give."""

    def __init__(self, seeds):
        if seeds == (None, None):
            # Unseeded: TensorFlow's kernel seeds itself randomly.
            seeds = (random.getrandbits(64), random.getrandbits(64))
        self._seeds = seeds
        self._reserved = 0  # Philox calls taken by earlier calls

    def permutation(self, n):
        """The row order of the next call, on ``n`` rows (rows of a single element are not
        shuffled and draw nothing)."""
        if n <= 1:
            return np.arange(n)
        words = PhiloxStream(*self._seeds, skip=self._reserved)
        self._reserved += (n - 1 + 3) // 4
        order = np.arange(n)
        for i in range(n - 1):
            j = i + next(words) % (n - i)
            order[i], order[j] = order[j], order[i]
        return order


# TensorFlow's eager kernel cache: kernels by (seed, seed2, dtype name).
_kernels = {}


def clear_kernels():
    """`tf.random.set_seed`'s clearing of TensorFlow's eager kernel cache."""
    _kernels.clear()


def eager_permutation(n, seeds, dtype_name):
    """The row order of an eager `tf.random.shuffle` of ``n`` rows of ``dtype_name`` values by
    the op seeds ``seeds`` (``(None, None)``: unseeded, a kernel of its own)."""
    if seeds == (None, None):
        return ShuffleKernel(seeds).permutation(n)
    key = (*seeds, dtype_name)
    if key not in _kernels:
        _kernels[key] = ShuffleKernel(seeds)
    return _kernels[key].permutation(n)


def traced_shuffle(value, seeds):
    """`tf.random.shuffle` inside a trace: a host node with a kernel of its own, whose stream
    each run of the graph continues (TensorFlow keeps a function's kernels between calls),
    gathering ``value``'s rows on its device."""
    from ferroflow import array_ops, script_ops
    from ferroflow import dtypes as _dtypes

    kernel = ShuffleKernel(seeds)

    def order(rows, size):
        rows = int(rows)
        # TensorFlow's kernel copies a tensor of at most one element, drawing nothing.
        return (kernel.permutation(rows) if int(size) > 1 else np.arange(rows)).astype(np.int64)

    rows = array_ops.shape(value, out_type=_dtypes.int64)[0]
    size = array_ops.size(value, out_type=_dtypes.int64)
    indices = script_ops.numpy_function(order, [rows, size], Tout=_dtypes.int64)
    out = array_ops.gather(value, array_ops.reshape(indices, [-1]))
    out.set_shape(value.shape)
    return out
