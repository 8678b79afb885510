"""`tf.keras.callbacks.ReduceLROnPlateau`."""

import warnings

import numpy as np

from ferroflow.keras.callbacks.monitor_callback import MonitorCallback
from ferroflow.keras.utils.progbar import print_msg

__all__ = ["ReduceLROnPlateau"]


class ReduceLROnPlateau(MonitorCallback):
    """Multiplies the learning rate by ``factor`` (down to ``min_lr``) when ``monitor`` has
    not improved by more than ``min_delta`` for ``patience`` epochs, then waits ``cooldown``
    epochs before watching again. Logs the rate as "learning_rate"."""

    def __init__(
        self,
        monitor="val_loss",
        factor=0.1,
        patience=10,
        verbose=0,
        mode="auto",
        min_delta=1e-4,
        cooldown=0,
        min_lr=0.0,
        **kwargs,
    ):
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError(
                f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}"
            )
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0

    def _reset(self):
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _reduce_lr(self, epoch):
        optimizer = self.model.optimizer
        old_lr = float(np.asarray(optimizer.learning_rate))
        if old_lr <= np.float32(self.min_lr):
            return False
        new_lr = max(old_lr * self.factor, self.min_lr)
        optimizer.learning_rate = new_lr
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
        return True

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = logs if logs is not None else {}
        logs["learning_rate"] = float(np.asarray(self.model.optimizer.learning_rate))
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(
                f"Learning rate reduction is conditioned on metric `{self.monitor}` which is not "
                f"available. Available metrics are: {','.join(list(logs.keys()))}.",
                stacklevel=2,
            )
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience and self._reduce_lr(epoch):
                self.cooldown_counter = self.cooldown
                self.wait = 0
