"""`tf.nest`: flattening and rebuilding nested lists, tuples, namedtuples and dicts, in
TensorFlow's order (dict entries by sorted key).

With `expand_composites=True` a composite value (`SparseTensor`, `IndexedSlices`, any
`CompositeTensor`) counts as a structure whose one child is its components
(`_type_spec._to_components`), and a `TypeSpec` other than `TensorSpec` as one whose child is its
component specs: flattening yields component tensors, packing into a composite or a spec rebuilds
the value (`_from_components`). Without it a composite is a leaf."""

import collections.abc

from ferroflow.type_spec import CompositeTensor, TypeSpec

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def is_nested(value):
    return isinstance(value, (list, tuple, collections.abc.Mapping))


def _is_composite_spec(value):
    from ferroflow.tensor_spec import TensorSpec

    return isinstance(value, TypeSpec) and not isinstance(value, TensorSpec)


def _is_composite(value):
    """A composite value or a composite's spec: nested under `expand_composites=True`."""
    return isinstance(value, CompositeTensor) or _is_composite_spec(value)


def _nested(value, expand_composites):
    return is_nested(value) or (expand_composites and _is_composite(value))


def _children(value):
    if isinstance(value, collections.abc.Mapping):
        return [value[k] for k in sorted(value)]
    if isinstance(value, CompositeTensor):
        return [value._type_spec._to_components(value)]
    if isinstance(value, TypeSpec):
        return [value._component_specs]
    return list(value)


def flatten(structure, expand_composites=False):
    if expand_composites:
        return _flatten_expanding(structure)
    if not is_nested(structure):
        return [structure]
    out = []
    for child in _children(structure):
        out.extend(flatten(child))
    return out


def _flatten_expanding(structure):
    if not _nested(structure, True):
        return [structure]
    out = []
    for child in _children(structure):
        out.extend(_flatten_expanding(child))
    return out


def flatten_up_to(shallow_tree, input_tree):
    """``input_tree``'s parts at the leaves of ``shallow_tree``: a leaf of the shallow tree takes
    the input's whole subtree there (a list given where a tensor is expected stays one value).
    Mappings must have the same keys and sequences the same length, else ValueError; a nested
    shallow node facing a leaf is a TypeError (TensorFlow's `nest.flatten_up_to`)."""
    if not is_nested(shallow_tree):
        return [input_tree]
    if not is_nested(input_tree):
        raise TypeError(
            "If shallow structure is a sequence, input must also be a sequence. Input has type: "
            f"{type(input_tree).__name__}."
        )
    if isinstance(shallow_tree, collections.abc.Mapping):
        if not isinstance(input_tree, collections.abc.Mapping):
            raise TypeError(f"The two structures don't have the same sequence type: {input_tree}.")
        if set(shallow_tree) != set(input_tree):
            raise ValueError(
                f"The two structures don't have the same keys. Input structure has keys "
                f"{sorted(input_tree)}, while shallow structure has keys {sorted(shallow_tree)}."
            )
    elif isinstance(input_tree, collections.abc.Mapping) or len(shallow_tree) != len(input_tree):
        raise ValueError(
            "The two structures don't have the same sequence length. Input structure has length "
            f"{len(input_tree)}, while shallow structure has length {len(shallow_tree)}."
        )
    out = []
    for shallow, value in zip(_children(shallow_tree), _children(input_tree)):
        out.extend(flatten_up_to(shallow, value))
    return out


def _rebuild(structure, leaves, expand_composites):
    if not _nested(structure, expand_composites):
        return next(leaves)
    children = [_rebuild(c, leaves, expand_composites) for c in _children(structure)]
    if isinstance(structure, collections.abc.Mapping):
        rebuilt = dict(zip(sorted(structure), children))
        return type(structure)((k, rebuilt[k]) for k in structure)
    if isinstance(structure, CompositeTensor):
        return structure._type_spec._from_components(children[0])
    if isinstance(structure, TypeSpec):
        return structure._from_components(children[0])
    if _is_namedtuple(structure):
        return type(structure)(*children)
    return type(structure)(children)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    flat_sequence = list(flat_sequence)
    expected = len(flatten(structure, expand_composites))
    if expected != len(flat_sequence):
        raise ValueError(
            f"Could not pack sequence. Structure had {expected} atoms, but flat_sequence had "
            f"{len(flat_sequence)} items."
        )
    return _rebuild(structure, iter(flat_sequence), bool(expand_composites))


def map_structure(func, *structures, **kwargs):
    """`func` applied to the leaves of `structures` (alike structures), packed as the first.
    Keyword arguments: `check_types` (default True) and `expand_composites`."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structures:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(
            "Only valid keyword arguments are `check_types` and `expand_composites`, not: "
            f"`{', '.join(kwargs)}`"
        )
    del check_types  # accepted for TensorFlow's signature; leaves are matched by count
    flats = [flatten(s, expand_composites) for s in structures]
    if any(len(f) != len(flats[0]) for f in flats):
        raise ValueError("The two structures don't have the same number of elements.")
    return pack_sequence_as(structures[0], [func(*args) for args in zip(*flats)], expand_composites)


def _describe(value):
    return f"type={type(value).__name__} str={value}"


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError (TypeError for differing sequence types) unless both nest alike.
    With `expand_composites`, two composites (or specs) must have a common supertype spec."""
    expand = bool(expand_composites)
    if _nested(nest1, expand) != _nested(nest2, expand):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {nest1!r}\n\nSecond structure: {nest2!r}"
        )
    if not _nested(nest1, expand):
        return
    if expand and _is_composite(nest1) and _is_composite(nest2):
        spec1 = nest1 if isinstance(nest1, TypeSpec) else nest1._type_spec
        spec2 = nest2 if isinstance(nest2, TypeSpec) else nest2._type_spec
        if spec1.most_specific_common_supertype([spec2]) is None:
            raise ValueError(
                "The two structures don't have the same nested structure.\n\n"
                f"First structure: {_describe(nest1)}\n\nSecond structure: {_describe(nest2)}"
                "\n\nMore specifically: Incompatible CompositeTensor TypeSpecs: "
                f"{_describe(spec1)} vs. {_describe(spec2)}"
            )
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
        assert_same_structure(a, b, check_types, expand)


def _sequence_kind(value):
    if isinstance(value, collections.abc.Mapping):
        return dict
    if isinstance(value, (CompositeTensor, TypeSpec)):
        return type(value)
    return type(value) if _is_namedtuple(value) else (list if isinstance(value, list) else tuple)
