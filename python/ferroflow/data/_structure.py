"""Dataset elements: tuples and dicts nesting tensors (a Python list is one tensor, as in
`tf.data`), their `TensorSpec`s, and the numpy arrays that slicing and batching work on."""

from ferroflow import _core
from ferroflow.array_ops import convert_to_tensor, stack
from ferroflow.tensor_shape import TensorShape
from ferroflow.tensor_spec import TensorSpec
from ferroflow.variables import Variable

__all__ = [
    "assert_same_structure",
    "batched_spec",
    "flatten",
    "map_element",
    "merge_specs",
    "normalize",
    "pack_as",
    "spec_of",
    "to_numpy",
    "to_tensor",
    "unbatched_spec",
]


def _sorted_keys(mapping):
    return sorted(mapping)


def map_element(fn, *elements):
    """``fn`` applied to the leaves of ``elements`` (alike in structure), rebuilt in the first
    one's structure."""
    first = elements[0]
    if isinstance(first, dict):
        # Leaves are visited in sorted-key order (so `pack_as` can follow `flatten`), and the
        # dict keeps its own key order.
        done = {k: map_element(fn, *(e[k] for e in elements)) for k in _sorted_keys(first)}
        return type(first)((k, done[k]) for k in first)
    if isinstance(first, tuple):
        children = [map_element(fn, *parts) for parts in zip(*elements)]
        return type(first)(*children) if hasattr(first, "_fields") else tuple(children)
    return fn(*elements)


def flatten(element):
    """The leaves of ``element`` in `tf.nest` order (dict entries by sorted key)."""
    if isinstance(element, dict):
        return [leaf for k in _sorted_keys(element) for leaf in flatten(element[k])]
    if isinstance(element, tuple):
        return [leaf for child in element for leaf in flatten(child)]
    return [element]


def pack_as(structure, leaves):
    """``leaves`` (in `flatten` order) put back into ``structure``."""
    it = iter(leaves)
    return map_element(lambda _: next(it), structure)


def assert_same_structure(first, second, what):
    if _shape_of_structure(first) != _shape_of_structure(second):
        raise TypeError(
            f"Incompatible dataset elements: {what} have different structures: "
            f"{first!r} and {second!r}."
        )


def _shape_of_structure(element):
    if isinstance(element, dict):
        return ("dict", tuple((k, _shape_of_structure(element[k])) for k in sorted(element)))
    if isinstance(element, tuple):
        return ("tuple", tuple(_shape_of_structure(c) for c in element))
    return "leaf"


def to_tensor(value):
    """One leaf as a tensor: lists (even of tensors) become one tensor, as in `tf.data`."""
    if isinstance(value, _core.Tensor):
        return value
    if isinstance(value, Variable):
        return value.value()
    if isinstance(value, list) and any(isinstance(v, (_core.Tensor, Variable)) for v in value):
        return stack([to_tensor(v) for v in value])
    return convert_to_tensor(value)


def normalize(element):
    """An element as `tf.data` holds it: every leaf a tensor."""
    return map_element(to_tensor, element)


def to_numpy(element):
    """An element's leaves as numpy values (numpy scalars for scalars, as `Tensor.numpy`)."""
    return map_element(lambda t: t.numpy(), element)


def spec_of(element):
    """The `TensorSpec` structure of an element of tensors."""
    return map_element(lambda t: TensorSpec(t.shape, t.dtype), element)


def batched_spec(spec, batch_size=None):
    """The spec of a batch of elements of ``spec`` (leading dimension ``batch_size``)."""

    def batched(s):
        if s.shape.rank is None:
            return TensorSpec(TensorShape(None), s.dtype)
        return TensorSpec([batch_size, *s.shape.as_list()], s.dtype)

    return map_element(batched, spec)


def unbatched_spec(spec):
    """The spec of the rows of elements of ``spec``."""

    def row(s):
        if s.shape.rank is None:
            return TensorSpec(TensorShape(None), s.dtype)
        if s.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        return TensorSpec(s.shape.as_list()[1:], s.dtype)

    return map_element(row, spec)


def merge_specs(first, second, what):
    """The most specific spec both ``first`` and ``second`` satisfy (differing dimensions
    become unknown); raises TypeError when their structures or dtypes differ."""
    assert_same_structure(first, second, what)

    def merge(a, b):
        if a.dtype != b.dtype:
            raise TypeError(
                f"Incompatible dataset elements: {what} have different dtypes: "
                f"{a.dtype.name} and {b.dtype.name}."
            )
        if a.shape.rank is None or b.shape.rank is None or a.shape.rank != b.shape.rank:
            return TensorSpec(TensorShape(None), a.dtype)
        dims = [x if x == y else None for x, y in zip(a.shape.as_list(), b.shape.as_list())]
        return TensorSpec(dims, a.dtype)

    return map_element(merge, first, second)
