"""The iterators of `map` and `filter` over traced functions (`_functional.TracedFunction`).

`SequentialMap` runs the graph once per element as the consumer asks for it. `ParallelMap`
(`map(num_parallel_calls=...)`) pulls a chunk of elements from its input and runs the graph on
all of them at once on Rust's thread pool, without the GIL (`Graph.call_many`); outputs come
back in input order (so `deterministic=False` gives the same order, which TensorFlow allows).
An element whose run fails raises its error when the consumer reaches it, and, as in
TensorFlow, iteration may go on with the next element.
"""

import collections

__all__ = ["Filtered", "ParallelMap", "SequentialMap"]

# Elements per parallel chunk, per thread: enough to keep the pool busy between the Python
# work of pulling inputs and wrapping outputs, few enough to start yielding soon.
CHUNK_PER_THREAD = 8


class SequentialMap:
    """``fn`` over ``upstream``'s elements, one call per `next`."""

    def __init__(self, fn, upstream):
        self._fn = fn
        self._upstream = iter(upstream)

    def __iter__(self):
        return self

    def __next__(self):
        return self._fn(next(self._upstream))


class ParallelMap:
    """``fn`` over ``upstream``'s elements, chunks of them run in parallel."""

    def __init__(self, fn, upstream, threads):
        self._fn = fn
        self._upstream = iter(upstream)
        self._parallel = threads > 1
        self._chunk = max(1, threads * CHUNK_PER_THREAD)
        self._ready = collections.deque()
        self._done = False

    def __iter__(self):
        return self

    def __next__(self):
        if not self._ready:
            self._fill()
            if not self._ready:
                raise StopIteration
        out = self._ready.popleft()
        if isinstance(out, BaseException):
            raise out
        return out

    def _fill(self):
        if self._done:
            return
        chunk, error = [], None
        while len(chunk) < self._chunk:
            try:
                chunk.append(next(self._upstream))
            except StopIteration:
                self._done = True
                break
            except Exception as e:  # noqa: BLE001 - raised when the consumer reaches it
                error = e
                break
        if chunk:
            self._ready.extend(self._fn.run_many(chunk, self._parallel))
        if error is not None:
            self._ready.append(error)


class Filtered:
    """``upstream``'s elements for which the traced ``predicate`` returns True."""

    def __init__(self, predicate, upstream, check=False):
        self._predicate = predicate
        self._upstream = iter(upstream)
        self._check = check

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            element = next(self._upstream)
            keep = self._predicate(element)
            if self._check and (keep.dtype.name != "bool" or keep.shape.rank != 0):
                raise ValueError(
                    "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, "
                    f"but its return type is {keep.dtype.name} of shape {keep.shape}."
                )
            if bool(keep):
                return element
