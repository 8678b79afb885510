"""Iterators in `tf.train.Checkpoint`s: an iterator is saved as the number of elements it
has read (``<name>/_position``) and the seed state its pipeline's random datasets (shuffles,
`Dataset.random`) started it from (``<name>/_seeds``); a restored iterator rebuilds its
iteration from those seeds and reads on from the saved element, so it yields the elements
TensorFlow's restored iterator yields (TensorFlow saves the iterator's internal state,
buffers included; ferroflow replays the pipeline to the position instead, which costs the
time of reading the elements before it). The checkpoint keys are ferroflow's (TensorFlow
writes one `ITERATOR_STATE` tensor), so checkpoints of iterators do not move between the
two; randomness inside functions (a `flat_map` building shuffled datasets) is not saved."""

import itertools

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow.data import _instances
from ferroflow.data.dataset import Dataset

__all__ = ["capture_seeds", "catch_up", "position_children"]


def _random_datasets(dataset, found=None, seen=None):
    """The datasets of the pipeline that draw seeds per iteration, in a fixed order."""
    found = [] if found is None else found
    seen = set() if seen is None else seen
    if id(dataset) in seen:
        return found
    seen.add(id(dataset))
    if hasattr(dataset, "_iteration_seeds"):
        found.append(dataset)
    inputs = [getattr(dataset, n, None) for n in ("_input", "_first", "_second")]
    inputs += list(getattr(dataset, "_datasets", None) or ())
    for source in inputs:
        if isinstance(source, Dataset):
            _random_datasets(source, found, seen)
    return found


def capture_seeds(dataset):
    """The seed states an iteration of ``dataset`` starts from (taken before it starts)."""
    return [d._iteration_seeds.state() for d in _random_datasets(dataset)]


def _as_int64(states):
    flat = [v for state in states for v in state]
    return np.array(flat, np.uint64).view(np.int64)


def _from_int64(values):
    flat = np.asarray(values, np.int64).view(np.uint64).tolist()
    return [tuple(flat[i : i + 3]) for i in range(0, len(flat), 3)]


def position_children(iterator):
    """The iterator's checkpoint children, brought up to date."""
    from ferroflow.variables import Variable

    seeds = _as_int64(iterator._seed_states)
    if iterator._saved_position is None:
        iterator._saved_position = Variable(
            iterator._position, dtype=_dtypes.int64, trainable=False, name="iterator_position"
        )
        iterator._saved_seeds = Variable(
            seeds, dtype=_dtypes.int64, trainable=False, name="iterator_seeds"
        )
    else:
        iterator._saved_position.assign(iterator._position)
        iterator._saved_seeds.assign(seeds)
    # What the variables hold now: different values later mean a restore wrote them.
    iterator._synced_position = iterator._position
    iterator._synced_seeds = seeds
    return [("_position", iterator._saved_position), ("_seeds", iterator._saved_seeds)]


def catch_up(iterator):
    """Moves ``iterator`` to the position (and seeds) a restore wrote into its variables."""
    wanted = int(iterator._saved_position.numpy())
    seeds = np.asarray(iterator._saved_seeds.numpy(), np.int64)
    same_seeds = np.array_equal(seeds, iterator._synced_seeds)
    if wanted == iterator._synced_position and same_seeds:
        return
    iterator._synced_position = wanted
    iterator._synced_seeds = seeds
    if not same_seeds or wanted < iterator._position:
        states = _from_int64(seeds) if not same_seeds else iterator._seed_states
        randoms = _random_datasets(iterator._dataset)
        if len(states) != len(randoms):
            from ferroflow import errors

            raise errors.InvalidArgumentError(
                None, None, "The checkpoint's iterator was made from a different pipeline."
            )
        for dataset, state in zip(randoms, states):
            dataset._iteration_seeds.set_state(state)
        iterator._seed_states = states
        iterator._elements = _instances.elements(iterator._dataset)
        iterator._position = 0
    # Consumed without keeping them: the elements before the saved position.
    for _ in itertools.islice(iterator._elements, wanted - iterator._position):
        pass
    iterator._position = wanted
