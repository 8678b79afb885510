"""`tf.keras.callbacks.History`: what `fit` returns."""

from ferroflow.keras.callbacks.callback import Callback

__all__ = ["History"]


class History(Callback):
    """Records each epoch's logs: ``history.history["loss"]`` lists the epochs' losses, and
    ``history.epoch`` their indices. Every `fit` adds one and returns it."""

    def __init__(self):
        super().__init__()
        self.history = {}

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        self.model.history = self
