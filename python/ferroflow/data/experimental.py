"""`tf.data.experimental`: the constants, option classes and functions TensorFlow kept there.
The transformations are functions returning ``lambda dataset: ...`` for `Dataset.apply`."""

from ferroflow.data._batched_features import (  # io-files
    make_batched_features_dataset,
    parse_example_dataset,
)
from ferroflow.data._grouping import Reducer
from ferroflow.data._lookup_tables import (  # lookup
    DatasetInitializer,
    index_table_from_dataset,
    table_from_dataset,
)
from ferroflow.data._make_csv import make_csv_dataset  # io-files
from ferroflow.data._options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ServiceOptions,
    ThreadingOptions,
)
from ferroflow.data._readers import CsvDataset  # io-files
from ferroflow.data._sampling import RandomDataset as _RandomDataset
from ferroflow.data._writers import SqlDataset, TFRecordWriter
from ferroflow.data.dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from ferroflow.experimental_ops import Optional

__all__ = [
    "AUTOTUNE",
    "AutoShardPolicy",
    "AutotuneAlgorithm",
    "AutotuneOptions",
    "Counter",
    "CsvDataset",
    "DistributeOptions",
    "ExternalStatePolicy",
    "INFINITE_CARDINALITY",
    "OptimizationOptions",
    "Optional",
    "RandomDataset",
    "Reducer",
    "SHARD_HINT",
    "SqlDataset",
    "TFRecordWriter",
    "ServiceOptions",
    "ThreadingOptions",
    "UNKNOWN_CARDINALITY",
    "assert_cardinality",
    "at",
    "bucket_by_sequence_length",
    "cardinality",
    "choose_from_datasets",
    "copy_to_device",
    "dense_to_ragged_batch",
    "dense_to_sparse_batch",
    "enable_debug_mode",
    "enumerate_dataset",
    "from_list",
    "get_next_as_optional",
    "get_single_element",
    "get_structure",
    "group_by_reducer",
    "group_by_window",
    "ignore_errors",
    "load",
    "map_and_batch",
    "pad_to_cardinality",
    "prefetch_to_device",
    "parallel_interleave",
    "rejection_resample",
    "sample_from_datasets",
    "save",
    "scan",
    "shuffle_and_repeat",
    "snapshot",
    "take_while",
    "unbatch",
    "unique",
    "make_batched_features_dataset",  # io-files
    "make_csv_dataset",  # io-files
    "parse_example_dataset",  # io-files
    "DatasetInitializer",  # lookup
    "index_table_from_dataset",  # lookup
    "table_from_dataset",  # lookup
]

# `shard`'s index placeholder for distributed auto-sharding by hint.
SHARD_HINT = -1


def cardinality(dataset):
    """``dataset.cardinality()``."""
    return dataset.cardinality()


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=None):
    """A transformation for `Dataset.apply`: ``dataset.ragged_batch(...)``."""
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


def dense_to_sparse_batch(batch_size, row_shape):
    """A transformation for `Dataset.apply`: ``dataset.sparse_batch(...)``."""
    return lambda dataset: dataset.sparse_batch(batch_size, row_shape)


def Counter(start=0, step=1, dtype=None):  # noqa: N802 - TensorFlow's name
    """``Dataset.counter(start, step, dtype)``."""
    from ferroflow import dtypes

    return Dataset.counter(start, step, dtypes.int64 if dtype is None else dtype)


class RandomDataset(_RandomDataset):
    """`tf.data.experimental.RandomDataset(seed)`: ``Dataset.random(seed)``."""

    def __init__(self, seed=None):
        super().__init__(seed)


def assert_cardinality(expected_cardinality):
    """A transformation: the dataset, raising FailedPreconditionError when it holds another
    number of elements than ``expected_cardinality`` (which `cardinality()` then reports)."""
    from ferroflow.data._selecting import AssertCardinalityDataset

    return lambda dataset: AssertCardinalityDataset(dataset, expected_cardinality)


def at(dataset, index):
    """The element at ``index`` of a dataset that allows random access."""
    from ferroflow.data._selecting import element_at

    return element_at(dataset, index)


def bucket_by_sequence_length(
    element_length_func,
    bucket_boundaries,
    bucket_batch_sizes,
    padded_shapes=None,
    padding_values=None,
    pad_to_bucket_boundary=False,
    no_padding=False,
    drop_remainder=False,
):
    """A transformation: ``dataset.bucket_by_sequence_length(...)``."""
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func,
        bucket_boundaries,
        bucket_batch_sizes,
        padded_shapes,
        padding_values,
        pad_to_bucket_boundary,
        no_padding,
        drop_remainder,
    )


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """``Dataset.choose_from_datasets(...)``."""
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


_debug_mode = False


def enable_debug_mode():
    """TensorFlow's tf.data debug mode (functions run eagerly, no parallelism). ferroflow's
    pipelines already run their functions in Python, in order."""
    global _debug_mode
    _debug_mode = True


def enumerate_dataset(start=0):
    """A transformation: ``dataset.enumerate(start)``."""
    return lambda dataset: dataset.enumerate(start)


def from_list(elements, name=None):
    """A dataset of the elements of the list ``elements`` (alike in structure)."""
    from ferroflow.data import _structure
    from ferroflow.data._nested import ListDataset

    if not elements:
        raise ValueError("Invalid `elements`. `elements` should not be empty.")
    if not isinstance(elements, list):
        raise ValueError("Invalid `elements`. `elements` must be a list of elements.")
    normalized = [_structure.normalize(e) for e in elements]
    spec = _structure.spec_of(normalized[0])
    for other in normalized[1:]:
        _structure.assert_same_structure(normalized[0], other, "the list elements")
        spec = _structure.merge_specs(spec, _structure.spec_of(other), "the list elements")
    return ListDataset(normalized, spec)


def get_next_as_optional(iterator):
    """``iterator.get_next_as_optional()``."""
    return iterator.get_next_as_optional()


def get_single_element(dataset):
    """``dataset.get_single_element()``."""
    return dataset.get_single_element()


def get_structure(dataset_or_iterator):
    """The element spec of a dataset or an iterator."""
    try:
        return dataset_or_iterator.element_spec
    except AttributeError:
        raise TypeError(
            "Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a `tf.data.Dataset` "
            f"or tf.data.Iterator object, but got {type(dataset_or_iterator)}."
        ) from None


def group_by_reducer(key_func, reducer):
    """A transformation: one output per key, ``reducer`` folded over its elements."""
    from ferroflow.data._grouping import GroupByReducerDataset

    return lambda dataset: GroupByReducerDataset(dataset, key_func, reducer)


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """A transformation: ``dataset.group_by_window(...)``."""
    return lambda dataset: dataset.group_by_window(
        key_func, reduce_func, window_size, window_size_func
    )


def ignore_errors(log_warning=False):
    """A transformation: ``dataset.ignore_errors(log_warning)``."""
    return lambda dataset: dataset.ignore_errors(log_warning)


def load(path, element_spec=None, compression=None, reader_func=None):
    """``Dataset.load(...)``."""
    return Dataset.load(path, element_spec, compression, reader_func)


def map_and_batch(
    map_func,
    batch_size,
    num_parallel_batches=None,
    drop_remainder=False,
    num_parallel_calls=None,
):
    """A transformation: ``dataset.map(map_func).batch(batch_size, drop_remainder)``."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError(
            "`map_and_batch` allows only one of `num_parallel_batches` and "
            "`num_parallel_calls` to be set, but `num_parallel_batches` was set to "
            f"{num_parallel_batches} and `num_parallel_calls` as set to {num_parallel_calls}."
        )
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder)


def pad_to_cardinality(cardinality, mask_key="valid"):
    """A transformation padding a dataset of dicts to ``cardinality`` elements."""
    from ferroflow.data._selecting import pad_to_cardinality as pad

    return pad(cardinality, mask_key)


def parallel_interleave(
    map_func,
    cycle_length,
    block_length=1,
    sloppy=False,
    buffer_output_elements=None,
    prefetch_input_elements=None,
):
    """A transformation: ``dataset.interleave(map_func, cycle_length, block_length)`` (the
    deterministic order, which a ``sloppy`` one may also take)."""
    return lambda dataset: dataset.interleave(
        map_func, cycle_length, block_length, num_parallel_calls=cycle_length
    )


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """A transformation: ``dataset.rejection_resample(...)``."""
    return lambda dataset: dataset.rejection_resample(class_func, target_dist, initial_dist, seed)


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """``Dataset.sample_from_datasets(...)``."""
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """``dataset.save(...)``."""
    return dataset.save(path, compression, shard_func, checkpoint_args)


def scan(initial_state, scan_func):
    """A transformation: ``dataset.scan(initial_state, scan_func)``."""
    return lambda dataset: dataset.scan(initial_state, scan_func)


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """A transformation: ``dataset.shuffle(buffer_size, seed).repeat(count)`` (TensorFlow's
    fused form yields the same order: each epoch is shuffled on its own)."""
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    """A transformation: ``dataset.snapshot(...)``."""
    return lambda dataset: dataset.snapshot(path, compression, reader_func, shard_func)


def take_while(predicate):
    """A transformation: ``dataset.take_while(predicate)``."""
    return lambda dataset: dataset.take_while(predicate)


def unbatch():
    """A transformation: ``dataset.unbatch()``."""
    return lambda dataset: dataset.unbatch()


def unique():
    """A transformation: ``dataset.unique()``."""
    return lambda dataset: dataset.unique()


def prefetch_to_device(device, buffer_size=None):
    """A transformation: the elements placed on ``device`` (and prefetched)."""
    from ferroflow.data._writers import DeviceDataset

    def transformation(dataset):
        moved = DeviceDataset(dataset, device)
        return moved if buffer_size is None else moved.prefetch(buffer_size)

    return transformation


def copy_to_device(target_device, source_device="/cpu:0"):
    """A transformation: the elements copied to ``target_device``."""
    from ferroflow.data._writers import DeviceDataset

    return lambda dataset: DeviceDataset(dataset, target_device)
