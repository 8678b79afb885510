"""Keras's registry of custom objects: `register_keras_serializable` files a class or function
under ``"package>name"`` so that a saved config naming it can be loaded without passing it in
``custom_objects``; `custom_object_scope` makes objects visible to loads inside a ``with``.

>>> import ferroflow as tf
>>> @tf.keras.saving.register_keras_serializable(package="docs")
... def scaled(x):
...     return 2.0 * x
>>> tf.keras.saving.get_registered_name(scaled)
'docs>scaled'
>>> tf.keras.saving.get_registered_object("docs>scaled") is scaled
True
"""

import inspect
import threading

__all__ = [
    "CustomObjectScope",
    "custom_object_scope",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "register_keras_serializable",
]

# "package>name" -> object, and object -> "package>name" (Keras's two global dicts).
GLOBAL_CUSTOM_OBJECTS = {}
GLOBAL_CUSTOM_NAMES = {}

_scopes = threading.local()


def scoped_custom_objects():
    """The objects of the innermost `custom_object_scope` open on this thread."""
    return getattr(_scopes, "objects", {})


class CustomObjectScope:
    """Exposes ``custom_objects`` (``{name: class or function}``) to deserialization inside a
    ``with`` block, as if they had been passed to every load made there."""

    def __init__(self, custom_objects):
        self.custom_objects = dict(custom_objects or {})
        self._backup = None

    def __enter__(self):
        self._backup = scoped_custom_objects()
        _scopes.objects = self.custom_objects.copy()
        return self

    def __exit__(self, *exc_info):
        _scopes.objects = self._backup


custom_object_scope = CustomObjectScope


def get_custom_objects():
    """The live global dict of registered objects, by registered name."""
    return GLOBAL_CUSTOM_OBJECTS


def register_keras_serializable(package="Custom", name=None):
    """A decorator registering a class (which must have `get_config`) or a function under
    ``"package>name"`` (``name`` defaults to its ``__name__``)."""

    def decorator(arg):
        class_name = name if name is not None else arg.__name__
        registered_name = f"{package}>{class_name}"
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        GLOBAL_CUSTOM_OBJECTS[registered_name] = arg
        GLOBAL_CUSTOM_NAMES[arg] = registered_name
        return arg

    return decorator


def get_registered_name(obj):
    """The name ``obj`` is registered under, else its ``__name__``."""
    try:
        return GLOBAL_CUSTOM_NAMES[obj]
    except (KeyError, TypeError):  # TypeError: an unhashable object is not registered
        return obj.__name__


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object registered as ``name``: looked up in the open `custom_object_scope`, the
    global registry, ``custom_objects`` then ``module_objects``; None when none has it."""
    scoped = scoped_custom_objects()
    if name in scoped:
        return scoped[name]
    if name in GLOBAL_CUSTOM_OBJECTS:
        return GLOBAL_CUSTOM_OBJECTS[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    return None
