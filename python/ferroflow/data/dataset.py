"""`tf.data.Dataset`: an input pipeline of elements (tensors nested in tuples and dicts), built
from in-memory data and transformed lazily, in Python.

Iterating a dataset yields ferroflow tensors. Functions given to `map` and `filter` are traced
once into graphs, as TensorFlow traces them, which run per element (`_functional.py`; on a
thread pool with `num_parallel_calls`). Pipelines that only reorder or select the rows of
`from_tensor_slices` data (`shuffle`, `take`, `skip`, `repeat`, `cache`, `prefetch`) work on row
indices, so that `batch` slices the numpy arrays once per batch instead of stacking rows.
"""

import functools
import math

import numpy as np

from ferroflow import _core, _tracing, errors
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import constant
from ferroflow.data import _instances, _structure

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "dataset_construction",
    "Iterator",
    "NumpyIterator",
]

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


class _DatasetType(type):
    """Every dataset construction passes here: inside a `tf.function`, one whose arguments
    hold values known only when the graph runs is recorded, to be made when the graph runs
    (data/_deferred.py)."""

    def __call__(cls, *args, **kwargs):
        if cls._deferrable and _core.graph_tracing():
            from ferroflow.data._deferred import made_in_trace

            return made_in_trace(cls, args, kwargs, super().__call__)
        return super().__call__(*args, **kwargs)


def dataset_construction(build=None, *, element_spec=None):
    """Decorates ``build``, a function that makes a dataset from its arguments, so that a
    `tf.function` sees each call as one construction, as a `Dataset` class's (see
    `_DatasetType`): made from the function's symbolic values, it is made when the graph
    runs, and the datasets it makes inside are its parts. ``element_spec(*args, **kwargs)``:
    the spec, known without making the dataset (whose making would fail for stand-in
    values: a glob that matches no file)."""

    def decorate(build):
        @functools.wraps(build)
        def construction(*args, **kwargs):
            if _core.graph_tracing():
                from ferroflow.data._deferred import made_in_trace

                return made_in_trace(construction, args, kwargs, build, element_spec=element_spec)
            return build(*args, **kwargs)

        return construction

    return decorate if build is None else decorate(build)


class Dataset(metaclass=_DatasetType):
    """A potentially large set of elements, iterated in order.

    Build one with `from_tensor_slices`, `from_tensors` or `range`, transform it with `map`,
    `filter`, `shuffle`, `batch`, `repeat`... (each returns a new dataset), and iterate it with
    a `for` loop::

        dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(32)
        for x_batch, y_batch in dataset:
            ...
    """

    # The class name `repr` shows, as TensorFlow's (`_TensorSliceDataset`...).
    _repr_name = "DatasetV2"
    # Made from symbolic values inside a trace, the dataset is deferred (see `_DatasetType`).
    _deferrable = True

    # --- what subclasses provide ------------------------------------------------------------

    @property
    def element_spec(self):
        """The `tf.TensorSpec` structure of the elements."""
        raise NotImplementedError

    def _cardinality(self):
        """The number of elements, or INFINITE_CARDINALITY / UNKNOWN_CARDINALITY."""
        raise NotImplementedError

    def _elements(self):
        """A fresh Python iterator over the elements (structures of tensors)."""
        source = self._slice_source()
        if source is None:
            raise NotImplementedError
        return map(source._row, self._indices())

    def _slice_source(self):
        """The `from_tensor_slices` dataset whose rows this one yields (selected and reordered
        by `_indices`), or None when its elements are computed."""
        return None

    def _indices(self):
        """The row numbers of `_slice_source` this dataset yields, in order (an iterable)."""
        raise NotImplementedError

    # --- iteration -------------------------------------------------------------------------

    def __iter__(self):
        return Iterator(self)

    def as_numpy_iterator(self):
        """An iterator over the elements as numpy values (structures of arrays)."""
        return NumpyIterator(self)

    def cardinality(self):
        """The number of elements as an int64 scalar tensor: -1 (`tf.data.INFINITE_CARDINALITY`)
        for an infinite dataset, -2 (`tf.data.UNKNOWN_CARDINALITY`) when it cannot be known
        without iterating (after `filter`, for instance)."""
        return constant(self._cardinality(), dtype=_dtypes.int64)

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True

    def __repr__(self):
        return f"<{self._repr_name} element_spec={self.element_spec!r}>"

    # --- sources ---------------------------------------------------------------------------

    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """A dataset of the rows of ``tensors`` (sliced along their first dimension, which all
        components must share)."""
        from ferroflow.data._sources import TensorSliceDataset

        return TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element, ``tensors``."""
        from ferroflow.data._sources import TensorDataset

        return TensorDataset(tensors)

    @staticmethod
    def from_generator(
        generator,
        output_types=None,
        output_shapes=None,
        args=None,
        output_signature=None,
        name=None,
    ):
        """A dataset of the elements ``generator()`` yields (``generator(*args)`` with
        ``args`` as numpy values), a fresh generator per iteration. ``output_signature`` (a
        structure of `tf.TypeSpec`s: TensorSpec, RaggedTensorSpec, SparseTensorSpec...)
        states the elements; each yielded element is checked against it (a mismatch raises
        `InvalidArgumentError` when it is reached). The older ``output_types`` (and
        ``output_shapes``) describe tensor elements.

        >>> import ferroflow as tf
        >>> def rows():
        ...     yield tf.ragged.constant([[1, 2], [3]])
        ...     yield tf.ragged.constant([[4]])
        >>> ds = tf.data.Dataset.from_generator(
        ...     rows, output_signature=tf.RaggedTensorSpec([None, None], tf.int32))
        >>> [x.to_list() for x in ds]
        [[[1, 2], [3]], [[4]]]
        """
        from ferroflow.data._sources import GeneratorDataset

        return GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def range(*args, **kwargs):
        """``range(stop)``, ``range(start, stop[, step])``: int64 scalars (``dtype=`` to
        change), as Python's `range`."""
        from ferroflow.data._sources import RangeDataset

        return RangeDataset(*args, **kwargs)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The files matching ``file_pattern`` (a glob or a list of globs): sorted, in a new
        random order each iteration unless ``shuffle=False`` (``seed`` fixes the orders)."""
        from ferroflow.data._readers import list_files

        return list_files(file_pattern, shuffle, seed, name)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """Elements made of one element of each dataset: ``zip(a, b)`` or ``zip((a, b))``
        gives tuples, ``zip({"a": a, "b": b})`` dicts; stops at the shortest dataset."""
        from ferroflow.data._combining import ZipDataset

        if datasets is not None:
            if args:
                raise TypeError("Both `*args` and `datasets` cannot be set.")
            structure = datasets
        elif len(args) == 1:
            structure = args[0]
        elif args:
            structure = tuple(args)
        else:
            raise TypeError("Must pass at least one dataset to `zip`.")
        return ZipDataset(structure)

    # --- transformations --------------------------------------------------------------------

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """``map_func`` applied to each element (a tuple element is passed as separate
        arguments, as in TensorFlow). The function is traced once, now, into a graph; with
        ``num_parallel_calls`` (a count or `tf.data.AUTOTUNE`, the number of cores) the graph
        runs on several elements at once on a thread pool."""
        from ferroflow.data._functional import MapDataset

        return MapDataset(self, map_func, num_parallel_calls, deterministic)

    def filter(self, predicate, name=None):
        """The elements for which ``predicate`` (returning a scalar bool) is True."""
        from ferroflow.data._functional import FilterDataset

        return FilterDataset(self, predicate)

    def batch(
        self,
        batch_size,
        drop_remainder=False,
        num_parallel_calls=None,
        deterministic=None,
        name=None,
    ):
        """Consecutive elements stacked into batches of ``batch_size`` (the last one smaller
        unless ``drop_remainder``)."""
        from ferroflow.data._batching import BatchDataset

        return BatchDataset(self, batch_size, drop_remainder, num_parallel_calls is not None)

    def padded_batch(
        self,
        batch_size,
        padded_shapes=None,
        padding_values=None,
        drop_remainder=False,
        name=None,
    ):
        """Batches of ``batch_size`` elements whose tensors are padded (with
        ``padding_values``, zeros or empty strings by default) to ``padded_shapes`` (by
        default the elements' shapes, an unknown dimension padded to the largest in the
        batch). Only tensor components: RaggedTensor and SparseTensor elements raise
        TypeError, as in TensorFlow (`ragged_batch` and `sparse_batch` batch those)."""
        from ferroflow.data._batching import PaddedBatchDataset

        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=None, name=None):
        """Batches whose tensors of partly unknown shape become RaggedTensors (ragged from
        the last unknown dimension), so elements of different shapes batch together.

        >>> import ferroflow as tf
        >>> ds = tf.data.Dataset.range(4).map(lambda n: tf.range(n))
        >>> [b.to_list() for b in ds.ragged_batch(2)]
        [[[], [0]], [[0, 1], [0, 1, 2]]]
        """
        from ferroflow import dtypes as _dt
        from ferroflow.data._batching import DenseToRaggedDataset

        splits = _dt.int64 if row_splits_dtype is None else _dt.as_dtype(row_splits_dtype)
        if splits not in (_dt.int32, _dt.int64):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Value for attr 'Tsplits' of {splits.name} is not in the list of allowed "
                "values: int32, int64",
            )
        ragged = DenseToRaggedDataset(self, splits)
        return ragged.batch(batch_size, drop_remainder)

    def sparse_batch(self, batch_size, row_shape, name=None):
        """Batches of single-tensor elements as SparseTensors of dense shape
        ``[batch, *row_shape]`` holding every entry of each element (a dimension of
        ``row_shape`` left None is the batch's largest)."""
        from ferroflow.data._batching import DenseToSparseBatchDataset

        return DenseToSparseBatchDataset(self, batch_size, row_shape)

    def unbatch(self, name=None):
        """The rows of each element, one element per row (the inverse of `batch`)."""
        from ferroflow.data._batching import UnbatchDataset

        return UnbatchDataset(self)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """The elements in a random order, drawn from a buffer of ``buffer_size`` elements that
        is refilled from the input (a buffer at least as large as the dataset, or
        ``tf.data.UNKNOWN_CARDINALITY``, shuffles it uniformly). With
        ``reshuffle_each_iteration``, each iteration has a new order. The orders are
        TensorFlow's for the same ``seed`` and `tf.random.set_seed`."""
        from ferroflow.data._ordering import ShuffleDataset

        return ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        """The dataset ``count`` times over (forever when ``count`` is None or -1)."""
        from ferroflow.data._ordering import RepeatDataset

        return RepeatDataset(self, count)

    def take(self, count, name=None):
        """The first ``count`` elements (all of them when ``count`` is -1)."""
        from ferroflow.data._ordering import TakeDataset

        return TakeDataset(self, count)

    def skip(self, count, name=None):
        """All but the first ``count`` elements (none when ``count`` is -1)."""
        from ferroflow.data._ordering import SkipDataset

        return SkipDataset(self, count)

    def cache(self, filename="", name=None):
        """The elements of the first complete iteration, kept (in memory, or in ``filename``
        when one is given) and replayed by the later ones."""
        from ferroflow.data._ordering import CacheDataset

        return CacheDataset(self, filename)

    def prefetch(self, buffer_size, name=None):
        """The same elements, computed ahead by a background thread into a buffer of
        ``buffer_size`` elements (`tf.data.AUTOTUNE`: a few)."""
        from ferroflow.data._prefetch import PrefetchDataset

        return PrefetchDataset(self, buffer_size)

    def concatenate(self, dataset, name=None):
        """This dataset's elements followed by ``dataset``'s (of the same structure)."""
        from ferroflow.data._combining import ConcatenateDataset

        return ConcatenateDataset(self, dataset)

    # --- nested datasets, state, selection (data-methods) --------------------------------------

    def flat_map(self, map_func, name=None):
        """The elements of the datasets ``map_func`` returns for each element, in order."""
        from ferroflow.data._nested import FlatMapDataset

        return FlatMapDataset(self, map_func)

    def interleave(
        self,
        map_func,
        cycle_length=None,
        block_length=None,
        num_parallel_calls=None,
        deterministic=None,
        name=None,
    ):
        """The datasets ``map_func`` returns, ``cycle_length`` at a time, ``block_length``
        elements from each in turn (TensorFlow's order, with ``num_parallel_calls`` too)."""
        from ferroflow.data._nested import InterleaveDataset

        return InterleaveDataset(self, map_func, cycle_length, block_length, num_parallel_calls)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of ``size`` elements (``stride`` apart, a new one every ``shift``), each a
        structure of datasets like the elements'."""
        from ferroflow.data._nested import WindowDataset

        return WindowDataset(self, size, shift, stride, drop_remainder)

    def scan(self, initial_state, scan_func, name=None):
        """``scan_func(state, element) -> (new_state, output)`` carried over the elements."""
        from ferroflow.data._scan import ScanDataset

        return ScanDataset(self, initial_state, scan_func)

    def reduce(self, initial_state, reduce_func, name=None):
        """``reduce_func(state, element) -> new_state`` folded over the elements."""
        from ferroflow.data._scan import reduce_dataset

        return reduce_dataset(self, initial_state, reduce_func)

    def group_by_window(
        self, key_func, reduce_func, window_size=None, window_size_func=None, name=None
    ):
        """Elements grouped by ``key_func`` (an int64 scalar) into windows that
        ``reduce_func(key, window_dataset)`` turns into datasets."""
        from ferroflow.data._grouping import GroupByWindowDataset

        return GroupByWindowDataset(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(
        self,
        element_length_func,
        bucket_boundaries,
        bucket_batch_sizes,
        padded_shapes=None,
        padding_values=None,
        pad_to_bucket_boundary=False,
        no_padding=False,
        drop_remainder=False,
        name=None,
    ):
        """Elements batched (padded) with others whose length falls in the same bucket."""
        from ferroflow.data._grouping import bucket_by_sequence_length

        return bucket_by_sequence_length(
            self,
            element_length_func,
            bucket_boundaries,
            bucket_batch_sizes,
            padded_shapes,
            padding_values,
            pad_to_bucket_boundary,
            no_padding,
            drop_remainder,
        )

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None, name=None):
        """(class, element) pairs resampled towards the class distribution ``target_dist``."""
        from ferroflow.data._sampling import rejection_resample

        return rejection_resample(self, class_func, target_dist, initial_dist, seed)

    @staticmethod
    def sample_from_datasets(
        datasets,
        weights=None,
        seed=None,
        stop_on_empty_dataset=False,
        rerandomize_each_iteration=None,
    ):
        """Elements drawn at random from ``datasets`` (probabilities ``weights``)."""
        from ferroflow.data._sampling import sample_from_datasets

        return sample_from_datasets(
            datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration
        )

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """Elements of ``datasets`` in the order ``choice_dataset`` names them."""
        from ferroflow.data._sampling import choose_from_datasets

        return choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None, name=None):
        """Endless random int64 scalars (TensorFlow's for the same seeds)."""
        from ferroflow.data._sampling import RandomDataset

        return RandomDataset(seed, rerandomize_each_iteration)

    @staticmethod
    def counter(start=0, step=1, dtype=_dtypes.int64, name=None):
        """``start, start + step, ...`` forever."""
        from ferroflow.data._scan import counter

        return counter(start, step, dtype)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, from the ``index``-th."""
        from ferroflow.data._selecting import ShardDataset

        return ShardDataset(self, num_shards, index)

    def take_while(self, predicate, name=None):
        """The elements before the first for which ``predicate`` is False."""
        from ferroflow.data._selecting import TakeWhileDataset

        return TakeWhileDataset(self, predicate)

    def enumerate(self, start=0, name=None):
        """(index, element) pairs, indices from ``start`` (int64)."""
        from ferroflow.data._sources import RangeDataset

        return Dataset.zip((RangeDataset(start, np.iinfo(np.int64).max), self))

    def unique(self, name=None):
        """The elements not seen before (int32, int64 or string scalars)."""
        from ferroflow.data._selecting import UniqueDataset

        return UniqueDataset(self)

    def ignore_errors(self, log_warning=False, name=None):
        """The elements, less those whose computation raised a `tf.errors` error."""
        from ferroflow.data._selecting import IgnoreErrorsDataset

        return IgnoreErrorsDataset(self, log_warning)

    def get_single_element(self, name=None):
        """The one element of a dataset of one element (else InvalidArgumentError)."""
        from ferroflow.data._selecting import single_element

        if _core.graph_tracing():
            # Read when the graph runs, as TensorFlow's op (a shuffle reshuffles per call),
            # never baked into the trace.
            from ferroflow.data._in_function import staged_single_element

            return staged_single_element(self)
        return single_element(self)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """``unbatch().batch(batch_size)`` (a list of sizes is cycled through)."""
        from ferroflow.data._selecting import RebatchDataset

        return RebatchDataset(self, batch_size, drop_remainder)

    def fingerprint(self):
        """A uint64 fingerprint of the pipeline's structure (ferroflow's own hash: it is not
        TensorFlow's, which hashes its graph)."""
        from ferroflow.data._options import fingerprint

        return fingerprint(self)

    def options(self):
        """The `tf.data.Options` in effect (those set by `with_options` upstream, merged)."""
        from ferroflow.data._options import dataset_options

        return dataset_options(self)

    def with_options(self, options, name=None):
        """The same dataset with ``options`` merged into its options."""
        from ferroflow.data._options import OptionsDataset

        return OptionsDataset(self, options)

    def save(self, path, compression=None, shard_func=None, checkpoint_args=None):
        """Writes the elements under the directory ``path`` (read back with `load`)."""
        from ferroflow.data._save import save

        save(self, path, compression, shard_func, checkpoint_args)

    @staticmethod
    def load(path, element_spec=None, compression=None, reader_func=None, wait=False):
        """The dataset `save` wrote under ``path``."""
        from ferroflow.data._save import load

        return load(path, element_spec, compression, reader_func, wait)

    def snapshot(self, path, compression="AUTO", reader_func=None, shard_func=None, name=None):
        """The elements, written under ``path`` by the first complete iteration and read
        back from there by later ones (and by later datasets of the same pipeline)."""
        from ferroflow.data._save import snapshot

        return snapshot(self, path, compression, reader_func, shard_func)

    def apply(self, transformation_func):
        """``transformation_func(self)``, which must return a dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, Dataset):
            raise TypeError(
                "`transformation_func` must return a `tf.data.Dataset` object. "
                f"Got {type(dataset)}."
            )
        return dataset


class PassThroughDataset(Dataset):
    """Its input's elements unchanged (options, prefetching): spec, cardinality and rows are
    the input's."""

    @property
    def element_spec(self):
        return self._input.element_spec

    def _cardinality(self):
        return self._input._cardinality()

    def _slice_source(self):
        return self._input._slice_source()

    def _indices(self):
        return self._input._indices()


class Iterator:
    """What `iter(dataset)` returns: the elements, one `next` at a time."""

    def __init__(self, dataset):
        from ferroflow.data._iterator_state import capture_seeds

        self._dataset = dataset
        self._seed_states = capture_seeds(dataset)
        # An iterator made outside a `tf.function` and advanced inside one is a graph node that
        # pulls its next element each time the graph runs; one made inside a trace is opened
        # afresh each time the graph runs (see data/_in_function.py).
        self._made_outside_trace = not _tracing.tracing()
        if self._made_outside_trace:
            self._elements = _instances.elements(dataset)
        else:
            from ferroflow.data._in_function import open_in_trace

            self._elements = None
            self._cursor = open_in_trace(dataset)
        # How many elements were read, and the variable a checkpoint saves it in (made when
        # a `tf.train.Checkpoint` first reaches the iterator).
        self._position = 0
        self._saved_position = None
        self._synced_position = 0

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def __iter__(self):
        return self

    def __next__(self):
        if _tracing.tracing():
            from ferroflow.data._in_function import traced_next

            return traced_next(self)
        return self._next_eagerly()

    def _next_eagerly(self):
        if self._saved_position is not None:
            from ferroflow.data._iterator_state import catch_up

            catch_up(self)
        element = next(self._elements)
        self._position += 1
        return element

    def get_next(self):
        """The next element; raises `tf.errors.OutOfRangeError` at the end."""
        try:
            return next(self)
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self):
        """The next element as a `tf.experimental.Optional` (empty at the end)."""
        from ferroflow.experimental_ops import Optional

        if _tracing.tracing():
            from ferroflow.data._in_function import traced_next_as_optional

            return traced_next_as_optional(self)
        try:
            return Optional.from_value(next(self))
        except StopIteration:
            return Optional.empty(self.element_spec)

    def _trackable_children(self):
        """What `tf.train.Checkpoint` saves of an iterator: its position."""
        from ferroflow.data._iterator_state import position_children

        return position_children(self)

    @property
    def _type_spec(self):
        from ferroflow.data._specs import IteratorSpec

        return IteratorSpec(self.element_spec)


class NumpyIterator:
    """`tf.data.NumpyIterator`: what `as_numpy_iterator` returns, elements as numpy values."""

    def __init__(self, dataset):
        self._elements = _instances.elements(dataset)

    def __iter__(self):
        return self

    def __next__(self):
        return _structure.to_numpy(next(self._elements))

    next = __next__


def check_count(value, what):
    """An int count argument (Python int or integer scalar tensor)."""
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"`{what}` must be an integer, got {value!r}.")
    return int(value)


def finite_batches(n, batch_size, drop_remainder):
    """The cardinality of `n` elements batched."""
    if n < 0:
        return n
    return n // batch_size if drop_remainder else math.ceil(n / batch_size)


def _register_specs():
    """`tf.type_spec_from_value` of datasets and iterators (DatasetSpec, IteratorSpec)."""
    from ferroflow.data._specs import DatasetSpec, IteratorSpec
    from ferroflow.type_spec import register_type_spec_from_value_converter

    register_type_spec_from_value_converter(Dataset, DatasetSpec.from_value, allow_subclass=True)
    register_type_spec_from_value_converter(Iterator, IteratorSpec.from_value, allow_subclass=True)


_register_specs()
