"""`serialize_keras_object` / `deserialize_keras_object`: Keras 3's config dicts,
``{"module", "class_name", "config", "registered_name"}`` (plus ``build_config`` and
``compile_config`` for layers and models), which `.keras` files store as ``config.json``.

ferroflow's built-in classes are written under Keras's public names (``"keras.layers"``,
``"Dense"``), so configs read the same as Keras's, and a Keras module name is looked up in the
matching ``ferroflow.keras`` module when loading.

>>> import ferroflow as tf
>>> config = tf.keras.saving.serialize_keras_object(tf.keras.optimizers.SGD(0.5))
>>> config["module"], config["class_name"], config["config"]["learning_rate"]
('keras.optimizers', 'SGD', 0.5)
>>> tf.keras.saving.deserialize_keras_object(config).learning_rate.numpy()
np.float32(0.5)
"""

import codecs
import importlib
import inspect
import marshal
import threading
import types
import warnings

import numpy as np

from ferroflow.keras.saving import object_registration

__all__ = ["ObjectSharingScope", "deserialize_keras_object", "serialize_keras_object"]

PLAIN_TYPES = (str, int, float, bool)

# Keras's public modules, in the order that picks a class's canonical name ("keras.Sequential"
# rather than "keras.models.Sequential").
_PUBLIC_MODULES = (
    "keras",
    "keras.layers",
    "keras.models",
    "keras.optimizers",
    "keras.optimizers.schedules",
    "keras.losses",
    "keras.metrics",
    "keras.initializers",
    "keras.regularizers",
    "keras.constraints",
    "keras.activations",
    "keras.quantizers",
    "keras.distillation",
)
# Where a built-in function saved by name only ("relu", "mse") is looked for.
_BUILTIN_FUNCTION_MODULES = (
    "activations",
    "constraints",
    "initializers",
    "losses",
    "metrics",
    "optimizers",
    "regularizers",
)

_state = threading.local()


# `keras.config.enable_unsafe_deserialization()`: outside a `SafeModeScope` (which
# `load_model` opens with its own ``safe_mode``), lambdas deserialize.
_unsafe_deserialization = False


def enable_unsafe_deserialization():
    """Disables safe mode globally, allowing deserialization of lambdas."""
    global _unsafe_deserialization
    _unsafe_deserialization = True


def _in_safe_mode():
    scoped = getattr(_state, "safe_mode", None)
    if scoped is None and _unsafe_deserialization:
        return False
    return scoped


class SafeModeScope:
    """Carries `load_model`'s ``safe_mode`` into nested deserializations."""

    def __init__(self, safe_mode=True):
        self.safe_mode = safe_mode

    def __enter__(self):
        self._previous = _in_safe_mode()
        _state.safe_mode = self.safe_mode

    def __exit__(self, *exc_info):
        _state.safe_mode = self._previous


class ObjectSharingScope:
    """Inside it, an object serialized twice is marked with a ``shared_object_id`` and is
    deserialized once (a layer shared by two models, say)."""

    def __enter__(self):
        self._previous = getattr(_state, "sharing", None)
        _state.sharing = ({}, {})  # id -> config (saving), shared id -> object (loading)
        return self

    def __exit__(self, *exc_info):
        _state.sharing = self._previous


def _sharing():
    return getattr(_state, "sharing", None)


def _record_serialized(obj, config):
    if config.get("module") == "__main__":
        config["module"] = None
    sharing = _sharing()
    if sharing is None:
        return
    configs = sharing[0]
    if id(obj) not in configs:
        configs[id(obj)] = (obj, config)  # the object is kept so that its id stays unique
    else:
        config["shared_object_id"] = id(obj)
        configs[id(obj)][1]["shared_object_id"] = id(obj)


# --- serializing ------------------------------------------------------------------------------


def _ferroflow_module(keras_module):
    """The ferroflow module standing for Keras module ``keras_module``, or None."""
    try:
        return importlib.import_module(f"ferroflow.{keras_module}")
    except ImportError:
        return None


def _public_keras_module(obj):
    """The Keras module that exports ferroflow class ``obj`` under its own name, or None."""
    if not getattr(obj, "__module__", "").startswith("ferroflow.keras"):
        return None
    for name in _PUBLIC_MODULES:
        module = _ferroflow_module(name)
        if module is not None and getattr(module, obj.__name__, None) is obj:
            return name
    return None


def _func_dump(func):
    code = codecs.encode(marshal.dumps(func.__code__), "base64").decode("ascii")
    closure = tuple(c.cell_contents for c in func.__closure__) if func.__closure__ else None
    return code, func.__defaults__, closure


def _func_load(dumped):
    code, defaults, closure = dumped
    code = marshal.loads(codecs.decode(code.encode("ascii"), "base64"))

    def cell(value):
        return (lambda: value).__closure__[0]

    closure = tuple(cell(v) for v in closure) if closure is not None else None
    defaults = tuple(defaults) if isinstance(defaults, list) else defaults
    return types.FunctionType(code, globals(), code.co_name, defaults, closure)


def serialize_dict(obj):
    return {key: serialize_keras_object(value) for key, value in obj.items()}


def _class_or_fn_config(obj):
    if isinstance(obj, types.FunctionType):
        return object_registration.get_registered_name(obj)
    if hasattr(obj, "get_config"):
        config = obj.get_config()
        if not isinstance(config, dict):
            raise TypeError(
                f"The `get_config()` method of {obj} should return a dict. It returned: {config}"
            )
        return serialize_dict(config)
    if hasattr(obj, "__name__"):
        return object_registration.get_registered_name(obj)
    raise TypeError(
        f"Cannot serialize object {obj} of type {type(obj)}. To be serializable, a class must "
        "implement the `get_config()` method."
    )


_NOT_SPECIAL = object()


def _serialize_special(obj):
    """Keras's config of a value that is not a Keras object, or `_NOT_SPECIAL`."""
    from ferroflow import dtypes
    from ferroflow.array_ops import is_tensor
    from ferroflow.tensor_shape import TensorShape

    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, slice):
        return {
            "class_name": "__slice__",
            "config": {
                "start": serialize_keras_object(obj.start),
                "stop": serialize_keras_object(obj.stop),
                "step": serialize_keras_object(obj.step),
            },
        }
    if obj is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(obj, TensorShape):
        return obj.as_list() if obj.rank is not None else None
    if isinstance(obj, dtypes.DType):
        return obj.name
    if is_tensor(obj):
        value = obj.numpy()
        return {
            "class_name": "__tensor__",
            "config": {"value": value.tolist(), "dtype": value.dtype.name},
        }
    if type(obj).__module__ == np.__name__:
        if isinstance(obj, np.ndarray) and obj.ndim > 0:
            return {
                "class_name": "__numpy__",
                "config": {"value": obj.tolist(), "dtype": obj.dtype.name},
            }
        return obj.item()
    if isinstance(obj, types.FunctionType) and obj.__name__ == "<lambda>":
        warnings.warn(
            "The object being serialized includes a `lambda`. This is unsafe. In order to "
            "reload the object, you will have to pass `safe_mode=False` to the loading "
            "function. Please avoid using `lambda` in the future, and use named Python "
            "functions instead.",
            stacklevel=3,
        )
        return {"class_name": "__lambda__", "config": {"value": _func_dump(obj)}}
    return _NOT_SPECIAL


def serialize_keras_object(obj):
    """The config dict of ``obj`` (a Keras object, a function, or nested lists, tuples and
    dicts of them), which `deserialize_keras_object` turns back into an equal object."""
    if obj is None or isinstance(obj, PLAIN_TYPES):
        return obj
    if isinstance(obj, (list, tuple)):
        items = [serialize_keras_object(x) for x in obj]
        return tuple(items) if isinstance(obj, tuple) else items
    if isinstance(obj, dict):
        return serialize_dict(obj)
    special = _serialize_special(obj)
    if special is not _NOT_SPECIAL:
        return special

    inner_config = _class_or_fn_config(obj)
    if isinstance(obj, types.FunctionType):
        # Keras writes every function this way: a name to look up when loading.
        config = {
            "module": "builtins",
            "class_name": "function",
            "config": inner_config,
            "registered_name": "function",
        }
        _record_serialized(obj, config)
        return config
    cls = type(obj)
    public = _public_keras_module(cls)
    if public is not None:
        module, registered_name = public, None
    else:
        module = cls.__module__
        if module.startswith("ferroflow.keras."):  # Keras's private modules: keras.src.*
            module = "keras.src." + module[len("ferroflow.keras.") :]
        registered_name = object_registration.get_registered_name(cls)
    config = {
        "module": module,
        "class_name": cls.__name__,
        "config": inner_config,
        "registered_name": registered_name,
    }
    _add_build_and_compile_config(obj, config)
    _record_serialized(obj, config)
    return config


def _add_build_and_compile_config(obj, config):
    from ferroflow.keras.saving import model_config

    build_config = model_config.get_build_config(obj)
    if build_config is not None:
        config["build_config"] = serialize_dict(build_config)
    compile_config = model_config.get_compile_config(obj)
    if compile_config is not None:
        config["compile_config"] = serialize_dict(compile_config)


# --- deserializing ----------------------------------------------------------------------------


def _lookup_builtin_function(name):
    for module_name in _BUILTIN_FUNCTION_MODULES:
        module = _ferroflow_module(f"keras.{module_name}")
        if module is None:
            continue
        found = getattr(module, "ALL_OBJECTS_DICT", {}).get(name)
        if found is None:
            found = getattr(module, name, None)
        if isinstance(found, types.FunctionType):
            return found
    return None


def _lookup_module_object(module, name, obj_type):
    """``name`` in the ferroflow module standing for ``module`` ("keras.layers", or Keras's
    private "keras.src.models.functional"), or a ferroflow Keras module named outright."""
    if module.startswith("keras.src."):
        parts = module.split(".")[2:]
        candidates = ["keras." + ".".join(parts), f"keras.{parts[0]}", "keras"]
    elif module == "keras" or module.startswith("keras."):
        candidates = [module]
    elif module.startswith("ferroflow.keras"):
        candidates = [module[len("ferroflow.") :]]
    else:
        return None
    for candidate in candidates:
        found = getattr(_ferroflow_module(candidate), name, None)
        if found is None:
            continue
        if obj_type == "function" and isinstance(found, types.FunctionType):
            if candidate.split(".")[-1] in _BUILTIN_FUNCTION_MODULES:
                return found
        elif obj_type == "class" and inspect.isclass(found):
            return found
    return None


def _retrieve_class_or_fn(name, registered_name, module, obj_type, full_config, custom_objects):
    key = name if obj_type == "function" else registered_name
    found = object_registration.get_registered_object(key, custom_objects=custom_objects)
    if found is None and obj_type == "class":
        found = object_registration.get_registered_object(name, custom_objects=custom_objects)
    if found is not None:
        return found
    if module:
        found = _lookup_module_object(module, name, obj_type)
        if found is not None:
            return found
        if obj_type == "function" and module == "builtins":
            found = _lookup_builtin_function(name)
            if found is not None:
                return found
            if ">" not in name:  # saved by Keras <= 3.6: a registered function by bare name
                for custom_name, custom_object in (custom_objects or {}).items():
                    if custom_name.endswith(f">{name}"):
                        return custom_object
    raise TypeError(
        f"Could not locate {obj_type} '{name}'. Make sure custom classes and functions are "
        "decorated with `@keras.saving.register_keras_serializable()`. If they are already "
        "decorated, make sure they are all imported so that the decorator is run before trying "
        f"to load them. Full object config: {full_config}"
    )


def _deserialize_special(class_name, inner_config, custom_objects, safe_mode):
    from ferroflow.array_ops import convert_to_tensor

    if class_name == "__tensor__":
        return convert_to_tensor(np.array(inner_config["value"], dtype=inner_config["dtype"]))
    if class_name == "__numpy__":
        return np.array(inner_config["value"], dtype=inner_config["dtype"])
    if class_name == "__bytes__":
        return inner_config["value"].encode("utf-8")
    if class_name == "__ellipsis__":
        return Ellipsis
    if class_name == "__slice__":
        return slice(
            *(
                deserialize_keras_object(inner_config[k], custom_objects, safe_mode)
                for k in ("start", "stop", "step")
            )
        )
    if class_name == "__lambda__":
        if safe_mode:
            raise ValueError(
                "Requested the deserialization of a Python lambda. This carries a potential "
                "risk of arbitrary code execution and thus it is disallowed by default. If you "
                "trust the source of the artifact, you can override this error by passing "
                "`safe_mode=False` to the loading function."
            )
        return _func_load(inner_config["value"])
    # ferroflow has no dtype policies: a layer's dtype argument takes the policy's name.
    if class_name == "DTypePolicy":
        return inner_config.get("name")
    raise KeyError(class_name)


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """The object a `serialize_keras_object` config describes. ``custom_objects`` maps names
    (class names or registered names) to classes and functions that are not built in;
    ``safe_mode`` refuses to load serialized lambdas (arbitrary code)."""
    scoped_safe_mode = _in_safe_mode()
    safe_mode = scoped_safe_mode if scoped_safe_mode is not None else safe_mode
    custom_objects = {
        **(custom_objects or {}),
        **object_registration.scoped_custom_objects(),
        **object_registration.GLOBAL_CUSTOM_OBJECTS,
    }
    if config is None or isinstance(config, (bool, int, float)):
        return config
    if isinstance(config, str):
        # Legacy formats saved plain functions by name.
        return custom_objects.get(config, config)
    if isinstance(config, (list, tuple)):
        return [deserialize_keras_object(x, custom_objects, safe_mode) for x in config]
    if not isinstance(config, dict):
        raise TypeError(f"Could not parse config: {config}")
    if "class_name" not in config or "config" not in config:
        return {
            key: deserialize_keras_object(value, custom_objects, safe_mode)
            for key, value in config.items()
        }

    class_name = config["class_name"]
    inner_config = config["config"] if config["config"] is not None else {}
    if class_name == "__keras_tensor__":
        return config  # a functional model's `from_config` reads these itself
    try:
        return _deserialize_special(class_name, inner_config, custom_objects, safe_mode)
    except KeyError:
        pass

    module = config.get("module")
    registered_name = config.get("registered_name", class_name)
    if class_name == "function":
        if not isinstance(inner_config, str):
            raise TypeError(
                "Expected 'config' to be a non-null str for a function classname,\n"
                f"instead got {type(inner_config)}\nFull config: {config}"
            )
        return _retrieve_class_or_fn(
            inner_config, registered_name, module, "function", config, custom_objects
        )
    if not isinstance(inner_config, dict):
        raise TypeError(
            f"Expected 'config' to be a dict for {class_name},\ninstead got "
            f"{type(inner_config)}\nFull config: {config}"
        )
    sharing = _sharing()
    shared_id = config.get("shared_object_id")
    if sharing is not None and shared_id in sharing[1]:
        return sharing[1][shared_id]

    cls = _retrieve_class_or_fn(
        class_name, registered_name, module, "class", config, custom_objects
    )
    if isinstance(cls, types.FunctionType):
        return cls
    instance = _instantiate(cls, inner_config, config, custom_objects, safe_mode)
    if sharing is not None and shared_id is not None:
        sharing[1][shared_id] = instance
    return instance


def _instantiate(cls, inner_config, config, custom_objects, safe_mode):
    from ferroflow.keras.saving import model_config

    with object_registration.CustomObjectScope(custom_objects), SafeModeScope(safe_mode):
        try:
            if hasattr(cls, "from_config"):
                instance = cls.from_config(inner_config)
            else:
                instance = cls(**inner_config)
        except TypeError as e:
            raise TypeError(
                f"{cls} could not be deserialized properly. Please ensure that components that "
                "are Python object instances (layers, models, etc.) returned by `get_config()` "
                "are explicitly deserialized in the model's `from_config()` method."
                f"\n\nconfig={config}.\n\nException encountered: {e}"
            ) from e
        build_config = config.get("build_config")
        if build_config:
            model_config.build_from_config(instance, build_config)
        compile_config = config.get("compile_config")
        if compile_config:
            model_config.compile_from_config(instance, compile_config)
    return instance
