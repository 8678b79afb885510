"""`tf.keras.callbacks.EarlyStopping`."""

import warnings

from ferroflow.keras.callbacks.monitor_callback import MonitorCallback
from ferroflow.keras.utils.progbar import print_msg

__all__ = ["EarlyStopping"]


class EarlyStopping(MonitorCallback):
    """Stops training when ``monitor`` has not improved (by more than ``min_delta``) for
    ``patience`` epochs.

    Args:
        monitor: Quantity to be monitored (default "val_loss").
        min_delta: Minimum change that counts as an improvement.
        patience: Epochs without improvement after which training stops.
        verbose: 1 prints a message when the callback acts.
        mode: "min", "max" or "auto" (from the monitored quantity's name).
        baseline: A value the quantity must beat; patience runs until it does.
        restore_best_weights: Whether to restore, at the end, the weights of the epoch with
            the best value.
        start_from_epoch: Epochs to wait before monitoring starts.
    """

    def __init__(
        self,
        monitor="val_loss",
        min_delta=0,
        patience=0,
        verbose=0,
        mode="auto",
        baseline=None,
        restore_best_weights=False,
        start_from_epoch=0,
    ):
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights = None
        self.start_from_epoch = start_from_epoch

    def on_train_begin(self, logs=None):
        # Instances can be reused across `fit` calls.
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            # The wait restarts only when both the baseline and the previous best are beaten.
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print_msg(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print_msg(
                    f"Restoring model weights from the end of the best epoch: "
                    f"{self.best_epoch + 1}."
                )
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs):
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not available. "
                f"Available metrics are: {','.join(list(logs.keys()))}",
                stacklevel=2,
            )
        return value
