"""`save_model`, `load_model`, `save_weights` and `load_weights`: which format a path means.

Models: ``*.keras`` is Keras 3's zip archive; any other path without an ``.h5`` suffix is a
TensorFlow SavedModel directory (tf.keras 2's default). Weights: ``*.weights.h5`` is Keras 3's
HDF5 layout (needs h5py); any path without an ``.h5``/``.keras`` suffix is a TensorFlow
checkpoint prefix whose root object is the model (tf.keras 2's default). ``*.h5`` /
``*.hdf5`` models are the legacy whole-model HDF5 format (`legacy_h5`), and `load_weights`
reads the weights of such files (by position, or ``by_name``).
"""

import logging
import os

from ferroflow._host_path import host_path
from ferroflow.keras.saving import (
    checkpoint_weights,
    file_utils,
    keras_archive,
    legacy_h5,
    saveable_state,
    saved_model_format,
    weight_files,
)

__all__ = ["load_model", "load_weights", "save_model", "save_weights"]

_H5_SUFFIXES = (".h5", ".hdf5")


def _model_format(filepath, save_format):
    if save_format is None:
        if filepath.endswith(".keras"):
            return "keras"
        return "h5" if filepath.endswith(_H5_SUFFIXES) else "tf"
    save_format = str(save_format).lower()
    if save_format in ("tf", "tensorflow"):
        return "tf"
    if save_format in ("h5", "hdf5"):
        return "h5"
    if save_format == "keras":
        if not filepath.endswith(".keras"):
            raise ValueError(
                "Invalid `filepath` argument: expected a `.keras` extension. "
                f"Received: filepath={filepath}"
            )
        return "keras"
    raise ValueError(
        f"Unknown format. Received: `save_format`={save_format}. Expected one of 'tf', "
        "'keras' or 'h5'."
    )


def save_model(model, filepath, overwrite=True, **kwargs):
    """Saves ``model`` (architecture, weights, optimizer state and compile arguments) to
    ``filepath``: a `.keras` file, or a SavedModel directory for a path without a suffix.
    With ``overwrite=False``, asks before replacing an existing file."""
    include_optimizer = kwargs.pop("include_optimizer", True)
    save_format = kwargs.pop("save_format", None)
    signatures = kwargs.pop("signatures", None)
    options = kwargs.pop("options", None)
    kwargs.pop("save_traces", None)  # the call is always traced (tf.keras 2's default)
    zipped = kwargs.pop("zipped", None)
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {list(kwargs.keys())}")
    filepath = host_path(os.fspath(filepath))  # a ram:// name's local path
    kind = _model_format(filepath, save_format)
    if zipped is False:
        raise ValueError(
            "ferroflow writes `.keras` models as zip archives only: `zipped=False` is not "
            "supported."
        )
    if kind != "tf" and (signatures is not None or options is not None):
        raise ValueError(
            "`signatures` and `options` apply to the SavedModel format only (a path without a "
            f"`.keras` or `.h5` suffix). Received: filepath={filepath}"
        )
    if kind == "h5":
        logging.getLogger("ferroflow").warning(
            "You are saving your model as an HDF5 file via `model.save()` or "
            "`keras.saving.save_model(model)`. This file format is considered legacy. We "
            "recommend using instead the native Keras format, e.g. "
            "`model.save('my_model.keras')` or `keras.saving.save_model(model, "
            "'my_model.keras')`. "
        )
    if not file_utils.may_write(filepath, overwrite):
        return
    if kind == "h5":
        legacy_h5.save_model(model, filepath, include_optimizer=include_optimizer)
    elif kind == "keras":
        keras_archive.save_model(model, filepath, include_optimizer=include_optimizer)
    else:
        saved_model_format.save_model(
            model,
            filepath,
            include_optimizer=include_optimizer,
            signatures=signatures,
            options=options,
        )


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The model saved at ``filepath`` (a `.keras` file or a SavedModel directory), compiled
    again unless ``compile`` is False. ``custom_objects`` maps names to the custom classes and
    functions the model uses; ``safe_mode`` refuses to load serialized lambdas."""
    filepath = host_path(os.fspath(filepath))  # a ram:// name's local path
    if filepath.endswith(".keras"):
        return keras_archive.load_model(filepath, custom_objects, compile, safe_mode)
    if filepath.endswith(_H5_SUFFIXES):
        if not os.path.exists(filepath):
            raise FileNotFoundError(f"No file or directory found at {filepath}")
        return legacy_h5.load_model(filepath, custom_objects, compile, safe_mode)
    if saved_model_format.is_saved_model(filepath):
        return saved_model_format.load_model(filepath, custom_objects, compile, safe_mode)
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"No file or directory found at {filepath}")
    raise ValueError(
        f"File format not supported: filepath={filepath}. ferroflow loads `.keras` files and "
        "SavedModel directories written by `model.save()`."
    )


def save_weights(model, filepath, overwrite=True, **kwargs):
    """Saves ``model``'s weights: Keras 3's HDF5 layout for a `.weights.h5` path (needs h5py),
    else a TensorFlow checkpoint with ``filepath`` as its prefix."""
    save_format = kwargs.pop("save_format", None)
    options = kwargs.pop("options", None)
    if kwargs:
        raise ValueError(f"Invalid keyword arguments: {kwargs}")
    filepath = host_path(os.fspath(filepath))  # a ram:// name's local path
    if filepath.endswith(".weights.h5"):
        if not model.built:
            raise ValueError(
                "You are saving a model that has not yet been built. Try building the model "
                "first by calling it on some data or by using `build()`."
            )
        weight_files.import_h5py("Saving weights to a `.weights.h5` file")
        if file_utils.may_write(filepath, overwrite):
            arrays, names = saveable_state.save_state(model)
            file_utils.write_bytes(filepath, weight_files.encode_h5(arrays, names))
        return
    if filepath.endswith((*_H5_SUFFIXES, ".keras")) or str(save_format).lower() == "h5":
        raise ValueError(
            "The filename must end in `.weights.h5` (or have no suffix, for a TensorFlow "
            f"checkpoint). Received: filepath={filepath}"
        )
    exists = checkpoint_weights.is_checkpoint(filepath)
    if file_utils.may_write(filepath, overwrite, exists=exists):
        checkpoint_weights.save_weights(model, filepath, options=options)


def load_weights(model, filepath, skip_mismatch=False, **kwargs):
    """Loads weights saved by `save_weights` (or the weights of a `.keras` file or a
    SavedModel directory). ``skip_mismatch`` turns variables that do not fit into warnings
    (`.keras` and `.weights.h5` files). Returns the load status for a checkpoint."""
    options = kwargs.pop("options", None)
    by_name = kwargs.pop("by_name", None)
    objects_to_skip = kwargs.pop("objects_to_skip", None)
    if kwargs:
        raise ValueError(f"Invalid keyword arguments: {kwargs}")
    filepath = host_path(os.fspath(filepath))  # a ram:// name's local path
    if filepath.endswith(_H5_SUFFIXES) and not filepath.endswith(".weights.h5"):
        if objects_to_skip is not None:
            raise ValueError(
                f"`objects_to_skip` only supports loading '.weights.h5' files.Received: {filepath}"
            )
        return _load_legacy_h5_weights(model, filepath, by_name, skip_mismatch)
    if by_name is not None:
        raise ValueError(
            f"`by_name` only supports loading legacy '.h5' or '.hdf5' files. Received: {filepath}"
        )
    if objects_to_skip is not None and not filepath.endswith(".weights.h5"):
        raise ValueError(
            f"`objects_to_skip` only supports loading '.weights.h5' files.Received: {filepath}"
        )
    if filepath.endswith(".keras"):
        keras_archive.load_weights(model, filepath, skip_mismatch=skip_mismatch)
        return None
    if filepath.endswith(".weights.h5"):
        return _load_h5_weights(model, filepath, skip_mismatch, objects_to_skip)
    return checkpoint_weights.load_weights(model, filepath, options=options)


def _load_h5_weights(model, filepath, skip_mismatch, objects_to_skip):
    if not model.built:
        raise ValueError(
            "You are loading weights into a model that has not yet been built. Try building "
            "the model first by calling it on some data or by using `build()`."
        )
    weight_files.import_h5py("Loading weights from a `.weights.h5` file")
    if not os.path.isfile(filepath):
        raise FileNotFoundError(f"No such weights file: {filepath}")
    with open(filepath, "rb") as f:
        data = f.read()
    arrays = weight_files.decode_h5(data, filepath)
    saveable_state.load_state(model, arrays, skip_mismatch, objects_to_skip)
    return None


def _load_legacy_h5_weights(model, filepath, by_name, skip_mismatch):
    h5py = weight_files.import_h5py("Loading HDF5 files")
    with h5py.File(filepath, "r") as f:
        group = legacy_h5.open_weights_group(f)
        if by_name:
            legacy_h5.load_weights_by_name(group, model, skip_mismatch)
        else:
            legacy_h5.load_weights_from_group(group, model, skip_mismatch)
    return None
