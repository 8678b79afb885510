"""Random and directed choices between datasets: `Dataset.random`, `choose_from_datasets`,
`sample_from_datasets` (TensorFlow's selector: seeds from `Dataset.random(seed).batch(2)`
fed to `stateless_categorical`, so a seeded program picks as TensorFlow's does) and
`rejection_resample`."""

import random

import numpy as np

from ferroflow import _random_seed, errors
from ferroflow import dtypes as _dtypes
from ferroflow._philox_stream import PhiloxStream
from ferroflow.array_ops import constant, convert_to_tensor
from ferroflow.data import _structure
from ferroflow.data.dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from ferroflow.tensor_spec import TensorSpec

__all__ = [
    "DirectedInterleaveDataset",
    "RandomDataset",
    "choose_from_datasets",
    "rejection_resample",
    "sample_from_datasets",
]


class RandomDataset(Dataset):
    """Endless int64 scalars, the 32-bit words of TensorFlow's Philox stream for the op
    seeds; with ``rerandomize_each_iteration`` each iteration draws its own seeds."""

    _repr_name = "_RandomDataset"

    def __init__(self, seed=None, rerandomize_each_iteration=None, name=None):
        seed, seed2 = _random_seed.get_seed(None if seed is None else int(seed))
        if seed is None:
            seed, seed2 = random.getrandbits(64), random.getrandbits(64)
        self._seeds = (seed, seed2)
        self._seed_stream = PhiloxStream(seed, seed2) if rerandomize_each_iteration else None

    @property
    def element_spec(self):
        return TensorSpec([], _dtypes.int64)

    def _cardinality(self):
        return INFINITE_CARDINALITY

    def _words(self):
        seeds = self._seeds
        if self._seed_stream is not None:
            seeds = (next(self._seed_stream), next(self._seed_stream))
        return PhiloxStream(*seeds)

    def _elements(self):
        return (constant(word, dtype=_dtypes.int64) for word in self._words())


class DirectedInterleaveDataset(Dataset):
    """The element of the dataset each selector value names, in the selector's order."""

    _repr_name = "_DirectedInterleaveDataset"

    def __init__(self, selector, datasets, stop_on_empty_dataset):
        self._selector = selector
        self._datasets = list(datasets)
        self._stop = bool(stop_on_empty_dataset)
        spec = datasets[0].element_spec
        for other in datasets[1:]:
            try:
                spec = _structure.common_supertype(spec, other.element_spec)
            except TypeError:
                raise TypeError(
                    "Invalid `datasets`. `datasets` must have compatible element specs.\n "
                    f"Dataset 0 element_spec={datasets[0].element_spec}.\n"
                    f"Dataset element_spec={other.element_spec}."
                ) from None
        self._spec = spec

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _elements(self):
        inputs = [iter(d._elements()) for d in self._datasets]
        active = len(inputs)
        for index in self._selector:
            if index < 0 or index >= len(inputs):
                raise errors.InvalidArgumentError(
                    None, None, f"Selector index out of range: {index} >= {len(inputs)}"
                )
            if inputs[index] is None:
                continue
            element = next(inputs[index], _END)
            if element is not _END:
                yield element
                continue
            if self._stop:
                return
            inputs[index] = None
            active -= 1
            if active == 0:
                return


_END = object()


def _int_values(dataset):
    return (int(v.numpy()) for v in dataset._elements())


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """`Dataset.choose_from_datasets`: the elements of ``datasets`` in the order
    ``choice_dataset`` (int64 scalars) names them."""
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if not isinstance(choice_dataset, Dataset):
        raise TypeError(
            "Invalid `choice_dataset`. `choice_dataset` should be a `tf.data.Dataset` but is "
            f"{type(choice_dataset)}."
        )
    if choice_dataset.element_spec != TensorSpec([], _dtypes.int64):
        raise TypeError(
            "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` "
            f"tensors but are {choice_dataset.element_spec}."
        )
    return DirectedInterleaveDataset(
        _Selector(lambda: _int_values(choice_dataset)), datasets, stop_on_empty_dataset
    )


class _Selector:
    """A re-iterable stream of selector values (a fresh one per iteration)."""

    def __init__(self, make):
        self._make = make

    def __iter__(self):
        return iter(self._make())


def _categorical(logits, seeds):
    from ferroflow.random import stateless_categorical

    draw = stateless_categorical(logits, 1, seed=seeds, dtype=_dtypes.int64)
    return int(draw.numpy()[0, 0])


def _seed_pairs(random_dataset):
    words = iter(random_dataset._words())
    while True:
        yield convert_to_tensor(np.array([next(words), next(words)], np.int64))


def sample_from_datasets(
    datasets, weights=None, seed=None, stop_on_empty_dataset=False, rerandomize=None
):
    """`Dataset.sample_from_datasets`: elements drawn from ``datasets`` at random with
    probabilities ``weights`` (a list, a tensor or a dataset of them), stopping at the
    first exhausted dataset with ``stop_on_empty_dataset``."""
    from ferroflow import math as math_ops

    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    datasets = list(datasets)
    if isinstance(weights, Dataset):
        weight_source = weights
        logits = None
    else:
        weight_source = None
        if weights is None:
            logits = convert_to_tensor([[1.0] * len(datasets)])
        else:
            if hasattr(weights, "numpy") and hasattr(weights, "shape"):
                if not weights.shape.is_compatible_with([len(datasets)]):
                    raise ValueError(
                        "Invalid `weights`. The shape of `weights` should be compatible with "
                        f"`[len(datasets)]` but is {weights.shape}."
                    )
            else:
                if len(datasets) != len(weights):
                    raise ValueError(
                        "Invalid `weights`. `weights` should have the same length as "
                        f"`datasets` but got `len(weights)={len(weights)}` vs. "
                        f"`len(datasets)={len(datasets)}`."
                    )
                kept = [(d, w) for d, w in zip(datasets, weights) if w > 0]
                if kept:
                    datasets, weights = [d for d, _ in kept], [w for _, w in kept]
                else:
                    datasets, weights = [datasets[0].take(0)], [1.0]
            weights = convert_to_tensor(weights)
            if weights.dtype not in (_dtypes.float32, _dtypes.float64):
                raise TypeError(
                    "Invalid `weights`. `weights` type must be either `tf.float32` or "
                    f"`tf.float64` but is {weights.dtype!r}."
                )
            logits = math_ops.log(weights)[None]
        if len(datasets) == 1:
            return datasets[0]
    source = RandomDataset(seed, rerandomize)

    def selections():
        pairs = _seed_pairs(source)
        if weight_source is None:
            for pair in pairs:
                yield _categorical(logits, pair)
        for w, pair in zip(weight_source._elements(), pairs):
            # TensorFlow's `log(components)`: the components stacked, a vector of weights
            # becoming the one row of logits.
            yield _categorical(math_ops.log(_structure.to_tensor(_structure.flatten(w))), pair)

    return DirectedInterleaveDataset(_Selector(selections), datasets, stop_on_empty_dataset)


def rejection_resample(dataset, class_func, target_dist, initial_dist=None, seed=None):
    """`Dataset.rejection_resample`: (class, element) pairs, resampled towards the class
    distribution ``target_dist``: TensorFlow's composition (a mix of the original elements
    and of those kept by a per-class acceptance test)."""
    raise NotImplementedError
