"""`tf.data.DatasetSpec` and `tf.data.IteratorSpec`: the type specs of datasets and iterators
(a window of `Dataset.window` is a dataset, so element specs hold DatasetSpecs)."""

from ferroflow.tensor_shape import TensorShape
from ferroflow.type_spec import BatchableTypeSpec, TypeSpec

__all__ = ["DatasetSpec", "IteratorSpec"]


class DatasetSpec(BatchableTypeSpec):
    """The spec of a `tf.data.Dataset`: the spec of its elements and the shape of the
    dataset value itself (``[]`` for one dataset; batching datasets prepends dimensions).

    >>> import ferroflow as tf
    >>> tf.data.DatasetSpec.from_value(tf.data.Dataset.range(3))
    DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))
    """

    __slots__ = ("_dataset_shape", "_element_spec")

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = TensorShape(dataset_shape)

    @property
    def element_spec(self):
        """The spec of the dataset's elements."""
        return self._element_spec

    @property
    def value_type(self):
        from ferroflow.data.dataset import Dataset

        return Dataset

    @property
    def _component_specs(self):
        # TensorFlow holds a dataset as one variant tensor; ferroflow's datasets are Python
        # objects that are never taken apart into tensors.
        return ()

    def _to_components(self, value):
        raise TypeError("A tf.data.Dataset has no component tensors in ferroflow.")

    def _from_components(self, components):
        raise TypeError("A tf.data.Dataset cannot be rebuilt from tensors in ferroflow.")

    def _serialize(self):
        return (self._element_spec, self._dataset_shape)

    def _batch(self, batch_size):
        return DatasetSpec(
            self._element_spec, TensorShape([batch_size]).concatenate(self._dataset_shape)
        )

    def _unbatch(self):
        if self._dataset_shape.ndims == 0:
            raise ValueError("Slicing dataset elements is not supported for rank 0.")
        return DatasetSpec(self._element_spec, self._dataset_shape[1:])

    @staticmethod
    def from_value(value):
        """The spec of the dataset ``value``."""
        return DatasetSpec(value.element_spec)


class IteratorSpec(TypeSpec):
    """The spec of a `tf.data.Iterator`: the spec of the elements it yields."""

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def value_type(self):
        from ferroflow.data.dataset import Iterator

        return Iterator

    @property
    def _component_specs(self):
        return ()

    def _to_components(self, value):
        raise TypeError("A tf.data.Iterator has no component tensors in ferroflow.")

    def _from_components(self, components):
        raise TypeError("A tf.data.Iterator cannot be rebuilt from tensors in ferroflow.")

    def _serialize(self):
        return (self._element_spec,)

    @staticmethod
    def from_value(value):
        """The spec of the iterator ``value``."""
        return IteratorSpec(value.element_spec)
