"""Random and directed choices between datasets: `Dataset.random`, `choose_from_datasets`,
`sample_from_datasets` (TensorFlow's selector: seeds from `Dataset.random(seed).batch(2)`
fed to `stateless_categorical`, so a seeded program picks as TensorFlow's does) and
`rejection_resample`."""

import itertools
import random

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow import errors
from ferroflow._philox_stream import PhiloxStream
from ferroflow.array_ops import constant, convert_to_tensor
from ferroflow.data import _structure
from ferroflow.data._seeds import IterationSeeds, op_seeds
from ferroflow.data.dataset import (
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    dataset_construction,
)
from ferroflow.tensor_spec import TensorSpec

__all__ = [
    "DirectedInterleaveDataset",
    "PerElementDataset",
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
        seed, seed2 = op_seeds(seed)
        if seed is None:
            seed, seed2 = random.getrandbits(64), random.getrandbits(64)
        self._iteration_seeds = IterationSeeds(seed, seed2, rerandomize_each_iteration)

    @property
    def element_spec(self):
        return TensorSpec([], _dtypes.int64)

    def _cardinality(self):
        return INFINITE_CARDINALITY

    def _words(self):
        return PhiloxStream(*self._iteration_seeds.next_pair())

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


@dataset_construction
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


def _packed(value):
    """Nested tuples of tensors as one tensor, as `tf.convert_to_tensor` packs them."""
    from ferroflow.array_ops import stack

    if isinstance(value, (tuple, list)):
        return stack([_packed(v) for v in value])
    return convert_to_tensor(value)


@dataset_construction
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
            # TensorFlow's `weights.map(lambda *p: log(p))`: the function's arguments (the
            # element's parts, or the element) packed into one tensor, so a vector of weights
            # becomes the one row of logits.
            yield _categorical(math_ops.log(_packed(w if type(w) is tuple else (w,))), pair)

    return DirectedInterleaveDataset(_Selector(selections), datasets, stop_on_empty_dataset)


class _RejectionFilter(Dataset):
    """(class, element) pairs of the elements a uniform draw keeps (draw < the acceptance
    probability of the element's class). The draws are those of TensorFlow's stateful
    `random_uniform([], seed=seed)` in its filter function: one float per element from the
    first word of every 256th Philox block (what the kernel reserves per run)."""

    _repr_name = "_MapDataset"

    def __init__(self, dataset, acceptance, class_func, seed, class_spec):
        self._input = dataset
        self._acceptance = acceptance
        self._class_func = class_func
        self._seeds = op_seeds(seed)
        # The class value's spec is ``class_func``'s (TensorFlow takes any integer dtype).
        self._class_spec = class_spec

    @property
    def element_spec(self):
        return (self._class_spec, self._input.element_spec)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _elements(self):
        from ferroflow.data import _calls

        seed, seed2 = self._seeds
        if seed is None:
            seed, seed2 = random.getrandbits(64), random.getrandbits(64)
        pairs = zip(self._acceptance._elements(), self._input._elements())
        for k, (accept, element) in enumerate(pairs):
            label = convert_to_tensor(_calls.call(self._class_func, element))
            probability = float(np.asarray(accept.numpy())[int(label.numpy())])
            word = next(PhiloxStream(seed, seed2, skip=256 * k))
            draw = np.array((word & 0x7FFFFF) | 0x3F800000, np.uint32).view(np.float32) - 1
            if draw < np.float32(probability):
                yield (label, element)


def _acceptance(initial, target):
    """TensorFlow's per-class acceptance probabilities and the probability of drawing from
    the original data (`_calculate_acceptance_probs_with_mixing`), in float32 numpy."""
    initial = np.asarray(initial, np.float32)
    target = np.asarray(target, np.float32)
    ratio = target / (initial + np.finfo(np.float32).tiny)
    high, low = ratio.max(), ratio.min()
    # All ratios equal (the target is the initial distribution): 0 / 0, NaN as in
    # TensorFlow, and unused (every element comes from the original data).
    with np.errstate(invalid="ignore", divide="ignore"):
        accept = (ratio - low) / (high - low)
    return accept.astype(np.float32), np.float32(low)


class _EstimatedDistribution(Dataset):
    """TensorFlow's streaming estimate of the class distribution (for `rejection_resample`
    without ``initial_dist``): per batch of 32 class values, counts (started at 10 each)
    updated, and the new ``counts / sum(counts)`` given 32 times."""

    def __init__(self, classes, num_classes):
        self._classes = classes
        self._num_classes = num_classes

    @property
    def element_spec(self):
        return TensorSpec([self._num_classes], _dtypes.float32)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _elements(self):
        counts = np.full([self._num_classes], 10, np.int64)
        batch = []
        classes = iter(self._classes._elements())
        while True:
            batch = [int(c.numpy()) for c in itertools.islice(classes, 32)]
            if not batch:
                return
            for c in batch:
                if 0 <= c < self._num_classes:
                    counts[c] += 1
            dist = (counts / counts.sum()).astype(np.float32)
            # TensorFlow tiles each estimate 32 times, a short last batch's too: the weights
            # of `sample_from_datasets` then outlast the data, which decides where the
            # resampled dataset ends.
            for _ in range(32):
                yield convert_to_tensor(dist)


class PerElementDataset(Dataset):
    """``fn`` (a Python function of an element, run as it is) of each element of its input,
    of the element spec ``spec``."""

    _repr_name = "_MapDataset"

    def __init__(self, input_dataset, fn, spec):
        self._input = input_dataset
        self._fn = fn
        self._spec = spec

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return self._input._cardinality()

    def _elements(self):
        return (self._fn(e) for e in self._input._elements())


@dataset_construction
def rejection_resample(dataset, class_func, target_dist, initial_dist=None, seed=None):
    """`Dataset.rejection_resample`: (class, element) pairs, resampled towards the class
    distribution ``target_dist``: TensorFlow's composition (a mix, drawn by
    `sample_from_datasets`, of the original elements and of those a per-class acceptance
    test keeps; without ``initial_dist``, the class distribution estimated as the elements
    stream by), with TensorFlow's draws for a given seed."""
    from ferroflow.data import _calls
    from ferroflow.data._sources import TensorDataset

    target = np.asarray(convert_to_tensor(target_dist).numpy(), np.float32)

    def with_class(*x):
        element = x[0] if len(x) == 1 else x
        return _calls.call(class_func, element), element

    originals = dataset.map(with_class)
    class_spec = originals.element_spec[0]
    if initial_dist is not None:
        initial = np.asarray(convert_to_tensor(initial_dist).numpy(), np.float32)
        accept, prob_original = _acceptance(initial, target)
        acceptance_ds = TensorDataset(convert_to_tensor(accept)).repeat()
        static = np.min(target / initial)
        if static == 1:
            return originals
        filtered = _RejectionFilter(dataset, acceptance_ds, class_func, seed, class_spec)
        if static == 0:
            return filtered
        weights = TensorDataset((_weight_pair(prob_original),)).repeat()
    else:
        classes = PerElementDataset(
            dataset,
            lambda e: convert_to_tensor(_calls.call(class_func, e)),
            TensorSpec([], _dtypes.int32),
        )
        estimate = _EstimatedDistribution(classes, len(target))
        acceptance_ds = PerElementDataset(
            estimate,
            lambda d: convert_to_tensor(_acceptance(d.numpy(), target)[0]),
            estimate.element_spec,
        )
        filtered = _RejectionFilter(dataset, acceptance_ds, class_func, seed, class_spec)
        scalar = TensorSpec([], _dtypes.float32)
        weights = PerElementDataset(
            estimate,
            lambda d: (_weight_pair(_acceptance(d.numpy(), target)[1]),),
            ((scalar, scalar),),
        )
    return sample_from_datasets([originals, filtered], weights, seed, stop_on_empty_dataset=True)


def _weight_pair(prob_original):
    """TensorFlow's weights element: ((p, 1 - p),), one row of two probabilities."""
    p = np.float32(prob_original)
    return (convert_to_tensor(p), convert_to_tensor(np.float32(1) - p))
