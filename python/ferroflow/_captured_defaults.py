"""The parameters a `tf.function`'s `input_signature` leaves out. TensorFlow types each one that
has a default as that default (a `Literal`, "captured"): a call may pass it only with the
default's value, every concrete function holds it in its structured input signature, and a
`*args` or `**kwargs` past the signature takes nothing."""

import inspect

import numpy as np

from ferroflow import _core

_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def extra_parameters(signature, covered, method):
    """The parameters of `signature` past the `covered` ones the input signature types (and
    past `self` for a method)."""
    if signature is None:
        return []
    params = list(signature.parameters.values())
    if method and params:
        params = params[1:]
    return params[covered:]


def check_keywords(params, args, kwargs, shown_signature):
    """With a `*args` among `params` (all of them, `self` left out), TensorFlow's function
    type makes the parameters before it positional-only: naming one is a TypeError."""
    if not any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params):
        return
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    for param in params:
        if param.kind in positional and param.name in kwargs:
            _fail(
                f"'{param.name}' parameter is positional only, but was passed as a keyword",
                args,
                kwargs,
                shown_signature,
            )


def check(params, values, args, kwargs, shown_signature):
    """Raises TensorFlow's TypeError where a call passes a left-out parameter (`values`, bound
    in parameter order with defaults applied) anything but its default."""
    for param, value in zip(params, values):
        if param.kind == inspect.Parameter.VAR_POSITIONAL and value:
            _fail("too many positional arguments", args, kwargs, shown_signature)
        if param.kind == inspect.Parameter.VAR_KEYWORD and value:
            name = next(iter(value))
            _fail(f"got an unexpected keyword argument '{name}'", args, kwargs, shown_signature)
        if param.kind in _VARIADIC or param.default is inspect.Parameter.empty:
            continue
        default = param.default
        if isinstance(value, (_core.Tensor, np.ndarray, np.generic)) or _is_variable(value):
            raise TypeError(
                f"Parameter `{param.name}` was expected to be of type Literal[{default!r}] but "
                f"is {_spec_of(value)!r}"
            )
        if not _equal(value, default):
            _fail(f"Can not cast {value!r} to Literal[{default!r}]", args, kwargs, shown_signature)


def structure(params, values):
    """The left-out parameters as a structured input signature holds them: the positional
    ones' defaults after the specs, the keyword-only ones' in the keyword dict."""
    positional, keywords = [], {}
    for param, value in zip(params, values):
        if param.kind in _VARIADIC:
            continue
        if param.kind == inspect.Parameter.KEYWORD_ONLY:
            keywords[param.name] = value
        else:
            positional.append(value)
    return positional, keywords


def _fail(reason, args, kwargs, shown_signature):
    raise TypeError(
        f"Binding inputs to tf.function failed due to `{reason}`. Received args: {tuple(args)!r} "
        f"and kwargs: {kwargs!r} for signature: {shown_signature!r}."
    )


def _equal(value, default):
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def _is_variable(value):
    from ferroflow.variables import Variable

    return isinstance(value, Variable)


def _spec_of(value):
    from ferroflow.tensor_spec import TensorSpec

    value = np.asarray(value) if not hasattr(value, "dtype") else value
    try:
        return TensorSpec(value.shape, value.dtype)
    except (TypeError, ValueError):
        return value
