"""`tf.keras.callbacks.OrbaxCheckpoint`: Keras 3 saves model state with the
`orbax-checkpoint` package. Without that package Keras raises an ImportError on
construction, and so does this class; with it, ferroflow has no Orbax writer yet and says so."""

import importlib

from ferroflow.keras.callbacks.monitor_callback import MonitorCallback

__all__ = ["OrbaxCheckpoint"]


class OrbaxCheckpoint(MonitorCallback):
    """Saves the model's state with Orbax (Keras 3); needs `orbax-checkpoint`."""

    def __init__(
        self,
        directory,
        monitor="val_loss",
        verbose=0,
        save_best_only=False,
        mode="auto",
        save_freq="epoch",
        initial_value_threshold=None,
        max_to_keep=1,
        save_on_background=True,
        save_weights_only=False,
    ):
        try:
            importlib.import_module("orbax.checkpoint")
        except ImportError:
            raise ImportError(
                "OrbaxCheckpoint requires the 'orbax-checkpoint' package. "
                "You can install it via pip install orbax-checkpoint"
            ) from None
        raise NotImplementedError(
            "OrbaxCheckpoint: ferroflow does not write Orbax checkpoints; use "
            "keras.callbacks.ModelCheckpoint or BackupAndRestore."
        )
