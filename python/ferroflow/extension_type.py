"""`tf.experimental.ExtensionType`, `BatchableExtensionType`, `ExtensionTypeSpec`,
`ExtensionTypeBatchEncoder` and `tf.experimental.extension_type.as_dict`: user-defined composite
values declared by annotated fields, as TensorFlow 2.21 has them.

A subclass's annotations are its fields. The class is given a constructor (unless it defines
one: then fields are converted after it runs), a nested `Spec` class (an `ExtensionTypeSpec`
whose fields hold the spec of each tensor-valued field and the value of every other field) and
immutability: instances refuse assignment outside their own constructor. Field values are
converted and checked against the annotations (`tf.Tensor` by `convert_to_tensor`; Python
scalars, `tf.TensorShape`, `tf.DType`, composite types, `typing.Tuple`, `typing.Mapping`
(stored immutable) and `typing.Union`), raising TypeError or ValueError as TensorFlow does;
`__validate__` runs last. The components of a value are its tensor and composite fields in
field order, so `tf.nest(expand_composites=True)`, `tf.function` arguments, results and
`input_signature`s work through `type_spec`'s protocol.
"""

import abc
import collections.abc
import functools
import inspect
import types
import typing

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow.tensor_shape import TensorShape
from ferroflow.type_spec import (
    BatchableTypeSpec,
    CompositeTensor,
    TypeSpec,
    register_type_spec,
)

__all__ = [
    "BatchableExtensionType",
    "ExtensionType",
    "ExtensionTypeBatchEncoder",
    "ExtensionTypeSpec",
    "as_dict",
]

_IN_CONSTRUCTOR = "_tf_extension_type_in_constructor"
_MUTABLE_KERAS_PROPERTIES = ("_keras_mask",)

RESERVED_FIELD_NAMES = (
    "self",
    "Spec",
    "_type_spec",
    "_shape_invariant_to_type_spec",
    "_consumers",
    "value_type",
    "is_compatible_with",
    "most_specific_compatible_type",
    "_with_tensor_ranks_only",
    "_to_components",
    "_from_components",
    "_component_specs",
    "_to_tensor_list",
    "_from_tensor_list",
    "_from_compatible_tensor_list",
    "_flat_tensor_specs",
    "_serialize",
    "_deserialize",
    "_to_legacy_output_types",
    "_to_legacy_output_shapes",
    "_to_legacy_output_classes",
    "_keras_mask",
)


class ImmutableDict(collections.abc.Mapping):
    """The immutable mapping `typing.Mapping` fields are stored as."""

    def __init__(self, *args, **kwargs):
        self._dict = dict(*args, **kwargs)

    def __getitem__(self, key):
        return self._dict[key]

    def __contains__(self, key):
        return key in self._dict

    def __iter__(self):
        return iter(self._dict)

    def __len__(self):
        return len(self._dict)

    def __repr__(self):
        return f"ImmutableDict({self._dict})"


# --- fields ------------------------------------------------------------------------------------


class _Sentinel:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return self._name


_NO_DEFAULT = _Sentinel("ExtensionTypeField.NO_DEFAULT")
_VALUE, _SPEC, _DEFAULT = "value", "spec", "default"


def _issubclass(cls, info):
    try:
        return issubclass(cls, info)
    except TypeError:
        return False


def _is_union(tp):
    origin = typing.get_origin(tp)
    return origin is typing.Union or origin is types.UnionType


def _is_tuple(tp):
    return tp not in (tuple, typing.Tuple) and typing.get_origin(tp) is tuple  # noqa: UP006


def _is_mapping(tp):
    return typing.get_origin(tp) is collections.abc.Mapping and tp is not typing.Mapping


def _is_forward_ref(tp):
    return isinstance(tp, (str, typing.ForwardRef))


class ExtensionTypeField(collections.namedtuple("ExtensionTypeField", "name value_type default")):
    """A field of an ExtensionType: its name, annotation and default."""

    NO_DEFAULT = _NO_DEFAULT

    def __new__(cls, name, value_type, default=_NO_DEFAULT):
        try:
            _validate_annotation(value_type)
        except TypeError as e:
            raise TypeError(f"In field {name!r}: {e}") from e
        if default is not _NO_DEFAULT:
            default = _convert_value(default, value_type, (f"default value for {name}",), _DEFAULT)
        return super().__new__(cls, name, value_type, default)

    @staticmethod
    def is_reserved_name(name):
        return name in RESERVED_FIELD_NAMES or name.lower().startswith("_tf_extension_type")


def _validate_annotation(value_type, in_mapping_key=False):
    if _is_forward_ref(value_type):
        return
    if value_type in (int, float, str, bytes, bool, None, type(None), _dtypes.DType):
        return
    if value_type in (_core.Tensor, TensorShape) or (
        isinstance(value_type, type) and _issubclass(value_type, CompositeTensor)
    ):
        if in_mapping_key:
            raise TypeError(
                f"Mapping had a key {value_type.__name__!r} with type {type(value_type).__name__!r}"
            )
        return
    if _is_tuple(value_type) or _is_union(value_type):
        args = typing.get_args(value_type)
        if _is_tuple(value_type) and len(args) == 2 and args[1] is Ellipsis:
            args = args[:1]
        for arg in args:
            _validate_annotation(arg, in_mapping_key)
        return
    if _is_mapping(value_type):
        key_type, item_type = typing.get_args(value_type)
        _validate_annotation(key_type, True)
        _validate_annotation(item_type, in_mapping_key)
        return
    if isinstance(value_type, type):
        raise TypeError(f"Unsupported type annotation {value_type.__name__!r}")
    raise TypeError(f"Unsupported type annotation {value_type!r}")


def _convert_fields(fields, values, context):
    names = [f.name for f in fields]
    if len(names) != len(values) or any(n not in values for n in names):
        extra = set(values) - set(names)
        if extra:
            raise ValueError(f"Got unexpected fields: {extra}")
        raise ValueError(f"Missing required fields: {set(names) - set(values)}")
    converted = {
        f.name: _convert_value(values[f.name], f.value_type, (f.name,), context) for f in fields
    }
    values.update(converted)


def _convert_value(value, expected, path, context=_VALUE):
    where = "".join(path)
    if expected is None:
        expected = type(None)
    if expected is _core.Tensor:
        return _convert_tensor(value, where, context)
    if isinstance(expected, type) and _issubclass(expected, CompositeTensor):
        if context == _SPEC:
            if not (isinstance(value, TypeSpec) and _issubclass(value.value_type, expected)):
                raise TypeError(
                    f"{where}: expected a TypeSpec for {expected.__name__!r}, got "
                    f"{type(value).__name__!r}"
                )
            return value
        if not isinstance(value, expected):
            raise TypeError(
                f"{where}: expected {expected.__name__!r}, got {type(value).__name__!r}"
            )
        return value
    if expected is TensorShape:
        from ferroflow.tensor_shape import as_shape

        try:
            if isinstance(value, (str, bytes)):
                # TensorFlow reads a string as a list of one-letter dimensions: TypeError.
                raise TypeError(f"Dimension value must be integer or None, got {value!r}")
            return as_shape(value)
        except TypeError as e:
            raise TypeError(
                f"{where}: expected 'tf.TensorShape', got {type(value).__name__!r}"
            ) from e
    if expected is _dtypes.DType:
        try:
            return _dtypes.as_dtype(value)
        except TypeError as e:
            raise TypeError(f"{where}: expected 'tf.DType', got {type(value).__name__!r}") from e
    if expected in (int, float, bool, str, bytes, type(None)):
        if not isinstance(value, expected):
            raise TypeError(
                f"{where}: expected {expected.__name__!r}, got {type(value).__name__!r}"
            )
        return value
    if _is_tuple(expected):
        if not isinstance(value, collections.abc.Sequence):
            raise TypeError(f"{where}: expected tuple, got {type(value).__name__!r}")
        args = typing.get_args(expected)
        if len(args) == 2 and args[1] is Ellipsis:
            args = (args[0],) * len(value)
        elif len(value) != len(args):
            raise TypeError(
                f"{where}: expected tuple with length {len(args)}, got {type(value).__name__!r})"
            )
        return tuple(
            _convert_value(v, t, (*path, f"[{i}]"), context)
            for i, (v, t) in enumerate(zip(value, args))
        )
    if _is_mapping(expected):
        if not isinstance(value, collections.abc.Mapping):
            raise TypeError(f"{where}: expected mapping, got {type(value).__name__!r}")
        key_type, item_type = typing.get_args(expected)
        return ImmutableDict(
            (
                _convert_value(k, key_type, (*path, "[<key>]"), context),
                _convert_value(v, item_type, (*path, f"[{k!r}]"), context),
            )
            for k, v in value.items()
        )
    if _is_union(expected):
        for option in typing.get_args(expected):
            try:
                return _convert_value(value, option, path, context)
            except TypeError:
                pass
        raise TypeError(f"{where}: expected {expected!r}, got {type(value).__name__!r}")
    raise TypeError(f"{where}: Unsupported type annotation {expected!r}")


def _convert_tensor(value, where, context):
    if context == _SPEC:
        if not (isinstance(value, TypeSpec) and value.value_type is _core.Tensor):
            raise TypeError(f"{where}: expected a TensorSpec, got {type(value).__name__!r}")
        return value
    if isinstance(value, _core.Tensor):
        return value
    if context == _DEFAULT:
        return value
    from ferroflow.array_ops import convert_to_tensor

    try:
        return convert_to_tensor(value)
    except (ValueError, TypeError) as e:
        raise TypeError(f"{where}: expected a Tensor, got {type(value).__name__!r}") from e


# --- the classes -------------------------------------------------------------------------------


def _new_object(cls, fields):
    value = object.__new__(cls)
    value.__dict__.update(fields)
    return value


class ExtensionTypeMetaclass(abc.ABCMeta):
    """Turns each user subclass into an extension type (constructor, `Spec`, checks)."""

    def __init__(cls, name, bases, namespace):
        if not namespace.get("_tf_extension_type_do_not_transform_this_class", False):
            _check_field_annotations(cls)
            _add_constructor(cls)
            _add_type_spec(cls)
        super().__init__(name, bases, namespace)


class ExtensionType(CompositeTensor, metaclass=ExtensionTypeMetaclass):
    """Base class of user-defined composite types: annotate fields, get a value type.

    >>> import ferroflow as tf
    >>> class MaskedTensor(tf.experimental.ExtensionType):
    ...     values: tf.Tensor
    ...     mask: tf.Tensor
    >>> m = MaskedTensor([1.0, 2.0], [True, False])
    >>> m.values.dtype
    tf.float32
    """

    _tf_extension_type_do_not_transform_this_class = True

    def __init__(self, *args, **kwargs):
        if type(self) is ExtensionType:
            raise AssertionError(
                "Cannot create an instance of ExtensionType because ExtensionType is an "
                "abstract base class."
            )

    _tf_extension_type_cached_fields = None

    @classmethod
    def _tf_extension_type_fields(cls):
        if "_tf_extension_type_cached_fields" in cls.__dict__:
            return cls._tf_extension_type_cached_fields
        try:
            hints = typing.get_type_hints(cls)
            cache = True
        except (NameError, AttributeError):
            hints = {}
            for base in reversed(cls.__mro__):
                hints.update(base.__dict__.get("__annotations__", {}))
            cache = False
        fields = tuple(
            ExtensionTypeField(name, tp, getattr(cls, name, _NO_DEFAULT))
            for name, tp in hints.items()
        )
        if cache:
            cls._tf_extension_type_cached_fields = fields
        return fields

    @classmethod
    def _tf_extension_type_has_field(cls, name):
        return any(name == f.name for f in cls._tf_extension_type_fields())

    def _tf_extension_type_convert_fields(self):
        _convert_fields(self._tf_extension_type_fields(), self.__dict__, _VALUE)

    def __repr__(self):
        fields = ", ".join(
            f"{f.name}={getattr(self, f.name)!r}" for f in self._tf_extension_type_fields()
        )
        return f"{type(self).__qualname__}({fields})"

    def __setattr__(self, name, value):
        _check_mutable(self, name, "ExtensionType")
        self.__dict__[name] = value

    def __delattr__(self, name):
        _check_mutable(self, name, "ExtensionType")
        del self.__dict__[name]

    def __getattr__(self, name):
        if name in _MUTABLE_KERAS_PROPERTIES:
            return object.__getattribute__(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __eq__(self, other):
        """A boolean tensor: same type and spec, every component equal in shape and value."""
        if type(self) is not type(other):
            return False
        if self._type_spec != other._type_spec:
            return False
        from ferroflow import nest

        mine = nest.flatten(self, expand_composites=True)
        theirs = nest.flatten(other, expand_composites=True)
        if len(mine) != len(theirs):
            return False
        return _all_equal(mine, theirs)

    def __ne__(self, other):
        eq = self.__eq__(other)
        if isinstance(eq, _core.Tensor):
            from ferroflow.math import logical_not

            return logical_not(eq)
        return not eq

    __hash__ = None

    def __validate__(self):
        """Post-construction validation (a subclass overrides it)."""

    _tf_extension_type_cached_type_spec = None

    @property
    def _type_spec(self):
        if self._tf_extension_type_cached_type_spec is None:
            self.__dict__["_tf_extension_type_cached_type_spec"] = self.Spec.from_value(self)
        return self._tf_extension_type_cached_type_spec


def _check_mutable(obj, name, owner):
    """AttributeError unless `name` is a field being set by `obj`'s own constructor (or a
    Keras mask on a value)."""
    if owner == "ExtensionType" and name in _MUTABLE_KERAS_PROPERTIES:
        return
    if not (hasattr(obj, _IN_CONSTRUCTOR) and obj._tf_extension_type_has_field(name)):
        raise AttributeError(
            f"Cannot mutate attribute `{name}` outside the custom constructor of {owner}."
        )


def _all_equal(mine, theirs):
    from ferroflow.array_ops import constant, shape, stack
    from ferroflow.math import equal, reduce_all

    conditions = []
    for a, b in zip(mine, theirs):
        if a.shape.rank is not None and b.shape.rank is not None and a.shape.rank != b.shape.rank:
            conditions.append(constant(False))
            continue
        if a.shape.is_fully_defined() and b.shape.is_fully_defined():
            same = a.shape == b.shape
            conditions.append(constant(bool(same)))
            if not same:
                continue
        else:
            conditions.append(reduce_all(equal(shape(a), shape(b))))
        conditions.append(reduce_all(equal(a, b)))
    return reduce_all(stack(conditions))


def as_dict(value):
    """The fields of an ExtensionType value as a dict (not recursive)."""
    return {f.name: getattr(value, f.name) for f in value._tf_extension_type_fields()}


def _replace_tensor_with_spec(value):
    from ferroflow.tensor_spec import TensorSpec

    if isinstance(value, _core.Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, CompositeTensor):
        return value._type_spec
    return value


def _mappings_to(value, new_type):
    if isinstance(value, (dict, ImmutableDict)):
        return new_type([(k, _mappings_to(v, new_type)) for k, v in value.items()])
    if isinstance(value, tuple):
        return tuple(_mappings_to(v, new_type) for v in value)
    return value


def _nest_flatten(value):
    """Leaves of tuples and mappings (sorted keys), as `tf.nest` walks field values."""
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _nest_flatten(v)]
    if isinstance(value, collections.abc.Mapping):
        return [leaf for k in sorted(value) for leaf in _nest_flatten(value[k])]
    return [value]


def _nest_pack(structure, leaves):
    if isinstance(structure, tuple):
        return tuple(_nest_pack(v, leaves) for v in structure)
    if isinstance(structure, collections.abc.Mapping):
        done = {k: _nest_pack(structure[k], leaves) for k in sorted(structure)}
        return type(structure)((k, done[k]) for k in structure)
    return next(leaves)


def _nest_map(fn, structure):
    return _nest_pack(structure, iter([fn(x) for x in _nest_flatten(structure)]))


class ExtensionTypeSpec(TypeSpec):
    """Base class of the `Spec` of each ExtensionType: the spec of every tensor-valued field
    and the value of every other field."""

    def _serialize(self):
        fields = [f.name for f in self._tf_extension_type_fields()]
        return tuple((f, _mappings_to(self.__dict__[f], dict)) for f in fields)

    @classmethod
    def _deserialize(cls, state):
        return _new_object(cls, _mappings_to(state, ImmutableDict))

    def __reduce__(self):
        return _deserialize_for_reduce, (self.value_type, self._serialize())

    def _field_values(self):
        return tuple(self.__dict__[f.name] for f in self._tf_extension_type_fields())

    def _to_components(self, value):
        names = [f.name for f in self._tf_extension_type_fields()]
        values = tuple(value.__dict__[n] for n in names)
        return tuple(
            x for x in _nest_flatten(values) if isinstance(x, (_core.Tensor, CompositeTensor))
        )

    def _from_components(self, components):
        specs = self._field_values()
        it = iter(components)
        flat = [next(it) if isinstance(x, TypeSpec) else x for x in _nest_flatten(specs)]
        if list(it):
            raise ValueError(
                "Cannot build an ExtensionType instance from components because more "
                "components are provided than the number expected by the type spec."
            )
        values = _nest_pack(specs, iter(flat))
        names = [f.name for f in self._tf_extension_type_fields()]
        return _new_object(self.value_type, dict(zip(names, values)))

    @property
    def _component_specs(self):
        return tuple(x for x in _nest_flatten(self._field_values()) if isinstance(x, TypeSpec))

    @classmethod
    def from_value(cls, value):
        cached = value.__dict__.get("_tf_extension_type_cached_type_spec")
        if cached is not None:
            return cached
        fields = {
            f.name: _nest_map(_replace_tensor_with_spec, value.__dict__[f.name])
            for f in value._tf_extension_type_fields()
        }
        return _new_object(cls, fields)

    def __setattr__(self, name, value):
        if name != "_cmp_key":  # TypeSpec's cached comparison key
            _check_mutable(self, name, "ExtensionTypeSpec")
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        _check_mutable(self, name, "ExtensionTypeSpec")
        del self.__dict__[name]

    def __validate__(self):
        """Post-construction validation (a subclass's `Spec` overrides it)."""

    @classmethod
    def _tf_extension_type_fields(cls):
        return cls.value_type._tf_extension_type_fields()

    @classmethod
    def _tf_extension_type_has_field(cls, name):
        return any(name == f.name for f in cls._tf_extension_type_fields())

    def _tf_extension_type_convert_fields(self):
        _convert_fields(self._tf_extension_type_fields(), self.__dict__, _SPEC)

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in self._serialize())
        return f"{type(self).__qualname__}({fields})"

    def _to_legacy_output_shapes(self):
        try:
            return self.shape
        except AttributeError as e:
            raise NotImplementedError(
                "It appears that the Spec of the ExtensionType is missing a shape property. In "
                "order to support tf.Data, it is recommended that you implement a shape "
                "property on the Spec."
            ) from e


def _deserialize_for_reduce(value_type, serialization):
    return value_type.Spec._deserialize(serialization)


class ExtensionTypeBatchEncoder:
    """How a BatchableExtensionType's values are batched: by default every nested tensor,
    composite and `TensorShape` field gains (or loses) an outer dimension."""

    def batch(self, spec, batch_size):
        """The spec of `batch_size` values of `spec` (None: unknown)."""

        def batch_field(f):
            if isinstance(f, BatchableTypeSpec):
                encoder = getattr(f, "__batch_encoder__", None)
                return encoder.batch(f, batch_size) if encoder else f._batch(batch_size)
            if isinstance(f, TensorShape):
                return TensorShape([batch_size, *(f.dims or [])]) if f.rank is not None else f
            return f

        return _map_spec_fields(spec, batch_field)

    def unbatch(self, spec):
        """The spec of one value of the batch `spec` describes."""

        def unbatch_field(f):
            if isinstance(f, BatchableTypeSpec):
                encoder = getattr(f, "__batch_encoder__", None)
                return encoder.unbatch(f) if encoder else f._unbatch()
            if isinstance(f, TensorShape):
                return f[1:]
            return f

        return _map_spec_fields(spec, unbatch_field)

    def encode(self, spec, value, minimum_rank=0):
        """The batchable tensors and composites of `value` (its components)."""
        return spec._to_components(value)

    def decode(self, spec, encoded_value):
        """The value of `spec` the encoded components make."""
        return spec._from_components(encoded_value)

    def encoding_specs(self, spec):
        """The specs of what `encode` returns."""
        return spec._component_specs


def _map_spec_fields(spec, fn):
    fields = {k: _nest_map(fn, v) for k, v in spec.__dict__.items() if k != "_cmp_key"}
    return _new_object(type(spec), fields)


class BatchableExtensionTypeSpec(ExtensionTypeSpec, BatchableTypeSpec):
    """Base class of the `Spec` of each BatchableExtensionType."""

    __batch_encoder__ = ExtensionTypeBatchEncoder()

    def _batch(self, batch_size):
        return self.__batch_encoder__.batch(self, batch_size)

    def _unbatch(self):
        return self.__batch_encoder__.unbatch(self)


class BatchableExtensionType(ExtensionType):
    """An ExtensionType whose values can be batched and unbatched (its Spec has `_batch` and
    `_unbatch`, through `__batch_encoder__`)."""

    _tf_extension_type_do_not_transform_this_class = True


# --- class construction ------------------------------------------------------------------------


def _check_field_annotations(cls):
    annotations = cls.__dict__.get("__annotations__", {})
    for name, value in cls.__dict__.items():
        if name == "Spec":
            if not isinstance(value, type):
                raise ValueError(f"{cls.__qualname__}.Spec must be a nested class; got {value}.")
            if value.__bases__ not in ((TypeSpec,), (object,)):
                raise ValueError(
                    f"{cls.__qualname__}.Spec must be directly subclassed from tf.TypeSpec."
                )
        elif ExtensionTypeField.is_reserved_name(name):
            raise ValueError(
                f"The field annotations for {cls.__name__} are invalid. Field '{name}' is reserved."
            )
    for name in annotations:
        if ExtensionTypeField.is_reserved_name(name):
            raise ValueError(
                f"The field annotations for {cls.__name__} are invalid. Field '{name}' is reserved."
            )
    for key, value in cls.__dict__.items():
        if not (
            key in annotations
            or callable(value)
            or key.startswith("_abc_")
            or key == "_tf_extension_type_fields"
            or (key.startswith("__") and key.endswith("__"))
            or isinstance(value, (property, classmethod, staticmethod))
        ):
            raise ValueError(
                f"The field annotations for {cls.__name__} are invalid. Field {key} is missing "
                "a type annotation."
            )


def _add_constructor(cls):
    if "__init__" in cls.__dict__:
        _wrap_user_constructor(cls)
    else:
        _build_constructor(cls)


def _wrap_user_constructor(cls):
    user = cls.__init__

    @functools.wraps(user)
    def __init__(self, *args, **kwargs):
        self.__dict__[_IN_CONSTRUCTOR] = True
        user(self, *args, **kwargs)
        del self.__dict__[_IN_CONSTRUCTOR]
        self._tf_extension_type_convert_fields()
        self.__validate__()

    cls.__init__ = __init__


def _build_constructor(cls):
    fields = cls._tf_extension_type_fields()
    keyword_only_from = len(fields)
    seen_default = False
    for i, field in enumerate(fields):
        if seen_default and field.default is _NO_DEFAULT:
            keyword_only_from = i
            break
        if field.default is not _NO_DEFAULT:
            seen_default = True
    params = [
        inspect.Parameter(
            f.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD
            if i < keyword_only_from
            else inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if f.default is _NO_DEFAULT else f.default,
            annotation=f.value_type,
        )
        for i, f in enumerate(fields)
    ]
    cls.__init__ = _constructor(params)


def _build_spec_constructor(spec):
    spec.__init__ = _constructor(
        [
            inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
            for f in spec._tf_extension_type_fields()
        ]
    )


def _constructor(params):
    """An `__init__` binding `params` to fields, then converting and validating them."""
    signature = inspect.Signature(params)

    def __init__(self, *args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        self.__dict__.update(bound.arguments)
        self._tf_extension_type_convert_fields()
        self.__validate__()

    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *params]
    )
    return __init__


def _add_type_spec(cls):
    spec_name = cls.__name__ + ".Spec"
    spec_qualname = cls.__qualname__ + ".Spec"
    spec_dict = {"value_type": cls, "__module__": cls.__module__}
    user_spec = cls.__dict__.get("Spec")
    if user_spec is not None:
        for name, value in user_spec.__dict__.items():
            if ExtensionTypeField.is_reserved_name(name):
                raise ValueError(f"TypeSpec {spec_qualname} uses reserved name '{name}'.")
            if cls._tf_extension_type_has_field(name):
                raise ValueError(
                    f"TypeSpec {spec_qualname} defines a variable '{name}' which shadows a "
                    f"field in {cls.__qualname__}"
                )
            if name in ("__module__", "__dict__", "__weakref__"):
                continue
            spec_dict[name] = value
    if issubclass(cls, BatchableExtensionType):
        base = BatchableExtensionTypeSpec
        if hasattr(cls, "__batch_encoder__") and "__batch_encoder__" not in spec_dict:
            spec_dict["__batch_encoder__"] = cls.__batch_encoder__
    else:
        base = ExtensionTypeSpec
        if hasattr(cls, "__batch_encoder__") or "__batch_encoder__" in spec_dict:
            raise ValueError(
                "__batch_encoder__ should only be defined for BatchableExtensionType classes."
            )
    spec = type(spec_name, (base,), spec_dict)
    spec.__qualname__ = spec_qualname
    if "__name__" in cls.__dict__:
        # TensorFlow's registration: a SavedModel names the Spec by the type's `__name__`.
        register_type_spec(cls.__dict__["__name__"] + ".Spec", spec)
    type.__setattr__(cls, "Spec", spec)
    if "__init__" in spec.__dict__:
        _wrap_user_constructor(spec)
    else:
        _build_spec_constructor(spec)
    cls.__abstractmethods__ = cls.__abstractmethods__ - {"_type_spec"}
