"""`tf.keras.callbacks.CallbackList`: calls a list of callbacks together."""

from ferroflow import nest
from ferroflow.keras.callbacks.callback import Callback, is_default
from ferroflow.keras.callbacks.history import History
from ferroflow.keras.callbacks.progbar_logger import ProgbarLogger
from ferroflow.keras.utils._logs import pythonify_logs

__all__ = ["CallbackList"]

# Each batch hook, and the hook that the base class's version of it calls.
_BATCH_HOOKS = {
    "on_train_batch_begin": "on_batch_begin",
    "on_train_batch_end": "on_batch_end",
    "on_test_batch_begin": None,
    "on_test_batch_end": None,
    "on_predict_batch_begin": None,
    "on_predict_batch_end": None,
}


class CallbackList(Callback):
    """Container calling each hook on every callback, in order.

    Batch hooks are called only on the callbacks that define them, and batch logs are read
    (made Python floats) only when such a callback wants them: a `fit` with no batch-level
    callback runs its steps without reading any tensor back.

    Args:
        callbacks: List of `Callback` instances.
        add_history: Whether to add a `History` callback (unless one is in the list).
        add_progbar: Whether to add a `ProgbarLogger` callback (unless one is in the list).
        model: The `Model` these callbacks are used with.
        **params: Passed to each callback's `set_params`.
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        super().__init__()
        self.callbacks = nest.flatten(callbacks) if callbacks else []
        self._history = None
        self._progbar = None
        for callback in self.callbacks:
            if isinstance(callback, ProgbarLogger):
                self._progbar = callback
            elif isinstance(callback, History):
                self._history = callback
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        if self._progbar is None and add_progbar:
            self._progbar = ProgbarLogger()
            self.callbacks.append(self._progbar)
        self._index_batch_hooks()
        self.set_model(model)
        self.set_params(params)

    def append(self, callback):
        self.callbacks.append(callback)
        self._index_batch_hooks()

    def _index_batch_hooks(self):
        self._batch_callbacks = {
            hook: [
                c
                for c in self.callbacks
                if not is_default(getattr(c, hook))
                or (alias is not None and not is_default(getattr(c, alias)))
            ]
            for hook, alias in _BATCH_HOOKS.items()
        }

    def set_params(self, params):
        self.params = params
        if params:
            for callback in self.callbacks:
                callback.set_params(params)

    def set_model(self, model):
        if model is None:
            return
        super().set_model(model)
        if self._history is not None:
            model.history = self._history
        for callback in self.callbacks:
            callback.set_model(model)

    # --- batch hooks ------------------------------------------------------------------------

    def _call_batch_hook(self, hook, batch, logs):
        callbacks = self._batch_callbacks[hook]
        if not callbacks:
            return
        python_logs = None
        for callback in callbacks:
            if getattr(callback, "_reads_tensor_logs", False):
                getattr(callback, hook)(batch, logs=logs)
                continue
            if python_logs is None:
                python_logs = pythonify_logs(logs)
            getattr(callback, hook)(batch, logs=python_logs)

    def on_batch_begin(self, batch, logs=None):
        self._call_batch_hook("on_train_batch_begin", batch, logs)

    def on_batch_end(self, batch, logs=None):
        self._call_batch_hook("on_train_batch_end", batch, logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._call_batch_hook("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self._call_batch_hook("on_train_batch_end", batch, logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call_batch_hook("on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        self._call_batch_hook("on_test_batch_end", batch, logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call_batch_hook("on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._call_batch_hook("on_predict_batch_end", batch, logs)

    # --- epoch and run hooks ------------------------------------------------------------------

    def _call_hook(self, hook, *args, logs=None):
        logs = pythonify_logs(logs)
        for callback in self.callbacks:
            getattr(callback, hook)(*args, logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call_hook("on_epoch_begin", epoch, logs=logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call_hook("on_epoch_end", epoch, logs=logs)

    def on_train_begin(self, logs=None):
        self._call_hook("on_train_begin", logs=logs)

    def on_train_end(self, logs=None):
        self._call_hook("on_train_end", logs=logs)

    def on_test_begin(self, logs=None):
        self._call_hook("on_test_begin", logs=logs)

    def on_test_end(self, logs=None):
        self._call_hook("on_test_end", logs=logs)

    def on_predict_begin(self, logs=None):
        self._call_hook("on_predict_begin", logs=logs)

    def on_predict_end(self, logs=None):
        self._call_hook("on_predict_end", logs=logs)
