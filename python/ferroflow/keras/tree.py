"""`keras.tree`: Keras 3's structure utilities, as Keras runs them under TensorFlow (over
``optree`` with ``None`` a leaf). Lists, tuples, namedtuples, dicts (sorted by key),
``OrderedDict`` (insertion order), ``defaultdict`` (sorted) and ``deque`` are nodes; everything
else is a leaf. Mismatched structures raise ``ValueError`` with optree's messages, which is where
these functions differ from `tf.nest` (``TypeError`` for a list against a tuple, for one)."""

import collections

__all__ = [
    "MAP_TO_NONE",
    "assert_same_paths",
    "assert_same_structure",
    "flatten",
    "flatten_with_path",
    "is_nested",
    "lists_to_tuples",
    "map_shape_structure",
    "map_structure",
    "map_structure_up_to",
    "pack_sequence_as",
    "traverse",
]


class MAP_TO_NONE:  # noqa: N801 - Keras's name
    """Returned by a `traverse` function to put ``None`` in place of a node."""


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _sorted_keys(mapping):
    try:
        return sorted(mapping)
    except TypeError:  # keys of mixed types: optree orders them by type name, then value
        return sorted(mapping, key=lambda k: (type(k).__qualname__, repr(k)))


def _node(value, none_is_leaf=True):
    """(children, keys, rebuild) of a node, or None for a leaf. ``keys`` are the path entries
    of the children; ``rebuild(children)`` makes a node of the same kind."""
    if value is None:
        return None if none_is_leaf else ([], [], lambda children: None)
    kind = type(value)
    if kind is list:
        return list(value), list(range(len(value))), list
    if kind is tuple:
        return list(value), list(range(len(value))), tuple
    if _is_namedtuple(value):
        return list(value), list(range(len(value))), lambda children: kind(*children)
    if kind is collections.OrderedDict:
        keys = list(value)
        return [value[k] for k in keys], keys, lambda children: kind(zip(keys, children))
    if kind is collections.defaultdict:
        keys = _sorted_keys(value)
        factory = value.default_factory
        return (
            [value[k] for k in keys],
            keys,
            lambda children: collections.defaultdict(factory, zip(keys, children)),
        )
    if kind is dict:
        keys = _sorted_keys(value)
        order = list(value)

        def rebuild(children):
            # A dict comes back in its original key order, its values taken by key.
            by_key = dict(zip(keys, children))
            return {k: by_key[k] for k in order}

        return [value[k] for k in keys], keys, rebuild
    if kind is collections.deque:
        maxlen = value.maxlen
        return (
            list(value),
            list(range(len(value))),
            lambda children: collections.deque(children, maxlen=maxlen),
        )
    return None


def _is_leaf(value, none_is_leaf=True):
    return _node(value, none_is_leaf) is None


def _flatten(structure, is_leaf=None, none_is_leaf=True, path=()):
    """[(path, leaf)] in order."""
    if is_leaf is not None and is_leaf(structure):
        return [(path, structure)]
    node = _node(structure, none_is_leaf)
    if node is None:
        return [(path, structure)]
    children, keys, _ = node
    out = []
    for key, child in zip(keys, children):
        out.extend(_flatten(child, is_leaf, none_is_leaf, (*path, key)))
    return out


def _unflatten(structure, leaves, is_leaf=None, none_is_leaf=True):
    if is_leaf is not None and is_leaf(structure):
        return next(leaves)
    node = _node(structure, none_is_leaf)
    if node is None:
        return next(leaves)
    children, _, rebuild = node
    return rebuild([_unflatten(c, leaves, is_leaf, none_is_leaf) for c in children])


def _mismatch(expected, got):
    """optree's message for ``got`` where a node like ``expected`` was expected."""
    kind = type(expected)
    if kind is list or kind is tuple or kind is collections.deque or _is_namedtuple(expected):
        name = "namedtuple" if _is_namedtuple(expected) else kind.__name__
        if type(got) is not kind:
            return f"Expected an instance of {kind.__name__}, got {got!r}."
        return (
            f"{name} arity mismatch; expected: {len(expected)}, got: {len(got)}; {name}: {got!r}."
        )
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return f"Expected an instance of {kind.__name__}, got {got!r}."
        expected_keys, got_keys = _sorted_keys(expected), _sorted_keys(got)
        missing = [k for k in expected_keys if k not in got]
        extra = [k for k in got_keys if k not in expected]
        return (
            f"dictionary key mismatch; expected key(s): {expected_keys}, got key(s): {got_keys}, "
            f"missing key(s): {missing}, extra key(s): {extra}; dict: {got!r}."
        )
    return f"Expected an instance of {kind.__name__}, got {got!r}."


def _same_node(expected, got):
    """Whether ``got`` is a node of ``expected``'s kind and arity (dicts of any of the three
    kinds match one another by keys)."""
    if expected is None:
        return got is None
    if isinstance(expected, dict):
        return isinstance(got, dict) and set(expected) == set(got)
    return type(got) is type(expected) and len(got) == len(expected)


def _tree_map(func, structure, others, is_leaf=None, none_is_leaf=True):
    """optree's ``tree_map``: ``structure`` sets the shape; each other structure must have
    the same nodes down to ``structure``'s leaves (there it may hold anything)."""
    if (is_leaf is not None and is_leaf(structure)) or _is_leaf(structure, none_is_leaf):
        return func(structure, *others)
    children, keys, rebuild = _node(structure, none_is_leaf)
    other_children = []
    for other in others:
        if not _same_node(structure, other):
            raise ValueError(_mismatch(structure, other))
        if isinstance(structure, dict):
            other_children.append([other[k] for k in keys])
        else:
            other_children.append(list(other))
    mapped = [
        _tree_map(func, child, [oc[i] for oc in other_children], is_leaf, none_is_leaf)
        for i, child in enumerate(children)
    ]
    return rebuild(mapped)


def is_nested(structure):
    """Whether ``structure`` is a list, tuple, dict... (not a leaf)."""
    return not _is_leaf(structure)


def traverse(func, structure, top_down=True):
    """Applies ``func`` to every node and leaf, top down (a non-None result replaces the
    subtree) or bottom up; `MAP_TO_NONE` stands for ``None``."""

    def children_traversed():
        node = _node(structure)
        if node is None:
            return structure
        children, _, rebuild = node
        return rebuild([traverse(func, c, top_down=top_down) for c in children])

    if top_down:
        result = func(structure)
        if result is None:
            return children_traversed()
    else:
        traversed = children_traversed()
        result = func(traversed)
        if result is None:
            return traversed
    if result is MAP_TO_NONE:
        return None
    return result


def flatten(structure):
    """The leaves of ``structure`` in order (a leaf gives ``[leaf]``)."""
    return [leaf for _, leaf in _flatten(structure)]


def flatten_with_path(structure):
    """``[(path, leaf)]``, each path a tuple of indices and keys."""
    return _flatten(structure)


def map_structure(func, *structures, none_is_leaf=True):
    """``func`` applied to the leaves of ``structures`` (all of the same structure)."""
    if not structures:
        raise ValueError("Must provide at least one structure")
    first = structures[0]
    if len(structures) == 1 and _is_leaf(first):
        if first is None and not none_is_leaf:
            return None
        return func(first)

    def checked(*leaves):
        if len(structures) > 1 and not all(_is_leaf(x, none_is_leaf) for x in leaves):
            raise ValueError("Structures don't have the same nested structure.")
        return func(*leaves)

    return _tree_map(checked, first, structures[1:], none_is_leaf=none_is_leaf)


def map_structure_up_to(shallow_structure, func, *structures):
    """``func`` applied to the subtrees of ``structures`` at the leaves of
    ``shallow_structure``."""
    if not structures:
        raise ValueError("Must provide at least one structure")

    def checked(shallow, *subtrees):
        if not _is_leaf(shallow):
            raise ValueError("Structures don't have the same nested structure.")
        return func(*subtrees)

    return _tree_map(checked, shallow_structure, structures)


def assert_same_structure(a, b, check_types=None):
    """Raises ``ValueError`` unless ``a`` and ``b`` have the same structure."""
    if check_types is not None:
        import warnings

        if check_types:
            message = (
                "The `check_types` argument is deprecated and no longer has any effect, "
                "please remove."
            )
        else:
            message = (
                "The `check_types` argument is deprecated and no longer has any effect. For a "
                "looser check, use `keras.tree.assert_same_paths()`, which considers `list`, "
                "`tuple`, `namedtuple` and `deque` as matching"
            )
        warnings.warn(message, DeprecationWarning, stacklevel=2)

    def check(x, y):
        if not _is_leaf(x) or not _is_leaf(y):
            raise ValueError("Structures don't have the same nested structure.")

    _tree_map(check, a, [b])


def assert_same_paths(a, b):
    """Raises ``ValueError`` unless ``a`` and ``b`` have the same leaf paths."""
    a_paths = {path for path, _ in _flatten(a)}
    b_paths = {path for path, _ in _flatten(b)}
    if a_paths != b_paths:
        message = "`a` and `b` don't have the same paths."
        if a_paths - b_paths:
            message += f"\nPaths in `a` missing in `b`:\n{a_paths - b_paths}"
        if b_paths - a_paths:
            message += f"\nPaths in `b` missing in `a`:\n{b_paths - a_paths}"
        raise ValueError(message)


def pack_sequence_as(structure, flat_sequence):
    """``flat_sequence``'s items put into the structure of ``structure``."""
    flat_sequence = list(flat_sequence)
    expected = len(_flatten(structure))
    if len(flat_sequence) < expected:
        raise ValueError(
            f"Too few leaves for PyTreeSpec; expected: {expected}, got: {len(flat_sequence)}."
        )
    if len(flat_sequence) > expected:
        raise ValueError(f"Too many leaves for PyTreeSpec; expected: {expected}.")
    return _unflatten(structure, iter(flat_sequence))


def lists_to_tuples(structure):
    """``structure`` with every list turned into a tuple."""
    return traverse(lambda x: tuple(x) if isinstance(x, list) else None, structure, top_down=False)


def map_shape_structure(func, structure):
    """``func`` applied to every shape tuple (a list or tuple of ints and Nones) in
    ``structure``."""

    def is_shape(x):
        return isinstance(x, (list, tuple)) and all(isinstance(e, (int, type(None))) for e in x)

    return _tree_map(lambda x: func(x), structure, [], is_leaf=is_shape)
