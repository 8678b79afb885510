"""`tf.keras.preprocessing.sequence`: Keras's legacy sequence utilities (`pad_sequences` from
`keras.utils`, `TimeseriesGenerator`, skip-gram sampling), in Python and NumPy as in Keras."""

import json
import random

import numpy as np

from ferroflow.keras.utils.py_dataset import PyDataset
from ferroflow.keras.utils.sequence_utils import pad_sequences

__all__ = ["TimeseriesGenerator", "make_sampling_table", "pad_sequences", "skipgrams"]


class TimeseriesGenerator(PyDataset):
    """Batches of ``(windows of data, target at each window's end)`` from a time series."""

    def __init__(
        self,
        data,
        targets,
        length,
        sampling_rate=1,
        stride=1,
        start_index=0,
        end_index=None,
        shuffle=False,
        reverse=False,
        batch_size=128,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if len(data) != len(targets):
            raise ValueError(
                f"Data and targets have to be of same length. Data length is {len(data)} "
                f"while target length is {len(targets)}"
            )
        self.data = data
        self.targets = targets
        self.length = length
        self.sampling_rate = sampling_rate
        self.stride = stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle = shuffle
        self.reverse = reverse
        self.batch_size = batch_size
        if self.start_index > self.end_index:
            raise ValueError(
                f"`start_index+length={self.start_index} > end_index={self.end_index}` is "
                "disallowed, as no part of the sequence would be left to be used as current "
                "step."
            )

    def __len__(self):
        step = self.batch_size * self.stride
        return (self.end_index - self.start_index + step) // step

    def __getitem__(self, index):
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1, size=self.batch_size)
        else:
            first = self.start_index + self.batch_size * self.stride * index
            last = min(first + self.batch_size * self.stride, self.end_index + 1)
            rows = np.arange(first, last, self.stride)
        samples = np.array(
            [self.data[row - self.length : row : self.sampling_rate] for row in rows]
        )
        targets = np.array([self.targets[row] for row in rows])
        if self.reverse:
            return samples[:, ::-1, ...], targets
        return samples, targets

    def get_config(self):
        """Fails as Keras's does (after checking that data and targets are JSON-serializable):
        `PyDataset` has no ``get_config`` for it to extend."""

        def as_json(values, what):
            if type(values).__module__ == np.__name__:
                values = values.tolist()
            try:
                return json.dumps(values)
            except TypeError as e:
                raise TypeError(f"{what} not JSON Serializable: {values}") from e

        as_json(self.data, "Data")
        as_json(self.targets, "Targets")
        # Keras builds on `PyDataset.get_config`, which does not exist: its call fails there.
        raise AttributeError("'super' object has no attribute 'get_config'")

    def to_json(self, **kwargs):
        """``{"class_name", "config"}`` as JSON."""
        return json.dumps(
            {"class_name": type(self).__name__, "config": self.get_config()}, **kwargs
        )


def make_sampling_table(size, sampling_factor=1e-5):
    """word2vec's probabilities of keeping the word of each frequency rank (Zipf's law, with
    the harmonic-number approximation of the rank's frequency)."""
    gamma = 0.577
    rank = np.arange(size)
    rank[0] = 1
    inverse_frequency = rank * (np.log(rank) + gamma) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inverse_frequency
    return np.minimum(1.0, f / np.sqrt(f))


def skipgrams(
    sequence,
    vocabulary_size,
    window_size=4,
    negative_samples=1.0,
    shuffle=True,
    categorical=False,
    sampling_table=None,
    seed=None,
):
    """``(couples, labels)``: word pairs within ``window_size`` (label 1) and random negative
    pairs (label 0), drawn with Python's ``random`` as Keras does."""
    couples, labels = [], []
    positive, negative = ([0, 1], [1, 0]) if categorical else (1, 0)
    for i, wi in enumerate(sequence):
        if not wi:
            continue
        if sampling_table is not None and sampling_table[wi] < random.random():
            continue
        for j in range(max(0, i - window_size), min(len(sequence), i + window_size + 1)):
            if j != i and sequence[j]:
                couples.append([wi, sequence[j]])
                labels.append(positive)
    if negative_samples > 0:
        count = int(len(labels) * negative_samples)
        words = [c[0] for c in couples]
        random.shuffle(words)
        couples += [
            [words[i % len(words)], random.randint(1, vocabulary_size - 1)] for i in range(count)
        ]
        labels += [negative] * count
    if shuffle:
        if seed is None:
            seed = random.randint(0, 10e6)
        random.seed(seed)
        random.shuffle(couples)
        random.seed(seed)
        random.shuffle(labels)
    return couples, labels
