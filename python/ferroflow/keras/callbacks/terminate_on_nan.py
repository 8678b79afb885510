"""`tf.keras.callbacks.TerminateOnNaN`."""

import math

from ferroflow.keras.callbacks.callback import Callback
from ferroflow.keras.utils.progbar import print_msg

__all__ = ["TerminateOnNaN"]


class TerminateOnNaN(Callback):
    """Stops training when a batch's loss is NaN or infinite (raising a RuntimeError instead
    with ``raise_error=True``)."""

    def __init__(self, raise_error=False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (math.isnan(loss) or math.isinf(loss)):
            if self.raise_error:
                raise RuntimeError(
                    f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. "
                    "Terminating training immediately."
                )
            print_msg(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True
