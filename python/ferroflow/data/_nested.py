"""Datasets of datasets: `flat_map`, `interleave` (its parallel form gives the same order) and
`window`, whose elements are datasets (`ListDataset` holds a window's values)."""

import collections
import os

from ferroflow import errors
from ferroflow.data import _calls, _structure
from ferroflow.data.dataset import (
    AUTOTUNE,
    UNKNOWN_CARDINALITY,
    Dataset,
    check_count,
)

__all__ = ["FlatMapDataset", "InterleaveDataset", "ListDataset", "WindowDataset"]


class ListDataset(Dataset):
    """The elements of a Python list, already normalized, of a known element spec."""

    _repr_name = "_ListDataset"

    def __init__(self, elements, element_spec):
        self._list = list(elements)
        self._spec = element_spec

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return len(self._list)

    def _elements(self):
        return iter(self._list)


def _returned_dataset(value, what):
    if not isinstance(value, Dataset):
        # TensorFlow's class: it reads the returned object's dataset attributes.
        raise AttributeError(
            f"The `{what}` argument must return a `Dataset` object. Got {type(value)!r}."
        )
    return value


def dataset_function_spec(fn, input_dataset, what):
    """The element spec of the datasets ``fn`` returns for ``input_dataset``'s elements."""
    spec = _calls.output_spec(
        fn, input_dataset.element_spec, lambda d: _returned_dataset(d, what).element_spec
    )
    if spec is None:
        for element in input_dataset._elements():
            return _returned_dataset(_calls.call(fn, element), what).element_spec
        raise ValueError(f"Could not work out the element spec of `{what}`'s datasets.")
    return spec


class _DatasetsOfElements(Dataset):
    """A dataset whose input elements each become a dataset through ``fn``."""

    def __init__(self, input_dataset, fn, what):
        if not callable(fn):
            raise TypeError(f"`{what}` must be callable, got {fn!r}.")
        self._input = input_dataset
        self._fn = fn
        self._what = what
        self._spec = None

    @property
    def element_spec(self):
        if self._spec is None:
            self._spec = dataset_function_spec(self._fn, self._input, self._what)
        return self._spec

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _inner(self, element):
        dataset = _returned_dataset(_calls.call(self._fn, element), self._what)
        _check_structure(dataset.element_spec, self.element_spec)
        return iter(dataset._elements())


def _check_structure(got, expected):
    try:
        _structure.assert_same_structure(got, expected, "the returned datasets")
    except TypeError:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"The returned dataset's structure {got} does not match the expected {expected}.",
        ) from None


class FlatMapDataset(_DatasetsOfElements):
    _repr_name = "_FlatMapDataset"

    def __init__(self, input_dataset, map_func):
        super().__init__(input_dataset, map_func, "map_func")

    def _elements(self):
        for element in self._input._elements():
            yield from self._inner(element)


def machine_parallelism():
    """What TensorFlow's AUTOTUNE means for a cycle length: the schedulable CPUs."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _autotuned_cycle_length(num_parallel_calls):
    """TensorFlow's cycle length when it is left to AUTOTUNE, which decides the element order:
    the schedulable CPUs for a sequential interleave; ``min(num_parallel_calls, CPUs)`` for a
    parallel one; and when parallelism is autotuned too, the CPUs divided (rounding up) by the
    three threads each cycle element may use (its current and two prefetched future elements),
    so that a 2-core machine interleaves one dataset at a time."""
    cpus = machine_parallelism()
    if num_parallel_calls is None:
        return cpus
    calls = int(num_parallel_calls)
    if calls == AUTOTUNE:
        return -(-cpus // 3)
    return max(1, min(calls, cpus))


def _positive_or_autotune(value, what, default):
    if value is None:
        return default
    n = check_count(value, what)
    if n == AUTOTUNE:
        return default
    if n <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"{what} must be greater than zero or AUTOTUNE, got {n}."
        )
    return n


class InterleaveDataset(_DatasetsOfElements):
    """TensorFlow's interleave order: up to ``cycle_length`` open datasets visited in turn,
    ``block_length`` elements from each; an exhausted one frees its slot, which the next
    input element fills when the cycle comes back to it. The parallel form (with
    ``num_parallel_calls``) yields the same order, as TensorFlow's does when deterministic."""

    def __init__(self, input_dataset, map_func, cycle_length, block_length, num_parallel_calls):
        super().__init__(input_dataset, map_func, "map_func")
        self._cycle_length = _positive_or_autotune(
            cycle_length, "cycle_length", _autotuned_cycle_length(num_parallel_calls)
        )
        if block_length is None:
            block_length = 1
        self._block_length = check_count(block_length, "block_length")
        if self._block_length <= 0:
            raise errors.InvalidArgumentError(None, None, "block_length must be greater than zero.")
        if num_parallel_calls is not None:
            calls = check_count(num_parallel_calls, "num_parallel_calls")
            if calls <= 0 and calls != AUTOTUNE:
                raise errors.InvalidArgumentError(
                    None, None, "num_parallel_calls must be greater than zero."
                )
        self._repr_name = (
            "_InterleaveDataset" if num_parallel_calls is None else "_ParallelInterleaveDataset"
        )
        # TensorFlow refuses more parallel calls than cycle elements: when the dataset is made
        # for a cycle length given, when its iterator is made for one computed from the CPUs.
        self._too_parallel = None
        if num_parallel_calls is not None and AUTOTUNE != int(num_parallel_calls) > 0:
            if int(num_parallel_calls) > self._cycle_length:
                self._too_parallel = (
                    "If `cycle_length` is set to a fixed value, `num_parallel_calls` must be "
                    "either `tf.data.AUTOTUNE` or a value less than or equal to `cycle_length`. "
                    f"However, `num_parallel_calls` is {int(num_parallel_calls)} and "
                    f"`cycle_length` is {self._cycle_length}"
                )
                if cycle_length is not None and int(cycle_length) != AUTOTUNE:
                    raise errors.InvalidArgumentError(None, None, self._too_parallel)

    def _elements(self):
        if self._too_parallel is not None:
            raise errors.InvalidArgumentError(None, None, self._too_parallel)
        inputs = iter(self._input._elements())
        slots = [None] * self._cycle_length
        open_count = 0
        index = 0
        block = 0
        end_of_input = False
        while not end_of_input or open_count > 0:
            current = slots[index]
            if current is not None:
                element = next(current, _END)
                if element is not _END:
                    block += 1
                    if block == self._block_length:
                        block = 0
                        index = (index + 1) % self._cycle_length
                    yield element
                    continue
                slots[index] = None
                open_count -= 1
            elif not end_of_input:
                element = next(inputs, _END)
                if element is _END:
                    end_of_input = True
                else:
                    slots[index] = self._inner(element)
                    open_count += 1
                continue
            block = 0
            index = (index + 1) % self._cycle_length


_END = object()


def _window_arguments(size, shift, stride):
    size = check_count(size, "size")
    shift = size if shift is None else check_count(shift, "shift")
    stride = check_count(stride, "stride")
    for value, what in ((size, "Window size"), (shift, "Window shift"), (stride, "Window stride")):
        if value <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"{what} must be greater than zero, but got {value}."
            )
    return size, shift, stride


class WindowDataset(Dataset):
    """Windows of ``size`` elements ``stride`` apart, a new one every ``shift`` input
    elements, each a structure of datasets (one per component) like the elements'."""

    _repr_name = "_WindowDataset"

    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        from ferroflow.data._specs import DatasetSpec

        self._input = input_dataset
        self._size, self._shift, self._stride = _window_arguments(size, shift, stride)
        self._drop_remainder = bool(drop_remainder)
        self._spec = _structure.map_element(DatasetSpec, input_dataset.element_spec)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if self._drop_remainder:
            span = (self._size - 1) * self._stride + 1
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def _elements(self):
        inputs = iter(self._input._elements())
        buffer = collections.deque()
        exhausted = False
        span = (self._size - 1) * self._stride + 1
        while True:
            while not exhausted and len(buffer) < span:
                element = next(inputs, _END)
                if element is _END:
                    exhausted = True
                else:
                    buffer.append(element)
            if not buffer or (self._drop_remainder and len(buffer) < span):
                return
            window = [buffer[i] for i in range(0, min(span, len(buffer)), self._stride)]
            yield self._window(window)
            # The next window starts ``shift`` elements on (possibly past the buffer).
            for _ in range(self._shift):
                if buffer:
                    buffer.popleft()
                elif exhausted or next(inputs, _END) is _END:
                    exhausted = True
                    break

    def _window(self, elements):
        columns = [list(c) for c in zip(*(_structure.flatten(e) for e in elements))]
        specs = _structure.flatten(self._spec)
        datasets = [ListDataset(c, s.element_spec) for c, s in zip(columns, specs)]
        return _structure.pack_as(self._input.element_spec, datasets)
