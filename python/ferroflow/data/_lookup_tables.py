"""`tf.data.experimental.DatasetInitializer`, `table_from_dataset` and
`index_table_from_dataset`: lookup tables filled from the (key, value) elements of a dataset."""

import numpy as np

from ferroflow.dtypes import string
from ferroflow.lookup._initializers import TableInitializerBase, check_table_dtypes, import_pairs
from ferroflow.lookup._static import FastHashSpec, IdTableWithHashBuckets, StaticHashTable
from ferroflow.tensor_spec import TensorSpec

__all__ = ["DatasetInitializer", "index_table_from_dataset", "table_from_dataset"]

_BASE_ERROR = (
    "Datasets used to initialize lookup tables must produce elements in the form (key, value), "
    "where the keys and values are scalar tensors. However, the given dataset produces "
)


def _check_element_spec(element_spec):
    if len(element_spec) != 2:
        raise ValueError(
            _BASE_ERROR + f"{len(element_spec)} components instead of two (key, value) "
            f"components. Full dataset element spec: {element_spec}."
        )
    for what, spec in (("keys", element_spec[0]), ("values", element_spec[1])):
        if not isinstance(spec, TensorSpec):
            raise ValueError(_BASE_ERROR + f"non-Tensor {what} of type {type(spec)}.")
    for what, spec in (("key", element_spec[0]), ("value", element_spec[1])):
        if spec.shape.rank not in (None, 0):
            raise ValueError(_BASE_ERROR + f"non-scalar {what} Tensors of rank {spec.shape.rank}.")


class DatasetInitializer(TableInitializerBase):
    """Table initializer from a dataset of (key, value) scalar pairs."""

    def __init__(self, dataset):
        self.dataset = dataset
        spec = dataset.element_spec
        _check_element_spec(spec)
        super().__init__(spec[0].dtype, spec[1].dtype)

    def initialize(self, table):
        """Reads the whole dataset into ``table``."""
        check_table_dtypes(table, self._key_dtype, self._value_dtype)
        keys, values = [], []
        for key, value in self.dataset:
            keys.append(key.numpy())
            values.append(value.numpy())
        if not keys:
            return
        kind = object if self._key_dtype == string else self._key_dtype.as_numpy_dtype
        vkind = object if self._value_dtype == string else self._value_dtype.as_numpy_dtype
        import_pairs(
            table._store,
            np.array(keys, dtype=kind),
            np.array(values, dtype=vkind),
            op="InitializeTableFromDataset",
        )


def table_from_dataset(
    dataset=None,
    num_oov_buckets=0,
    vocab_size=None,
    default_value=None,
    hasher_spec=FastHashSpec,
    key_dtype=string,
    name=None,
):
    """A static table of the dataset's (key, value) pairs; with ``num_oov_buckets`` > 0 missing
    keys hash into buckets after the vocabulary."""
    from ferroflow._core import Tensor
    from ferroflow.data.experimental import assert_cardinality
    from ferroflow.math import cast

    spec = dataset.element_spec
    _check_element_spec(spec)
    if default_value is None:
        default_value = -1
        if not (spec[1].dtype.is_integer or spec[1].dtype.is_floating):
            raise ValueError(
                "`default_value` must be specified when creating a table from a dataset that "
                f"produces values of type {spec[1].dtype}."
            )
    if num_oov_buckets < 0:
        raise ValueError(
            f"`num_oov_buckets` must be greater than or equal to 0, got {num_oov_buckets}."
        )
    if not isinstance(vocab_size, Tensor) and vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    if not key_dtype.is_integer and key_dtype.base_dtype != string:
        raise TypeError(
            f"`key_dtype` must be either an integer or string type, but got {key_dtype}"
        )
    if vocab_size is not None:
        if isinstance(vocab_size, Tensor):
            from ferroflow.dtypes import int64

            vocab_size = cast(vocab_size, int64)
        dataset = dataset.take(vocab_size).apply(assert_cardinality(vocab_size))
    table = StaticHashTable(DatasetInitializer(dataset), default_value)
    if num_oov_buckets:
        table = IdTableWithHashBuckets(
            table, num_oov_buckets=num_oov_buckets, hasher_spec=hasher_spec, key_dtype=key_dtype
        )
    return table


def index_table_from_dataset(
    dataset=None,
    num_oov_buckets=0,
    vocab_size=None,
    default_value=-1,
    hasher_spec=FastHashSpec,
    key_dtype=string,
    name=None,
):
    """A table from each element of ``dataset`` to its int64 position in it."""
    return table_from_dataset(
        dataset.enumerate().map(lambda v, k: (k, v)),
        num_oov_buckets,
        vocab_size,
        default_value,
        hasher_spec,
        key_dtype,
        name,
    )
