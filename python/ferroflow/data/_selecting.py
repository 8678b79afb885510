"""Transformations that pick, count or check elements: `take_while`, `unique`, `shard`,
`ignore_errors`, `rebatch`, `assert_cardinality`, `pad_to_cardinality`, and the single
element readers `get_single_element` and `experimental.at`."""

import itertools

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow import errors
from ferroflow.data import _structure
from ferroflow.data.dataset import (
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    PassThroughDataset,
    check_count,
)

__all__ = [
    "AssertCardinalityDataset",
    "IgnoreErrorsDataset",
    "RebatchDataset",
    "ShardDataset",
    "TakeWhileDataset",
    "UniqueDataset",
    "element_at",
    "pad_to_cardinality",
    "single_element",
]


class _Unary(Dataset):
    """Its input's elements, some of them."""

    def __init__(self, input_dataset):
        self._input = input_dataset

    @property
    def element_spec(self):
        return self._input.element_spec

    def _cardinality(self):
        return UNKNOWN_CARDINALITY


def _bool_scalar(value, spec_text):
    value = _structure.to_tensor(value)
    if value.dtype != _dtypes.bool or value.shape.rank != 0:
        raise ValueError(
            "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor but its "
            f"return type is{spec_text(value)}."
        )
    return value


def _spec_text(value):
    return str(_structure.spec_of(value))


class TakeWhileDataset(_Unary):
    _repr_name = "_TakeWhileDataset"

    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        if not callable(predicate):
            raise TypeError(f"`predicate` must be callable, got {predicate!r}.")
        # TensorFlow traces the predicate now: a non-boolean one fails here.
        from ferroflow.data._functional import trace_dataset_function

        self._predicate = trace_dataset_function(
            predicate, input_dataset.element_spec, "Dataset.take_while()"
        )
        spec = self._predicate.output_spec
        if spec is not None and not (
            getattr(spec, "dtype", None) == _dtypes.bool and spec.shape.rank == 0
        ):
            raise ValueError(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor but "
                f"its return type is{spec}."
            )

    def _elements(self):
        for element in self._input._elements():
            if not bool(_bool_scalar(self._predicate(element), _spec_text)):
                return
            yield element


def _unique_key(element):
    """An element's value as a hashable key (its shape and its entries)."""
    (leaf,) = _structure.flatten(element)
    if leaf.dtype == _dtypes.string:
        values = np.asarray(leaf.numpy(), dtype=object)
        return (values.shape, tuple(bytes(v) for v in values.ravel()))
    values = np.asarray(leaf.numpy())
    return (values.shape, values.tobytes())


class UniqueDataset(_Unary):
    _repr_name = "_UniqueDataset"

    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        for spec in _structure.flatten(input_dataset.element_spec):
            dtype = getattr(spec, "dtype", None)
            if dtype not in (_dtypes.int32, _dtypes.int64, _dtypes.string):
                raise TypeError(
                    f"`tf.data.Dataset.unique` does not support type {dtype!r} -- only "
                    "`tf.int32`, `tf.int64`, and `tf.string` are supported."
                )

    def _elements(self):
        seen = set()
        for element in self._input._elements():
            if len(_structure.flatten(element)) != 1:
                raise errors.InvalidArgumentError(
                    None, None, "UniqueDataset only supports inputs with a single component."
                )
            key = _unique_key(element)
            if key not in seen:
                seen.add(key)
                yield element


class ShardDataset(Dataset):
    """Every ``num_shards``-th element, from the ``index``-th."""

    _repr_name = "_ShardDataset"

    def __init__(self, input_dataset, num_shards, index):
        self._input = input_dataset
        self._num = check_count(num_shards, "num_shards")
        self._index = check_count(index, "index")
        if self._num <= 0:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Number of shards must be greater than zero (currently num_shards = {self._num}).",
            )
        if not 0 <= self._index < self._num:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Index must be between 0 and {self._num - 1} (currently index = {self._index}).",
            )

    @property
    def element_spec(self):
        return self._input.element_spec

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._num + (1 if self._index < n % self._num else 0)

    def _slice_source(self):
        return self._input._slice_source()

    def _indices(self):
        return itertools.islice(self._input._indices(), self._index, None, self._num)

    def _elements(self):
        if self._slice_source() is not None:
            return super()._elements()
        return itertools.islice(self._input._elements(), self._index, None, self._num)


class IgnoreErrorsDataset(_Unary):
    """Its input's elements, less those whose computation raised a `tf.errors` error."""

    _repr_name = "_IgnoreErrorsDataset"

    def __init__(self, input_dataset, log_warning=False):
        super().__init__(input_dataset)
        self._log_warning = bool(log_warning)

    def _elements(self):
        for item in _guarded(self._input):
            if item is _FAILED:
                if self._log_warning:
                    import logging

                    logging.getLogger("ferroflow").warning("%s", item.error)
                continue
            yield item


class _Failure:
    error = None


_FAILED = _Failure()


def _guarded(dataset):
    """``dataset``'s elements, `_FAILED` in place of each one whose computation raised a
    `tf.errors` error. The iterators of `map` and `filter` go on past a failed element, as
    TensorFlow's do (a Python generator would end at its first exception)."""
    iterator = iter(dataset._elements())
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            return
        except errors.OpError as error:
            _FAILED.error = error
            yield _FAILED
            continue
        yield item


def _batch_sizes(batch_size):
    sizes = batch_size.numpy() if hasattr(batch_size, "numpy") else np.asarray(batch_size)
    if sizes.ndim > 1:
        raise ValueError(
            "Invalid `batch_sizes`. Expected `batch_sizes` to be a scalar or a vector. "
            f"Received `batch_sizes` of rank {sizes.ndim}."
        )
    return [int(s) for s in np.atleast_1d(sizes)]


class RebatchDataset(Dataset):
    """``unbatch().batch(n)`` with ``n`` cycling through ``batch_sizes``."""

    _repr_name = "_RebatchDataset"

    def __init__(self, input_dataset, batch_size, drop_remainder):
        self._input = input_dataset
        self._sizes = _batch_sizes(batch_size)
        self._drop_remainder = bool(drop_remainder)
        flat = _structure.flatten(input_dataset.element_spec)
        dims = []
        for spec in flat:
            shape = getattr(spec, "shape", None)
            if shape is None or shape.rank is None:
                continue
            if shape.rank < 1:
                raise ValueError(
                    "Invalid `batch_sizes`. Expected dataset with rank of >= 1 but found a "
                    "dataset with scalar elements. Fix the issue by adding the `batch` "
                    "transformation to the dataset."
                )
            if shape[0] is not None:
                dims.append(shape[0])
        static = self._sizes[0] if len(set(self._sizes)) == 1 else None
        if static is not None and not self._drop_remainder:
            if not dims or dims[0] % static != 0:
                static = None
        self._spec = _structure.batched_spec(
            _structure.unbatched_spec(input_dataset.element_spec), static
        )

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _elements(self):
        from ferroflow.data._batching import stack_elements

        rows = iter(self._input.unbatch()._elements())
        row_spec = _structure.unbatched_spec(self._input.element_spec)
        for size in itertools.cycle(self._sizes):
            if size == 0:
                yield _empty_batch(row_spec)
                continue
            chunk = list(itertools.islice(rows, size))
            if not chunk or (len(chunk) < size and self._drop_remainder):
                return
            yield stack_elements(chunk, row_spec, self._spec)


def _empty_batch(row_spec):
    from ferroflow.array_ops import zeros

    return _structure.map_element(
        lambda s: zeros([0, *[d or 0 for d in s.shape.as_list()]], s.dtype), row_spec
    )


class AssertCardinalityDataset(Dataset):
    _repr_name = "_AssertCardinalityDataset"

    def __init__(self, input_dataset, expected):
        self._input = input_dataset
        self._expected = check_count(expected, "expected_cardinality")

    @property
    def element_spec(self):
        return self._input.element_spec

    def _cardinality(self):
        return self._expected

    def _elements(self):
        count = 0
        for element in self._input._elements():
            count += 1
            if self._expected != INFINITE_CARDINALITY and count > self._expected:
                raise errors.FailedPreconditionError(
                    None,
                    None,
                    f"Input dataset was expected to contain {_plural(self._expected)} but "
                    f"contained at least {_plural(count)}.",
                )
            yield element
        if self._expected == INFINITE_CARDINALITY or count < self._expected:
            raise errors.FailedPreconditionError(
                None,
                None,
                f"Input dataset was expected to contain {_plural(self._expected)} but "
                f"contained only {_plural(count)}.",
            )


def _plural(n):
    if n == INFINITE_CARDINALITY:
        return "an infinite number of elements"
    return f"{n} element" if n == 1 else f"{n} elements"


def single_element(dataset):
    """`Dataset.get_single_element`: the one element, or InvalidArgumentError. As TensorFlow's
    DatasetToSingleElement op, it runs the functions' shared instances, not an iterator's own
    (their random draws go on from one call to the next), and applies none of the dataset's
    optimizations: a `map` then `batch` keeps `batch`'s rules. Like an iterator's, the element
    is computed on the host."""
    from ferroflow.data._instances import shared_scope

    with shared_scope(dataset, optimized=False):
        iterator = iter(dataset._elements())
        first = next(iterator, _END)
        if first is _END:
            raise errors.InvalidArgumentError(None, None, "Dataset was empty.")
        if next(iterator, _END) is not _END:
            raise errors.InvalidArgumentError(None, None, "Dataset had more than one element.")
    return first


_END = object()


def element_at(dataset, index):
    """`tf.data.experimental.at`: the element at ``index`` of a dataset that allows random
    access (made of sources and of transformations that keep positions)."""
    index = check_count(index, "index")
    if not _random_access(dataset):
        raise errors.UnimplementedError(
            None,
            None,
            f"Random access is not implemented for dataset {type(dataset).__name__}.",
        )
    from ferroflow.data._instances import shared_scope

    with shared_scope(dataset, optimized=True):
        # TensorFlow optimizes the dataset first; its fused MapAndBatch has no random access.
        if _fused_map_and_batch(dataset):
            raise errors.UnimplementedError(
                None,
                None,
                "Random access is not implemented for dataset MapAndBatchDatasetOp::Dataset",
            )
        n = dataset._cardinality()
        if index < 0 or (n >= 0 and index >= n):
            raise errors.OutOfRangeError(None, None, f"Index out of range [0, {n}):{index}")
        return next(itertools.islice(dataset._elements(), index, None))


def _fused_map_and_batch(dataset):
    """Whether ``dataset`` or a dataset it reads is a `batch` that the optimizations fuse
    with the `map` before it."""
    from ferroflow.data import _fusion
    from ferroflow.data._batching import BatchDataset

    while dataset is not None:
        if type(dataset) is BatchDataset and _fusion.fuses_with_map(dataset):
            return True
        dataset = getattr(dataset, "_input", None)
    return False


def _random_access(dataset):
    from ferroflow.data import _batching, _combining, _functional, _ordering, _sources

    sources = (
        _sources.TensorSliceDataset,
        _sources.TensorDataset,
        _sources.RangeDataset,
    )
    keeping = (
        _functional.MapDataset,
        _batching.BatchDataset,
        _ordering.TakeDataset,
        _ordering.SkipDataset,
        _ordering.RepeatDataset,
        _ordering.CacheDataset,
        ShardDataset,
    )
    if isinstance(dataset, sources):
        return True
    if isinstance(dataset, _combining.ZipDataset):
        return all(_random_access(d) for d in dataset._datasets)
    if isinstance(dataset, _combining.ConcatenateDataset):
        return _random_access(dataset._first) and _random_access(dataset._second)
    if isinstance(dataset, keeping) or isinstance(dataset, PassThroughDataset):
        return _random_access(dataset._input)
    return False


def pad_to_cardinality(cardinality, mask_key="valid"):
    """`tf.data.experimental.pad_to_cardinality`: dict elements padded with zero elements
    (``mask_key`` False) up to ``cardinality`` elements."""

    def transformation(dataset):
        from ferroflow.array_ops import constant, zeros
        from ferroflow.data._sources import TensorDataset

        spec = dataset.element_spec
        if not isinstance(spec, dict):
            raise ValueError("`pad_to_cardinality` requires its input dataset to be a dictionary.")
        n = dataset._cardinality()
        if n == INFINITE_CARDINALITY or n == UNKNOWN_CARDINALITY:
            raise ValueError(
                "The dataset passed into `pad_to_cardinality` must have a known cardinalty, "
                f"but has cardinality {n}"
            )
        if n > cardinality:
            raise ValueError(
                "The dataset passed into `pad_to_cardinality` must have a cardinalty less "
                f"than the target cardinality ({cardinality}), but for this dataset it is {n}"
            )
        filler = {k: zeros(s.shape.as_list(), s.dtype) for k, s in spec.items()}
        filler[mask_key] = constant(False)
        marked = dataset.map(lambda x: {**x, mask_key: constant(True)})
        return marked.concatenate(TensorDataset(filler).repeat(cardinality - n))

    return transformation
