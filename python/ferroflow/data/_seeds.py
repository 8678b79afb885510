"""The seeds each iteration of a random dataset (`shuffle`, `Dataset.random`) starts from:
the op seeds themselves, or with reshuffling a new pair drawn from a Philox stream of them
per iteration, as TensorFlow's seed generators give them. The state (op seeds and pairs
drawn) is what a checkpointed iterator saves, so a restored one replays the same order."""

from ferroflow._philox_stream import PhiloxStream

__all__ = ["IterationSeeds"]


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
