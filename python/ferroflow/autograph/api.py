"""`to_graph`, `to_code` and `do_not_convert`: which functions get converted, and the
conversion cache."""

import ast
import inspect
import types
import warnings

from ferroflow.autograph import converter, loader, operators

_DO_NOT_CONVERT = "__ag_do_not_convert__"
_CONVERTED = "__ag_converted__"
# (code object, file name) -> the converted code object, or None to run the function as is.
_converted_code = {}


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """The function `entity` with its Python `if`, `while` and `for` statements (and `not`)
    converted to run as `tf.cond`/`tf.while_loop` when their condition is a tensor of a
    `tf.function` trace, and as plain Python otherwise.

    Returns `entity` itself when there is nothing to convert, when it is marked with
    `do_not_convert`, or when its source is unavailable (lambdas, builtins, code made by `exec`).
    Tracebacks from the converted function name the original file and lines.

    >>> def absolute(x):
    ...     if x > 0:
    ...         return x
    ...     return -x
    >>> converted = to_graph(absolute)
    >>> converted is absolute, converted.__name__
    (False, 'absolute')
    >>> to_graph(len) is len  # no Python source
    True
    """
    del recursive, experimental_optional_features  # accepted for TensorFlow's signature
    if inspect.ismethod(entity):
        function = to_graph(entity.__func__)
        return (
            entity if function is entity.__func__ else types.MethodType(function, entity.__self__)
        )
    if not isinstance(entity, types.FunctionType) or entity.__name__ == "<lambda>":
        return entity
    if getattr(entity, _DO_NOT_CONVERT, False) or getattr(entity, _CONVERTED, False):
        return entity
    key = (entity.__code__, entity.__code__.co_filename)
    if key not in _converted_code:
        _converted_code[key] = _convert(entity)
    code = _converted_code[key]
    if code is None:
        return entity
    function = loader.make_function(entity, code, operators)
    setattr(function, _CONVERTED, True)
    return function


def to_code(entity, recursive=True, experimental_optional_features=None):
    """The Python source `to_graph` makes of `entity`, for reading (it is not run from here).

    Raises ValueError when `entity` has no source to convert.
    """
    del recursive, experimental_optional_features
    function = entity.__func__ if inspect.ismethod(entity) else entity
    try:
        node = loader.parse_function(function)
        converter.convert_function(node, function.__code__.co_filename)
    except (loader.SourceUnavailable, converter.NotConvertible, AttributeError) as e:
        raise ValueError(f"AutoGraph cannot convert {entity!r}: {e}") from None
    return ast.unparse(node)


def do_not_convert(func=None):
    """Marks `func` so that `to_graph` (and so `tf.function`) runs it as Python wrote it.

    Usable as `@do_not_convert` or `@do_not_convert()`.
    """
    if func is None:
        return do_not_convert
    target = func.__func__ if inspect.ismethod(func) else func
    try:
        setattr(target, _DO_NOT_CONVERT, True)
    except (AttributeError, TypeError):
        pass  # builtins and the like are never converted anyway
    return func


def _convert(function):
    try:
        node = loader.parse_function(function)
    except loader.SourceUnavailable:
        return None
    try:
        if not converter.convert_function(node, function.__code__.co_filename):
            return None
        code = loader.compile_function(node, function)
        loader.make_function(function, code, operators)  # its closure must be complete
        return code
    except converter.NotConvertible:
        return None
    except Exception as e:  # a converter bug must not stop the user's code
        warnings.warn(
            f"AutoGraph could not convert {function.__qualname__} and will run it as written: "
            f"{type(e).__name__}: {e}",
            stacklevel=3,
        )
        return None
