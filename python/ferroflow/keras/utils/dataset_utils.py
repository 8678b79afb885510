"""`tf.keras.utils.split_dataset`: a small in-memory dataset (arrays or a `tf.data.Dataset`)
split into two `tf.data.Dataset`s, optionally shuffled with Python's `random` (as Keras)."""

import random

import numpy as np

from ferroflow import nest

__all__ = ["split_dataset"]


def _is_dataset(x):
    from ferroflow.data import Dataset

    return isinstance(x, Dataset)


def _type_spec(dataset):
    for kind in (tuple, list, np.ndarray):
        if isinstance(dataset, kind):
            return kind
    return "dataset" if _is_dataset(dataset) else None


def _check_arrays(dataset, kind):
    name = "list" if kind is list else "tuple"
    if len(dataset) == 0:
        raise ValueError(
            f"Received an empty list dataset.Please provide a non-empty {name} of arrays."
            if kind is tuple
            else "Received an empty list dataset. Please provide a non-empty list of arrays."
        )
    expected = None
    for i, element in enumerate(dataset):
        if not isinstance(element, np.ndarray):
            raise ValueError(
                f"Expected a {name} of `numpy.ndarray` objects,Received: {type(element)} at "
                f"index {i}."
            )
        if expected is None:
            expected = element.shape
        elif element.shape[0] != expected[0]:
            raise ValueError(
                f"Received a {name} of NumPy arrays with different lengths.Mismatch found at "
                f"index {i}, Expected shape={expected} Received shape={element.shape}.Please "
                f"provide a {name} of NumPy arrays of the same length."
            )


def _samples(dataset, kind):
    if kind in (list, tuple):
        _check_arrays(dataset, kind)
        iterator = iter(zip(*dataset))
    elif kind == "dataset":
        iterator = iter(dataset.unbatch() if hasattr(dataset, "_batch_size") else dataset)
    else:
        iterator = iter(dataset)
    samples = list(iterator)
    if samples and _has_shape(samples[0]):
        # Keras checks the shapes only when the samples are arrays or tensors.
        first = np.shape(samples[0])
        for i, sample in enumerate(samples[1:]):
            if np.shape(sample) != first:
                raise ValueError(
                    "All `dataset` samples must have same shape, Expected shape: "
                    f"{first} Received shape: {np.shape(sample)} at index {i}."
                )
    if not samples:
        raise ValueError(
            "Received an empty dataset. Argument `dataset` must be a non-empty list/tuple of "
            "`numpy.ndarray` objects or `tf.data.Dataset` objects."
        )
    return samples


def _has_shape(sample):
    from ferroflow._core import Tensor

    return isinstance(sample, np.ndarray | Tensor)


def _sizes(left_size, right_size, total):
    """Keras's rescaling of the split sizes (ints are counts, floats fractions)."""
    left_type, right_type = type(left_size), type(right_size)
    if (left_size is not None and left_type not in (int, float)) and (
        right_size is not None and right_type not in (int, float)
    ):
        raise TypeError(
            "Invalid `left_size` and `right_size` Types. Expected: integer or float or None, "
            f"Received: type(left_size)={left_type} and type(right_size)={right_type}"
        )
    if left_size is not None and left_type not in (int, float):
        raise TypeError(
            "Invalid `left_size` Type. Expected: int or float or None, Received: "
            f"type(left_size)={left_type}.  "
        )
    if right_size is not None and right_type not in (int, float):
        raise TypeError(
            "Invalid `right_size` Type. Expected: int or float or None,Received: "
            f"type(right_size)={right_type}."
        )
    if left_size == 0 and right_size == 0:
        raise ValueError(
            "Both `left_size` and `right_size` are zero. At least one of the split sizes must "
            "be non-zero."
        )
    if (left_type is int and (left_size <= 0 or left_size >= total)) or (
        left_type is float and (left_size <= 0 or left_size >= 1)
    ):
        raise ValueError(
            f"`left_size` should be either a positive integer smaller than {total}, or a float "
            f"within the range `[0, 1]`. Received: left_size={left_size}"
        )
    if (right_type is int and (right_size <= 0 or right_size >= total)) or (
        right_type is float and (right_size <= 0 or right_size >= 1)
    ):
        raise ValueError(
            f"`right_size` should be either a positive integer and smaller than {total} or a "
            f"float within the range `[0, 1]`. Received: right_size={right_size}"
        )
    if right_type is left_type is float and right_size + left_size > 1:
        raise ValueError(
            "The sum of `left_size` and `right_size` is greater than 1. It must be less than or "
            "equal to 1."
        )
    left = round(left_size * total) if left_type is float else left_size
    right = round(right_size * total) if right_type is float else right_size
    if left is None:
        left = total - right
    elif right is None:
        right = total - left
    if left + right > total:
        raise ValueError(
            f"The sum of `left_size` and `right_size` should be smaller than the {total}. "
            f"Received: left_size + right_size = {float(left + right)}and total_length = {total}"
        )
    for split, side in ((left, "left"), (right, "right")):
        if split == 0:
            raise ValueError(
                f"With `dataset` of length={total}, `left_size`={float(left)} and "
                f"`right_size`={float(right)}.Resulting {side} side dataset split will be "
                "empty. Adjust any of the aforementioned parameters"
            )
    return int(left), int(right)


def _restack(samples, kind, original):
    if kind in (tuple, list) or _is_dataset(original):
        structure = samples[0]
        columns = [np.array(column) for column in zip(*(nest.flatten(s) for s in samples))]
        packed = nest.pack_sequence_as(structure, columns)
        return tuple(packed) if isinstance(packed, list) else packed
    return samples


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None, **kwargs):
    """``(left, right)`` datasets holding the first ``left_size`` and the last ``right_size``
    samples (counts, or fractions of the total) of ``dataset``; a batched `tf.data.Dataset`
    gives splits batched the same way."""
    import ferroflow as tf

    if kwargs.get("preferred_backend") not in (None, "tensorflow"):
        raise NotImplementedError(
            f"split_dataset(preferred_backend={kwargs['preferred_backend']!r}) is not supported: "
            "ferroflow builds tf.data datasets."
        )
    kind = _type_spec(dataset)
    if kind is None:
        raise TypeError(
            "The `dataset` argument must be eithera `tf.data.Dataset` object, ora list/tuple of "
            f"arrays. Received: dataset={dataset} of type {type(dataset)}"
        )
    if right_size is None and left_size is None:
        raise ValueError(
            "At least one of the `left_size` or `right_size` must be specified. Received: "
            "left_size=None and right_size=None"
        )
    samples = _samples(dataset, kind)
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(1e6))
        random.seed(seed)
        random.shuffle(samples)
    left_size, right_size = _sizes(left_size, right_size, len(samples))
    left = tf.data.Dataset.from_tensor_slices(_restack(samples[:left_size], kind, dataset))
    right = tf.data.Dataset.from_tensor_slices(_restack(samples[-right_size:], kind, dataset))
    batch_size = getattr(dataset, "_batch_size", None) if kind == "dataset" else None
    if batch_size is not None:
        left, right = left.batch(batch_size), right.batch(batch_size)
    return left.prefetch(tf.data.AUTOTUNE), right.prefetch(tf.data.AUTOTUNE)
