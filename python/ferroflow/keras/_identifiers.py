"""Keras's `get(identifier)` rule, shared by the regularizers and the constraints: None stays
None, a config dict is deserialized, a string names a built-in, and a callable comes back as it
is (a class is instantiated with no arguments)."""

import inspect as _inspect


def resolve(identifier, objects, deserialize, kind):
    """The object for ``identifier``; ValueError naming ``kind`` when nothing matches."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        try:
            obj = deserialize(identifier)
        except TypeError as e:
            # An unknown class name: Keras reports the identifier, not the failed lookup (a
            # known class with a bad config keeps its TypeError).
            if not str(e).startswith("Could not locate"):
                raise
            obj = None
    elif isinstance(identifier, str):
        obj = objects.get(identifier, None)
    else:
        obj = identifier
    if callable(obj):
        return obj() if _inspect.isclass(obj) else obj
    raise ValueError(f"Could not interpret {kind} identifier: {identifier}")
