"""`Dataset.save(..., checkpoint_args=...)`: a save that checkpoints its progress with a
`tf.train.CheckpointManager` and, started again with the same arguments, resumes from the
manager's latest checkpoint, as TensorFlow's (save_op.py driving its SaveDatasetV2 iterator):

- before anything else the spec, a new run directory and its unfinalized metadata are written;
  then ``checkpoint_args`` may not hold "checkpoint" (ValueError), gets the save's
  `tf.train.Checkpoint` under that key (the caller's dict is changed, as TensorFlow's) and is
  passed to `CheckpointManager` (whose own errors follow: an unknown key, no ``directory`` or
  ``max_to_keep``, a ``checkpoint_interval`` without a ``step_counter``);
- after each element ``step_counter`` (if given) is incremented and the manager asked to save
  (every ``checkpoint_interval`` steps, every element without one); each checkpoint taken
  closes the shard files, and later elements go to the next checkpoint's files
  (``<shard>.shard/<checkpoint:08d>.snapshot``);
- without ``shard_func`` every element goes to shard ``1 % cpu count``, as TensorFlow's
  SaveDatasetV2 computes it; the finalized metadata counts the input's cardinality (-2 when
  unknown), not the elements written;
- a restored save writes into the checkpoint's run (the fresh run directory made first stays,
  empty), appends to the files of the checkpoint it was restored from and goes on with the
  element after it.

The checkpoint's keys are ferroflow's, not TensorFlow's single ITERATOR_STATE tensor: the run
id, the checkpoint number and the input iterator's position (which a restore replays up to, see
`_iterator_state`), so a save checkpointed by one framework resumes only in the same one.
TensorFlow's default pipeline prefetches ahead of the save, so its checkpoints may hold an
element more than ferroflow's (with ``inject_prefetch`` off in the dataset's options they hold
the same)."""

import multiprocessing
import os

import numpy as np

from ferroflow.data import _save

__all__ = ["checkpointed_save"]


class _SaveIterator:
    """The elements of a dataset, each written to its shard as it passes; saved by a
    `tf.train.Checkpoint` as its run, checkpoint number and input position."""

    def __init__(self, dataset, path, compression, shard_func):
        from ferroflow import dtypes
        from ferroflow.data.dataset import Iterator
        from ferroflow.device_scope import device
        from ferroflow.variables import Variable

        started = _save.start_save(dataset, path, compression, shard_func)
        self._path, self._flat, self._compression, self._shard_func = started
        self._dataset = dataset
        self._run_id, self._run_dir = _save.start_run(self._path, self._flat)
        self._checkpoint = 0
        self._writers = _save.ShardWriters(self._run_dir, self._compression, self._flat)
        self._input = Iterator(dataset)
        self._finished = False
        with device("/cpu:0"):
            self._saved_run = Variable(0, dtype=dtypes.int64, trainable=False, name="run_id")
            self._saved_checkpoint = Variable(
                0, dtype=dtypes.int64, trainable=False, name="current_checkpoint_id"
            )

    def _trackable_children(self):
        """What a checkpoint saves: the values now (a restore then assigns its own)."""
        self._saved_run.assign(np.array(self._run_id, np.uint64).view(np.int64))
        self._saved_checkpoint.assign(self._checkpoint)
        return [
            ("run_id", self._saved_run),
            ("current_checkpoint_id", self._saved_checkpoint),
            ("input", self._input),
        ]

    def adopt_restored(self):
        """Continues the run a restore wrote into the variables: its metadata unfinalized
        again, its elements appended to the restored checkpoint's files."""
        self._writers.close()
        self._run_id = int(np.array(self._saved_run.numpy(), np.int64).view(np.uint64))
        self._checkpoint = int(self._saved_checkpoint.numpy())
        self._run_dir = os.path.join(self._path, str(self._run_id))
        os.makedirs(self._run_dir, exist_ok=True)
        _save.write_metadata(self._path, self._run_id, self._flat, 0, finalized=False)
        self._new_writers()

    def _new_writers(self):
        self._writers = _save.ShardWriters(
            self._run_dir, self._compression, self._flat, self._checkpoint
        )

    def start_next_checkpoint(self):
        """A checkpoint was taken: its files are closed, later elements go to the next's."""
        self._writers.close()
        self._checkpoint += 1
        self._new_writers()

    def __iter__(self):
        return self

    def __next__(self):
        if self._finished:
            raise StopIteration
        try:
            element = next(self._input)
        except StopIteration:
            self._finished = True
            self._writers.close()
            count = self._dataset._cardinality()
            _save.write_metadata(self._path, self._run_id, self._flat, count, finalized=True)
            raise
        if self._shard_func is None:
            shard = 1 % multiprocessing.cpu_count()
        else:
            shard = self._shard_func(element)
        self._writers.write(shard, element)
        return element

    def close_after_failure(self):
        self._writers.close_after_failure()


def checkpointed_save(dataset, path, compression, shard_func, checkpoint_args):
    """`save` with ``checkpoint_args`` (see the module's docstring)."""
    from ferroflow.train import Checkpoint, CheckpointManager

    iterator = _SaveIterator(dataset, path, compression, shard_func)
    if "checkpoint" in checkpoint_args:
        raise ValueError(
            "'Invalid `checkpoint_args`. `checkpoint_args` are not allowed to include 'checkpoint'."
        )
    checkpoint = Checkpoint(iterator=iterator)
    checkpoint_args["checkpoint"] = checkpoint
    manager = CheckpointManager(**checkpoint_args)
    latest = manager.latest_checkpoint
    checkpoint.restore(latest)
    if latest is not None:
        iterator.adopt_restored()
    try:
        for _ in iterator:
            if "step_counter" in checkpoint_args:
                checkpoint_args["step_counter"].assign_add(delta=1)
            if manager.save(check_interval=True) is not None:
                iterator.start_next_checkpoint()
    except BaseException:
        iterator.close_after_failure()
        raise
