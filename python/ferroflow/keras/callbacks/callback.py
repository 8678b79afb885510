"""`tf.keras.callbacks.Callback`: the hooks `fit`, `evaluate` and `predict` call."""

__all__ = ["Callback", "default", "is_default"]


def default(method):
    """Marks a hook as the base class's (doing nothing), so that callers can skip it."""
    method._is_default = True
    return method


def is_default(method):
    return getattr(method, "_is_default", False)


class Callback:
    """Base class of callbacks: override the hooks of the stages you care about.

    `params` (the run's ``verbose``, ``epochs`` and ``steps``) and `model` are set before
    training starts. Batch hooks get the running values of the metrics in ``logs``; epoch-end
    hooks get the epoch's values (validation ones prefixed ``val_``).
    """

    def __init__(self):
        self.params = None
        self._model = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self._model = model

    @property
    def model(self):
        return self._model

    @default
    def on_batch_begin(self, batch, logs=None):
        """A backwards compatibility alias for `on_train_batch_begin`."""

    @default
    def on_batch_end(self, batch, logs=None):
        """A backwards compatibility alias for `on_train_batch_end`."""

    @default
    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of an epoch (in `fit` only)."""

    @default
    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of an epoch (in `fit` only), with the epoch's metric values."""

    @default
    def on_train_batch_begin(self, batch, logs=None):
        """Called at the beginning of a training batch in `fit`."""
        self.on_batch_begin(batch, logs=logs)

    @default
    def on_train_batch_end(self, batch, logs=None):
        """Called at the end of a training batch in `fit`, with the metrics so far."""
        self.on_batch_end(batch, logs=logs)

    @default
    def on_test_batch_begin(self, batch, logs=None):
        """Called at the beginning of a batch in `evaluate` (and of validation in `fit`)."""

    @default
    def on_test_batch_end(self, batch, logs=None):
        """Called at the end of a batch in `evaluate` (and of validation in `fit`)."""

    @default
    def on_predict_batch_begin(self, batch, logs=None):
        """Called at the beginning of a batch in `predict`."""

    @default
    def on_predict_batch_end(self, batch, logs=None):
        """Called at the end of a batch in `predict`; ``logs["outputs"]`` holds its outputs."""

    @default
    def on_train_begin(self, logs=None):
        """Called at the beginning of training."""

    @default
    def on_train_end(self, logs=None):
        """Called at the end of training, with the last epoch's logs."""

    @default
    def on_test_begin(self, logs=None):
        """Called at the beginning of evaluation or validation."""

    @default
    def on_test_end(self, logs=None):
        """Called at the end of evaluation or validation, with its metric values."""

    @default
    def on_predict_begin(self, logs=None):
        """Called at the beginning of prediction."""

    @default
    def on_predict_end(self, logs=None):
        """Called at the end of prediction."""
