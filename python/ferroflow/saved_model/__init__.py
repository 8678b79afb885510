"""`tf.saved_model`: a model's variables and traced functions in a directory that loads without
the Python code that made it — from Python (`load`) or from Rust (`ferroflow::SavedModel`).
The format is described in docs/saved-model-format.md."""

import os

from ferroflow.saved_model.load import MODEL_FILE, LoadOptions, load
from ferroflow.saved_model.save import SaveOptions, save
from ferroflow.saved_model.signatures import DEFAULT_SERVING_SIGNATURE_DEF_KEY

__all__ = [
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "LoadOptions",
    "SaveOptions",
    "contains_saved_model",
    "load",
    "save",
]

SAVED_MODEL_FILENAME_JSON = MODEL_FILE


def contains_saved_model(export_dir):
    """Whether ``export_dir`` holds a SavedModel."""
    return os.path.isfile(os.path.join(os.fspath(export_dir), SAVED_MODEL_FILENAME_JSON))
