"""`tf.TypeSpec`, `BatchableTypeSpec`, `CompositeTensor`, `tf.NoneTensorSpec` and
`tf.type_spec_from_value`: the protocol composite values (SparseTensor, IndexedSlices,
RaggedTensor, TensorArray) follow so `tf.nest`, `tf.function` and gradients can take them apart
into component tensors and put them back together.

A composite type needs two classes:

* a `CompositeTensor` subclass whose `_type_spec` property returns its spec;
* a `TypeSpec` subclass with `value_type`, `_component_specs` (a nest of specs, usually
  `TensorSpec`s), `_to_components(value)` (a nest of tensors of that structure),
  `_from_components(components)` and `_serialize()` (a tuple of the constructor's arguments:
  equality, hashing, `is_compatible_with`, `is_subtype_of` and
  `most_specific_common_supertype` all work on it).

`tf.nest.flatten(value, expand_composites=True)` yields the component tensors;
`tf.function` keys its traces by the spec (so values of one spec share a graph) and gives the
graph one placeholder per component, shaped by `_component_specs`.
"""

import abc

from ferroflow import dtypes as _dtypes
from ferroflow.tensor_shape import TensorShape

__all__ = [
    "BatchableTypeSpec",
    "CompositeTensor",
    "NoneTensorSpec",
    "TypeSpec",
    "type_spec_from_value",
]


class TypeSpec(abc.ABC):
    """Describes a value's type: what `tf.function` keys traces by and what it rebuilds from
    component tensors."""

    __slots__ = ("_cmp_key",)

    # --- what a subclass defines -----------------------------------------------------------

    @property
    @abc.abstractmethod
    def value_type(self):
        """The Python type of the values this spec describes."""

    @property
    @abc.abstractmethod
    def _component_specs(self):
        """A nest of `TypeSpec`s, one per component of a value."""

    @abc.abstractmethod
    def _to_components(self, value):
        """The components of `value` (a nest shaped like `_component_specs`)."""

    @abc.abstractmethod
    def _from_components(self, components):
        """The value these components make."""

    @abc.abstractmethod
    def _serialize(self):
        """A tuple of the constructor's arguments (`type(self)(*self._serialize())` rebuilds
        the spec)."""

    @classmethod
    def _deserialize(cls, serialization):
        return cls(*serialization)

    # --- derived behaviour ------------------------------------------------------------------

    def is_compatible_with(self, spec_or_value):
        """True when `spec_or_value` (a spec or a value) could be described by this spec:
        same type, dtypes equal, shapes compatible."""
        if not isinstance(spec_or_value, TypeSpec):
            spec_or_value = type_spec_from_value(spec_or_value)
        if type(self) is not type(spec_or_value):
            return False
        return _compatible(self._serialize(), spec_or_value._serialize())

    def is_subtype_of(self, other):
        """True when every value of this spec is also one of `other` (shapes may be less
        known in `other`; everything else equal)."""
        if type(self) is not type(other):
            return False
        return _subtype(self._serialize(), other._serialize())

    def most_specific_common_supertype(self, others):
        """The most specific spec every one of `self` and `others` is a subtype of, or None."""
        if any(type(self) is not type(o) for o in others):
            return None
        merged = _supertype(self._serialize(), [o._serialize() for o in others])
        if merged is _NONE:
            return None
        return self._deserialize(merged)

    def most_specific_compatible_type(self, other):
        result = self.most_specific_common_supertype([other])
        if result is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return result

    @property
    def _flat_tensor_specs(self):
        """The `TensorSpec`s of the flat component tensors, in `tf.nest` order."""
        from ferroflow import nest

        return nest.flatten(self._component_specs, expand_composites=True)

    def _to_tensor_list(self, value):
        from ferroflow import nest

        return nest.flatten(self._to_components(value), expand_composites=True)

    def _from_tensor_list(self, tensor_list):
        from ferroflow import nest

        return self._from_components(
            nest.pack_sequence_as(self._component_specs, list(tensor_list), expand_composites=True)
        )

    def _example_tensor_list(self):
        """Component tensors of some value of this spec (zeros, unknown dims as 1): what
        `get_concrete_function(spec)` traces with. A spec whose components must agree (a
        SparseTensor's dense_shape and indices) overrides this."""
        from ferroflow.array_ops import zeros

        out = []
        for spec in self._flat_tensor_specs:
            dims = [] if spec.shape.rank is None else spec.shape.dims
            out.append(zeros([1 if d is None else d for d in dims], spec.dtype))
        return out

    def _cmp(self):
        try:
            return self._cmp_key
        except AttributeError:
            key = (type(self), _hashable(self._serialize()))
            self._cmp_key = key
            return key

    def __eq__(self, other):
        return type(self) is type(other) and self._cmp() == other._cmp()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._cmp())

    def __reduce__(self):
        return type(self), self._serialize()

    def __repr__(self):
        return f"{type(self).__name__}{self._serialize()!r}"


class BatchableTypeSpec(TypeSpec):
    """A spec whose values can be stacked along a new leading dimension (`tf.data` batching):
    `_batch(n)` is the spec of n values stacked, `_unbatch()` that of one row."""

    __slots__ = ()

    @abc.abstractmethod
    def _batch(self, batch_size):
        """The spec of `batch_size` values of this spec stacked (None: unknown)."""

    @abc.abstractmethod
    def _unbatch(self):
        """The spec of one element of a value of this spec."""


class CompositeTensor(abc.ABC):
    """A value made of several tensors, described by its `_type_spec`."""

    __slots__ = ()

    @property
    @abc.abstractmethod
    def _type_spec(self):
        """The `TypeSpec` of this value."""

    def _consumers(self):
        return []

    def _shape_invariant_to_type_spec(self, shape):
        raise NotImplementedError(
            f"{type(self).__name__} does not support shape invariants; pass its TypeSpec"
        )


class NoneTensorSpec(BatchableTypeSpec):
    """The spec of `None` where a composite value may hold no tensor."""

    __slots__ = ()

    @property
    def value_type(self):
        return type(None)

    @property
    def _component_specs(self):
        return []

    def _to_components(self, value):
        return []

    def _from_components(self, components):
        return None

    def _serialize(self):
        return ()

    def _batch(self, batch_size):
        return self

    def _unbatch(self):
        return self

    @classmethod
    def from_value(cls, value):
        return cls()


def gradient_components(value):
    """The tensors a gradient flows through for `value`: a tensor itself, a composite's
    `_gradient_components()` (a SparseTensor's or IndexedSlices' values)."""
    if not isinstance(value, CompositeTensor):
        return value
    if not hasattr(value, "_gradient_components"):
        raise ValueError(
            f"Type {type(value).__name__} is not supported as a gradient source or gradient target."
        )
    return value._gradient_components()


def with_gradient_components(value, grad):
    """`value`'s gradient given the gradient of its `gradient_components`: the gradient itself
    for a tensor, for a composite `value._with_gradient_components(grad)` (None stays None)."""
    if not isinstance(value, CompositeTensor):
        return grad
    return value._with_gradient_components(grad)


def type_spec_from_value(value):
    """The `TypeSpec` of `value`: a tensor's `TensorSpec`, a composite's own spec, for a list
    of values of one batchable spec their batched spec, else the spec of
    `tf.convert_to_tensor(value)`.

    >>> import ferroflow as tf
    >>> tf.type_spec_from_value(tf.constant([1, 2, 3]))
    TensorSpec(shape=(3,), dtype=tf.int32, name=None)
    """
    spec = _spec_of(value)
    if spec is not None:
        return spec
    from ferroflow.array_ops import convert_to_tensor

    try:
        return _spec_of(convert_to_tensor(value))
    except (TypeError, ValueError):
        pass
    raise TypeError(f"Could not build a TypeSpec for {value} of unsupported type {type(value)}.")


# TypeSpec classes by the names SavedModels store them under (TensorFlow's
# `type_spec_registry`): "tf.RaggedTensorSpec", an ExtensionType's `__name__` + ".Spec"...
_REGISTERED = {}


def register_type_spec(name, spec_class):
    """Stores ``spec_class`` under ``name`` for SavedModels; TensorFlow's rules: the name has
    the form "project.Type", and neither it nor the class may be registered already
    (ValueError)."""
    import re

    if not re.match(r"^(\w+\.)+\w+$", name):
        raise ValueError(
            "Registered name must have the form '{project_name}.{type_name}' (e.g. "
            f"'my_project.MyTypeSpec'); got {name!r}."
        )
    known = _REGISTERED.get(name)
    if known is not None:
        raise ValueError(
            f"Name {name} has already been registered for class "
            f"{known.__module__}.{known.__name__}."
        )
    _REGISTERED[name] = spec_class


def registered_name(spec_class):
    """The name ``spec_class`` is registered under, or None."""
    for name, known in _REGISTERED.items():
        if known is spec_class:
            return name
    return None


def lookup_type_spec(name):
    """The TypeSpec class registered under ``name``, or None."""
    return _REGISTERED.get(name)


# Types that are no composite but have a spec (TensorFlow's TensorArray): type -> converter.
_CONVERTERS = {}


def register_type_spec_from_value_converter(type_object, converter, allow_subclass=False):
    """Makes `type_spec_from_value` answer `converter(value)` for values of `type_object` (and
    its subclasses when `allow_subclass`), as TensorFlow's registry of the same name."""
    _CONVERTERS[type_object] = (converter, allow_subclass)


def _converted_spec(value):
    for type_object, (converter, allow_subclass) in _CONVERTERS.items():
        if type(value) is type_object or (allow_subclass and isinstance(value, type_object)):
            return converter(value)
    return None


def _spec_of(value):
    from ferroflow import _core
    from ferroflow.tensor_spec import TensorSpec
    from ferroflow.variables import Variable

    if isinstance(value, CompositeTensor):
        return value._type_spec
    if _CONVERTERS:
        spec = _converted_spec(value)
        if spec is not None:
            return spec
    if isinstance(value, _core.Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, Variable):
        return TensorSpec(value.shape, value.dtype)
    if hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "name"):
        # A traced graph's tensor outside its trace (concrete_function.GraphTensor).
        if not hasattr(value, "__array__"):
            return TensorSpec(value.shape, value.dtype)
    if isinstance(value, list) and value:
        specs = [_spec_of(v) for v in value]
        if all(isinstance(s, BatchableTypeSpec) for s in specs):
            merged = specs[0].most_specific_common_supertype(specs[1:])
            if merged is not None:
                return merged._batch(len(specs))
    return None


# --- serialisation helpers (what TypeSpec's comparisons walk) --------------------------------

_NONE = object()  # "no common supertype" while merging serialisations


def _is_shape(value):
    return isinstance(value, TensorShape)


def _compatible(a, b):
    if isinstance(a, TypeSpec):
        return a.is_compatible_with(b)
    if _is_shape(a) and _is_shape(b):
        return a.is_compatible_with(b)
    if isinstance(a, _dtypes.DType) and isinstance(b, _dtypes.DType):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_compatible(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return sorted(a) == sorted(b) and all(_compatible(a[k], b[k]) for k in a)
    return a == b


def _shape_subtype(a, b):
    if b.rank is None:
        return True
    if a.rank != b.rank:
        return False
    return all(y is None or x == y for x, y in zip(a.dims, b.dims))


def _subtype(a, b):
    if isinstance(a, TypeSpec):
        return isinstance(b, TypeSpec) and a.is_subtype_of(b)
    if _is_shape(a) and _is_shape(b):
        return _shape_subtype(a, b)
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_subtype(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return sorted(a) == sorted(b) and all(_subtype(a[k], b[k]) for k in a)
    return a == b


def shape_supertype(shapes):
    """The most specific shape every one of `shapes` is compatible with: known where all
    agree, None where dims differ, unknown rank where ranks differ."""
    first = shapes[0]
    if any(s.rank is None or s.rank != first.rank for s in shapes):
        return TensorShape(None)
    dims = [d if all(s.dims[i] == d for s in shapes) else None for i, d in enumerate(first.dims)]
    return TensorShape(dims)


def _supertype(a, others):
    if isinstance(a, TypeSpec):
        merged = a.most_specific_common_supertype(others)
        return _NONE if merged is None else merged
    if _is_shape(a):
        if not all(_is_shape(o) for o in others):
            return _NONE
        return shape_supertype([a, *others])
    if any(type(o) is not type(a) for o in others):
        return _NONE
    if isinstance(a, (list, tuple)):
        if any(len(o) != len(a) for o in others):
            return _NONE
        parts = [_supertype(x, [o[i] for o in others]) for i, x in enumerate(a)]
        if any(p is _NONE for p in parts):
            return _NONE
        return type(a)(parts)
    if isinstance(a, dict):
        if any(sorted(o) != sorted(a) for o in others):
            return _NONE
        parts = {k: _supertype(a[k], [o[k] for o in others]) for k in a}
        if any(p is _NONE for p in parts.values()):
            return _NONE
        return parts
    return a if all(o == a for o in others) else _NONE


def _hashable(value):
    if isinstance(value, TensorShape):
        return ("shape", None if value.rank is None else tuple(value.dims))
    if isinstance(value, dict):
        return ("dict", tuple((k, _hashable(value[k])) for k in sorted(value)))
    if isinstance(value, list):
        return ("list", tuple(_hashable(v) for v in value))
    if isinstance(value, tuple):
        return tuple(_hashable(v) for v in value)
    if hasattr(value, "tolist") and hasattr(value, "shape"):  # numpy arrays
        return ("array", tuple(value.shape), repr(value.tolist()))
    return value
