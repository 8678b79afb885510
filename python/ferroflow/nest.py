"""`tf.nest`: flattening and rebuilding nested lists, tuples, namedtuples and dicts, in
TensorFlow's order (dict entries by sorted key)."""

import collections.abc

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def is_nested(value):
    return isinstance(value, (list, tuple, collections.abc.Mapping))


def _children(value):
    if isinstance(value, collections.abc.Mapping):
        return [value[k] for k in sorted(value)]
    return list(value)


def flatten(structure, expand_composites=False):
    if not is_nested(structure):
        return [structure]
    out = []
    for child in _children(structure):
        out.extend(flatten(child))
    return out


def _rebuild(structure, leaves):
    if not is_nested(structure):
        return next(leaves)
    children = [_rebuild(c, leaves) for c in _children(structure)]
    if isinstance(structure, collections.abc.Mapping):
        rebuilt = dict(zip(sorted(structure), children))
        return type(structure)((k, rebuilt[k]) for k in structure)
    if _is_namedtuple(structure):
        return type(structure)(*children)
    return type(structure)(children)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    flat_sequence = list(flat_sequence)
    expected = len(flatten(structure))
    if expected != len(flat_sequence):
        raise ValueError(
            f"Could not pack sequence. Structure had {expected} atoms, but flat_sequence had "
            f"{len(flat_sequence)} items."
        )
    return _rebuild(structure, iter(flat_sequence))


def map_structure(func, *structures, **kwargs):
    if not structures:
        raise ValueError("Must provide at least one structure")
    flats = [flatten(s) for s in structures]
    if any(len(f) != len(flats[0]) for f in flats):
        raise ValueError("The two structures don't have the same number of elements.")
    return pack_sequence_as(structures[0], [func(*args) for args in zip(*flats)])


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError (TypeError for differing sequence types) unless both nest alike."""
    if is_nested(nest1) != is_nested(nest2):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {nest1!r}\n\nSecond structure: {nest2!r}"
        )
    if not is_nested(nest1):
        return
    if check_types and _sequence_kind(nest1) != _sequence_kind(nest2):
        raise TypeError(
            "The two structures don't have the same sequence type. Input structure has type "
            f"{type(nest1)}, while shallow structure has type {type(nest2)}."
        )
    first, second = _children(nest1), _children(nest2)
    if len(first) != len(second) or (
        isinstance(nest1, collections.abc.Mapping) and sorted(nest1) != sorted(nest2)
    ):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {nest1!r}\n\nSecond structure: {nest2!r}"
        )
    for a, b in zip(first, second):
        assert_same_structure(a, b, check_types)


def _sequence_kind(value):
    if isinstance(value, collections.abc.Mapping):
        return dict
    return type(value) if _is_namedtuple(value) else (list if isinstance(value, list) else tuple)
