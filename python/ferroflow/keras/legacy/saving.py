"""`keras.legacy.saving`: Keras 2's ``{"class_name", "config"}`` serialization, where nested
objects carry ``"__passive_serialization__"`` and functions are stored by name."""

import inspect

from ferroflow.keras.saving import object_registration

__all__ = ["deserialize_keras_object", "serialize_keras_object"]


def serialize_keras_object(instance):
    """Keras 2's config of ``instance``: ``{"class_name", "config"}`` for an object with
    ``get_config`` (its non-string items serialized in turn), the registered name of a
    function or class."""
    instance = inspect.unwrap(instance)
    if instance is None:
        return None
    if hasattr(instance, "get_config"):
        config = {}
        for key, item in instance.get_config().items():
            if isinstance(item, str):
                config[key] = item
                continue
            try:
                serialized = serialize_keras_object(item)
                if isinstance(serialized, dict) and not isinstance(item, dict):
                    serialized["__passive_serialization__"] = True
                config[key] = serialized
            except ValueError:
                config[key] = item
        name = object_registration.get_registered_name(type(instance))
        return {"class_name": name, "config": config}
    if hasattr(instance, "__name__"):
        return object_registration.get_registered_name(instance)
    raise ValueError(f"Cannot serialize {instance} because it doesn't implement `get_config()`.")


def _unknown(kind, name):
    return ValueError(
        f"Unknown {kind}: '{name}'. Please ensure you are using a "
        "`keras.utils.custom_object_scope` and that this object is included in the scope. See "
        "https://www.tensorflow.org/guide/keras/save_and_serialize"
        "#registering_the_custom_object for details."
    )


def _class_and_config(config, module_objects, custom_objects, printable_module_name):
    if not isinstance(config, dict) or "class_name" not in config or "config" not in config:
        raise ValueError(
            f"Improper config format for {config}. Expecting python dict contains `class_name` "
            "and `config` as keys"
        )
    class_name = config["class_name"]
    cls = object_registration.get_registered_object(class_name, custom_objects, module_objects)
    if cls is None:
        raise _unknown(printable_module_name, class_name)
    cls_config = config["config"]
    if isinstance(cls_config, list):
        return cls, cls_config
    revived = {}
    for key, item in cls_config.items():
        if key == "name":
            revived[key] = item
        elif isinstance(item, dict) and "__passive_serialization__" in item:
            revived[key] = deserialize_keras_object(
                item, module_objects, custom_objects, printable_module_name="config_item"
            )
        elif isinstance(item, str):
            found = object_registration.get_registered_object(item, custom_objects, module_objects)
            if inspect.isfunction(found):
                revived[key] = found
    cls_config.update(revived)
    return cls, cls_config


def deserialize_keras_object(
    identifier, module_objects=None, custom_objects=None, printable_module_name="object"
):
    """The object of a Keras 2 config (a dict), a name in ``custom_objects`` (other names
    fail with Keras 3's ``AttributeError``), or a function."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        cls, cls_config = _class_and_config(
            identifier, module_objects, custom_objects, printable_module_name
        )
        custom_objects = custom_objects or {}
        if hasattr(cls, "from_config"):
            if "custom_objects" in inspect.getfullargspec(cls.from_config).args:
                return cls.from_config(
                    cls_config,
                    custom_objects={**object_registration.GLOBAL_CUSTOM_OBJECTS, **custom_objects},
                )
            with object_registration.CustomObjectScope(custom_objects):
                return cls.from_config(cls_config)
        with object_registration.CustomObjectScope(custom_objects):
            return cls(**cls_config)
    if isinstance(identifier, str):
        if not (custom_objects and identifier in custom_objects):
            # Keras 3 looks the name up in a registry attribute it no longer has.
            raise AttributeError(
                "module 'keras.src.saving.object_registration' has no attribute "
                "'_THREAD_LOCAL_CUSTOM_OBJECTS'"
            )
        obj = custom_objects[identifier]
        return obj() if inspect.isclass(obj) else obj
    if inspect.isfunction(identifier):
        return identifier
    raise ValueError(f"Could not interpret serialized {printable_module_name}: {identifier}")
