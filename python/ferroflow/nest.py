"""`tf.nest`: flattening and rebuilding nested lists, tuples, namedtuples and dicts, in
TensorFlow's order (dict entries by sorted key)."""

import collections.abc

__all__ = ["flatten", "is_nested", "map_structure", "pack_sequence_as"]


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
