"""Weights as a TensorFlow checkpoint, as tf.keras 2 saved them for a path without an `.h5`
suffix: the model is the checkpoint's root object, so keys follow its attributes
(``dense1/kernel/.ATTRIBUTES/VARIABLE_VALUE``, and ``optimizer/...`` once compiled), the
directory's ``checkpoint`` file names it for `tf.train.latest_checkpoint`, and a SavedModel's
``variables/variables`` can be read the same way."""

import os

from ferroflow.errors import NotFoundError
from ferroflow.train import checkpoint_management
from ferroflow.train.checkpoint import Checkpoint

__all__ = ["is_checkpoint", "load_weights", "save_weights"]

SAVED_MODEL_VARIABLES = os.path.join("variables", "variables")


def is_checkpoint(prefix):
    return os.path.isfile(f"{prefix}.index")


def save_weights(model, filepath, options=None):
    """Writes ``model``'s variables (and its optimizer's) to the checkpoint prefix
    ``filepath``; each file is replaced atomically."""
    filepath = os.fspath(filepath)
    os.makedirs(os.path.dirname(os.path.abspath(filepath)), exist_ok=True)
    Checkpoint(root=model).write(filepath, options=options)
    checkpoint_management.update_checkpoint_state_internal(
        save_dir=os.path.dirname(filepath),
        model_checkpoint_path=filepath,
        all_model_checkpoint_paths=[filepath],
        save_relative_paths=True,
    )


def resolve(filepath):
    """The checkpoint prefix to read for ``filepath``: itself, the SavedModel directory's
    variables, or the newest checkpoint a directory's ``checkpoint`` file names."""
    if is_checkpoint(filepath):
        return filepath
    if os.path.isdir(filepath):
        inside = os.path.join(filepath, SAVED_MODEL_VARIABLES)
        if is_checkpoint(inside):
            return inside
        latest = checkpoint_management.latest_checkpoint(filepath)
        if latest is not None:
            return latest
    raise NotFoundError(
        None,
        None,
        f"Unable to load weights from {filepath}: there is no TensorFlow checkpoint there (no "
        f"{filepath}.index file), nor a SavedModel or checkpoint directory. Pass the prefix "
        "that `save_weights` was given, or a `.keras` / `.weights.h5` file.",
    )


def load_weights(model, filepath, options=None):
    """Restores ``model`` from a checkpoint whose root object is a model; variables not
    created yet take their values when they are (restore-on-create). Returns the load status
    (call `expect_partial()` on it to silence warnings about values left unused, such as an
    optimizer's when loading into an uncompiled model). AssertionError when nothing but the
    root matched, as in tf.keras 2."""
    status = Checkpoint(root=model).read(resolve(os.fspath(filepath)), options=options)
    status.assert_nontrivial_match()
    return status
