"""`model.save(dirpath)` for a path without a `.keras` or `.h5` suffix: a TensorFlow
SavedModel, as tf.keras 2 wrote it.

The directory is `tf.saved_model.save`'s, for a root object that has the model's attributes
(so its ``variables/variables`` checkpoint has the keys `save_weights` writes and
`load_weights` reads it), the lists ``variables``, ``trainable_variables`` and
``non_trainable_variables``, and ``__call__``: the model's call traced with the input specs of
its first call (the only shapes the saved function accepts; ferroflow does not trace with
unknown dimensions). ``keras_metadata.json`` adds the model's Keras config, so that
`load_model` rebuilds the original class when it can be found (registered, or passed in
``custom_objects``), and otherwise returns a model that runs the saved function.
"""

import inspect
import json
import logging
import os

from ferroflow.keras.saving import checkpoint_weights, file_utils, model_config
from ferroflow.keras.saving.serialization_lib import (
    ObjectSharingScope,
    deserialize_keras_object,
    serialize_keras_object,
)
from ferroflow.train.checkpoint import Checkpoint
from ferroflow.train.trackable import AutoTrackable, children_of

__all__ = ["is_saved_model", "load_model", "save_model"]

_log = logging.getLogger("ferroflow")

KERAS_METADATA = "keras_metadata.json"
_SAVED_MODEL_FILE = "saved_model.json"
_ROOT_LISTS = ("variables", "trainable_variables", "non_trainable_variables")


def is_saved_model(filepath):
    return os.path.isfile(os.path.join(filepath, _SAVED_MODEL_FILE))


class _ExportRoot(AutoTrackable):
    """The object `tf.saved_model.save` is given: the model's attributes and its call."""


def _unbuilt_error(model):
    return ValueError(
        f"Model {model} cannot be saved either because the input shape is not available or "
        "because the forward pass of the model is not defined. To define a forward pass, please "
        "override `Model.call()`. To specify an input shape, either call `build(input_shape)` "
        "directly, or call the model on actual data using `Model()`, `Model.fit()`, or "
        "`Model.predict()`. If you have a custom training step, please make sure to invoke the "
        "forward pass in train step through `Model.__call__`, i.e. `model(inputs)`, as opposed "
        "to `model.call()`. (ferroflow traces the call with the input shapes of the model's "
        "first call on data, so the model must have been called.)"
    )


def _traced_call(model, specs):
    from ferroflow.function import Function

    takes_training = "training" in inspect.signature(model.call).parameters
    kwargs = {"training": False} if takes_training else {}

    def __call__(inputs):
        return model(inputs, **kwargs)

    function = Function(__call__, name="__call__", input_signature=[specs])
    # tf.keras 2 saves a model's call as traced functions: once loaded, a call that fits none
    # raises ValueError (not the TypeError of a function saved with its input signature).
    function._saved_as_traced = True
    return function


def _export_root(model, include_optimizer):
    specs = getattr(model, "_first_call_specs", None)
    if specs is None or not model.built:
        raise _unbuilt_error(model)
    root = _ExportRoot()
    for name, child in children_of(model):
        if name == "optimizer" and not include_optimizer:
            continue
        object.__setattr__(root, name, child)
    for name in _ROOT_LISTS:
        object.__setattr__(root, name, list(getattr(model, name)))
    object.__setattr__(root, "__call__", _traced_call(model, specs))
    return root


def _keras_config(model, include_optimizer):
    """The model's config when it has one (a class without `get_config` has none)."""
    try:
        with ObjectSharingScope():
            config = serialize_keras_object(model)
        json.dumps(config)
    except Exception:  # no config: load_model revives the model from its saved function
        return None
    if not include_optimizer:
        config["compile_config"] = None
    return config


def save_model(model, filepath, include_optimizer=True, signatures=None, options=None):
    """Writes the SavedModel directory ``filepath``, replacing an earlier one only once the
    new one is complete."""
    from ferroflow.keras.saving.keras_archive import _metadata
    from ferroflow.saved_model.save import save as saved_model_save

    root = _export_root(model, include_optimizer)
    metadata = {**_metadata(), "config": _keras_config(model, include_optimizer)}

    def write(directory):
        saved_model_save(root, directory, signatures=signatures, options=options)
        with open(os.path.join(directory, KERAS_METADATA), "w") as f:
            json.dump(metadata, f)

    file_utils.replace_directory(filepath, write)
    _log.info("Assets written to: %s", os.path.join(filepath, "assets"))


# --- loading ----------------------------------------------------------------------------------


def _read_metadata(filepath):
    path = os.path.join(filepath, KERAS_METADATA)
    if not os.path.isfile(path):
        return {}
    try:
        with open(path) as f:
            metadata = json.load(f)
    except ValueError as e:
        raise ValueError(f"The SavedModel {filepath} has a corrupt {KERAS_METADATA}: {e}") from None
    return metadata if isinstance(metadata, dict) else {}


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The Keras model saved in the SavedModel directory ``filepath``: an instance of its
    original class when that can be rebuilt from the saved config, else a `RevivedModel`
    running the saved function; compiled again, with the saved optimizer state."""
    from ferroflow.keras.saving.revived_model import RevivedModel
    from ferroflow.saved_model.load import load as saved_model_load

    config = _read_metadata(filepath).get("config")
    compile_config = config.get("compile_config") if isinstance(config, dict) else None
    model = None
    if isinstance(config, dict):
        config = {**config, "compile_config": compile_config if compile else None}
        try:
            with ObjectSharingScope():
                model = deserialize_keras_object(config, custom_objects, safe_mode=safe_mode)
        except TypeError:  # the class cannot be found or rebuilt: revive it generically
            model = None
    if model is None:
        model = RevivedModel.from_saved_model(saved_model_load(filepath))
        if compile and compile_config:
            model_config.compile_from_config(model, compile_config)
    # The checkpoint's root is the model: this restores the weights of a rebuilt model and the
    # state of a re-created optimizer.
    prefix = os.path.join(filepath, checkpoint_weights.SAVED_MODEL_VARIABLES)
    Checkpoint(root=model).read(prefix).expect_partial()
    return model
