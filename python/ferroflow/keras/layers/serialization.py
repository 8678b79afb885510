"""`tf.keras.layers.serialize` / `deserialize`: a layer as Keras 3's config dict
``{"module", "class_name", "config", "registered_name", "build_config"}`` and back. Classes are
looked up among ferroflow's layers and models, the functional graph's operations, and
``custom_objects``."""

import inspect

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow.tensor_shape import TensorShape

__all__ = ["deserialize", "deserialize_argument", "serialize", "serialize_argument"]

_FUNCTIONAL_MODULE = "keras.src.models.functional"


def _module_and_registered_name(cls):
    from ferroflow.keras import _operations
    from ferroflow.keras.models.functional import Functional
    from ferroflow.keras.models.sequential import Sequential

    module = cls.__module__ or ""
    if cls is Sequential:
        return "keras", None
    if cls is Functional:
        return _FUNCTIONAL_MODULE, "Functional"
    if issubclass(cls, _operations.Operation) and module == _operations.__name__:
        return _operations.KERAS_MODULE, cls.__name__
    if module.startswith("ferroflow.keras.layers."):
        return "keras.layers", None
    if module.startswith("ferroflow.keras.models."):
        return "keras", None
    from ferroflow.keras.saving import object_registration

    return (None if module == "__main__" else module), object_registration.get_registered_name(cls)


def _shape_config(value):
    if value is None:
        return None
    if hasattr(value, "shape") and not isinstance(value, (tuple, list, dict, TensorShape)):
        value = value.shape
    if isinstance(value, TensorShape):
        return tuple(value.as_list()) if value.rank is not None else None
    if isinstance(value, dict):
        return {k: _shape_config(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and all(d is None or isinstance(d, int) for d in value):
        return tuple(value)
    if isinstance(value, (list, tuple)):
        return [_shape_config(v) for v in value]
    return None


def _build_config(layer):
    """Keras's ``build_config``: the shape the layer was built for, or None."""
    from ferroflow.keras import _operations
    from ferroflow.keras._symbolic import inbound_nodes
    from ferroflow.keras.layers.input_layer import InputLayer
    from ferroflow.keras.layers.layer import Layer
    from ferroflow.keras.models.functional import Functional
    from ferroflow.keras.models.sequential import Sequential

    if hasattr(layer, "get_build_config"):
        return layer.get_build_config()
    # Layers are `Operation`s too (registered as Keras's Layer subclasses it): only the
    # layers that are not plain operations have a build config.
    if (
        isinstance(layer, InputLayer)
        or (isinstance(layer, _operations.Operation) and not isinstance(layer, Layer))
        or not layer.built
    ):
        return None
    if isinstance(layer, Functional):
        return {"input_shape": None}
    if isinstance(layer, Sequential):
        functional = layer.__dict__.get("_functional")
        return {"input_shape": layer._layers[0].batch_shape} if functional is not None else None
    nodes = inbound_nodes(layer)
    if len(nodes):
        return {"input_shape": _shape_config(nodes[0].call_args[0])}
    specs = layer.__dict__.get("_first_call_specs")
    if specs is not None:
        from ferroflow import nest

        return {"input_shape": _shape_config(nest.map_structure(lambda s: s.shape, specs))}
    return None


def serialize(layer):
    """The Keras 3 config dict of ``layer`` (a layer, model or functional-graph operation)."""
    if layer is None:
        return None
    get_config = getattr(layer, "get_config", None)
    if get_config is None:
        raise NotImplementedError(
            f"Layer {type(layer).__name__} does not implement `get_config()`, so it cannot be "
            "serialized."
        )
    module, registered_name = _module_and_registered_name(type(layer))
    config = {
        "module": module,
        "class_name": type(layer).__name__,
        "config": get_config(),
        "registered_name": registered_name,
    }
    build_config = _build_config(layer)
    if build_config is not None:
        config["build_config"] = build_config
    return config


def _builtin_classes():
    from ferroflow.keras import _operations, layers
    from ferroflow.keras.layers.input_layer import InputLayer
    from ferroflow.keras.layers.lambda_layer import Lambda
    from ferroflow.keras.layers.layer import Layer
    from ferroflow.keras.models.functional import Functional
    from ferroflow.keras.models.model import Model
    from ferroflow.keras.models.sequential import Sequential

    classes = {
        name: value
        for name, value in vars(layers).items()
        if isinstance(value, type) and issubclass(value, Layer)
    }
    classes.update(
        {
            "InputLayer": InputLayer,
            "Lambda": Lambda,
            "Functional": Functional,
            "Model": Model,
            "Sequential": Sequential,
        }
    )
    return classes, dict(_operations.OPERATIONS)


def _find_class(config, custom_objects):
    from ferroflow.keras.saving import object_registration

    class_name = config["class_name"]
    for key in (config.get("registered_name"), class_name):
        # custom_objects, then the objects of `custom_object_scope`s and registered classes.
        found = object_registration.get_registered_object(key, custom_objects=custom_objects)
        if key and found is not None:
            return found
    classes, operations = _builtin_classes()
    if config.get("module") == "keras.src.ops.numpy" and class_name in operations:
        return operations[class_name]
    if class_name in classes:
        return classes[class_name]
    raise TypeError(
        f"Could not locate class '{class_name}'. Make sure custom classes are decorated with "
        "`@keras.saving.register_keras_serializable()` or passed in `custom_objects`. Full "
        f"object config: {config}"
    )


def _dtype_name(dtype):
    # Keras 3 configs hold a layer's dtype as a DTypePolicy dict.
    if isinstance(dtype, dict) and dtype.get("class_name") in ("DTypePolicy", "FloatDTypePolicy"):
        return dtype.get("config", {}).get("name", "float32")
    return dtype


def _as_build_shape(shape):
    # What `build` receives, as in Layer.__call__: a tuple per input.
    if shape is None:
        return None
    if isinstance(shape, dict):
        return {k: _as_build_shape(v) for k, v in shape.items()}
    if isinstance(shape, (list, tuple)) and all(d is None or isinstance(d, int) for d in shape):
        return tuple(shape)
    return [_as_build_shape(s) for s in shape]


def deserialize(config, custom_objects=None):
    """The layer (or model) that ``config`` -- from `serialize` or Keras 3 -- describes, built
    for its ``build_config`` shape when it has one."""
    from ferroflow.keras.layers.layer import Layer

    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(
            f"Could not interpret serialized layer: expected a dict with a 'class_name' key. "
            f"Received: {config}"
        )
    cls = _find_class(config, custom_objects)
    inner = dict(config.get("config") or {})
    if "dtype" in inner:
        inner["dtype"] = _dtype_name(inner["dtype"])
    from_config = getattr(cls, "from_config", None)
    if from_config is None:
        instance = cls(**inner)
    elif "custom_objects" in inspect.signature(from_config).parameters:
        instance = from_config(inner, custom_objects=custom_objects)
    else:
        instance = from_config(inner)
    build_config = config.get("build_config")
    if isinstance(instance, Layer) and not instance.built and build_config:
        if hasattr(instance, "build_from_config"):
            instance.build_from_config(build_config)
        else:
            shape = _as_build_shape(build_config.get("input_shape"))
            if shape is not None:
                instance.build(shape)
        instance.built = True
    return instance


def serialize_argument(value):
    """A non-tensor call argument recorded in a functional node, in Keras's config form."""
    if isinstance(value, slice):
        return {
            "class_name": "__slice__",
            "config": {"start": value.start, "stop": value.stop, "step": value.step},
        }
    if value is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(value, _dtypes.DType):
        return value.name
    if isinstance(value, TensorShape):
        return value.as_list() if value.rank is not None else None
    if isinstance(value, np.ndarray):
        return {
            "class_name": "__numpy__",
            "config": {"value": value.tolist(), "dtype": value.dtype.name},
        }
    if isinstance(value, np.generic):
        return value.item()
    if hasattr(value, "numpy") and hasattr(value, "dtype"):
        return {
            "class_name": "__tensor__",
            "config": {"value": value.numpy().tolist(), "dtype": value.dtype.name},
        }
    return value


def deserialize_argument(value):
    """The inverse of `serialize_argument`."""
    if not isinstance(value, dict) or "class_name" not in value:
        return value
    kind, config = value["class_name"], value.get("config", {})
    if kind == "__slice__":
        return slice(config.get("start"), config.get("stop"), config.get("step"))
    if kind == "__ellipsis__":
        return Ellipsis
    if kind == "__numpy__":
        return np.array(config["value"], dtype=config["dtype"])
    if kind == "__tensor__":
        from ferroflow.array_ops import convert_to_tensor

        return convert_to_tensor(np.array(config["value"], dtype=config["dtype"]))
    return value
