"""The rest of `tf.experimental`: the dispatchers of TensorFlow APIs for user types
(`dispatch_for_api`, the elementwise dispatchers, `unregister_dispatch_for`, built on
`_dispatch`), `Optional` (and `tf.OptionalSpec`), `dlpack` and the runtime switches
(`async_scope`, `async_clear_error`, `enable_strict_mode`, `function_executor_type`,
`register_filesystem_plugin`)."""

import contextlib
import errno
import functools
import inspect
import os
import types
import typing

from ferroflow import _dispatch
from ferroflow.extension_type import as_dict
from ferroflow.type_spec import CompositeTensor, TypeSpec

__all__ = [
    "Optional",
    "OptionalSpec",
    "async_clear_error",
    "async_scope",
    "dispatch_for_api",
    "dispatch_for_binary_elementwise_apis",
    "dispatch_for_binary_elementwise_assert_apis",
    "dispatch_for_unary_elementwise_apis",
    "dlpack",
    "enable_strict_mode",
    "extension_type",
    "function_executor_type",
    "register_filesystem_plugin",
    "unregister_dispatch_for",
]

extension_type = types.ModuleType(
    "ferroflow.experimental.extension_type", "`tf.experimental.extension_type`: `as_dict`."
)
extension_type.as_dict = as_dict
extension_type.__all__ = ["as_dict"]


# --- dispatch ----------------------------------------------------------------------------------


def _type_checker(annotation):
    """(a predicate on values, the plain types it names) for a dispatch type annotation:
    a class, None, `typing.Union[...]` or `typing.List[...]`, as TensorFlow allows."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        parts = [_type_checker(t) for t in typing.get_args(annotation)]
        return (
            lambda v: any(check(v) for check, _ in parts),
            tuple(t for _, ts in parts for t in ts),
        )
    if origin is list and annotation is not list:
        args = typing.get_args(annotation)
        if len(args) != 1:
            raise AssertionError("Expected List[...] to have a single type parameter")
        element, found = _type_checker(args[0])
        return (lambda v: isinstance(v, (list, tuple)) and all(element(x) for x in v)), found
    if isinstance(annotation, type):
        # Only composite types trigger dispatch (TensorFlow's dispatchable types): a call of
        # plain tensors never reaches a handler, even one whose annotation admits tensors.
        trigger = (annotation,) if issubclass(annotation, CompositeTensor) else ()
        return (lambda v: isinstance(v, annotation)), trigger
    if annotation is None:
        return (lambda v: v is None), ()
    raise ValueError(
        f"Type annotation {annotation} is not currently supported by dispatch.  Supported "
        "annotations: type objects,  List[...], and Union[...]"
    )


def _signature_checker(api_signature, signature):
    """(check(args, kwargs), the types it names) for one `{parameter: annotation}` signature."""
    if not (isinstance(signature, dict) and all(isinstance(k, (str, int)) for k in signature)):
        raise TypeError(
            "signatures must be dictionaries mapping parameter names to type annotations."
        )
    parameters = list(api_signature.parameters.values())
    checks = []
    found = []
    for name, annotation in signature.items():
        if isinstance(name, int) and name < len(parameters):
            name = parameters[name].name
        param = api_signature.parameters.get(name)
        if param is None:
            raise ValueError(f"signature includes annotation for unknown parameter {name!r}.")
        if param.kind not in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            raise ValueError(
                "Dispatch currently only supports type annotations for positional parameters; "
                f"can't handle annotation for {param.kind!r} parameter {name}."
            )
        check, named = _type_checker(annotation)
        checks.append((name, check))
        found.extend(named)

    def matches(args, kwargs):
        try:
            bound = api_signature.bind(*args, **kwargs)
        except TypeError:
            return False
        bound.apply_defaults()
        return all(check(bound.arguments.get(name)) for name, check in checks)

    return matches, tuple(found)


def _check_target_signature(api_signature, target):
    spec = inspect.getfullargspec(target)
    if spec.varargs is not None and spec.varkw is not None and not spec.args:
        return
    target_signature = inspect.signature(target)
    ok = len(api_signature.parameters) == len(target_signature.parameters) and all(
        a.name == b.name and a.kind == b.kind
        for a, b in zip(api_signature.parameters.values(), target_signature.parameters.values())
    )
    if not ok:
        raise ValueError(
            f"Dispatch function's signature {target_signature} does not match API's "
            f"signature {api_signature}."
        )


def _with_name_parameter(target, api_signature):
    """`target` made to take the API's `name` argument when it lacks one, as TensorFlow
    wraps it: a name given opens a name scope around the call."""
    if "name" not in api_signature.parameters:
        return target
    spec = inspect.getfullargspec(target)
    target_signature = inspect.signature(target)
    if "name" in target_signature.parameters or spec.varkw is not None:
        return target
    name_index = list(api_signature.parameters).index("name")

    @functools.wraps(target)
    def with_name(*args, **kwargs):
        if name_index < len(args):
            name = args[name_index]
            args = args[:name_index] + args[name_index + 1 :]
        else:
            name = kwargs.pop("name", None)
        if name is None:
            return target(*args, **kwargs)
        from ferroflow import name_scope

        with name_scope(name):
            return target(*args, **kwargs)

    with_name.__signature__ = target_signature.replace(
        parameters=[*target_signature.parameters.values(), api_signature.parameters["name"]]
    )
    return with_name


_TARGETS = {}  # dispatch target -> [the handlers registered for it]


def _remember(target, handler):
    _TARGETS.setdefault(target, []).append(handler)


def dispatch_for_api(api, *signatures):
    """Decorator: the decorated function serves calls of `api` whose arguments match one of
    `signatures` (dicts from parameter name to type; by default the function's own
    annotations), as TensorFlow's `tf.experimental.dispatch_for_api`.

    >>> import ferroflow as tf
    >>> class MyTensor(tf.experimental.ExtensionType):
    ...     value: tf.Tensor
    >>> @tf.experimental.dispatch_for_api(tf.abs)
    ... def my_abs(x: MyTensor):
    ...     return MyTensor(tf.abs(x.value))
    >>> tf.abs(MyTensor(-5)).value.numpy()
    np.int32(5)
    >>> tf.experimental.unregister_dispatch_for(my_abs)
    """
    if not _dispatch.supports(api):
        # A public ferroflow function gains dispatch when first dispatched on (TensorFlow's
        # dispatchable APIs carry it always); anything else does not dispatch.
        if not _is_public_api(api):
            raise ValueError(f"{api} does not support dispatch.")
        api = _dispatch.install(api)
    try:
        api_signature = inspect.signature(inspect.unwrap(api))
    except (TypeError, ValueError):
        raise ValueError(f"{api} does not support dispatch.") from None
    checkers = [_signature_checker(api_signature, s) for s in signatures]

    def decorator(target):
        if not callable(target):
            raise TypeError(f"Expected dispatch_target to be callable; got {target!r}")
        target = _with_name_parameter(target, api_signature)
        _check_target_signature(api_signature, target)
        found = checkers
        if not found:
            annotated = {
                name: p.annotation
                for name, p in inspect.signature(target).parameters.items()
                if p.annotation is not inspect.Parameter.empty
            }
            if not annotated:
                raise ValueError(
                    "The dispatch_for_api decorator must be called with at least one signature, "
                    "or applied to a function that has type annotations on its parameters."
                )
            found = [_signature_checker(api_signature, annotated)]
        for check, named in found:
            handler = _api_handler(target)
            _dispatch.register(api, named, handler, check)
            _remember(target, handler)
        return target

    return decorator


def _is_public_api(api):
    module = getattr(api, "__module__", None) or ""
    return (
        inspect.isfunction(api)
        and (module == "ferroflow" or module.startswith("ferroflow."))
        and not api.__name__.startswith("_")
        and module != __name__
    )


def _api_handler(target):
    def handler(*args, **kwargs):
        return target(*args, **kwargs)

    return handler


def _elementwise(kind, annotations, handler):
    registered = {"unary": _UNARY, "binary": _BINARY, "binary_assert": _BINARY_ASSERT}[kind]
    key = tuple(annotations)
    if key in registered:
        what = {
            "unary": "A unary elementwise dispatch handler",
            "binary": "A binary elementwise dispatch handler",
            "binary_assert": "A binary elementwise assert dispatch handler",
        }[kind]
        shown = key[0] if kind == "unary" else key
        raise ValueError(f"{what} ({registered[key]}) has already been registered for {shown}.")
    checks = [_type_checker(a) for a in annotations]
    named = tuple(t for _, ts in checks for t in ts)

    def check(*operands):
        return all(c(v) for (c, _), v in zip(checks, operands))

    def serve(op, *operands):
        return handler(op, *operands)

    registered[key] = handler
    if kind == "unary":
        _dispatch.register_unary_elementwise(named, serve, check)
    else:
        _dispatch.register_binary_elementwise(named, serve, check, kind=kind)
    _remember(handler, serve)
    return handler


_UNARY, _BINARY, _BINARY_ASSERT = {}, {}, {}


def dispatch_for_unary_elementwise_apis(x_type):
    """Decorator: `handler(api_func, x)` serves every unary elementwise API (tf.abs,
    tf.math.exp, ...) called with `x` of `x_type`; `api_func(x)` calls that API with its other
    arguments bound."""
    return lambda handler: _elementwise("unary", (x_type,), handler)


def dispatch_for_binary_elementwise_apis(x_type, y_type):
    """Decorator: `handler(api_func, x, y)` serves every binary elementwise API (tf.math.add,
    tf.maximum, ...) called with `x` of `x_type` and `y` of `y_type`."""
    return lambda handler: _elementwise("binary", (x_type, y_type), handler)


def dispatch_for_binary_elementwise_assert_apis(x_type, y_type):
    """Decorator: `handler(assert_func, x, y)` serves tf.debugging's elementwise comparisons
    (assert_equal, assert_less, ...) called with `x` of `x_type` and `y` of `y_type`."""
    return lambda handler: _elementwise("binary_assert", (x_type, y_type), handler)


def unregister_dispatch_for(dispatch_target):
    """Removes a function registered with one of the `dispatch_for_*` decorators; ValueError
    when it was not."""
    handlers = _TARGETS.pop(dispatch_target, None)
    if handlers is None:
        raise ValueError(
            f"Function {dispatch_target} was not registered using a `@dispatch_for_*` decorator."
        )
    for handler in handlers:
        _dispatch.unregister(handler)
    for table in (_UNARY, _BINARY, _BINARY_ASSERT):
        for key in [k for k, v in table.items() if v is dispatch_target]:
            del table[key]


# --- Optional ----------------------------------------------------------------------------------


class Optional(CompositeTensor):
    """A value that may be absent, as `tf.experimental.Optional`: `from_value(v)` or
    `empty(element_spec)`; `has_value()` is a boolean tensor and `get_value()` the value
    (InvalidArgumentError when there is none, also when a traced graph runs)."""

    __slots__ = ()

    @staticmethod
    def from_value(value):
        """An Optional holding `value` (a nest of tensors and composites)."""
        from ferroflow import nest
        from ferroflow.array_ops import constant
        from ferroflow.type_spec import type_spec_from_value

        value = _normalize_element(value)
        spec = nest.map_structure(type_spec_from_value, value)
        return _OptionalImpl(constant(True), value, spec)

    @staticmethod
    def empty(element_spec):
        """An Optional with no value, of values of `element_spec`."""
        from ferroflow import nest
        from ferroflow.array_ops import constant, zeros

        flat = nest.flatten(element_spec, expand_composites=True)
        filler = [
            zeros([0 if d is None else d for d in (s.shape.dims or [])], s.dtype) for s in flat
        ]
        value = nest.pack_sequence_as(element_spec, filler, expand_composites=True)
        return _OptionalImpl(constant(False), value, element_spec)

    def has_value(self, name=None):
        """A scalar boolean tensor: whether there is a value."""
        raise NotImplementedError

    def get_value(self, name=None):
        """The value; InvalidArgumentError when there is none."""
        raise NotImplementedError

    @property
    def element_spec(self):
        """The spec of the value."""
        raise NotImplementedError


def _normalize_element(value):
    """Tuples and dicts nest; anything else (a Python list too, as in tf.data) is one tensor
    or composite."""
    from ferroflow.array_ops import convert_to_tensor

    if isinstance(value, CompositeTensor):
        return value
    if isinstance(value, dict):
        return type(value)((k, _normalize_element(v)) for k, v in value.items())
    if isinstance(value, tuple):
        parts = [_normalize_element(v) for v in value]
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    return convert_to_tensor(value)


class _OptionalImpl(Optional):
    __slots__ = ("_has", "_value", "_spec")

    def __init__(self, has, value, spec):
        self._has = has
        self._value = value
        self._spec = spec

    def has_value(self, name=None):
        from ferroflow.array_ops import identity

        return identity(self._has)

    def get_value(self, name=None):
        from ferroflow import _core
        from ferroflow.check_ops import Assert
        from ferroflow.errors import InvalidArgumentError

        if not _core.is_symbolic(self._has) and not _tracing_now():
            if not bool(self._has.numpy()):
                raise InvalidArgumentError(None, None, "The given optional does not have a value.")
            return self._value
        Assert(self._has, ["The given optional does not have a value."])
        return self._value

    @property
    def element_spec(self):
        return self._spec

    @property
    def _type_spec(self):
        return OptionalSpec(self._spec)

    def __repr__(self):
        return f"<tf.experimental.Optional element_spec={self._spec!r}>"


def _tracing_now():
    from ferroflow import _tracing

    return _tracing.tracing()


class OptionalSpec(TypeSpec):
    """The spec of an `Optional`: the spec of its value (`element_spec`)."""

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def element_spec(self):
        return self._element_spec

    @property
    def value_type(self):
        return _OptionalImpl

    @property
    def _component_specs(self):
        from ferroflow import dtypes
        from ferroflow.tensor_spec import TensorSpec

        return (TensorSpec([], dtypes.bool), self._element_spec)

    def _to_components(self, value):
        return (value._has, value._value)

    def _from_components(self, components):
        return _OptionalImpl(components[0], components[1], self._element_spec)

    def _serialize(self):
        return (self._element_spec,)

    @staticmethod
    def from_value(value):
        return OptionalSpec(value.element_spec)


# --- dlpack ------------------------------------------------------------------------------------


def to_dlpack(tf_tensor):
    """A DLPack capsule sharing `tf_tensor`'s host memory (a GPU tensor's values are copied to
    the host first: wgpu memory cannot be exported).

    >>> import numpy as np, ferroflow as tf
    >>> t = tf.constant([1.0, 2.0])
    >>> np.from_dlpack(t).tolist()
    [1.0, 2.0]
    """
    from ferroflow import _core
    from ferroflow.errors import InvalidArgumentError

    # As TensorFlow, only tensors: a tf.Variable is refused too.
    if not isinstance(tf_tensor, _core.Tensor):
        raise InvalidArgumentError(
            None, None, "The argument to `to_dlpack` must be a TF tensor, not Python object"
        )
    return _core.to_dlpack(tf_tensor)


def from_dlpack(dlcapsule):
    """A tensor reading a DLPack capsule's host memory in place (compact row-major strides), as
    TensorFlow's: a later write to the producer's array shows in the tensor, and the producer's
    deleter runs when the last tensor sharing the memory is gone. The capsule is consumed (a
    refused one is left to its producer). Memory not aligned for the element type, and bool bytes
    other than 0 and 1, are copied once instead.

    >>> import numpy as np, ferroflow as tf
    >>> a = np.arange(3, dtype=np.float32)
    >>> t = tf.experimental.dlpack.from_dlpack(a.__dlpack__())
    >>> a[0] = 5.0
    >>> t.numpy().tolist()
    [5.0, 1.0, 2.0]
    """
    from ferroflow import _core

    if type(dlcapsule).__name__ != "PyCapsule" and hasattr(dlcapsule, "__dlpack__"):
        # An extension over TensorFlow (which takes capsules only): any DLPack producer.
        dlcapsule = dlcapsule.__dlpack__()
    return _core.from_dlpack(dlcapsule)


dlpack = types.ModuleType(
    "ferroflow.experimental.dlpack", "`tf.experimental.dlpack`: `to_dlpack`, `from_dlpack`."
)
dlpack.to_dlpack = to_dlpack
dlpack.from_dlpack = from_dlpack
dlpack.__all__ = ["from_dlpack", "to_dlpack"]


# --- runtime switches --------------------------------------------------------------------------

STRICT_MODE = False


def enable_strict_mode():
    """Turns deprecation warnings into errors, as TensorFlow's switch (ferroflow's own API has
    no deprecated names, so only the flag is set)."""
    global STRICT_MODE
    STRICT_MODE = True


@contextlib.contextmanager
def async_scope():
    """TensorFlow runs the block's ops asynchronously and waits for them at its end; ferroflow's
    eager ops already complete (or raise) when called, so the block runs as it is."""
    try:
        yield
    finally:
        async_clear_error()


def async_clear_error():
    """Clears pending errors of asynchronous execution (ferroflow keeps none)."""


_EXECUTOR_TYPE = [None]


@contextlib.contextmanager
def function_executor_type(executor_type):
    """The executor `tf.function` calls use inside the block (ferroflow has one executor; the
    name is kept while the block runs)."""
    old = _EXECUTOR_TYPE[0]
    _EXECUTOR_TYPE[0] = executor_type
    try:
        yield
    finally:
        _EXECUTOR_TYPE[0] = old


def register_filesystem_plugin(plugin_location):
    """Loads a TensorFlow filesystem plugin: OSError (ENOENT) for a missing file, as
    TensorFlow; ferroflow cannot load TensorFlow's C plugins, so an existing one raises
    UnimplementedError."""
    if not os.path.exists(plugin_location):
        raise OSError(
            errno.ENOENT,
            "The file to load file system plugin from does not exist.",
            plugin_location,
        )
    from ferroflow.errors import UnimplementedError

    raise UnimplementedError(
        None,
        None,
        f"ferroflow cannot load TensorFlow filesystem plugins ({plugin_location}): it has no "
        "modular filesystem layer",
    )
