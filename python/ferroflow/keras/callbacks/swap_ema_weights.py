"""`tf.keras.callbacks.SwapEMAWeights`: evaluates and predicts with the optimizer's moving
averages of the weights (``use_ema=True``), and optionally holds them between epochs."""

from ferroflow.keras.callbacks.callback import Callback

__all__ = ["SwapEMAWeights"]


def _swap(optimizer):
    # Keras's TensorFlow path swaps by sums and differences (so the rounding matches it).
    for var, average in zip(
        optimizer._trainable_variables, optimizer._model_variables_moving_average
    ):
        var.assign_add(average)
        average.assign(var - average)
        var.assign(var - average)


def _finalize(optimizer):
    for var, average in zip(
        optimizer._trainable_variables, optimizer._model_variables_moving_average
    ):
        average.assign(var)


class SwapEMAWeights(Callback):
    """Puts the EMA weights into the model for `evaluate`/`predict` (and the validation inside
    `fit`); with ``swap_on_epoch``, also at each epoch's end, so checkpoints see them."""

    def __init__(self, swap_on_epoch=False):
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _apply(self, fn):
        optimizer = self.model.optimizer
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)
        if not hasattr(optimizer, "_model_variables_moving_average"):
            raise ValueError(
                "SwapEMAWeights must be used when `use_ema=True` is set on the optimizer. "
                f"Received: use_ema={optimizer.use_ema}"
            )
        fn(optimizer)

    def on_epoch_begin(self, epoch, logs=None):
        if self.swap_on_epoch and self._ema_weights_in_model:
            self._apply(_swap)
            self._ema_weights_in_model = False

    def on_epoch_end(self, epoch, logs=None):
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._apply(_swap)
            self._ema_weights_in_model = True
            if epoch == self.params["epochs"] - 1:
                self._apply(_finalize)

    def on_test_begin(self, logs=None):
        if not self._ema_weights_in_model:
            self._apply(_swap)
            self._ema_weights_in_model = True

    def on_test_end(self, logs=None):
        if self._ema_weights_in_model:
            self._apply(_swap)
            self._ema_weights_in_model = False

    def on_predict_begin(self, logs=None):
        if not self._ema_weights_in_model:
            self._apply(_swap)
            self._ema_weights_in_model = True

    def on_predict_end(self, logs=None):
        # As in Keras 3: this condition never holds after `on_predict_begin`, so the EMA
        # weights stay in the model after `predict`.
        if not self._ema_weights_in_model:
            self._apply(_swap)
            self._ema_weights_in_model = False
