"""The functions an `ExportArchive` serves: a Python callable wrapped in a `tf.function` with
an input signature whose parameters carry the names TensorFlow gives them (they name the
signature's inputs where the specs have no names), and the traces of a `tf.function` given
as it is."""

import inspect

__all__ = ["endpoint_function", "is_tf_function", "traced_concrete_functions"]


def endpoint_function(fn, input_signature):
    """``tf.function(fn, input_signature=..., autograph=False)`` as Keras's TensorFlow backend
    makes it, ``fn`` seen as taking just the signature's arguments, positionally."""
    from ferroflow.function import function

    names = _parameter_names(fn, len(input_signature))
    if names is not None:
        fn = _positional(fn, names)
    return function(fn, input_signature=input_signature, autograph=False)


def _parameter_names(fn, count):
    """TensorFlow's names for the first ``count`` arguments of ``fn``: its positional
    parameters', then ``<varargs>_<i>`` for those ``*varargs`` takes. None where ``fn``'s
    signature is unknown or takes fewer arguments (its trace then reports the mismatch)."""
    if _is_layer_call(fn):
        # Keras's `Layer.__call__(self, *args, **kwargs)`: TensorFlow names them args_<i>.
        return [f"args_{i}" for i in range(count)]
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = [p.name for p in parameters if p.kind in positional][:count]
    varargs = [p.name for p in parameters if p.kind == inspect.Parameter.VAR_POSITIONAL]
    if len(names) < count:
        if not varargs:
            return None
        names += [f"{varargs[0]}_{i}" for i in range(count - len(names))]
    return names


def _is_layer_call(fn):
    from ferroflow.keras.layers.layer import Layer

    return getattr(fn, "__name__", None) == "__call__" and isinstance(
        getattr(fn, "__self__", None), Layer
    )


def _positional(fn, names):
    """``fn`` taking exactly ``names`` positionally, so that its defaulted Python arguments
    (``training=None``...) stay out of the saved function's signature."""

    def endpoint(*args):
        return fn(*args)

    endpoint.__name__ = getattr(fn, "__name__", "endpoint")
    endpoint.__signature__ = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY) for name in names]
    )
    return endpoint


def is_tf_function(fn):
    from ferroflow.function import BoundFunction, Function

    return isinstance(fn, (Function, BoundFunction))


def traced_concrete_functions(fn):
    """The concrete functions of a `tf.function` (TensorFlow's
    ``_list_all_concrete_functions``): its traces, or its input signature's trace."""
    from ferroflow.function import BoundFunction
    from ferroflow.saved_model.function_like import concrete_functions_of

    owner = fn._instance_ref() if isinstance(fn, BoundFunction) else None
    return concrete_functions_of(fn, owner)
