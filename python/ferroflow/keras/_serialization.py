"""Keras's serialised form of a built-in object or a plain function, shared by losses and
metrics: ``{"module", "class_name", "config", "registered_name"}``."""

__all__ = ["serialize_object"]


def serialize_object(value, base, module, kind):
    """The config dict of ``value``: an instance of ``base`` (from Keras module ``module``) or
    a function (its config is its name); ``kind`` names ``base`` in the error."""
    if value is None:
        return None
    if isinstance(value, base):
        return {
            "module": module,
            "class_name": type(value).__name__,
            "config": value.get_config(),
            "registered_name": None,
        }
    name = getattr(value, "__name__", None)
    if name is None:
        raise ValueError(f"Cannot serialize {value!r}: it is neither a {kind} nor a function")
    return {
        "module": "builtins",
        "class_name": "function",
        "config": name,
        "registered_name": "function",
    }
