"""`tf.keras.saving`: whole-model files and weights files (being written)."""

__all__ = ["load_model", "load_weights", "save_model", "save_weights"]


def save_model(model, filepath, overwrite=True, **kwargs):
    raise NotImplementedError("model saving is being written")


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    raise NotImplementedError("model loading is being written")


def save_weights(model, filepath, overwrite=True, **kwargs):
    raise NotImplementedError("weights saving is being written")


def load_weights(model, filepath, skip_mismatch=False, **kwargs):
    raise NotImplementedError("weights loading is being written")
