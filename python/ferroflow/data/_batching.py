"""`batch` and `unbatch`."""

import itertools

import numpy as np

from ferroflow import errors
from ferroflow.array_ops import convert_to_tensor, stack
from ferroflow.data import _structure
from ferroflow.data.dataset import (
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    check_count,
    finite_batches,
)

__all__ = ["BatchDataset", "UnbatchDataset"]


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def stack_elements(elements):
    """One element whose components stack the components of ``elements``."""
    columns = zip(*(_structure.flatten(e) for e in elements))
    stacked = []
    for component, column in enumerate(columns):
        first = column[0].shape
        for i, tensor in enumerate(column[1:], start=1):
            if tensor.shape != first:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Cannot batch tensors with different shapes in component {component}. "
                    f"First element had shape {_shape_text(first)} and element {i} had shape "
                    f"{_shape_text(tensor.shape)}.",
                )
        stacked.append(stack(list(column)))
    return _structure.pack_as(elements[0], stacked)


class BatchDataset(Dataset):
    _repr_name = "_BatchDataset"

    def __init__(self, input_dataset, batch_size, drop_remainder):
        self._input = input_dataset
        self._batch_size = check_count(batch_size, "batch_size")
        if self._batch_size <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
        self._drop_remainder = bool(drop_remainder)
        self._spec = _structure.batched_spec(
            input_dataset.element_spec, self._batch_size if self._drop_remainder else None
        )

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return finite_batches(self._input._cardinality(), self._batch_size, self._drop_remainder)

    def _elements(self):
        source = self._input._slice_source()
        if source is not None:
            return self._sliced(source, self._input._indices())
        return self._stacked(iter(self._input._elements()))

    def _sliced(self, source, indices):
        size = self._batch_size
        if isinstance(indices, range) and indices.step == 1:
            for start in range(indices.start, indices.stop, size):
                stop = min(start + size, indices.stop)
                if stop - start < size and self._drop_remainder:
                    return
                yield source._select(slice(start, stop))
            return
        indices = iter(indices)
        while True:
            chunk = list(itertools.islice(indices, size))
            if not chunk or (len(chunk) < size and self._drop_remainder):
                return
            yield source._select(np.asarray(chunk, dtype=np.int64))

    def _stacked(self, elements):
        while True:
            chunk = list(itertools.islice(elements, self._batch_size))
            if not chunk or (len(chunk) < self._batch_size and self._drop_remainder):
                return
            yield stack_elements(chunk)


class UnbatchDataset(Dataset):
    _repr_name = "_UnbatchDataset"

    def __init__(self, input_dataset):
        self._input = input_dataset
        self._spec = _structure.unbatched_spec(input_dataset.element_spec)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        n = self._input._cardinality()
        if n == INFINITE_CARDINALITY or n == 0:
            return n
        rows = {
            s.shape[0] if s.shape.rank else None
            for s in _structure.flatten(self._input.element_spec)
        }
        if n > 0 and len(rows) == 1 and None not in rows:
            return n * rows.pop()
        return UNKNOWN_CARDINALITY

    def _elements(self):
        for element in self._input._elements():
            leaves = _structure.flatten(element)
            rows = {leaf.shape[0] for leaf in leaves}
            if len(rows) != 1:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    "Input element must have the same batch size in each component. Component 0 "
                    f"had size {leaves[0].shape[0]} but another component had a different size.",
                )
            arrays = [np.asarray(leaf) for leaf in leaves]
            dtypes = [leaf.dtype for leaf in leaves]
            for i in range(rows.pop()):
                yield _structure.pack_as(
                    element, [convert_to_tensor(a[i], dtype=d) for a, d in zip(arrays, dtypes)]
                )
