"""The seeds each iteration of a random dataset (`shuffle`, `Dataset.random`) starts from:
the op seeds themselves, or with reshuffling a new pair drawn from a Philox stream of them
per iteration, as TensorFlow's seed generators give them. The state (op seeds and pairs
drawn) is what a checkpointed iterator saves, so a restored one replays the same order."""

import contextlib
import threading

from ferroflow import _random_seed
from ferroflow._philox_stream import PhiloxStream

__all__ = ["IterationSeeds", "op_seeds", "trace_global_seed"]

# The global seed of the trace a dataset being remade was recorded in (see `op_seeds`).
_remaking = threading.local()


def op_seeds(op_seed):
    """A random dataset's op seeds (`_random_seed.get_seed`); while a dataset recorded in a
    `tf.function`'s trace is remade for a run of its graph (`trace_global_seed`), with the
    global seed of that trace, which TensorFlow's graph holds (`tf.random.set_seed` after
    the trace changes nothing there)."""
    op_seed = None if op_seed is None else int(op_seed)
    pinned = getattr(_remaking, "global_seed", None)
    if pinned is None or op_seed is None:
        return _random_seed.get_seed(op_seed)
    return _random_seed.seeds_for(pinned[0], op_seed)


@contextlib.contextmanager
def trace_global_seed(global_seed):
    """`op_seeds` under ``global_seed`` (the trace's) while this is open."""
    previous = getattr(_remaking, "global_seed", None)
    _remaking.global_seed = (global_seed,)
    try:
        yield
    finally:
        _remaking.global_seed = previous


class IterationSeeds:
    """Seed pairs for the iterations of one dataset."""

    def __init__(self, seed, seed2, reshuffle):
        self._reshuffle = bool(reshuffle)
        self.set_state((seed, seed2, 0))

    def next_pair(self):
        """The seeds of a new iteration."""
        if self._stream is None:
            return self._seeds
        self._drawn += 1
        return next(self._stream), next(self._stream)

    def state(self):
        """(seed, seed2, pairs drawn so far)."""
        return (*self._seeds, self._drawn)

    def set_state(self, state):
        """Back to ``state`` (what `state` returned): later pairs are the ones drawn then."""
        seed, seed2, drawn = state
        self._seeds = (int(seed), int(seed2))
        self._drawn = int(drawn)
        self._stream = PhiloxStream(*self._seeds) if self._reshuffle else None
        for _ in range(2 * self._drawn if self._reshuffle else 0):
            next(self._stream)
