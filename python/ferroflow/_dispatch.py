"""Dispatch of TensorFlow's API functions to composite values (RaggedTensor; SparseTensor and
ExtensionTypes can register the same way), as TensorFlow's `dispatch_for_api` and elementwise
dispatchers.

An API function opts in with `@add_dispatch_support` (or, in the elementwise factories of
`math.py`, by calling `dispatch_on_error` from its own `except` block). Its plain tensor path
runs first and costs nothing extra: a composite argument cannot become a tensor, so the plain
path raises, and only then are the arguments searched for a value of a registered type. The
handler found is called with the call's own arguments.

Three tables say what a type supports:

* `register(api, types, handler)`: `handler(*args, **kwargs)` serves `api` (TensorFlow's
  `dispatch_for_api`);
* `register_unary_elementwise(types, handler)`: `handler(op, x)` serves every API declared
  `kind="unary"` (x is its first argument; `op(x)` calls the API with the other arguments bound);
* `register_binary_elementwise(types, handler)`: `handler(op, x, y)` serves every `kind="binary"`
  API (its first two arguments); `kind="binary_assert"` APIs (tf.debugging's comparisons) have
  their own table (`register_binary_elementwise(types, handler, kind="binary_assert")`).

Each registration may add `check(args, kwargs)` (or `check(*operands)` for the elementwise
tables): the handler serves a call only when it returns true (TensorFlow's per-parameter type
signatures of `tf.experimental.dispatch_for_api`). `supports(api)` says whether `api` dispatches;
`install(api)` gives a public function that does not yet dispatch the `add_dispatch_support`
wrapper, rebinding it wherever ferroflow's modules hold it (so only APIs a user dispatches on pay
for the wrapper).
"""

import functools
import inspect
import sys
from types import ModuleType

from ferroflow import _core

__all__ = [
    "add_dispatch_support",
    "dispatch_on_error",
    "operator_fallback",
    "register",
    "register_binary_elementwise",
    "register_unary_elementwise",
    "supports",
    "unregister",
]

_API = {}  # public API function -> [(types, handler)]
_KIND = {}  # public API function -> "unary" | "binary"
_ELEMENTWISE = {"unary": [], "binary": [], "binary_assert": []}  # kind -> [(types, handler, check)]
_SUPPORTED = set()  # APIs that dispatch (decorated or declared)
_OPERANDS = {"unary": 1, "binary": 2, "binary_assert": 2}
_TYPES = ()  # every registered type (a quick test for "could anything match")


def _refresh_types():
    global _TYPES
    found = []
    for entries in [*_API.values(), *_ELEMENTWISE.values()]:
        for types, *_ in entries:
            found.extend(t for t in types if t not in found)
    _TYPES = tuple(found)


def _as_types(types):
    return tuple(types) if isinstance(types, (list, tuple)) else (types,)


def register(api, types, handler, check=None):
    """`handler` serves calls of `api` that have an argument of one of `types` (and for which
    `check(args, kwargs)` holds, when given)."""
    _API.setdefault(api, []).insert(0, (_as_types(types), handler, check))
    _refresh_types()
    return handler


def register_unary_elementwise(types, handler, check=None):
    """`handler(op, x)` serves every unary elementwise API called with `x` of `types`."""
    _ELEMENTWISE["unary"].insert(0, (_as_types(types), handler, check))
    _refresh_types()
    return handler


def register_binary_elementwise(types, handler, check=None, kind="binary"):
    """`handler(op, x, y)` serves every binary elementwise API (or, with
    `kind="binary_assert"`, every elementwise assertion) called with x or y of `types`."""
    _ELEMENTWISE[kind].insert(0, (_as_types(types), handler, check))
    _refresh_types()
    return handler


def unregister(handler):
    """Removes `handler` from every table."""
    for entries in [*_API.values(), *_ELEMENTWISE.values()]:
        entries[:] = [e for e in entries if e[1] is not handler]
    _refresh_types()


def _values(args, kwargs):
    for value in (*args, *kwargs.values()):
        yield value
        if type(value) in (list, tuple):
            yield from value


def _matches(types, args, kwargs):
    return any(isinstance(v, types) for v in _values(args, kwargs))


def _bind_operands(api, count, args, kwargs):
    """(the first `count` arguments of a call, a function of them that calls `api` with the
    call's other arguments)."""
    signature = _signature(api)
    bound = signature.bind(*args, **kwargs)
    names = list(signature.parameters)[:count]
    operands = [bound.arguments[n] for n in names]
    rest = {k: v for k, v in bound.arguments.items() if k not in names}

    def op(*values):
        return api(**dict(zip(names, values)), **rest)

    return operands, op


@functools.cache
def _signature(api):
    return inspect.signature(inspect.unwrap(api))


def find(api, args, kwargs):
    """A zero-argument callable running the handler for this call, or None."""
    if not _TYPES or not _matches(_TYPES, args, kwargs):
        return None
    found = None
    for types, handler, check in _API.get(api, ()):
        if _matches(types, args, kwargs) and (check is None or check(args, kwargs)):
            if check is None:
                return functools.partial(handler, *args, **kwargs)
            if found is not None:
                _ambiguous(api, found[0], handler)
            found = (handler, functools.partial(handler, *args, **kwargs))
    kind = _KIND.get(api)
    if kind is not None:
        try:
            operands, op = _bind_operands(api, _OPERANDS[kind], args, kwargs)
        except TypeError:
            return None if found is None else found[1]
        for types, handler, check in _ELEMENTWISE[kind]:
            if any(isinstance(v, types) for v in operands) and (check is None or check(*operands)):
                if found is not None and check is not None:
                    _ambiguous(api, found[0], handler)
                if found is None:
                    return functools.partial(handler, op, *operands)
                break
    return None if found is None else found[1]


def _ambiguous(api, first, second):
    """TensorFlow refuses a call two user dispatch targets (those registered with a check)
    both match."""
    name = getattr(api, "__name__", api)
    raise ValueError(
        f"Multiple dispatch targets that were registered with tf.dispatch_for ({first} and "
        f"{second}) match the arguments to {name}"
    )


def dispatch_on_error(api, args, kwargs):
    """Called from an API's `except` block: the handler's result, or re-raises."""
    handler = find(api, args, kwargs)
    if handler is None:
        raise  # noqa: PLE0704 - re-raises the error being handled by the caller
    return handler()


# The API behind each Tensor operator, by the reflected method's name (what TensorFlow's
# operator wrapper calls for `x op y`).
_OPERATOR_APIS = {
    "__radd__": "math.add",
    "__rsub__": "math.subtract",
    "__rmul__": "math.multiply",
    "__rtruediv__": "math.truediv",
    "__rfloordiv__": "math.floordiv",
    "__rmod__": "math.floormod",
    "__rpow__": "math.pow",
    "__rmatmul__": "linalg.matmul",
    "__rand__": "math.logical_and",
    "__ror__": "math.logical_or",
    "__rxor__": "math.logical_xor",
    # Comparisons: TensorFlow dispatches the op; no operand class defines these reflected names,
    # so only a dispatch target serves them.
    "__rlt__": "math.less",
    "__rle__": "math.less_equal",
    "__rgt__": "math.greater",
    "__rge__": "math.greater_equal",
    "__req__": "math.equal",
    "__rne__": "math.not_equal",
}


def operator_fallback(reflected, x, y, error):
    """`x op y` for a Tensor `x` whose plain path raised `error` (TypeError or ValueError:
    `y` could not become a tensor). As TensorFlow's operator wrapper: the op's API dispatches
    on `y` (a RaggedTensor, say); failing that, `y`'s reflected method gets a chance; the
    original error stands if neither serves. The Rust operators call this."""
    module, name = _OPERATOR_APIS[reflected].split(".")
    api = getattr(getattr(sys.modules["ferroflow"], module), name)
    handler = find(api, (x, y), {})
    if handler is not None:
        return handler()
    method = getattr(type(y), reflected, None)
    if method is None or _core.is_tensor(y):
        # A tensor's reflected method is this operator again (which would come back here).
        raise error
    try:
        out = method(y, x)
    except (TypeError, ValueError):
        raise error from None
    if out is NotImplemented:
        raise error
    return out


def declare(api, kind=None):
    """Marks `api` as dispatching; with `kind`, as a unary or binary elementwise API (or a
    binary elementwise assertion, "binary_assert"; see the module docstring)."""
    _SUPPORTED.add(api)
    if kind is not None:
        _KIND[api] = kind
    return api


def supports(api):
    """Whether calls of `api` dispatch to registered handlers."""
    return api in _SUPPORTED


_INSTALLED = {}  # a public function -> its dispatching wrapper, made by `install`


def install(api):
    """The dispatching form of `api`: `api` itself if it dispatches, else an
    `add_dispatch_support` wrapper that replaces `api` in every ferroflow module holding it
    (callers that kept the old function object keep calling it without dispatch)."""
    if api in _SUPPORTED:
        return api
    if api in _INSTALLED:
        return _INSTALLED[api]
    wrapped = add_dispatch_support(api)
    _INSTALLED[api] = wrapped
    for module in _ferroflow_modules():
        for attr, value in list(vars(module).items()):
            if value is api:
                setattr(module, attr, wrapped)
    return wrapped


def _ferroflow_modules():
    """ferroflow's imported modules, and the namespaces built as module objects inside them
    (e.g. `tf.nn.experimental`, which is no file and so not in `sys.modules`)."""
    found = {}
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "ferroflow" or name.startswith("ferroflow.")):
            continue
        found[id(module)] = module
        for value in list(vars(module).values()):
            if isinstance(value, ModuleType) and value.__name__.startswith("ferroflow."):
                found.setdefault(id(value), value)
    return list(found.values())


def elementwise_apis(kind):
    """The APIs declared `kind` ("unary", "binary" or "binary_assert")."""
    return [api for api, k in _KIND.items() if k == kind]


def add_dispatch_support(fn=None, *, kind=None):
    """Decorator: calls of `fn` with a composite argument go to its registered handler."""
    if fn is None:
        return functools.partial(add_dispatch_support, kind=kind)

    @functools.wraps(fn)
    def api(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception:
            handler = find(api, args, kwargs)
            if handler is None:
                raise
        return handler()

    declare(api, kind)
    return api
