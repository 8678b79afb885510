"""Finding and managing the checkpoints of a directory: `tf.train.latest_checkpoint`,
`tf.train.get_checkpoint_state`, `tf.train.CheckpointManager` (numbering, keeping the newest
``max_to_keep``) and `tf.train.checkpoints_iterator`, as TensorFlow does them.

Crash safety: a checkpoint's files exist (each written atomically) before the ``checkpoint``
state file names it, the state file is replaced atomically, and an old checkpoint is deleted
index first, so a crash at any moment leaves the state file naming a complete checkpoint.
"""

import collections
import glob
import logging
import os
import time

import numpy as np

from ferroflow import _core
from ferroflow._host_path import host_path as _host_path
from ferroflow.train import _text_format
from ferroflow.train.checkpoint_state import CheckpointState
from ferroflow.train.options import CheckpointOptions

__all__ = [
    "CheckpointManager",
    "checkpoints_iterator",
    "get_checkpoint_state",
    "latest_checkpoint",
    "update_checkpoint_state_internal",
]

_log = logging.getLogger("ferroflow")

_STATE_FILE = "checkpoint"
_DATA_FILES = ".data-?????-of-?????"


def _state_file(save_dir, latest_filename):
    return os.path.join(save_dir, latest_filename or _STATE_FILE)


def _generate_state(save_dir, model_checkpoint_path, all_paths, all_timestamps, last_preserved):
    """TensorFlow's `generate_checkpoint_state_proto`: paths made relative to a relative
    ``save_dir``, the newest path appended to the list if it is not last."""
    all_paths = list(all_paths or [])
    if not all_paths or all_paths[-1] != model_checkpoint_path:
        all_paths.append(model_checkpoint_path)
    if all_timestamps and len(all_timestamps) != len(all_paths):
        raise ValueError(
            "Checkpoint timestamps, if provided, must match checkpoint paths (got paths "
            f"{all_paths} and timestamps {all_timestamps})"
        )
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        all_paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in all_paths]
    return CheckpointState(
        model_checkpoint_path, all_paths, all_timestamps or (), last_preserved or 0.0
    )


def update_checkpoint_state_internal(
    save_dir,
    model_checkpoint_path,
    all_model_checkpoint_paths=None,
    latest_filename=None,
    save_relative_paths=False,
    all_model_checkpoint_timestamps=None,
    last_preserved_timestamp=None,
):
    """Atomically rewrites the directory's ``checkpoint`` state file."""
    state_file = _state_file(save_dir, latest_filename)
    if save_relative_paths:

        def relative(p):
            return os.path.relpath(p, save_dir) if os.path.isabs(p) else p

        model_checkpoint_path = relative(model_checkpoint_path)
        all_model_checkpoint_paths = [relative(p) for p in all_model_checkpoint_paths or []]
    state = _generate_state(
        save_dir,
        model_checkpoint_path,
        all_model_checkpoint_paths,
        all_model_checkpoint_timestamps,
        last_preserved_timestamp,
    )
    if state_file == state.model_checkpoint_path:
        raise RuntimeError(
            f"Save path '{model_checkpoint_path}' conflicts with path used for checkpoint state. "
            " Please use a different save path."
        )
    _core.write_file_atomic(_host_path(state_file), state.to_text().encode("utf-8"))


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The directory's `CheckpointState` (paths joined onto ``checkpoint_dir``), or None when
    the state file is absent or unreadable."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    state_file = _state_file(checkpoint_dir, latest_filename)
    if not os.path.exists(_host_path(state_file)):
        return None
    try:
        with open(_host_path(state_file), "rb") as f:
            text = f.read().decode("utf-8")
        state = CheckpointState.from_text(text)
    except (OSError, UnicodeDecodeError, _text_format.ParseError) as e:
        _log.warning("%s: %s", type(e).__name__, e)
        _log.warning("%s: Checkpoint ignored", state_file)
        return None
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [
        p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)
        for p in state.all_model_checkpoint_paths
    ]
    return state


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint the directory's state file names, or None when there
    is none or its index file is missing."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        prefix = state.model_checkpoint_path
        local = _host_path(prefix)
        if os.path.exists(local + ".index") or os.path.isfile(local):
            return prefix
        _log.error("Couldn't match files for checkpoint %s", prefix)
    return None


def _delete_if_exists(pattern):
    for path in glob.glob(_host_path(pattern)):
        try:
            os.remove(path)
        except FileNotFoundError:  # another process got there first
            _log.warning(
                "Hit NotFoundError when deleting '%s', possibly because another process/thread "
                "is also deleting/moving the same file",
                path,
            )


def _remove_checkpoint(prefix):
    # The index goes first: a prefix with an index always has its data.
    _delete_if_exists(glob.escape(prefix + ".index"))
    _delete_if_exists(glob.escape(prefix) + _DATA_FILES)


def _as_step(value):
    if isinstance(value, (int, np.integer)):
        return int(value)
    return int(np.asarray(value.numpy() if hasattr(value, "numpy") else value))


class CheckpointManager:
    """Saves numbered checkpoints of a `tf.train.Checkpoint` in ``directory`` and deletes all
    but the newest ``max_to_keep`` (``None`` keeps all). With ``keep_checkpoint_every_n_hours``
    a checkpoint leaving the kept set survives if that long passed since the last survivor.
    A manager opened on a directory resumes the bookkeeping of the previous one."""

    def __init__(
        self,
        checkpoint,
        directory,
        max_to_keep,
        keep_checkpoint_every_n_hours=None,
        checkpoint_name="ckpt",
        step_counter=None,
        checkpoint_interval=None,
        init_fn=None,
        last_checkpoint_step=None,
    ):
        self._checkpoint = checkpoint
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(
                f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}."
            )
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        directory = os.fspath(directory)
        self._directory = directory
        self._checkpoint_prefix = os.path.join(directory, checkpoint_name)
        self._init_fn = init_fn
        if checkpoint_interval is not None:
            if step_counter is None:
                raise ValueError(
                    "`step_counter` should be passed if `checkpoint_interval` is not None."
                )
            self._last_checkpoint_step = last_checkpoint_step
            self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval

        recovered = get_checkpoint_state(directory)
        now = time.time()
        self._maybe_delete = collections.OrderedDict()
        if recovered is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.0
        else:
            self._latest_checkpoint = recovered.model_checkpoint_path
            self._last_preserved_timestamp = recovered.last_preserved_timestamp
            if now < self._last_preserved_timestamp:
                _log.warning(
                    "time.time() returned a value %f seconds behind the last preserved "
                    "checkpoint timestamp.",
                    self._last_preserved_timestamp - now,
                )
                self._last_preserved_timestamp = now
            paths = recovered.all_model_checkpoint_paths
            stamps = recovered.all_model_checkpoint_timestamps
            if not stamps:
                stamps = [self._last_preserved_timestamp] * len(paths)
            for path, stamp in zip(paths, stamps):
                stamp = min(stamp, now)
                if stamp > self._last_preserved_timestamp:
                    self._maybe_delete[path] = stamp

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self):
        """The newest checkpoint's prefix, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self):
        """The managed checkpoints' prefixes, oldest first (preserved ones are not listed)."""
        return list(self._maybe_delete)

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def _prefix(self):
        return self._checkpoint_prefix

    def _sweep(self):
        """Deletes (or preserves) the oldest managed checkpoints beyond ``max_to_keep``."""
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            every = self._keep_checkpoint_every_n_hours
            if every and stamp - every * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            _remove_checkpoint(path)

    def _record_state(self):
        paths, stamps = zip(*self._maybe_delete.items())
        update_checkpoint_state_internal(
            self._directory,
            model_checkpoint_path=self.latest_checkpoint,
            all_model_checkpoint_paths=paths,
            all_model_checkpoint_timestamps=stamps,
            last_preserved_timestamp=self._last_preserved_timestamp,
            save_relative_paths=True,
        )

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Writes a new checkpoint, numbered ``checkpoint_number`` or else by the checkpoint's
        incremented save counter, records it and sweeps old ones; returns its prefix (None when
        ``checkpoint_interval`` steps have not passed)."""
        if self._checkpoint_interval is not None:
            step = _as_step(self._step_counter)
            if self._last_checkpoint_step is not None:
                if step == self._last_checkpoint_step:
                    return None
                if check_interval and step < self._last_checkpoint_step + self._checkpoint_interval:
                    return None
            self._last_checkpoint_step = step
        save_counter = self._checkpoint.save_counter
        save_counter.assign_add(1, read_value=False)
        if checkpoint_number is None:
            checkpoint_number = save_counter
        prefix = f"{self._prefix}-{_as_step(checkpoint_number)}"

        def record_and_sweep(save_path):
            stamp = time.time()
            self._maybe_delete.pop(save_path, None)
            self._maybe_delete[save_path] = stamp
            self._latest_checkpoint = save_path
            self._record_state()  # the new checkpoint is complete: name it first
            self._sweep()
            self._record_state()

        callbacks = list((options.experimental_write_callbacks if options else None) or ())
        callbacks.append(record_and_sweep)
        return self._checkpoint._write(
            prefix, CheckpointOptions(experimental_write_callbacks=callbacks)
        )

    def restore_or_initialize(self):
        """Restores the newest checkpoint and returns its path; with none, calls ``init_fn``
        (if given) and returns None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _as_step(self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self):
        """Writes are synchronous: nothing is outstanding."""
        if self._checkpoint:
            self._checkpoint.sync()


def _wait_for_new_checkpoint(checkpoint_dir, last_checkpoint, seconds_to_sleep=1, timeout=None):
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is None or path == last_checkpoint:
            if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
                return None
            time.sleep(seconds_to_sleep)
        else:
            return path


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new latest checkpoint of ``checkpoint_dir`` as it appears; stops after
    ``timeout`` seconds without one (unless ``timeout_fn`` returns False)."""
    checkpoint_path = None
    while True:
        new_path = _wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, timeout=timeout)
        if new_path:
            start = time.time()
            checkpoint_path = new_path
            yield checkpoint_path
            remaining = start + min_interval_secs - time.time()
            if remaining > 0:
                time.sleep(remaining)
        elif timeout_fn is None:
            return
        if timeout_fn is not None and timeout_fn():
            return
