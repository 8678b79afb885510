"""Transformations that select or reorder elements without computing new ones: `shuffle`,
`repeat`, `take`, `skip`, `cache` and `prefetch`. Over `from_tensor_slices` data they work on
row indices (see `Dataset._indices`), otherwise on the elements themselves."""

import itertools
import os
import pickle
import random

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow import errors
from ferroflow._philox_stream import PhiloxStream
from ferroflow.data import _structure
from ferroflow.data._seeds import IterationSeeds, op_seeds
from ferroflow.data.dataset import (
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    check_count,
)

__all__ = [
    "CacheDataset",
    "RepeatDataset",
    "ShuffleDataset",
    "SkipDataset",
    "TakeDataset",
]


class _Reordering(Dataset):
    """Its input's elements, selected or reordered by `_transform`."""

    def __init__(self, input_dataset):
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"Expected a tf.data.Dataset, got {type(input_dataset).__name__}.")
        self._input = input_dataset

    @property
    def element_spec(self):
        return self._input.element_spec

    def _slice_source(self):
        return self._input._slice_source()

    def _indices(self):
        return self._transform(self._input._indices)

    def _elements(self):
        if self._slice_source() is not None:
            return super()._elements()
        return iter(self._transform(self._input._elements))

    def _transform(self, stream):
        """An iterable of what fresh iterables from ``stream()`` hold, selected or reordered."""
        raise NotImplementedError


def _buffer_shuffle(items, buffer_size, words):
    """TensorFlow's shuffle iterator: a circular buffer of ``buffer_size`` slots (unbounded
    for None) is topped up from ``items`` before each output; the output is the element
    ``next(words) % filled`` places past the oldest one, whose slot the oldest then takes."""
    buffer = []
    start = end = 0  # positions of the oldest element and of the next input, ever increasing
    items = iter(items)
    exhausted = False

    def slot(position):
        return position if buffer_size is None else position % buffer_size

    while True:
        while not exhausted and (buffer_size is None or end - start < buffer_size):
            item = next(items, _END)
            if item is _END:
                exhausted = True
            elif slot(end) == len(buffer):
                buffer.append(item)
                end += 1
            else:
                buffer[slot(end)] = item
                end += 1
        if start == end:
            return
        chosen, oldest = slot(start + next(words) % (end - start)), slot(start)
        yield buffer[chosen]
        buffer[chosen], buffer[oldest] = buffer[oldest], None
        start += 1


_END = object()


def _int64_argument(value, prefix):
    """``value`` converted as TensorFlow converts an int64 op input (ints, bools, integer
    numpy values, int64 tensors), as a numpy value; its errors otherwise."""
    if isinstance(value, (bool, int, np.bool_, np.integer)):
        return np.int64(value)
    if hasattr(value, "numpy") and hasattr(value, "dtype"):
        if value.dtype != _dtypes.int64:
            raise ValueError(
                f"{prefix}Tensor conversion requested dtype int64 for Tensor with dtype "
                f"{value.dtype.name}: {value!r}"
            )
        return value.numpy()
    if isinstance(value, np.ndarray) and value.dtype.kind in "biu":
        return value.astype(np.int64)
    raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int64")


def _require_scalar(value, what):
    if np.ndim(value) != 0:
        raise errors.InvalidArgumentError(None, None, f"{what} must be a scalar")


class ShuffleDataset(_Reordering):
    """TensorFlow's order for the same seeds: its op seeds (`_random_seed.get_seed`) start a
    Philox stream that gives each iteration its own pair of seeds (the same pair every time
    without ``reshuffle_each_iteration``); the iteration's stream picks the buffer slots."""

    _repr_name = "_ShuffleDataset"

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        super().__init__(input_dataset)
        # TensorFlow's order of checks: argument conversions, the attribute, the kernel's.
        buffer_size = _int64_argument(buffer_size, "buffer_size: ")
        if seed is not None:
            seed = _int64_argument(seed, "")
        if reshuffle_each_iteration is None:
            reshuffle_each_iteration = True
        if not isinstance(reshuffle_each_iteration, bool):
            raise TypeError(
                "Expected bool for argument 'reshuffle_each_iteration' not "
                f"{reshuffle_each_iteration!r}."
            )
        _require_scalar(buffer_size, "buffer_size")
        if buffer_size <= 0 and buffer_size != UNKNOWN_CARDINALITY:
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY"
            )
        if seed is not None:
            _require_scalar(seed, "seed2")
        # UNKNOWN_CARDINALITY: a buffer as large as the dataset (the whole of it shuffled).
        self._buffer_size = None if buffer_size == UNKNOWN_CARDINALITY else int(buffer_size)
        seed, seed2 = op_seeds(seed)
        if seed is None:
            # Both seeds 0: TensorFlow's "unseeded", random 64-bit seeds.
            seed, seed2 = random.getrandbits(64), random.getrandbits(64)
        self._iteration_seeds = IterationSeeds(seed, seed2, reshuffle_each_iteration)

    def _cardinality(self):
        return self._input._cardinality()

    def _transform(self, stream):
        # Each iteration draws its seeds when it starts, as TensorFlow's iterator does.
        seeds = self._iteration_seeds.next_pair()
        return _buffer_shuffle(stream(), self._buffer_size, PhiloxStream(*seeds))


def _repeated(stream, count):
    for _ in range(count) if count >= 0 else itertools.count():
        empty = True
        for item in stream():
            empty = False
            yield item
        if empty:
            return


class RepeatDataset(_Reordering):
    _repr_name = "_RepeatDataset"

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = -1 if count is None else check_count(count, "count")

    def _cardinality(self):
        n = self._input._cardinality()
        if n == 0 or self._count == 0:
            return 0
        if self._count < 0:
            return INFINITE_CARDINALITY
        return n if n < 0 else n * self._count

    def _transform(self, stream):
        return _repeated(stream, self._count)


class TakeDataset(_Reordering):
    _repr_name = "_TakeDataset"

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = check_count(count, "count")

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return n
        if n == INFINITE_CARDINALITY:
            return self._count
        if n == UNKNOWN_CARDINALITY:
            return 0 if self._count == 0 else UNKNOWN_CARDINALITY
        return min(n, self._count)

    def _transform(self, stream):
        items = stream()
        if self._count < 0:
            return items
        if isinstance(items, range):
            return items[: self._count]
        return itertools.islice(items, self._count)


class SkipDataset(_Reordering):
    _repr_name = "_SkipDataset"

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = check_count(count, "count")

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return 0 if self._count < 0 else max(0, n - self._count)

    def _transform(self, stream):
        items = stream()
        if self._count < 0:
            return iter(())
        if isinstance(items, range):
            return items[self._count :]
        return itertools.islice(items, self._count, None)


class CacheDataset(_Reordering):
    """Keeps what its first complete iteration yields: row indices over slices (so a shuffled
    order is kept, as TensorFlow keeps it), elements otherwise, and elements (as numpy
    arrays, pickled) in ``filename`` when one is given."""

    _repr_name = "CacheDataset"

    def __init__(self, input_dataset, filename):
        super().__init__(input_dataset)
        self._filename = os.fspath(filename)
        self._kept = None

    def _cardinality(self):
        return self._input._cardinality()

    def _slice_source(self):
        return None if self._filename else self._input._slice_source()

    def _transform(self, stream):
        if self._kept is None and self._filename and os.path.exists(self._cache_path()):
            from ferroflow.data._cache_file import check_element, load_pickle

            with open(self._cache_path(), "rb") as f:
                kept = load_pickle(f, self._cache_path())
            for element in kept:
                check_element(element, self.element_spec)
            self._kept = [self._from_numpy(e) for e in kept]
        if self._kept is not None:
            return iter(self._kept)
        return self._recording(iter(stream()))

    def _recording(self, items):
        seen = []
        for item in items:
            seen.append(item)
            yield item
        self._kept = seen
        if self._filename:
            # Written beside and renamed in: a crash never leaves a half-written cache.
            partial = f"{self._cache_path()}.tmp-{os.getpid()}"
            with open(partial, "wb") as f:
                pickle.dump([self._to_numpy(e) for e in seen], f)
            os.replace(partial, self._cache_path())

    def _cache_path(self):
        return self._filename + ".ffcache"

    def _to_numpy(self, element):
        return _structure.to_arrays(element, self.element_spec)

    def _from_numpy(self, element):
        return _structure.from_arrays(element, self.element_spec)
