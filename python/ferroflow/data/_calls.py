"""How the transformations of this package (all but `map` and `filter`) call user functions:
`call` runs one on its arguments, `output_spec` learns the spec of what it returns.

Both go through here so that these calls can later be routed through traced graphs as
`map`'s are, in one place."""

from ferroflow.data import _composite, _structure

__all__ = ["call", "output_spec"]


def call(fn, args):
    """``fn`` on ``args`` as TensorFlow's structured functions pass them: a tuple is unpacked
    into separate arguments (``(state, element)`` for `scan`, an element's components for
    `flat_map`), anything else is the one argument."""
    return fn(*args) if type(args) is tuple else fn(args)


def example(spec, size, fill):
    """A value of the structure of specs ``spec`` (unknown dimensions ``size`` long, entries
    ``fill``); a nested dataset is an empty one of its element spec."""
    from ferroflow.data._specs import DatasetSpec

    def leaf(s):
        if isinstance(s, DatasetSpec):
            from ferroflow.data._nested import ListDataset

            return ListDataset([], s.element_spec)
        return _composite.example(s, size, fill)

    return _structure.map_element(leaf, spec)


def output_spec(fn, arg_spec, describe=None):
    """The spec of what ``fn`` returns for arguments of ``arg_spec`` (``describe`` turns a
    result into its spec; by default the spec of its normalized element), from calls on
    stand-in values of zeros and of ones whose unknown dimensions are tried at two sizes:
    dimensions that change with them come out unknown, as in TensorFlow's trace. None when
    ``fn`` cannot run on stand-ins (the caller then learns the spec from real values)."""
    if describe is None:

        def describe(out):
            return _structure.spec_of(_structure.normalize(out))

    leaves = _structure.flatten(arg_spec)
    unknown = any(_composite.unknown_dims(s) for s in leaves if hasattr(s, "shape"))
    trials = ((12, 0), (24, 1)) if unknown else ((1, 0), (1, 1))
    try:
        specs = [describe(call(fn, example(arg_spec, size, fill))) for size, fill in trials]
        merged = specs[0]
        for other in specs[1:]:
            merged = _structure.merge_specs(merged, other, "function outputs")
    except Exception:  # noqa: BLE001 - stand-ins a function cannot take: real values decide
        return None
    return merged
