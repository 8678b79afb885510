"""`tf.py_function` and `tf.numpy_function`: Python functions as ops.

Eagerly the function runs at once. While a `tf.function` traces, it becomes a graph node
(`EagerPyFunc`, `PyFunc`, `PyFuncStateless`: the Rust `HostCall`) that calls it every time
the graph runs and never while tracing, as TensorFlow's; its results have the dtypes of
``Tout`` and unknown shapes (give them one with `tf.ensure_shape`). Exceptions the function
raises become TensorFlow's classes (`_status_error`); `py_function` is differentiable, eagerly
and in graphs (each call's gradient is the tape it ran under, TensorFlow's tape cache);
`numpy_function` is not."""

import contextlib
import functools
import threading

import numpy as np

from ferroflow import _core, _tracing, nest
from ferroflow import dtypes as _dtypes
from ferroflow import errors as _errors
from ferroflow.array_ops import convert_to_tensor
from ferroflow.tensor_spec import TensorSpec
from ferroflow.type_spec import TypeSpec

__all__ = ["numpy_function", "py_function"]

_probe = threading.local()


class ProbeNeedsTrace(BaseException):  # noqa: N818 - a signal, not an error
    """Raised by a py_function or numpy_function called while `probing`: the caller probes
    again with `traced`, where the call is staged and never runs (a BaseException, so user
    code catching Exception lets it through)."""


@contextlib.contextmanager
def probing():
    """While alive, calls of py_function/numpy_function raise ProbeNeedsTrace instead of
    running the Python function: `tf.data` learns a map function's output spec by calling it
    on stand-in elements, where TensorFlow traces it and never calls the function."""
    previous = getattr(_probe, "on", False)
    _probe.on = True
    try:
        yield
    finally:
        _probe.on = previous


def traced(thunk):
    """``thunk()`` inside a trace of its own that is then discarded: py_function and
    numpy_function calls are staged (never run) and give results of unknown shape."""
    previous = getattr(_probe, "on", False)
    _probe.on = False
    _core.trace_begin()
    try:
        return thunk()
    finally:
        _core.trace_abandon()
        _probe.on = previous


def _check_probe():
    if getattr(_probe, "on", False):
        raise ProbeNeedsTrace()


def _status_error(e):
    """TensorFlow's mapping of an exception raised inside a py_func to its error class
    (`py_func.cc`): ValueError/TypeError are InvalidArgumentError, StopIteration
    OutOfRangeError, MemoryError ResourceExhaustedError, NotImplementedError
    UnimplementedError, anything else (TensorFlow's own errors included) UnknownError."""
    if isinstance(e, (ValueError, TypeError)):
        cls = _errors.InvalidArgumentError
    elif isinstance(e, StopIteration):
        cls = _errors.OutOfRangeError
    elif isinstance(e, MemoryError):
        cls = _errors.ResourceExhaustedError
    elif isinstance(e, NotImplementedError):
        cls = _errors.UnimplementedError
    else:
        cls = _errors.UnknownError
    error = cls(None, None, f"{type(e).__name__}: {e}")
    error.__cause__ = e
    return error


def _check_args(script_op, name, func, inp, Tout, **kwargs):  # noqa: N803 - TensorFlow's name
    """TensorFlow's argument checks; a decorator when ``func`` is None."""
    if Tout is None:
        raise TypeError(
            f"Missing required argument: 'Tout'\n  If using {name} as a decorator, set `Tout`\n"
            f"  **by name** above the function:\n  `@{name}(Tout=tout)`"
        )
    if func is None:
        if inp is not None:
            raise TypeError(
                f"Don't set the `inp` argument when using {name} as a decorator (`func=None`)."
            )

        def decorator(fun):
            @functools.wraps(fun)
            def wrapper(*args):
                return script_op(fun, inp=args, Tout=Tout, **kwargs)

            return wrapper

        return decorator
    if inp is None:
        raise TypeError(
            "Missing argument `inp`:\n  You must set the `inp` argument (the list of arguments "
            "to the\n  function), unless you use `{name}` as a decorator(`func=None`).".replace(
                "{name}", name
            )
        )
    return None


def _as_dtype_or_spec(t):
    return t if isinstance(t, TypeSpec) else _dtypes.as_dtype(t)


def _variables_read(values):
    from ferroflow.variables import Variable

    return [v.read_value() if isinstance(v, Variable) else v for v in values]


def _is_composite(value):
    from ferroflow.type_spec import CompositeTensor

    return isinstance(value, CompositeTensor)


class _Signature:
    """A py_function's flat inputs and outputs: composite inputs become their components and
    TypeSpec outputs their components' dtypes, as TensorFlow's `_wrap_for_composites`."""

    def __init__(self, func, inp, Tout):  # noqa: N803
        self.many = isinstance(Tout, (list, tuple))
        touts = [_as_dtype_or_spec(t) for t in (Tout if self.many else [Tout])]
        inp = _variables_read(list(inp))
        self.composite = any(_is_composite(v) for v in inp) or any(
            isinstance(t, TypeSpec) for t in touts
        )
        self.func = func
        self.out_structure = touts
        if self.composite:
            self.in_structure = [v if _is_composite(v) else 1 for v in inp]
            self.inputs = [convert_to_tensor(x) for x in nest.flatten(inp, expand_composites=True)]
            self.dtypes = [
                t.dtype if isinstance(t, TensorSpec) else t
                for t in nest.flatten(touts, expand_composites=True)
            ]
        else:
            self.inputs = [convert_to_tensor(x) for x in inp]
            self.dtypes = touts

    def call(self, args):
        """The function on the flat inputs; its results flattened as TensorFlow's wrapper."""
        if not self.composite:
            return self.func(*args)
        structured = nest.pack_sequence_as(self.in_structure, list(args), expand_composites=True)
        out = self.func(*structured)
        if not self.out_structure:
            return []
        if not isinstance(out, (list, tuple)):
            out = [out]
        flat = []
        for value, expected in zip(out, self.out_structure):
            if isinstance(expected, TypeSpec) and not isinstance(expected, TensorSpec):
                if not expected.is_compatible_with(value):
                    raise ValueError(
                        f"py_function: func={self.func} returned {out!r}, which did not match "
                        f"Tout={self.out_structure!r}.\nIn particular, {value!r} is not "
                        f"compatible with {expected!r}."
                    )
                flat.extend(nest.flatten(value, expand_composites=True))
            else:
                if _is_composite(value):
                    raise ValueError(
                        f"py_function: func={self.func} returned {out!r}, which did not match "
                        f"Tout={self.out_structure!r}.\nIn particular, {value!r} is not a "
                        "Tensor."
                    )
                flat.append(value)
        return flat

    def results(self, flat):
        """The op's results from the flat outputs: composites rebuilt, a list where Tout is."""
        if self.composite and self.dtypes:
            flat = nest.pack_sequence_as(self.out_structure, list(flat), expand_composites=True)
        return flat if self.many else flat[0]


def _convert_py_results(ret, dtypes):
    """`EagerFunc._call`'s conversion: a list or tuple pairs with the dtypes (extra values are
    dropped, missing ones fail the count check), None is no value, anything else is the first
    output."""
    from ferroflow.variables import Variable

    def convert(value, dtype):
        if isinstance(value, Variable):
            raise RuntimeError(
                "Attempting to return a variable from an eagerly executed py_func. Only numeric "
                "data structures like Tensors or NumPy arrays should be returned; to return the "
                "value of a variable, make sure to obtain the Tensor backing it by calling "
                f"`.read_value()` on the variable in question: {value}"
            )
        return convert_to_tensor(value, dtype=dtype)

    if isinstance(ret, (tuple, list)):
        return [convert(x, d) for x, d in zip(ret, dtypes)]
    if ret is None:
        return []
    return [convert(ret, dtypes[0])]


def _check_count(outputs, dtypes, token="pyfunc"):
    if len(outputs) != len(dtypes):
        raise _errors.InvalidArgumentError(
            None,
            None,
            f"{token} returns {len(outputs)} values, but expects to see {len(dtypes)} values.",
        )


def _watchable(t):
    return t.dtype.is_floating or t.dtype.is_complex


class _EagerForward:
    """What the graph node calls: ``(args, record) -> (outputs, backward)``. With ``record``
    (a tape may differentiate the call) the function runs under its own tape, and ``backward``
    gives the inputs' gradients from the outputs' (TensorFlow's tape cache, one per call)."""

    def __init__(self, signature):
        self._signature = signature

    def _run(self, args):
        try:
            ret = self._signature.call(args)
            return _convert_py_results(ret, self._signature.dtypes)
        except Exception as e:  # the function's own error, as TensorFlow's kernel reports it
            raise _status_error(e) from e

    def __call__(self, args, record):
        if not record:
            return self._run(args), None
        from ferroflow.backprop import GradientTape

        tape = GradientTape(persistent=True)
        with tape:
            for a in args:
                if _watchable(a):
                    tape.watch(a)
            outputs = self._run(args)

        def backward(upstream):
            targets = [y for y, g in zip(outputs, upstream) if g is not None]
            seeds = [g for g in upstream if g is not None]
            if not targets:
                return [None] * len(args)
            return tape.gradient(targets, list(args), output_gradients=seeds)

        return outputs, backward


def py_function(func=None, inp=None, Tout=None, name=None):  # noqa: N803 - TensorFlow's name
    """Runs ``func`` on eager tensors and converts its results to ``Tout`` (a dtype, a
    TypeSpec, or a list of them). Inside a `tf.function` it is a graph node that calls ``func``
    each time the graph runs (never while tracing); its results have unknown shapes.
    Differentiable; an exception in ``func`` becomes TensorFlow's error class for it.

    >>> import ferroflow as tf
    >>> float(tf.py_function(lambda a: a * 2.0, [tf.constant(3.0)], Tout=tf.float32))
    6.0
    """
    decorator = _check_args(py_function, "tf.py_function", func, inp, Tout)
    if decorator is not None:
        return decorator
    if not callable(func):
        raise ValueError(
            f"Expected func to be callable. Received func={func} of type {type(func)}."
        )
    _check_probe()
    signature = _Signature(func, inp, Tout)
    if _tracing.tracing():
        forward = _EagerForward(signature)
        enums = [d.as_datatype_enum for d in signature.dtypes]
        outputs = _core.host_call("EagerPyFunc", forward, True, signature.inputs, enums)
    else:
        # Eagerly the function's ops are recorded by the active tapes, which differentiates
        # the call as TensorFlow's tape cache does.
        try:
            ret = signature.call(signature.inputs)
            outputs = _convert_py_results(ret, signature.dtypes)
        except Exception as e:
            raise _status_error(e) from e
        _check_count(outputs, signature.dtypes)
    return signature.results(outputs)


def _numpy_argument(t):
    """A tensor as TensorFlow hands it to a numpy function: a numpy scalar or array (strings as
    an object array of bytes)."""
    value = t.numpy()
    if t.dtype == _dtypes.string and isinstance(value, np.ndarray):
        return value.astype(object)
    return value


def _numpy_result(value):
    """`FuncRegistry._convert`: an array, strings as objects (bytes)."""
    result = np.asarray(value, order="C")
    if result.dtype.char == "S" and result is not value:
        return np.asarray(value, order="C", dtype=object)
    if result.dtype.char == "U" and result is not value:
        value = np.vectorize(lambda x: x.encode("utf8"))(value)
        return np.asarray(value, order="C", dtype=object)
    if result.dtype.char == "U":
        return result.astype(np.bytes_)
    return result


class _NumpyForward:
    """What a PyFunc node calls: the function on numpy values; each result becomes a tensor of
    its own dtype, which the node checks against ``Tout``."""

    def __init__(self, func):
        self._func = func

    def __call__(self, args, record):
        try:
            ret = self._func(*[_numpy_argument(a) for a in args])
            if isinstance(ret, bytes):
                ret = [ret]
            if isinstance(ret, (tuple, list)):
                values = [_numpy_result(x) for x in ret]
            elif ret is None:
                values = []
            else:
                values = [_numpy_result(ret)]
            return [convert_to_tensor(v) for v in values], None
        except Exception as e:
            raise _status_error(e) from e


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):  # noqa: N803
    """Runs ``func`` on numpy arrays. Eagerly each result becomes a tensor of its own dtype
    (TensorFlow does not apply ``Tout`` then); inside a `tf.function` it is a graph node that
    calls ``func`` each time the graph runs (never while tracing), whose results must have the
    dtypes of ``Tout`` (InvalidArgumentError otherwise) and have unknown shapes. A node with
    ``stateful=False`` whose results nothing reads is dropped. Not differentiable.

    >>> import numpy as np
    >>> import ferroflow as tf
    >>> float(tf.numpy_function(np.sinh, [np.float32(0.0)], Tout=tf.float32))
    0.0
    """
    decorator = _check_args(numpy_function, "tf.numpy_function", func, inp, Tout, stateful=stateful)
    if decorator is not None:
        return decorator
    _check_probe()
    if _tracing.tracing():
        if not callable(func):
            raise ValueError(
                f"Expected func to be callable. Received func={func} of type {type(func)}."
            )
        many = isinstance(Tout, (list, tuple))
        dtypes = [_dtypes.as_dtype(t) for t in (Tout if many else [Tout])]
        inputs = [convert_to_tensor(x) for x in _variables_read(list(inp))]
        kind = "PyFunc" if stateful else "PyFuncStateless"
        enums = [d.as_datatype_enum for d in dtypes]
        outputs = _core.host_call(kind, _NumpyForward(func), False, inputs, enums)
        return outputs if many else outputs[0]
    arrays = [np.array(x.numpy() if hasattr(x, "numpy") else x) for x in inp]
    result = nest.flatten(func(*arrays))
    outputs = [None if v is None else convert_to_tensor(v) for v in result]
    return outputs[0] if len(outputs) == 1 else outputs
