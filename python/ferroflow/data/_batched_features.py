"""`tf.data.experimental.parse_example_dataset` and `make_batched_features_dataset`: batches of
serialized `tf.train.Example`s parsed into dicts of features with `tf.io.parse_example`, the
pipeline TensorFlow builds (files listed and interleaved, shuffled, repeated, batched, parsed,
the label split off, prefetched)."""

from ferroflow import dtypes as _dtypes
from ferroflow.data.dataset import AUTOTUNE, Dataset
from ferroflow.tensor_spec import TensorSpec

__all__ = ["make_batched_features_dataset", "parse_example_dataset"]


def parse_example_dataset(features, num_parallel_calls=1, deterministic=None):
    """A transformation for `Dataset.apply`: each element (a vector of serialized `Example`s)
    parsed by `tf.io.parse_example` with ``features``."""
    if features is None:
        raise ValueError("Argument `features` is required, but not specified.")

    def apply(dataset):
        from ferroflow.io import parse_example

        spec = dataset.element_spec
        wanted = TensorSpec([None], _dtypes.string)
        if not (isinstance(spec, TensorSpec) and wanted.is_compatible_with(spec)):
            raise TypeError(
                f"Input dataset should be a dataset of vectors of strings. Instead it is `{spec}`."
            )
        return dataset.map(
            lambda serialized: parse_example(serialized, features),
            num_parallel_calls=num_parallel_calls,
            deterministic=deterministic,
        )

    return apply


def make_batched_features_dataset(
    file_pattern,
    batch_size,
    features,
    reader=None,
    label_key=None,
    reader_args=None,
    num_epochs=None,
    shuffle=True,
    shuffle_buffer_size=10000,
    shuffle_seed=None,
    prefetch_buffer_size=None,
    reader_num_threads=None,
    parser_num_threads=None,
    sloppy_ordering=False,
    drop_final_batch=False,
):
    """Batches of ``batch_size`` `Example` records from the files matching ``file_pattern``
    (read by ``reader``, `TFRecordDataset` by default), parsed into dicts of ``features``
    (``(features, label)`` with ``label_key``); shuffled with ``shuffle_seed`` and repeated
    ``num_epochs`` times (forever when None, dropping the last partial batch), as TensorFlow's
    pipeline does."""
    from ferroflow.data._readers import TFRecordDataset

    if reader is None:
        reader = TFRecordDataset
    if reader_num_threads is None:
        reader_num_threads = 1
    if parser_num_threads is None:
        parser_num_threads = 2
    if prefetch_buffer_size is None:
        prefetch_buffer_size = AUTOTUNE
    dataset = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    args = list(reader_args or [])

    def read(filename):
        return reader(filename, *args)

    if reader_num_threads == AUTOTUNE:
        dataset = dataset.interleave(read, num_parallel_calls=AUTOTUNE)
    else:
        dataset = dataset.interleave(read, cycle_length=reader_num_threads, block_length=1)
    spec = dataset.element_spec
    if (
        isinstance(spec, tuple)
        and len(spec) == 2
        and all(isinstance(s, TensorSpec) and s.dtype == _dtypes.string for s in spec)
    ):
        dataset = dataset.map(lambda _, value: value)  # (key, value) readers
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    dataset = dataset.apply(parse_example_dataset(features, num_parallel_calls=parser_num_threads))
    if label_key:
        if label_key not in features:
            raise ValueError(
                f"The `label_key` provided ({label_key}) must be one of the `features` keys: "
                f"{features.keys()}."
            )
        dataset = dataset.map(lambda x: (x, x.pop(label_key)))
    return dataset.prefetch(prefetch_buffer_size)
