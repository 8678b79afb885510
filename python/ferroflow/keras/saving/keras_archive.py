"""The `.keras` format, as Keras 3 writes it: a zip archive holding ``metadata.json``,
``config.json`` (the model's `serialize_keras_object` config, with its build and compile
configs), ``model.weights.h5`` (the variables in Keras's HDF5 layout: ``layers/dense/vars/0``,
``optimizer/vars/2``...) and ``assets/`` (lookup vocabularies). Keras 3 loads ferroflow's files
and ferroflow loads Keras's. Archives from older ferroflow releases, whose weights were a
``model.weights.npz`` member keyed by the same paths, still load.
"""

import datetime
import io
import json
import os
import zipfile

from ferroflow.keras.saving import assets, file_utils, saveable_state, weight_files
from ferroflow.keras.saving.serialization_lib import (
    ObjectSharingScope,
    deserialize_keras_object,
    serialize_keras_object,
)

__all__ = ["load_model", "load_weights", "save_model"]

CONFIG_FILENAME = "config.json"
METADATA_FILENAME = "metadata.json"
WEIGHTS_NPZ = "model.weights.npz"
WEIGHTS_H5 = "model.weights.h5"
KERAS_VERSION = "3.15.1"  # the Keras whose format (and TensorFlow 2.21's tf.keras) this follows


def _metadata():
    from ferroflow import __version__

    return {
        "keras_version": KERAS_VERSION,
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
        "ferroflow_version": __version__,
    }


def save_model(model, filepath, include_optimizer=True):
    """Writes ``model`` to the `.keras` file ``filepath`` (atomically)."""
    import warnings

    if not model.built:
        warnings.warn(
            "You are saving a model that has not yet been built. It might not contain any "
            "weights yet. Consider building the model first by calling it on some data.",
            stacklevel=3,
        )
    with ObjectSharingScope():
        config = serialize_keras_object(model)
    if not include_optimizer and "compile_config" in config:
        config["compile_config"] = None
    arrays, names = saveable_state.save_state(model, include_optimizer=include_optimizer)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(METADATA_FILENAME, json.dumps(_metadata()))
        archive.writestr(CONFIG_FILENAME, json.dumps(config))
        archive.writestr(WEIGHTS_H5, weight_files.encode_h5(arrays, names))
        assets.write_assets(model, archive)
    file_utils.write_bytes(filepath, buffer.getvalue())


def _open_archive(filepath):
    if not os.path.exists(filepath):
        raise ValueError(
            f"File not found: filepath={filepath}. Please ensure the file is an accessible "
            "`.keras` zip file."
        )
    if not zipfile.is_zipfile(filepath):
        raise ValueError(
            f"The file {filepath} is not a `.keras` zip archive: it is corrupt or in another "
            "format."
        )
    try:
        return zipfile.ZipFile(filepath, "r")
    except zipfile.BadZipFile as e:
        raise ValueError(f"The `.keras` archive {filepath} is corrupt: {e}") from None


def _read_member(archive, name, filepath):
    try:
        return archive.read(name)
    except KeyError:
        raise ValueError(
            f"The `.keras` archive {filepath} has no {name}: it was not written by "
            "`model.save()`, or is truncated."
        ) from None
    except (zipfile.BadZipFile, OSError, EOFError) as e:  # e.g. a CRC error in a member
        raise ValueError(f"The `.keras` archive {filepath} is corrupt ({name}: {e})") from None


def _read_weights(archive, filepath):
    names = archive.namelist()
    where = f"{filepath}"
    if WEIGHTS_H5 in names:
        return weight_files.decode_h5(_read_member(archive, WEIGHTS_H5, filepath), where)
    if WEIGHTS_NPZ in names:  # written by ferroflow releases before h5py was a dependency
        return weight_files.decode_npz(_read_member(archive, WEIGHTS_NPZ, filepath), where)
    raise ValueError(f"Expected a {WEIGHTS_H5} or {WEIGHTS_NPZ} file in {filepath}.")


def _read_config(archive, filepath):
    text = _read_member(archive, CONFIG_FILENAME, filepath)
    try:
        config = json.loads(text)
    except ValueError as e:
        raise ValueError(
            f"The `.keras` archive {filepath} has a corrupt {CONFIG_FILENAME}: {e}"
        ) from None
    if not isinstance(config, dict):
        raise ValueError(
            f"The `.keras` archive {filepath} has a {CONFIG_FILENAME} that is not a model config."
        )
    return config


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The model in the `.keras` file ``filepath``: rebuilt from its config, built, compiled
    again (unless ``compile`` is False) and given its saved weights and optimizer state."""
    with _open_archive(filepath) as archive:
        config = _read_config(archive, filepath)
        arrays = _read_weights(archive, filepath)
        if not compile:
            config["compile_config"] = None
        with ObjectSharingScope():
            model = deserialize_keras_object(config, custom_objects, safe_mode=safe_mode)
        if not saveable_state.is_saveable(model):
            raise ValueError(
                f"The `.keras` archive {filepath} does not hold a model: its config describes "
                f"{type(model).__name__} {model!r}."
            )
        saveable_state.load_state(model, arrays)
        # As in Keras, after the variables (a TF-IDF vocabulary reads its weights from them).
        assets.read_assets(model, archive)
    return model


def load_weights(model, filepath, skip_mismatch=False):
    """Loads only the weights of the `.keras` file ``filepath`` into ``model``."""
    if not model.built:
        raise ValueError(
            "You are loading weights into a model that has not yet been built. Try building "
            "the model first by calling it on some data or by using `build()`."
        )
    with _open_archive(filepath) as archive:
        arrays = _read_weights(archive, filepath)
    saveable_state.load_state(model, arrays, skip_mismatch=skip_mismatch)
