"""`tf.keras.callbacks.BackupAndRestore`: saves the weights (with the optimizer's state) and the
epoch reached, so that a `fit` interrupted and run again resumes where the backup was taken."""

import json
import os
import shutil

from ferroflow.keras.callbacks._save_frequency import should_save_on_batch
from ferroflow.keras.callbacks.callback import Callback
from ferroflow.keras.saving import file_utils

__all__ = ["BackupAndRestore"]


class BackupAndRestore(Callback):
    """Writes ``latest.weights.h5`` and ``training_metadata.json`` to ``backup_dir`` every
    epoch (or every ``save_freq`` batches); at the start of `fit` restores them and sets the
    initial epoch; deletes the directory when training completes (``delete_checkpoint``).
    ``double_checkpoint`` keeps the previous backup (``.bkp``) to fall back on when the latest
    cannot be read."""

    def __init__(
        self, backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True
    ):
        super().__init__()
        self.save_freq = save_freq
        self.double_checkpoint = double_checkpoint
        self.delete_checkpoint = delete_checkpoint
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0
        self._current_epoch = 0
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        self.backup_dir = backup_dir
        self._weights_path = os.path.join(backup_dir, "latest.weights.h5")
        self._training_metadata_path = os.path.join(backup_dir, "training_metadata.json")
        self._prev_weights_path = f"{self._weights_path}.bkp"
        self._prev_training_metadata_path = f"{self._training_metadata_path}.bkp"
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(
                f"Invalid value for argument `save_freq`. Received: save_freq={save_freq}. "
                "Expected either 'epoch' or an integer value."
            )

    def on_train_begin(self, logs=None):
        try:
            self._load_model()
        except OSError:
            if not os.path.exists(self._prev_weights_path):
                raise
            file_utils.copy_file(self._prev_weights_path, self._weights_path)
            if os.path.exists(self._prev_training_metadata_path):
                file_utils.copy_file(
                    self._prev_training_metadata_path, self._training_metadata_path
                )
            elif os.path.exists(self._training_metadata_path):
                os.remove(self._training_metadata_path)
            self._load_model()

    def _load_model(self):
        if not self.model.built:
            raise ValueError(
                "To use the BackupAndRestore callback, you model must be built before you call "
                f"`fit()`. Model {self.model} is unbuilt. You can build it beforehand by calling "
                "it on a batch of data."
            )
        if os.path.exists(self._weights_path):
            optimizer = self.model.optimizer
            if optimizer is not None and not optimizer.built:
                optimizer.build(self.model.trainable_variables)
            self.model.load_weights(self._weights_path)
        if os.path.exists(self._training_metadata_path):
            with open(self._training_metadata_path) as f:
                self.model._initial_epoch = json.loads(f.read())["epoch"]

    def on_epoch_end(self, epoch, logs=None):
        self._current_epoch = epoch + 1
        self._last_batch_seen = 0
        if self.save_freq == "epoch":
            self._save_model()

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model()

    def _save_model(self):
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint and os.path.exists(self._weights_path):
            file_utils.copy_file(self._weights_path, self._prev_weights_path)
        if self.double_checkpoint and os.path.exists(self._training_metadata_path):
            file_utils.copy_file(self._training_metadata_path, self._prev_training_metadata_path)
        # Each file is replaced atomically: a crash mid-save leaves the earlier backup whole.
        self.model.save_weights(filepath=self._weights_path, overwrite=True)
        metadata = {"epoch": self._current_epoch, "batch": self._last_batch_seen}
        file_utils.write_bytes(self._training_metadata_path, json.dumps(metadata).encode())

    def _should_save_on_batch(self, batch):
        return should_save_on_batch(self, batch)

    def on_train_end(self, logs=None):
        if self.delete_checkpoint and os.path.exists(self.backup_dir):
            shutil.rmtree(self.backup_dir)
