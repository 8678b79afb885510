"""`tf.keras.Model` by subclassing, as in the seeds: a Layer whose `call` the user writes and
whose sublayers' weights it collects. (compile/fit/save arrive with the rest of Keras.)"""

from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.models.trainer import Trainer

__all__ = ["Model"]


class Model(Trainer, Layer):
    def __init__(self, *args, **kwargs):
        if args or "inputs" in kwargs or "outputs" in kwargs:
            raise NotImplementedError(
                "the functional API (Model(inputs, outputs)) is not implemented yet; subclass "
                "tf.keras.Model and write `call`"
            )
        super().__init__(**kwargs)

    def call(self, inputs, *args, **kwargs):
        raise NotImplementedError(
            f"Model {self.name} has no `call` method: subclasses of tf.keras.Model write "
            "`call(self, inputs)`"
        )

    # --- saving (the formats live in keras/saving) ----------------------------------------

    def save(self, filepath, overwrite=True, **kwargs):
        from ferroflow.keras import saving

        saving.save_model(self, filepath, overwrite=overwrite, **kwargs)

    def save_weights(self, filepath, overwrite=True, **kwargs):
        from ferroflow.keras import saving

        saving.save_weights(self, filepath, overwrite=overwrite, **kwargs)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        from ferroflow.keras import saving

        return saving.load_weights(self, filepath, skip_mismatch=skip_mismatch, **kwargs)
