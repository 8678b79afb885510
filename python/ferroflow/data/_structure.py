"""Dataset elements: tuples and dicts nesting tensors and composite values (RaggedTensor,
SparseTensor, ExtensionType...; a Python list is one tensor, as in `tf.data`), their
`TypeSpec`s, and the numpy arrays that slicing and batching work on.

A dataset keeps its element spec apart from its values: a RaggedTensorSpec of ragged_rank 0
(the rows of a RaggedTensor with one ragged dimension) describes dense tensors, which batch
into a RaggedTensor."""

from ferroflow import _core
from ferroflow.array_ops import convert_to_tensor, stack
from ferroflow.data import _composite
from ferroflow.tensor_shape import TensorShape
from ferroflow.tensor_spec import TensorSpec
from ferroflow.type_spec import BatchableTypeSpec, CompositeTensor, type_spec_from_value
from ferroflow.variables import Variable

__all__ = [
    "assert_same_structure",
    "batched_spec",
    "common_supertype",
    "flatten",
    "from_arrays",
    "is_component",
    "map_element",
    "merge_specs",
    "normalize",
    "pack_as",
    "spec_of",
    "to_arrays",
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


def is_component(value):
    """Whether ``value`` is kept as it is in an element: a composite value or a TensorArray."""
    from ferroflow.data.dataset import Dataset
    from ferroflow.tensor_array_ops import TensorArray

    return isinstance(value, (CompositeTensor, TensorArray, Dataset))


def to_tensor(value):
    """One leaf as a tensor: lists (even of tensors) become one tensor, as in `tf.data`."""
    if isinstance(value, _core.Tensor):
        return value
    if isinstance(value, Variable):
        return value.value()
    if isinstance(value, list) and any(
        isinstance(v, (_core.Tensor, Variable, CompositeTensor)) for v in value
    ):
        if any(isinstance(v, CompositeTensor) for v in value):
            raise ValueError(
                f"TypeError: object of type '{type(_first_composite(value)).__name__}' has no len()"
            )
        return stack([to_tensor(v) for v in value])
    return convert_to_tensor(value)


def _first_composite(values):
    return next(v for v in values if isinstance(v, CompositeTensor))


def _normalize_leaf(value):
    if is_component(value):
        return value
    return to_tensor(value)


def normalize(element):
    """An element as `tf.data` holds it: every leaf a tensor or a composite value."""
    return map_element(_normalize_leaf, element)


def _numpy_leaf(value):
    if isinstance(value, CompositeTensor) or not hasattr(value, "numpy"):
        return value
    return value.numpy()


def to_numpy(element):
    """An element's leaves as numpy values (numpy scalars for scalars, as `Tensor.numpy`);
    composite values stay as they are (TensorFlow's `as_numpy_iterator` turns a RaggedTensor
    into a `tf.RaggedTensorValue`, a SparseTensor into a `SparseTensorValue`)."""
    return map_element(_numpy_leaf, element)


def _spec_of_leaf(value):
    if isinstance(value, _core.Tensor):
        return TensorSpec(value.shape, value.dtype)
    from ferroflow.data.dataset import Dataset

    if isinstance(value, Dataset):
        from ferroflow.data._specs import DatasetSpec

        return DatasetSpec(value.element_spec)
    return type_spec_from_value(value)


def spec_of(element):
    """The `TypeSpec` structure of an element (a `TensorSpec` per tensor)."""
    return map_element(_spec_of_leaf, element)


def _batched_leaf(s, batch_size):
    if isinstance(s, TensorSpec):
        if s.shape.rank is None:
            return TensorSpec(TensorShape(None), s.dtype)
        return TensorSpec([batch_size, *s.shape.as_list()], s.dtype)
    if not isinstance(s, BatchableTypeSpec):
        raise AttributeError(f"'{type(s).__qualname__}' object has no attribute '_batch'")
    return s._batch(batch_size)


def batched_spec(spec, batch_size=None):
    """The spec of a batch of elements of ``spec`` (leading dimension ``batch_size``)."""
    return map_element(lambda s: _batched_leaf(s, batch_size), spec)


def _row_leaf(s):
    if isinstance(s, TensorSpec):
        if s.shape.rank is None:
            return TensorSpec(TensorShape(None), s.dtype)
        if s.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        return TensorSpec(s.shape.as_list()[1:], s.dtype)
    if not isinstance(s, BatchableTypeSpec):
        raise AttributeError(
            f"'{type(s).__qualname__}' object has no attribute '_to_batched_tensor_list'"
        )
    return s._unbatch()


def unbatched_spec(spec):
    """The spec of the rows of elements of ``spec``."""
    return map_element(_row_leaf, spec)


def common_supertype(first, second):
    """TensorFlow's `concatenate` spec: the most specific common supertype of each pair of
    leaves; TypeError naming both structures where there is none."""
    try:
        assert_same_structure(first, second, "the datasets")
        return map_element(_common_leaf, first, second)
    except (TypeError, ValueError):
        raise TypeError(f"Incompatible dataset elements:\n  {first} vs.   {second}") from None


def _common_leaf(a, b):
    if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
        return merge_specs(a, b, "the datasets")
    merged = a.most_specific_common_supertype([b])
    if merged is None:
        raise TypeError(f"No common supertype of {a} and {b}.")
    return merged


def merge_specs(first, second, what):
    """The most specific spec both ``first`` and ``second`` satisfy (differing dimensions
    become unknown); raises TypeError when their structures or dtypes differ."""
    assert_same_structure(first, second, what)

    def merge(a, b):
        if _composite.is_composite_spec(a) or _composite.is_composite_spec(b):
            merged = None
            if type(a) is type(b):
                merged = a.most_specific_common_supertype([b])
            if merged is None:
                raise TypeError(
                    f"Incompatible dataset elements: {what} have different types: {a} and {b}."
                )
            return merged
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


def to_arrays(element, spec):
    """An element as numpy arrays (what files keep); a composite component as the arrays of
    its component tensors, in its spec's order."""

    def leaf(value, s):
        if isinstance(s, TensorSpec):
            return value.numpy()
        return [t.numpy() for t in s._to_tensor_list(value)]

    return map_element(leaf, element, spec)


def from_arrays(arrays, spec):
    """The element `to_arrays` made ``arrays`` from."""

    def leaf(value, s):
        if isinstance(s, TensorSpec):
            return convert_to_tensor(value, dtype=s.dtype)
        parts = [convert_to_tensor(a, dtype=t.dtype) for a, t in zip(value, s._flat_tensor_specs)]
        return s._from_tensor_list(parts)

    return map_element(leaf, arrays, spec)
