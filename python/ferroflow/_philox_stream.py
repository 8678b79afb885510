"""TensorFlow's stateful Philox stream as tf.data's shuffle and `tf.random.shuffle` draw it:
Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3") started from the
two 64-bit seeds `random::PhiloxRandom(seed, seed2)` takes (key = ``seed``, counter =
``[0, seed2]``), its four 32-bit words per call read one at a time
(`random::SingleSampleAdapter`).

It is numpy rather than ferroflow's Rust Philox because a dataset may be iterated while a
`tf.function` is traced, where ferroflow ops would only build graph nodes; the kernel is the
same function (`src/ops/random/philox.rs`), checked against it by the parity tests.
"""

import numpy as np

__all__ = ["PhiloxStream"]

_MULTIPLIERS = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
_KEY_STEPS = (0x9E3779B9, 0xBB67AE85)
_WORD = 0xFFFFFFFF
_LOW = np.uint64(_WORD)
_SHIFT = np.uint64(32)
# Philox calls per refill: a shuffle draws one word per element, so a few thousand words
# at a time keep numpy's per-call overhead small without drawing far ahead.
_CALLS = 512


def _philox(key, counters):
    """Philox4x32-10 of each row of ``counters`` ((n, 4) uint64 holding 32-bit words, the
    least significant first) under ``key`` (two 32-bit ints): (n, 4) uint32."""
    c0, c1, c2, c3 = (counters[:, i] for i in range(4))
    k0, k1 = key
    for _ in range(10):
        p0 = _MULTIPLIERS[0] * c0
        p1 = _MULTIPLIERS[1] * c2
        c0, c1, c2, c3 = (
            (p1 >> _SHIFT) ^ c1 ^ np.uint64(k0),
            p1 & _LOW,
            (p0 >> _SHIFT) ^ c3 ^ np.uint64(k1),
            p0 & _LOW,
        )
        k0 = (k0 + _KEY_STEPS[0]) & _WORD
        k1 = (k1 + _KEY_STEPS[1]) & _WORD
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


class PhiloxStream:
    """``SingleSampleAdapter<PhiloxRandom>(PhiloxRandom(seed, seed2))``: an endless iterator
    of the stream's uint32 words (Python ints)."""

    def __init__(self, seed, seed2, skip=0):
        """The stream after ``skip`` Philox calls (``4 * skip`` words)."""
        seed &= 2**64 - 1
        self._key = (seed & _WORD, seed >> 32)
        # The 128-bit counter: words 2 and 3 hold seed2.
        self._counter = (((seed2 & (2**64 - 1)) << 64) + skip) % 2**128
        self._words = self._stream()

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._words)

    def _stream(self):
        while True:
            yield from self._refill()

    def _refill(self):
        """The words of the next `_CALLS` Philox calls."""
        low, high = self._counter & (2**64 - 1), self._counter >> 64
        counters = np.empty((_CALLS, 4), dtype=np.uint64)
        if low + _CALLS <= 2**64:
            lows = np.uint64(low) + np.arange(_CALLS, dtype=np.uint64)
            counters[:, 0], counters[:, 1] = lows & _LOW, lows >> _SHIFT
            counters[:, 2], counters[:, 3] = high & _WORD, high >> 32
        else:  # the low 64 bits carry into the high ones within this refill
            for i in range(_CALLS):
                c = (self._counter + i) % 2**128
                counters[i] = [(c >> shift) & _WORD for shift in (0, 32, 64, 96)]
        self._counter = (self._counter + _CALLS) % 2**128
        return _philox(self._key, counters).reshape(-1).tolist()
