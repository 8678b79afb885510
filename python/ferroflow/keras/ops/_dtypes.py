"""Keras 3's dtype promotion (`keras.backend.result_type`) as the TensorFlow backend resolves it:
a JAX-style lattice where Python `int`/`float` are weak types that defer to the tensor's dtype,
`int64 + float -> float32` (floatx) rather than float64, and Python ints standardise to int64."""

import functools

import numpy as np

from ferroflow import dtypes as tf_dtypes
from ferroflow.keras._backend_config import floatx

INT_TYPES = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
FLOAT_TYPES = ("bfloat16", "float16", "float32", "float64")
_ALLOWED = {*INT_TYPES, *FLOAT_TYPES, "bool", "string", "complex64", "complex128"}
_ALLOWED |= {"float8_e4m3fn", "float8_e5m2"}
_PYTHON = {bool: "bool", int: "int64", float: "float32", str: "string", complex: "complex128"}

# Each dtype's immediate successors on Keras's promotion lattice ("int"/"float" are the weak
# types of Python scalars).
_LATTICE = {
    "bool": ["int"],
    "uint8": ["int16", "uint16"],
    "uint16": ["int32", "uint32"],
    "uint32": ["int64", "uint64"],
    "uint64": ["float"],
    "int": ["uint8", "int8", "complex64"],
    "int8": ["int16"],
    "int16": ["int32"],
    "int32": ["int64"],
    "int64": ["float"],
    "float": ["bfloat16", "float16"],
    "bfloat16": ["float32"],
    "float16": ["float32"],
    "float32": ["float64", "complex64"],
    "float64": ["complex128"],
    "complex64": ["complex128"],
    "complex128": [],
}


def _upper_bounds():
    bounds = {}
    for node in _LATTICE:
        seen, todo = {node}, [node]
        while todo:
            for nxt in _LATTICE[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        bounds[node] = seen
    return bounds


_BOUNDS = _upper_bounds()


def standardize_dtype(dtype):
    """A dtype as Keras names it ("float32"); None is floatx, Python types map as in Keras's TF
    backend (`int` -> "int64")."""
    if dtype is None:
        return floatx()
    if dtype in _PYTHON:
        return _PYTHON[dtype]
    if dtype == "int":
        return "int64"
    # Keras takes only its own names: no aliases such as "float" or "double", no `object`.
    name = dtype if isinstance(dtype, str) else getattr(dtype, "__name__", None)
    if name is not None and name not in _ALLOWED:
        raise ValueError(f"Invalid dtype: {name}")
    try:
        if hasattr(dtype, "name") and not isinstance(dtype, str | np.dtype):
            return tf_dtypes.as_dtype(dtype).name
        return tf_dtypes.as_dtype(np.dtype(dtype) if not isinstance(dtype, str) else dtype).name
    except TypeError as e:
        raise ValueError(f"Invalid dtype: {dtype}") from e


@functools.lru_cache(512)
def _least_upper_bound(*nodes):
    common = set.intersection(*(_BOUNDS[n] for n in nodes))
    lub = (common & set(nodes)) or {c for c in common if common <= _BOUNDS[c]}
    if len(lub) != 1:
        raise ValueError(
            f"Input dtypes {tuple(str(n) for n in nodes)} have no available implicit dtype "
            "promotion path. Try explicitly casting inputs to the desired output type."
        )
    return lub.pop()


def _weak(dtype, weak):
    if not weak or dtype == "bool":
        return dtype
    for kind in ("float", "int", "complex"):
        if kind in dtype:
            return kind
    raise ValueError(f"Invalid value for argument `dtype`. Received: dtype={dtype}")


def _resolve_weak(dtype):
    # A weak type takes floatx's precision (``int64``/``float64`` under floatx float64).
    if dtype == "bool":
        return "bool"
    precision = floatx()[-2:]
    lead = "f" if dtype == "bfloat16" else dtype[:1]
    kind = {"i": "int", "u": "uint"}.get(lead, "float")
    return f"{kind}{precision}"


def result_type(*args):
    """`keras.backend.result_type`: the dtype Keras's promotion rules give ``args`` (dtypes,
    dtype names or the Python types `int`/`float`/`bool`; None stands for floatx)."""
    if not args:
        return floatx()
    args = [floatx() if a is None else a for a in args]
    names = [standardize_dtype(a) for a in args]
    for n in names:
        if n.startswith("float8"):
            raise ValueError(
                "There is no implicit conversions from float8 dtypes to others. You must "
                f"cast it internally. Received: {tuple(args)}"
            )
        if n not in _BOUNDS:
            raise ValueError(f"dtype={n!r} is not a valid dtype for Keras type promotion.")
    weak = [a is int or a is float for a in args]
    if len(names) == 1:
        out, out_weak = names[0], weak[0]
    elif len(set(names)) == 1 and not all(weak):
        out, out_weak = names[0], False
    elif all(weak):
        out, out_weak = _least_upper_bound(*set(names)), True
    else:
        out = _least_upper_bound(*{_weak(n, w) for n, w in zip(names, weak, strict=True)})
        out_weak = out in ("int", "float")
    if out != "bool" and out_weak:
        out = _resolve_weak(out)
    # Keras narrows these two on every backend (TensorFlow keeps int64 and float64).
    return {"uint64": "uint32", "complex128": "complex64"}.get(out, out)


def dtype_of(x):
    """The dtype Keras's binary ops promote ``x`` with: a tensor's or array's dtype, else the
    Python type (`int`, `float`, `bool`) so Python scalars stay weak."""
    d = getattr(x, "dtype", None)
    return type(x) if d is None else d


def is_float(dtype):
    return "float" in standardize_dtype(dtype)


def is_int(dtype):
    return "int" in standardize_dtype(dtype)


def lazy_op(path):
    """The ferroflow function at ``path`` ("math.acos"), looked up at call time: this package
    is imported while ferroflow itself is still initialising."""
    import ferroflow

    def call(*args, **kwargs):
        fn = ferroflow
        for part in path.split("."):
            fn = getattr(fn, part)
        return fn(*args, **kwargs)

    call.__name__ = path.rsplit(".", 1)[-1]
    return call
