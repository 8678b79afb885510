"""Datasets made of several: `zip` and `concatenate`."""

import itertools

from ferroflow.data import _structure
from ferroflow.data.dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset

__all__ = ["ConcatenateDataset", "ZipDataset"]


class ZipDataset(Dataset):
    _repr_name = "_ZipDataset"

    def __init__(self, datasets):
        self._structure = datasets
        self._datasets = _structure.flatten(datasets)
        for d in self._datasets:
            if not isinstance(d, Dataset):
                raise TypeError(
                    "Invalid `datasets`. `datasets` is expected to be a (nested) structure of "
                    "`tf.data.Dataset` objects. Python `list` is not supported and you should "
                    f"use `tuple` instead. Got {type(d).__name__}."
                )
        self._spec = _structure.pack_as(datasets, [d.element_spec for d in self._datasets])

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        counts = [d._cardinality() for d in self._datasets]
        finite = [n for n in counts if n >= 0]
        if UNKNOWN_CARDINALITY in counts:
            return 0 if 0 in finite else UNKNOWN_CARDINALITY
        return min(finite) if finite else INFINITE_CARDINALITY

    def _elements(self):
        structure = self._structure
        for parts in zip(*(d._elements() for d in self._datasets)):
            yield _structure.pack_as(structure, parts)


class ConcatenateDataset(Dataset):
    _repr_name = "_ConcatenateDataset"

    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError(f"Expected a tf.data.Dataset, got {type(second).__name__}.")
        self._first = first
        self._second = second
        self._spec = _structure.common_supertype(first.element_spec, second.element_spec)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        a, b = self._first._cardinality(), self._second._cardinality()
        if INFINITE_CARDINALITY in (a, b):
            return INFINITE_CARDINALITY
        if UNKNOWN_CARDINALITY in (a, b):
            return UNKNOWN_CARDINALITY
        return a + b

    def _elements(self):
        return itertools.chain(self._first._elements(), self._second._elements())
