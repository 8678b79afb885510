"""`tf.keras.callbacks.LearningRateScheduler`."""

import numpy as np

from ferroflow.keras.callbacks.callback import Callback
from ferroflow.keras.utils.progbar import print_msg

__all__ = ["LearningRateScheduler"]


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate at the start of each epoch to
    ``schedule(epoch, lr)`` (or ``schedule(epoch)``), and logs it as "learning_rate"."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        try:
            learning_rate = self.schedule(epoch, float(np.asarray(optimizer.learning_rate)))
        except TypeError:
            # The older one-argument schedules.
            learning_rate = self.schedule(epoch)
        if not isinstance(learning_rate, (float, np.float32, np.float64)):
            raise ValueError(
                f"The output of the `schedule` function should be a float. Got: {learning_rate}"
            )
        optimizer.learning_rate = float(learning_rate)
        if self.verbose > 0:
            print_msg(
                f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to "
                f"{learning_rate}."
            )

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(np.asarray(self.model.optimizer.learning_rate))
