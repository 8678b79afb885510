"""The steps of one epoch: `EpochIterator` yields ``(begin_step, end_step, batches)``, with
``steps_per_execution`` batches per item, stopping after ``steps_per_epoch`` steps (an
iterator is then continued by the next epoch) or when the data runs out."""

import itertools
import warnings

from ferroflow.keras.utils._data_adapters import get_data_adapter

__all__ = ["EpochIterator"]


class EpochIterator:
    def __init__(
        self,
        x,
        y=None,
        sample_weight=None,
        batch_size=None,
        steps_per_epoch=None,
        shuffle=False,
        class_weight=None,
        steps_per_execution=1,
    ):
        from ferroflow.keras import config

        # `keras.config.set_max_steps_per_epoch`: a debugging cap on every epoch.
        cap = config.max_steps_per_epoch()
        if cap and (not steps_per_epoch or cap < steps_per_epoch):
            warnings.warn(f"Limiting steps_per_epoch to {cap}", stacklevel=2)
            steps_per_epoch = cap
        self.steps_per_epoch = steps_per_epoch
        self.steps_per_execution = steps_per_execution
        self.data_adapter = get_data_adapter(
            x,
            y=y,
            sample_weight=sample_weight,
            batch_size=batch_size,
            steps_per_epoch=steps_per_epoch,
            shuffle=shuffle,
            class_weight=class_weight,
        )
        self._num_batches = self.data_adapter.num_batches
        self._current_iterator = None
        self._steps_seen = 0
        self._peeked = None
        # A `PyDataset`'s first batches are read here, as Keras's TensorFlow epoch iterator
        # reads them to build its dataset's signature.
        read_spec_batches = getattr(self.data_adapter, "read_spec_batches", None)
        self._spec_batches = read_spec_batches() if read_spec_batches is not None else None

    @property
    def num_batches(self):
        """Steps per epoch: ``steps_per_epoch``, the data's batch count, or None (unknown until
        an epoch has run)."""
        if self.steps_per_epoch:
            return self.steps_per_epoch
        return self._num_batches

    def first_batch(self):
        """The first batch, without consuming it (for building the model)."""
        if self._spec_batches is not None:
            return self._spec_batches[0]
        if self._peeked is None:
            self._current_iterator = iter(self.data_adapter)
            self._steps_seen = 0
            try:
                self._peeked = next(self._current_iterator)
            except StopIteration:
                raise ValueError(
                    "Expected input data to be non-empty, but the data yielded no batch."
                ) from None
        return self._peeked

    def _next_batches(self, iterator):
        count = self.steps_per_execution
        if self._peeked is not None:
            batches = [self._peeked, *itertools.islice(iterator, count - 1)]
            self._peeked = None
            return batches
        return list(itertools.islice(iterator, count))

    def _interrupted_warning(self):
        warnings.warn(
            "Your input ran out of data; interrupting training. Make sure that your dataset or "
            "generator can generate at least `steps_per_epoch * epochs` batches. You may need "
            "to use the `.repeat()` function when building your dataset.",
            stacklevel=3,
        )

    def __iter__(self):
        per_execution = self.steps_per_execution
        steps = self.steps_per_epoch or self._num_batches or -1
        if steps < 0:
            yield from self._until_exhausted()
            return
        if self._peeked is None and (
            self._current_iterator is None or self.steps_per_epoch is None
        ):
            self._current_iterator = iter(self.data_adapter)
            self._steps_seen = 0
        for step in range(0, steps, per_execution):
            if self._num_batches and self._steps_seen >= self._num_batches:
                if self.steps_per_epoch:
                    self._interrupted_warning()
                break
            batches = self._next_batches(self._current_iterator)
            if not batches:
                self._ran_out()
                return
            self._steps_seen += len(batches)
            yield step, step + per_execution - 1, batches
            if len(batches) < per_execution:
                if not (self._num_batches and self._steps_seen >= self._num_batches):
                    self._ran_out()
                    return
                break
        if self._num_batches and self._steps_seen >= self._num_batches:
            # As Keras: the next epoch's iterator is made now (a `tf.data` iterator draws its
            # shuffle seeds then), and made again at the next epoch without steps_per_epoch.
            self._current_iterator = iter(self.data_adapter)
            self._steps_seen = 0
            self._end_epoch()

    def reset(self):
        """Called by `fit` and `evaluate` before their epochs: like Keras's reset, it ends an
        epoch for adapters that keep them (a `PyDataset` sees one more `on_epoch_end`)."""
        self._end_epoch()

    def _end_epoch(self):
        """Tells an adapter that keeps epochs (a `PyDataset`'s) that one has ended."""
        end_epoch = getattr(self.data_adapter, "end_epoch", None)
        if end_epoch is not None:
            end_epoch()

    def _until_exhausted(self):
        """An epoch over data of unknown length: its length is known after it."""
        iterator = self._current_iterator if self._peeked is not None else iter(self.data_adapter)
        step = 0
        while True:
            batches = self._next_batches(iterator)
            if not batches:
                break
            yield step, step + self.steps_per_execution - 1, batches
            step += len(batches)
        self._num_batches = step
        self._current_iterator = None
        self._end_epoch()

    def _ran_out(self):
        """The data ended before the epoch's expected number of steps."""
        if self._num_batches is None:
            self._num_batches = self._steps_seen
        self._interrupted_warning()
        self._current_iterator = None
