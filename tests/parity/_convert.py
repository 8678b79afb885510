"""Runs one parity program and turns its result into plain, picklable, comparable data.

Both sides import this module: the TensorFlow worker (`_worker.py`, a separate interpreter) and
the ferroflow side (in the pytest process). It must therefore not import TensorFlow or ferroflow:
the framework arrives as the `tf` argument, and results are recognised by duck typing.

The comparable form is built from tuples whose first item is a tag:

    ("tensor", kind, dtype, shape, value)   kind: "tensor", "variable", "ndarray" or "npscalar";
                                            value: a numpy array
    ("py", type name, value)                bool, int, float, complex, str, bytes
    ("none",)
    ("dict", type name, [(key, item), ...]) items in iteration order
    ("list", [item, ...])
    ("tuple", [item, ...])
    ("namedtuple", type name, fields, [item, ...])
    ("dtype", name)  ("shape", dims or None)
    ("raised", class name, message)         the program raised
    ("object", type name)                   anything else: only its type's name is compared
"""

import linecache
import traceback

import numpy as np

_PY_SCALARS = (bool, int, float, complex, str, bytes)


def _dtype_name(dtype):
    name = getattr(dtype, "name", None)
    return name if isinstance(name, str) else str(dtype)


def _is_tensor_like(value):
    return callable(getattr(value, "numpy", None)) and hasattr(value, "dtype")


def _static_shape(value):
    shape = getattr(value, "shape", None)
    if shape is None:
        return None
    dims = getattr(shape, "dims", shape)
    if dims is None:  # TensorShape of unknown rank
        return None
    return tuple(None if d is None else int(getattr(d, "value", d)) for d in dims)


def to_comparable(value):
    """The comparable form of a program's result (see the module docstring)."""
    if value is None:
        return ("none",)
    if isinstance(value, BaseException):
        return ("raised", type(value).__name__, str(value))
    if isinstance(value, _PY_SCALARS):
        return ("py", type(value).__name__, value)
    if isinstance(value, np.ndarray):
        return ("tensor", "ndarray", value.dtype.name, value.shape, value.copy())
    if isinstance(value, np.generic):
        array = np.asarray(value)
        return ("tensor", "npscalar", array.dtype.name, (), array)
    if type(value).__name__ in ("SparseTensor", "IndexedSlices"):
        # Composites compare by their component tensors and static shape (as a namedtuple).
        parts = [value.indices, value.values, value.dense_shape, _static_shape(value)]
        fields = ("indices", "values", "dense_shape", "shape")
        return ("namedtuple", type(value).__name__, fields, [to_comparable(p) for p in parts])
    if type(value).__name__.endswith("Spec") and type(value).__name__ != "TensorSpec":
        if callable(getattr(value, "_serialize", None)):
            serialized = to_comparable(value._serialize())
            return ("namedtuple", type(value).__name__, ("serialized",), [serialized])
    if _is_tensor_like(value):
        array = np.asarray(value.numpy())
        kind = "variable" if "Variable" in type(value).__name__ else "tensor"
        shape = _static_shape(value)
        return ("tensor", kind, _dtype_name(value.dtype), shape, array)
    if isinstance(value, dict):
        items = [(to_comparable(k), to_comparable(v)) for k, v in value.items()]
        return ("dict", type(value).__name__, items)
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        fields = tuple(type(value)._fields)
        return ("namedtuple", type(value).__name__, fields, [to_comparable(v) for v in value])
    if isinstance(value, tuple):
        return ("tuple", [to_comparable(v) for v in value])
    if isinstance(value, list):
        return ("list", [to_comparable(v) for v in value])
    if type(value).__name__ == "DType" or hasattr(value, "as_numpy_dtype"):
        return ("dtype", _dtype_name(value))
    if callable(getattr(value, "as_list", None)) and hasattr(value, "rank"):
        rank = value.rank
        return ("shape", None if rank is None else tuple(value.as_list()))
    return ("object", type(value).__name__)


def _compile(source, filename, firstlineno):
    """Compiles a program so that `inspect.getsource` finds it (AutoGraph reads the source).

    A program taken from a test file keeps that file's name and line numbers, so tracebacks and
    AutoGraph see the real file; a program given as a string is entered into `linecache`.
    """
    if filename is None:
        filename = f"<parity program {abs(hash(source)):x}>"
        lines = source.splitlines(keepends=True)
        linecache.cache[filename] = (len(source), None, lines, filename)
        firstlineno = 1
    padded = "\n" * (firstlineno - 1) + source
    return compile(padded, filename, "exec")


def run_program(tf, sources, entry, args=(), kwargs=None):
    """Execs `sources` in one fresh namespace and returns `entry(tf, *args, **kwargs)`, comparable.

    `sources` is a list of (source text, file name or None, first line number): the helpers a
    program uses, then the program. An exception from the program is a result, ("raised",
    class, message). An error of the harness itself (a source does not compile, the entry is
    missing, the result cannot be converted) propagates as `HarnessError`.
    """
    try:
        namespace = {"__name__": "parity_program"}
        for source, filename, firstlineno in sources:
            exec(_compile(source, filename, firstlineno), namespace)
        function = namespace[entry]
    except Exception as error:
        raise HarnessError(f"could not load the program:\n{traceback.format_exc()}") from error
    try:
        result = function(tf, *args, **(kwargs or {}))
    except Exception as error:  # the program's own error is part of its behaviour
        return ("raised", type(error).__name__, str(error))
    try:
        return to_comparable(result)
    except Exception as error:
        raise HarnessError(f"could not convert the result:\n{traceback.format_exc()}") from error


class HarnessError(Exception):
    """The harness (not the program under test) failed."""


def uses_keras(request):
    """Whether a request's program touches Keras (whose global state is then reset)."""
    return any("keras" in source for source, _, _ in request["sources"])
