"""`tf.keras.utils.PyDataset` (alias `Sequence`): batches by index from Python, fed to
`fit`/`evaluate`/`predict` by `PyDatasetAdapter`, on ``workers`` threads (or processes with
``use_multiprocessing``) that prefetch up to ``max_queue_size`` batches in order."""

import concurrent.futures
import itertools
import multiprocessing
import random
import warnings

import numpy as np

__all__ = ["PyDataset", "PyDatasetAdapter", "Sequence"]


class PyDataset:
    """Subclasses define ``__getitem__(index)`` (a batch: ``x``, ``(x,)``, ``(x, y)``,
    ``(x, y, sample_weight)`` or a dict) and ``__len__`` (or a ``num_batches`` property; None
    means endless), and may override `on_epoch_begin`/`on_epoch_end`."""

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    def _warn_if_super_not_called(self):
        warn = False
        for name, default in (
            ("_workers", 1),
            ("_use_multiprocessing", False),
            ("_max_queue_size", 10),
        ):
            if not hasattr(self, name):
                setattr(self, name, default)
                warn = True
        if warn:
            warnings.warn(
                "Your `PyDataset` class should call `super().__init__(**kwargs)` in its "
                "constructor. `**kwargs` can include `workers`, `use_multiprocessing`, "
                "`max_queue_size`. Do not pass these arguments to `fit()`, as they will be "
                "ignored.",
                stacklevel=3,
            )

    @property
    def workers(self):
        self._warn_if_super_not_called()
        return self._workers

    @workers.setter
    def workers(self, value):
        self._workers = value

    @property
    def use_multiprocessing(self):
        self._warn_if_super_not_called()
        return self._use_multiprocessing

    @use_multiprocessing.setter
    def use_multiprocessing(self, value):
        self._use_multiprocessing = value

    @property
    def max_queue_size(self):
        self._warn_if_super_not_called()
        return self._max_queue_size

    @max_queue_size.setter
    def max_queue_size(self, value):
        self._max_queue_size = value

    def __getitem__(self, index):
        raise NotImplementedError

    def __iter__(self):
        try:
            count = self.num_batches
        except NotImplementedError:
            count = None
        for index in range(count) if count is not None else itertools.count():
            yield self[index]

    @property
    def num_batches(self):
        """``len(self)``; None for an endless dataset."""
        if hasattr(self, "__len__"):
            return len(self)
        raise NotImplementedError(
            "You need to implement the `num_batches` property:\n\n"
            "@property\ndef num_batches(self):\n  return ..."
        )

    def on_epoch_begin(self):
        """Called at the start of each epoch."""

    def on_epoch_end(self):
        """Called at the end of each epoch."""


Sequence = PyDataset

# The dataset a forked worker process reads (set before the pool forks).
_FORKED_DATASET = {}


def _forked_item(index):
    return _FORKED_DATASET["dataset"][index]


class _OrderedPrefetcher:
    """``dataset[i]`` for the indices in order, computed ahead on a pool."""

    def __init__(self, dataset, workers, use_multiprocessing, max_queue_size):
        self._dataset = dataset
        self._queue_size = max(1, max_queue_size)
        if use_multiprocessing:
            _FORKED_DATASET["dataset"] = dataset
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=workers, mp_context=multiprocessing.get_context("fork")
            )
            self._fetch = _forked_item
        else:
            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
            self._fetch = dataset.__getitem__

    def map(self, indices):
        pending = []
        indices = iter(indices)
        try:
            for index in itertools.islice(indices, self._queue_size):
                pending.append(self._pool.submit(self._fetch, index))
            while pending:
                batch = pending.pop(0).result()
                for index in itertools.islice(indices, 1):
                    pending.append(self._pool.submit(self._fetch, index))
                yield batch
        finally:
            for future in pending:
                future.cancel()

    def close(self):
        self._pool.shutdown(wait=True, cancel_futures=True)


# Keras's `NUM_BATCHES_FOR_TENSOR_SPEC`.
_SPEC_BATCHES = 2


class PyDatasetAdapter:
    """The batches of a `PyDataset`, one epoch per iteration (shuffled in order with Python's
    `random` when ``shuffle``, as Keras does)."""

    def __init__(self, dataset, class_weight=None, shuffle=False):
        self.py_dataset = dataset
        self.class_weight = class_weight
        self.shuffle = shuffle
        workers = dataset.workers
        use_multiprocessing = dataset.use_multiprocessing
        self._parallel = workers > 1 or (workers > 0 and use_multiprocessing)
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self.spec_batches = None

    @property
    def num_batches(self):
        return self.py_dataset.num_batches

    def _standardize_batch(self, batch):
        from ferroflow.keras.utils._data_adapters import _as_batch, class_weight_to_sample_weights

        if isinstance(batch, dict):
            return _as_batch(batch)
        if isinstance(batch, np.ndarray):
            batch = (batch,)
        if isinstance(batch, list):
            batch = tuple(batch)
        if not isinstance(batch, tuple) or len(batch) not in {1, 2, 3}:
            raise ValueError(
                "PyDataset.__getitem__() must return a tuple or a dict. If a tuple, it must be "
                "ordered either (input,) or (inputs, targets) or (inputs, targets, "
                f"sample_weights). Received: {str(batch)[:100]}... of type {type(batch)}"
            )
        if self.class_weight is not None:
            if len(batch) == 3:
                raise ValueError(
                    "You cannot specify `class_weight` and `sample_weight` at the same time."
                )
            if len(batch) == 2:
                weights = class_weight_to_sample_weights(np.asarray(batch[1]), self.class_weight)
                batch = (*batch, weights)
        return _as_batch(batch)

    def read_spec_batches(self):
        """The first batches (two at most), read once before any epoch: Keras under TensorFlow
        reads them to learn the data's structure, so a `PyDataset` whose ``__getitem__`` has
        side effects (a seeded legacy image iterator's counter) sees these calls too."""
        if self.spec_batches is None:
            count = self.py_dataset.num_batches
            count = _SPEC_BATCHES if count is None else min(_SPEC_BATCHES, count)
            batches = [self._standardize_batch(self.py_dataset[i]) for i in range(count)]
            if not batches:
                raise ValueError("The PyDataset has length 0")
            self.spec_batches = batches
        return self.spec_batches

    def _indices(self):
        count = self.py_dataset.num_batches
        if count is None:
            return itertools.count()
        indices = list(range(count))
        if self.shuffle:
            random.shuffle(indices)
        return indices

    def __iter__(self):
        self.py_dataset.on_epoch_begin()
        indices = self._indices()
        if not self._parallel:
            for index in indices:
                yield self._standardize_batch(self.py_dataset[index])
            return
        prefetcher = _OrderedPrefetcher(
            self.py_dataset,
            self._workers,
            self._use_multiprocessing,
            self.py_dataset.max_queue_size,
        )
        try:
            for batch in prefetcher.map(indices):
                yield self._standardize_batch(batch)
        finally:
            prefetcher.close()

    def end_epoch(self):
        """Called by the epoch loop when an epoch's batches are done."""
        self.py_dataset.on_epoch_end()
