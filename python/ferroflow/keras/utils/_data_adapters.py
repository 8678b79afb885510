"""The inputs `fit`, `evaluate` and `predict` accept, as batches of tensors: arrays and
tensors (sliced in numpy, shuffled by a permutation per epoch, floats made float32 as Keras
does), `tf.data.Dataset`s (their elements are the batches) and Python iterators of batches."""

import math
import types
import warnings

import numpy as np

from ferroflow import _random_seed, nest
from ferroflow._core import Tensor
from ferroflow._random_shuffle import ShuffleKernel
from ferroflow.array_ops import convert_to_tensor
from ferroflow.data import Dataset
from ferroflow.keras.utils.data_utils import pack_x_y_sample_weight, unpack_x_y_sample_weight
from ferroflow.variables import Variable

__all__ = [
    "ArrayDataAdapter",
    "DatasetAdapter",
    "IteratorAdapter",
    "class_weight_to_sample_weights",
    "get_data_adapter",
    "to_tensors",
    "train_validation_split",
]


def _is_array_like(value):
    return (
        value is None
        or isinstance(value, (np.ndarray, Tensor, Variable))
        or (hasattr(value, "__array__") and not isinstance(value, (list, tuple, dict)))
    )


def can_convert_arrays(arrays):
    return all(_is_array_like(leaf) for leaf in nest.flatten(arrays))


def _as_array(value):
    """One input as a numpy array, floats as float32 (Keras's floatx)."""
    if value is None:
        return None
    array = np.asarray(value.value() if isinstance(value, Variable) else value)
    if array.dtype.kind == "f" and array.dtype != np.float32:
        array = array.astype(np.float32)
    return array


def _as_tensor(value):
    return None if value is None else convert_to_tensor(value)


def to_tensors(data):
    """A batch given directly (to `train_on_batch`...) as tensors, floats made float32."""
    return nest.map_structure(lambda v: _as_tensor(_as_array(v)), data)


def class_weight_to_sample_weights(y, class_weight):
    """Per-sample weights from a ``{class index: weight}`` dict (one-hot targets are read by
    their argmax; unlisted classes weigh 1)."""
    y = np.asarray(y)
    weights = np.ones(shape=(y.shape[0],), dtype=np.float32)
    if y.ndim > 1:
        y = np.argmax(y, axis=-1) if y.shape[-1] != 1 else np.squeeze(y, axis=-1)
    y = np.round(y).astype("int32")
    for i in range(y.shape[0]):
        weights[i] = class_weight.get(int(y[i]), 1.0)
    return weights


def _check_cardinality(inputs):
    sizes = {int(leaf.shape[0]) for leaf in nest.flatten(inputs) if leaf is not None}
    if len(sizes) > 1:
        message = (
            "Data cardinality is ambiguous. Make sure all arrays contain the same number of "
            "samples."
        )
        parts = inputs if isinstance(inputs, tuple) else (inputs,)
        for label, part in zip(["x", "y", "sample_weight"], parts):
            shapes = ", ".join(str(leaf.shape[0]) for leaf in nest.flatten(part))
            message += f"'{label}' sizes: {shapes}\n"
        raise ValueError(message)


class ArrayDataAdapter:
    """Batches of in-memory arrays or tensors."""

    def __init__(
        self,
        x,
        y=None,
        sample_weight=None,
        batch_size=None,
        steps=None,
        shuffle=False,
        class_weight=None,
    ):
        if sample_weight is not None and class_weight is not None:
            raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
        if sample_weight is not None and nest.is_nested(y):
            sample_weight = self._per_output_weights(y, sample_weight)
        if class_weight is not None:
            if nest.is_nested(y):
                raise ValueError(
                    "`class_weight` is only supported for Models with a single output."
                )
            sample_weight = class_weight_to_sample_weights(_as_array(y), class_weight)
        inputs = nest.map_structure(_as_array, pack_x_y_sample_weight(x, y, sample_weight))
        _check_cardinality(inputs)
        self._inputs = inputs
        self._leaves = nest.flatten(inputs)
        self._single = not nest.is_nested(inputs)
        self._num_samples = int(next(a for a in self._leaves if a is not None).shape[0])
        if not batch_size:
            batch_size = int(math.ceil(self._num_samples / steps)) if steps else 32
        self._batch_size = int(batch_size)
        self._size = int(math.ceil(self._num_samples / self._batch_size))
        self._shuffle = shuffle
        # Keras shuffles with `tf.random.shuffle` in a `tf.data` function traced now: the
        # first unseeded random op of a function graph.
        self._shuffle_seeds = _random_seed.function_seeds()

    @staticmethod
    def _per_output_weights(y, sample_weight):
        if isinstance(sample_weight, (list, tuple, dict)):
            try:
                nest.assert_same_structure(y, sample_weight, check_types=False)
            except (ValueError, TypeError):
                raise ValueError(
                    "You should provide one `sample_weight` array per output in `y`. The two "
                    f"structures did not match:\n- y: {y}\n- sample_weight: {sample_weight}\n"
                ) from None
            return sample_weight
        shape = np.shape(sample_weight)
        if not (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)):
            raise ValueError(
                "For a model with multiple outputs, when providing a single `sample_weight` "
                "array, it should only have one scalar score per sample (i.e. shape "
                "`(num_samples,)`). If you want to use non-scalar sample weights, pass a "
                "`sample_weight` argument with one array per model output."
            )
        return nest.map_structure(lambda _: sample_weight, y)

    @property
    def num_batches(self):
        return self._size

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def has_partial_batch(self):
        return self._num_samples % self._batch_size > 0

    def _batch(self, selection):
        leaves = [None if a is None else convert_to_tensor(a[selection]) for a in self._leaves]
        if self._single:
            return leaves[0]
        return nest.pack_sequence_as(self._inputs, leaves)

    def __iter__(self):
        """The batches of one epoch (reshuffled each time when shuffling)."""
        n, size = self._num_samples, self._batch_size
        # Under a global seed, TensorFlow's orders: the shuffle kernel of Keras's `tf.data`
        # function starts again with each epoch's iterator, so every epoch has one order
        # (and each epoch's batches the same orders). Unseeded, TensorFlow's orders are
        # random: NumPy's.
        shuffled = np.random.permutation
        if self._shuffle_seeds != (None, None):
            shuffled = ShuffleKernel(self._shuffle_seeds).permutation
        permutation = None
        if self._shuffle and self._shuffle != "batch":
            permutation = shuffled(n)
        for start in range(0, n, size):
            stop = min(start + size, n)
            if self._shuffle == "batch":
                selection = shuffled(stop - start) + start
            elif permutation is not None:
                selection = permutation[start:stop]
            else:
                selection = slice(start, stop)
            yield self._batch(selection)


def _as_batch(element):
    """A batch from a dataset or iterator, lists read as tuples and arrays made tensors."""
    if isinstance(element, list):
        element = tuple(element)
    return nest.map_structure(
        lambda v: v if v is None or isinstance(v, Tensor) else _as_tensor(_as_array(v)), element
    )


def _with_class_weights(batch, class_weight):
    x, y, sample_weight = unpack_x_y_sample_weight(batch)
    if sample_weight is not None:
        raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
    if nest.is_nested(y):
        raise ValueError("`class_weight` is only supported for Models with a single output.")
    weights = class_weight_to_sample_weights(np.asarray(y), class_weight)
    return (x, y, convert_to_tensor(weights))


class DatasetAdapter:
    """The elements of a `tf.data.Dataset`, each a batch."""

    def __init__(self, dataset, class_weight=None):
        self._dataset = dataset
        self._class_weight = class_weight
        n = dataset._cardinality()
        self._num_batches = n if n >= 0 else None

    @property
    def num_batches(self):
        return self._num_batches

    def __iter__(self):
        # The dataset's iterator is made now, as Keras's `iter(dataset)`: a shuffled dataset
        # draws the seeds of its order when its iterator is made, used or not.
        return self._batches(iter(self._dataset))

    def _batches(self, elements):
        for element in elements:
            batch = _as_batch(element)
            if self._class_weight is not None:
                batch = _with_class_weights(batch, self._class_weight)
            yield batch


class IteratorAdapter:
    """The batches of a Python generator or iterator (which only runs once)."""

    def __init__(self, iterator, class_weight=None):
        self._iterator = iterator
        self._class_weight = class_weight

    @property
    def num_batches(self):
        return None

    def __iter__(self):
        for element in self._iterator:
            batch = _as_batch(element)
            if self._class_weight is not None:
                batch = _with_class_weights(batch, self._class_weight)
            yield batch


def _unsupported(argument, description, input_type):
    return ValueError(
        f"When providing `x` as a {input_type}, `{argument}` should not be passed. Instead, "
        f"{description} should be included as part of the {input_type}."
    )


def get_data_adapter(
    x,
    y=None,
    sample_weight=None,
    batch_size=None,
    steps_per_epoch=None,
    shuffle=False,
    class_weight=None,
):
    """The adapter for ``x`` (and ``y``, ``sample_weight``)."""
    from ferroflow.keras.utils.py_dataset import PyDataset, PyDatasetAdapter

    if isinstance(x, PyDataset):
        if y is not None:
            raise _unsupported("y", "the targets", "PyDataset")
        if sample_weight is not None:
            raise _unsupported("sample_weights", "the sample weights", "PyDataset")
        return PyDatasetAdapter(x, class_weight=class_weight, shuffle=shuffle)
    if isinstance(x, Dataset) or isinstance(x, (types.GeneratorType, map, filter)):
        input_type = "tf.data.Dataset" if isinstance(x, Dataset) else "Python generator"
        if y is not None:
            raise _unsupported("y", "the targets", input_type)
        if sample_weight is not None:
            raise _unsupported("sample_weights", "the sample weights", input_type)
        if shuffle and isinstance(x, Dataset):
            warnings.warn(
                "`shuffle=True` was passed, but will be ignored since the data `x` was provided "
                "as a tf.data.Dataset. The Dataset is expected to already be shuffled (via "
                "`.shuffle(buffer_size)`).",
                stacklevel=5,
            )
        if isinstance(x, Dataset):
            return DatasetAdapter(x, class_weight=class_weight)
        return IteratorAdapter(x, class_weight=class_weight)
    if can_convert_arrays((x, y, sample_weight)):
        return ArrayDataAdapter(
            x,
            y,
            sample_weight=sample_weight,
            batch_size=batch_size,
            steps=steps_per_epoch,
            shuffle=shuffle,
            class_weight=class_weight,
        )
    raise ValueError(f"Unrecognized data type: x={x} (of type {type(x)})")


def train_validation_split(arrays, validation_split):
    """``(train, validation)``: the arrays split before their last ``validation_split``
    fraction of samples."""
    flat = nest.flatten(arrays)
    unsplittable = [type(t) for t in flat if not _is_array_like(t)]
    if unsplittable:
        raise ValueError(
            "Argument `validation_split` is only supported for tensors or NumPy arrays."
            f"Found incompatible type in the input: {unsplittable}"
        )
    if all(t is None for t in flat):
        return arrays, arrays
    batch_dim = int(next(t for t in flat if t is not None).shape[0])
    split_at = int(math.floor(batch_dim * (1.0 - validation_split)))
    if split_at == 0 or split_at == batch_dim:
        raise ValueError(
            f"Training data contains {batch_dim} samples, which is not sufficient to split it "
            "into a validation and training set as specified by "
            f"`validation_split={validation_split}`. Either provide more data, or a different "
            "value for the `validation_split` argument."
        )
    arrays = nest.map_structure(_as_array, arrays)
    train = nest.map_structure(lambda a: None if a is None else a[:split_at], arrays)
    validation = nest.map_structure(lambda a: None if a is None else a[split_at:], arrays)
    return train, validation
