"""The legacy whole-model HDF5 format (``model.save("m.h5")``), as Keras 3 writes and reads it.

The file's attributes hold ``model_config`` (``{"class_name", "config"}`` JSON, layers in
Keras's legacy form: no ``module``/``registered_name``/``build_config``), ``training_config``
(the compile arguments, the optimizer as ``optimizer_config``), ``backend`` and
``keras_version``. Group ``model_weights`` lists ``layer_names``; each layer has a group with
``weight_names`` (variable paths) whose datasets sit at those paths inside it, trainable
variables first; ``top_level_model_weights`` holds the model's own. ``optimizer_weights``
holds the optimizer's variables in order. Weights load by position: the layers that have
weights, in order, take the saved layers that have weights, in order.
"""

import json
import logging
import warnings

import numpy as np

from ferroflow.keras.saving import object_registration, saveable_state, weight_files

__all__ = ["load_model", "load_weights_from_group", "open_weights_group", "save_model"]

HDF5_OBJECT_HEADER_LIMIT = 64512
KERAS_VERSION = "3.15.1"
_LEGACY_LAYER_KEYS = ("module", "registered_name", "build_config", "compile_config")


def _legacy_weights(layer):
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _weight_name(variable):
    name = str(getattr(variable, "path", None) or variable.name)
    # Optimizer slots are plain variables, named as TensorFlow names them (``adam/iteration:0``);
    # Keras 3's names have no output index.
    return name[:-2] if name.endswith(":0") else name


# --- attributes (split in chunks when an HDF5 object header cannot hold them) -------------------


def _save_attribute(group, name, data):
    too_long = [x for x in data if len(x) > HDF5_OBJECT_HEADER_LIMIT]
    if too_long:
        raise RuntimeError(
            "The following attributes cannot be saved to HDF5 file because they are larger "
            f"than {HDF5_OBJECT_HEADER_LIMIT} bytes: {too_long}"
        )
    array = np.asarray(data)
    chunks = 1
    pieces = np.array_split(array, chunks)
    while any(piece.nbytes > HDF5_OBJECT_HEADER_LIMIT for piece in pieces):
        chunks += 1
        pieces = np.array_split(array, chunks)
    if chunks > 1:
        for i, piece in enumerate(pieces):
            group.attrs[f"{name}{i}"] = piece
    else:
        group.attrs[name] = data


def _text(value):
    return value.decode("utf8") if hasattr(value, "decode") else value


def _load_attribute(group, name):
    if name in group.attrs:
        return [_text(x) for x in group.attrs[name]]
    data, i = [], 0
    while f"{name}{i}" in group.attrs:
        data.extend(_text(x) for x in group.attrs[f"{name}{i}"])
        i += 1
    return data


def _save_subset(group, variables):
    names = [_weight_name(v).encode("utf8") for v in variables]
    _save_attribute(group, "weight_names", names)
    for name, variable in zip(names, variables):
        group.create_dataset(name, data=np.asarray(variable.numpy()))


def _load_subset(group):
    return [np.asarray(group[name]) for name in _load_attribute(group, "weight_names")]


# --- configs ------------------------------------------------------------------------------------


def _legacy_layer_config(entry):
    """A layer entry of a functional or Sequential config in Keras's legacy form."""
    if not isinstance(entry, dict) or "class_name" not in entry:
        return entry
    entry = dict(entry)
    if entry.get("registered_name"):
        entry["class_name"] = entry["registered_name"]
    for key in _LEGACY_LAYER_KEYS:
        entry.pop(key, None)
    entry["config"] = _legacy_model_config(entry["class_name"], entry.get("config"))
    return entry


def _legacy_model_config(class_name, config):
    if class_name in ("Functional", "Sequential", "Model") and isinstance(config, dict):
        config = dict(config)
        if isinstance(config.get("layers"), list):
            config["layers"] = [_legacy_layer_config(x) for x in config["layers"]]
    return config


def _legacy_objects(value):
    """Compile arguments as Keras's legacy serialization writes them: each object as
    ``{"class_name", "config"}`` (no ``module`` / ``registered_name``)."""
    if isinstance(value, list):
        return [_legacy_objects(x) for x in value]
    if not isinstance(value, dict):
        return value
    if "class_name" in value and "config" in value:
        return {
            "class_name": value.get("registered_name") or value["class_name"],
            "config": value["config"],
        }
    return {key: _legacy_objects(x) for key, x in value.items()}


def _model_metadata(model, include_optimizer):
    from ferroflow.keras.saving.serialization_lib import (
        ObjectSharingScope,
        serialize_keras_object,
    )

    with ObjectSharingScope():
        config = serialize_keras_object(model)
    class_name = type(model).__name__
    metadata = {
        "keras_version": KERAS_VERSION,
        "backend": "tensorflow",
        "model_config": {
            "class_name": class_name,
            "config": _legacy_model_config(class_name, config["config"]),
        },
    }
    optimizer = getattr(model, "optimizer", None)
    if include_optimizer and optimizer is not None and model.compiled:
        training = _legacy_objects(dict(model.get_compile_config()))
        training.pop("optimizer", None)
        training["optimizer_config"] = {
            "class_name": object_registration.get_registered_name(type(optimizer)),
            "config": optimizer.get_config(),
        }
        metadata["training_config"] = training
    return metadata


# --- saving -------------------------------------------------------------------------------------


def save_model(model, filepath, include_optimizer=True):
    """Writes ``model`` to the legacy HDF5 file ``filepath`` (atomically)."""
    from ferroflow.keras.saving import file_utils

    h5py = weight_files.import_h5py("`save_model()` using h5 format")
    with file_utils.atomic_path(filepath) as temporary, h5py.File(temporary, mode="w") as f:
        for key, value in _model_metadata(model, include_optimizer).items():
            if isinstance(value, dict):
                f.attrs[key] = json.dumps(value).encode("utf8")
            else:
                f.attrs[key] = value
        _save_weights_group(f.create_group("model_weights"), model)
        optimizer = getattr(model, "optimizer", None)
        if include_optimizer and optimizer is not None and optimizer.variables:
            group = f.create_group("optimizer_weights")
            _save_subset(group, list(optimizer.variables))


def _save_weights_group(group, model):
    layers = list(model.layers)
    _save_attribute(group, "layer_names", [layer.name.encode("utf8") for layer in layers])
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
    for layer in sorted(layers, key=lambda x: x.name):
        _save_subset(group.create_group(layer.name), _legacy_weights(layer))
    _save_subset(group.create_group("top_level_model_weights"), _top_level(model))


def _top_level(model):
    return saveable_state._own_variables(model)


# --- loading ------------------------------------------------------------------------------------


def _mismatch(message, skip_mismatch):
    """Warns (``skip_mismatch``) or raises ValueError; returns only when skipping."""
    if not skip_mismatch:
        raise ValueError(message)
    warnings.warn(f"Skipping loading weights: {message}", stacklevel=4)


def _assign(variables, values, name, skip_mismatch):
    for variable, value in zip(variables, values):
        if tuple(variable.shape) != tuple(value.shape):
            _mismatch(
                f"Shape mismatch in {name}for weight {_weight_name(variable)}. Weight expects "
                f"shape {tuple(variable.shape)}. Received saved weight with shape "
                f"{tuple(value.shape)}",
                skip_mismatch,
            )
            continue
        variable.assign(value)


def _load_top_level(group, model, skip_mismatch, skip_count_mismatch):
    if "top_level_model_weights" not in group:
        return
    variables = _top_level(model)
    values = _load_subset(group["top_level_model_weights"])
    if len(values) != len(variables):
        _mismatch(
            "Weight count mismatch for top-level weights when loading weights from file. "
            f"Model expects {len(variables)} top-level weight(s). Received {len(values)} "
            "saved top-level weight(s)",
            skip_count_mismatch,
        )
        return
    _assign(variables, values, "top-level model", skip_mismatch)


def load_weights_from_group(group, model, skip_mismatch=False):
    """Assigns the weights of a legacy ``model_weights`` group to ``model`` by position."""
    layers = [layer for layer in model.layers if _legacy_weights(layer)]
    saved = [
        n
        for n in _load_attribute(group, "layer_names")
        if _load_attribute(group[n], "weight_names")
    ]
    if len(saved) != len(layers):
        raise ValueError(
            "Layer count mismatch when loading weights from file. Model expected "
            f"{len(layers)} layers, found {len(saved)} saved layers."
        )
    for k, (name, layer) in enumerate(zip(saved, layers)):
        variables = _legacy_weights(layer)
        values = _load_subset(group[name])
        if len(values) != len(variables):
            raise ValueError(
                f"Weight count mismatch for layer #{k} (named {layer.name} in the current "
                f"model, {name} in the save file). Layer expects {len(variables)} weight(s). "
                f"Received {len(values)} saved weight(s)"
            )
        _assign(variables, values, f"layer #{k} (named {layer.name})", skip_mismatch)
    _load_top_level(group, model, skip_mismatch, skip_count_mismatch=False)


def load_weights_by_name(group, model, skip_mismatch=False):
    """Assigns saved layers' weights to the layers of ``model`` with the same names."""
    by_name = {}
    for layer in model.layers:
        by_name.setdefault(layer.name, []).append(layer)
    for k, name in enumerate(_load_attribute(group, "layer_names")):
        values = _load_subset(group[name])
        for layer in by_name.get(name, []):
            variables = _legacy_weights(layer)
            if len(values) != len(variables):
                _mismatch(
                    f"Weight count mismatch for layer #{k} (named {layer.name}). Layer expects "
                    f"{len(variables)} weight(s). Received {len(values)} saved weight(s)",
                    skip_mismatch,
                )
                continue
            _assign(variables, values, f"layer #{k} (named {layer.name})", skip_mismatch)
    _load_top_level(group, model, skip_mismatch, skip_count_mismatch=skip_mismatch)


def open_weights_group(f):
    """The group holding ``layer_names``: the file's ``model_weights`` or the file itself."""
    if "layer_names" not in f.attrs and "model_weights" in f:
        return f["model_weights"]
    return f


def _json_attribute(f, name):
    value = f.attrs.get(name)
    if value is None:
        return None
    return json.loads(_text(value))


def _upgrade_layer_configs(config):
    """What Keras 3's legacy loader does to each config without a ``module`` (Keras 2's
    spellings): ``batch_input_shape`` becomes ``batch_shape`` (input layers) or
    ``input_shape``; an ``axis`` given as a one-element list or a number becomes an int (any
    other ``axis`` is dropped, as Keras drops it)."""
    if not isinstance(config, dict) or not isinstance(config.get("config"), dict):
        return config
    inner = config["config"]
    if "module" not in config:
        shape = inner.pop("batch_input_shape", None)
        if shape is not None:
            key = "batch_shape" if config.get("class_name") == "InputLayer" else "input_shape"
            inner[key] = shape
        axis = inner.pop("axis", None)
        if isinstance(axis, list) and len(axis) == 1:
            inner["axis"] = int(axis[0])
        elif isinstance(axis, (int, float)) and not isinstance(axis, bool):
            inner["axis"] = int(axis)
    if isinstance(inner.get("layers"), list):
        for entry in inner["layers"]:
            _upgrade_layer_configs(entry)
    return config


def _model_classes():
    """The model classes legacy configs name without a module (as Keras's legacy loader)."""
    from ferroflow.keras.models.functional import Functional
    from ferroflow.keras.models.model import Model
    from ferroflow.keras.models.sequential import Sequential

    return {"Functional": Functional, "Model": Model, "Sequential": Sequential}


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The model in the legacy HDF5 file ``filepath``, compiled again when the file has a
    training config (and ``compile``), with its optimizer's saved state."""
    from ferroflow.keras.saving.serialization_lib import (
        ObjectSharingScope,
        deserialize_keras_object,
    )

    h5py = weight_files.import_h5py("`load_model()` using h5 format")
    with h5py.File(filepath, mode="r") as f:
        model_config = _json_attribute(f, "model_config")
        if model_config is None:
            raise ValueError(f"No model config found in the file at {filepath}.")
        if not isinstance(model_config, dict) or "config" not in model_config:
            raise ValueError(
                "The provided configuration is not a valid Keras configuration. Expected a "
                f"dictionary containing a 'config' key. Received: config={model_config}"
            )
        with ObjectSharingScope():
            model = deserialize_keras_object(
                _upgrade_layer_configs(model_config),
                {**_model_classes(), **(custom_objects or {})},
                safe_mode=safe_mode,
            )
        load_weights_from_group(f["model_weights"], model)
        if not compile:
            return model
        training = _json_attribute(f, "training_config")
        if training is None:
            logging.getLogger("ferroflow").warning(
                "No training configuration found in the save file, so the model was *not* "
                "compiled. Compile it manually."
            )
            return model
        _compile(model, training, custom_objects)
        if "optimizer_weights" in f:
            values = _load_subset(f["optimizer_weights"])
            optimizer = model.optimizer
            optimizer.build(model.trainable_variables)
            try:
                optimizer.set_weights(values)
            except ValueError:
                logging.getLogger("ferroflow").warning(
                    "Error in loading the saved optimizer state. As a result, your model is "
                    "starting with a freshly initialized optimizer."
                )
    return model


def _nested(deserialize, config):
    """``deserialize`` over each object (a ``{"class_name"...}`` dict or a name) of a
    compile argument's nested lists and dicts."""
    if config is None:
        return None
    if isinstance(config, str) or (isinstance(config, dict) and "class_name" in config):
        return deserialize(config)
    if isinstance(config, dict):
        return {k: _nested(deserialize, v) for k, v in config.items()}
    if isinstance(config, (list, tuple)):
        return [_nested(deserialize, v) for v in config]
    raise ValueError(
        "Saved configuration not understood. Configuration should be a dictionary, string, "
        f"tuple or list. Received: config={config}."
    )


def _metric(config):
    from ferroflow.keras import metrics

    # compile resolves these by the model's output shape: they stay names, as in Keras.
    if config in ("accuracy", "acc", "crossentropy", "ce"):
        return config
    return metrics.deserialize(config)


def _compile(model, training, custom_objects):
    """Compiles ``model`` from a legacy ``training_config`` as Keras's legacy loader does:
    names of losses become the loss functions, names of metrics (but accuracy and
    crossentropy) metric objects."""
    from ferroflow.keras import losses, optimizers
    from ferroflow.keras.saving.object_registration import CustomObjectScope

    with CustomObjectScope(custom_objects or {}):
        model.compile(
            optimizer=optimizers.deserialize(training["optimizer_config"]),
            loss=_nested(losses.deserialize, training.get("loss")),
            metrics=_nested(_metric, training.get("metrics")),
            weighted_metrics=_nested(_metric, training.get("weighted_metrics")),
            loss_weights=training.get("loss_weights"),
        )
