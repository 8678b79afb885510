"""Which Python objects a checkpoint saves, and the named edges between them, as TensorFlow's
`AutoTrackable` tracks them: variables are leaves; `tf.Module`s, `tf.train.Checkpoint`s and
`AutoTrackable`s have their attributes (in assignment order) as children; lists, tuples and
dicts have their trackable elements (named by index, namedtuple field or key) as children."""

from ferroflow.train import _deferred
from ferroflow.variables import Variable

__all__ = [
    "AutoTrackable",
    "MISSING",
    "child_named",
    "children_of",
    "escape_local_name",
    "is_anchor",
    "is_trackable",
    "is_variable",
]

# What `child_named` returns for an edge the object does not have (yet).
MISSING = object()

_CONTAINERS = (list, tuple, dict)


class AutoTrackable:
    """An object whose trackable attributes are checkpointed under their attribute names.

    Assigning an attribute that a restored checkpoint holds values for restores them then
    (TensorFlow's restore-on-create). Attributes named in ``_no_dependency_attributes`` are
    internal state and never saved.
    """

    _no_dependency_attributes = frozenset()

    def __setattr__(self, name, value):
        if name not in type(self)._no_dependency_attributes:
            _deferred.note_attribute(self, name, value)
        super().__setattr__(name, value)


_module_type = None


def _is_module(obj):
    # Imported on first use: ferroflow.module may itself import this package for its hook.
    global _module_type
    if _module_type is None:
        from ferroflow.module import Module

        _module_type = Module
    return isinstance(obj, _module_type)


def is_variable(obj):
    return isinstance(obj, Variable)


def _has_custom_children(obj):
    return callable(getattr(type(obj), "_trackable_children", None))


def _tracks_attributes(obj):
    return isinstance(obj, AutoTrackable) or _is_module(obj)


def is_trackable(obj):
    """Whether ``obj`` is saved by a checkpoint that reaches it."""
    return (
        isinstance(obj, (Variable, *_CONTAINERS))
        or _has_custom_children(obj)
        or _tracks_attributes(obj)
    )


def is_anchor(obj):
    """Whether ``obj`` can hold restorations waiting for its children: a weakly referenceable
    object with attributes (containers cannot be weakly referenced, variables have no edges)."""
    return not isinstance(obj, (Variable, *_CONTAINERS)) and is_trackable(obj)


def _non_string_key_error(mapping):
    return ValueError(
        f"Unable to save the object {mapping} (a dictionary wrapper constructed automatically on "
        "attribute assignment). The wrapped dictionary contains a non-string key which maps to a "
        "trackable object or mutable data structure.\n\nIf you don't need this dictionary "
        "checkpointed, wrap it in a non-trackable object; it will be subsequently ignored."
    )


def _attribute_children(obj):
    ignored = getattr(type(obj), "_no_dependency_attributes", frozenset()) | getattr(
        type(obj), "_TF_MODULE_IGNORED_PROPERTIES", frozenset()
    )
    return [
        (name, value)
        for name, value in vars(obj).items()
        if name not in ignored and is_trackable(value)
    ]


def children_of(obj):
    """[(local name, child)] in TensorFlow's order: assignment order for attributes and dict
    entries, index order for sequences (non-trackable elements leave gaps in the numbering)."""
    if isinstance(obj, Variable):
        return []
    if isinstance(obj, dict):
        children = []
        for key, value in obj.items():
            if not is_trackable(value):
                continue
            if not isinstance(key, str):
                raise _non_string_key_error(obj)
            children.append((key, value))
        return children
    if isinstance(obj, (list, tuple)):
        return [
            (name, value) for name, value in zip(_element_names(obj), obj) if is_trackable(value)
        ]
    if _has_custom_children(obj):
        return list(obj._trackable_children())
    if _tracks_attributes(obj):
        return _attribute_children(obj)
    return []


def _element_names(sequence):
    """Edge names of a sequence's elements: a namedtuple's field names, else indices."""
    fields = getattr(type(sequence), "_fields", None)
    if isinstance(sequence, tuple) and isinstance(fields, tuple) and len(fields) == len(sequence):
        return [str(f) for f in fields]
    return [str(i) for i in range(len(sequence))]


def child_named(obj, name):
    """The child of ``obj`` along edge ``name``, or MISSING."""
    if isinstance(obj, tuple) and hasattr(type(obj), "_fields"):
        child = dict(zip(_element_names(obj), obj)).get(name, MISSING)
    elif isinstance(obj, (list, tuple)):
        if not (name.isdigit() and name.isascii()) or (name != "0" and name.startswith("0")):
            return MISSING
        index = int(name)
        child = obj[index] if index < len(obj) else MISSING
    elif isinstance(obj, dict):
        child = obj.get(name, MISSING)
    elif _has_custom_children(obj):
        child = dict(obj._trackable_children()).get(name, MISSING)
    elif _tracks_attributes(obj):
        child = vars(obj).get(name, MISSING)
        if name in getattr(type(obj), "_no_dependency_attributes", ()):
            child = MISSING
    else:
        child = MISSING
    if child is MISSING:
        # Names an object answers to on restore only (Keras 2's names on Keras 3 models).
        alias = getattr(type(obj), "_checkpoint_alias", None)
        if alias is not None:
            child = alias(obj, name)
    return child if child is MISSING or is_trackable(child) else MISSING


def escape_local_name(name):
    """TensorFlow's escaping of one edge name in a checkpoint key: '.' -> '..', '/' -> '.S'."""
    return name.replace(".", "..").replace("/", ".S")
