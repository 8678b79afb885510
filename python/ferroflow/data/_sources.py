"""The datasets made from data: `from_tensor_slices`, `from_tensors` and `range`."""

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import constant, convert_to_tensor
from ferroflow.data import _structure
from ferroflow.data.dataset import Dataset
from ferroflow.tensor_spec import TensorSpec

__all__ = ["RangeDataset", "TensorDataset", "TensorSliceDataset"]


class TensorSliceDataset(Dataset):
    """The rows of in-memory tensors, kept as numpy arrays so that rows and batches of rows
    are slices."""

    _repr_name = "_TensorSliceDataset"

    def __init__(self, tensors):
        element = _structure.normalize(tensors)
        leaves = _structure.flatten(element)
        if not leaves:
            raise ValueError("Invalid `tensors` argument: the structure must contain a tensor.")
        rows = None
        for leaf in leaves:
            if leaf.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            n = leaf.shape[0]
            if rows is not None and n != rows:
                raise ValueError(f"Dimensions {rows} and {n} are not compatible")
            rows = n
        self._structure = element
        self._arrays = [np.asarray(leaf) for leaf in leaves]
        self._dtypes = [leaf.dtype for leaf in leaves]
        self._spec = _structure.unbatched_spec(_structure.spec_of(element))
        self._rows_count = rows

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return self._rows_count

    def _slice_source(self):
        return self

    def _indices(self):
        return range(self._rows_count)

    def _select(self, selection):
        """The element made of rows ``selection`` (an index, a slice or an index array)."""
        if len(self._arrays) == 1:
            return convert_to_tensor(self._arrays[0][selection], dtype=self._dtypes[0])
        return _structure.pack_as(
            self._structure,
            [convert_to_tensor(a[selection], dtype=d) for a, d in zip(self._arrays, self._dtypes)],
        )

    _row = _select


class TensorDataset(Dataset):
    """One element."""

    _repr_name = "_TensorDataset"

    def __init__(self, tensors):
        self._element = _structure.normalize(tensors)
        self._spec = _structure.spec_of(self._element)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return 1

    def _elements(self):
        return iter((self._element,))


class RangeDataset(Dataset):
    """``start, start + step, ...`` below ``stop`` (above it for a negative step)."""

    _repr_name = "_RangeDataset"

    def __init__(self, *args, dtype=_dtypes.int64, name=None):
        if not 1 <= len(args) <= 3:
            raise ValueError(
                "Invalid `args`. The length of `args` should be between 1 and 3 but was "
                f"{len(args)}."
            )
        bounds = [int(a.numpy()) if hasattr(a, "numpy") else int(a) for a in args]
        if len(bounds) == 1:
            bounds = [0, bounds[0]]
        if len(bounds) == 2:
            bounds.append(1)
        if bounds[2] == 0:
            raise ValueError("step must be a non zero integer.")
        self._range = range(*bounds)
        self._dtype = _dtypes.as_dtype(dtype)
        self._spec = TensorSpec([], self._dtype)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return len(self._range)

    def _elements(self):
        dtype = self._dtype
        return (constant(i, dtype=dtype) for i in self._range)
