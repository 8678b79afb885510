"""Element types (`tf.float32`, ...) as TensorFlow presents them.

Each DType carries TensorFlow's enum number, which is also what the Rust core uses.
"""

import builtins
import types

import ml_dtypes
import numpy as np


class DType:
    """A tensor element type, e.g. ``tf.float32``.

    >>> import ferroflow as tf
    >>> tf.float32.is_floating, tf.int32.max
    (True, 2147483647)
    """

    __slots__ = ("_enum", "_name", "_np")

    def __init__(self, enum, name, np_type):
        self._enum = enum
        self._name = name
        self._np = np_type

    @property
    def name(self):
        return self._name

    @property
    def as_datatype_enum(self):
        return self._enum

    @property
    def as_numpy_dtype(self):
        return self._np

    @property
    def base_dtype(self):
        return self

    @property
    def real_dtype(self):
        return {complex64: float32, complex128: float64}.get(self, self)

    @property
    def is_floating(self):
        return self._name in ("float16", "bfloat16", "float32", "float64") or self._name.startswith(
            ("float8_", "float4_")
        )

    @property
    def is_complex(self):
        return self._name in ("complex64", "complex128")

    @property
    def is_integer(self):
        return self._name.startswith(("int", "uint"))

    @property
    def is_unsigned(self):
        return self._name.startswith("uint")

    @property
    def is_bool(self):
        return self._name == "bool"

    @property
    def is_quantized(self):
        return self._name in _QUANTIZED_NAMES

    @property
    def is_numpy_compatible(self):
        return self._np is not None

    @property
    def size(self):
        if self._name == "string":
            return 0
        return np.dtype(self._np).itemsize

    @property
    def min(self):
        return self._range("minimum")[0]

    @property
    def max(self):
        return self._range("maximum")[1]

    @property
    def limits(self):
        """TensorFlow's image intensity limits: ``(0, max)`` for the types in its range table
        (integers, bool, and (-1, 1) floats float32/float64), ValueError for the others."""
        if self._name not in _INTENSITY_MAX:
            raise ValueError(f"{self} does not have defined limits.")
        return (0, _INTENSITY_MAX[self._name])

    def _range(self, which):
        if self.is_quantized:
            raise TypeError(f"Cannot find {which} value of {self} with quantized type {self}.")
        if self.is_integer:
            narrow = self._name in ("int4", "uint4", "int2", "uint2")
            info = ml_dtypes.iinfo(self._np) if narrow else np.iinfo(self._np)
        elif self.is_floating:
            info = np.finfo(self._np) if self._name in _NUMPY_FLOATS else ml_dtypes.finfo(self._np)
        else:
            raise TypeError(f"Cannot find {which} value of {self}.")
        return (info.min, info.max)

    def is_compatible_with(self, other):
        return self == other

    def __eq__(self, other):
        if isinstance(other, DType):
            return self._enum == other._enum
        if other is None:
            return False
        try:
            return self._enum == as_dtype(other)._enum
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._enum

    def __repr__(self):
        return f"tf.{self._name}"

    def __str__(self):
        return f"<dtype: '{self._name}'>"

    def __reduce__(self):
        return as_dtype, (self._name,)


float16 = DType(19, "float16", np.float16)
half = float16
bfloat16 = DType(14, "bfloat16", ml_dtypes.bfloat16)
float32 = DType(1, "float32", np.float32)
float64 = DType(2, "float64", np.float64)
double = float64
int8 = DType(6, "int8", np.int8)
int16 = DType(5, "int16", np.int16)
int32 = DType(3, "int32", np.int32)
int64 = DType(9, "int64", np.int64)
uint8 = DType(4, "uint8", np.uint8)
uint16 = DType(17, "uint16", np.uint16)
uint32 = DType(22, "uint32", np.uint32)
uint64 = DType(23, "uint64", np.uint64)
bool = DType(10, "bool", np.bool_)  # noqa: A001 - TensorFlow's name
complex64 = DType(8, "complex64", np.complex64)
complex128 = DType(18, "complex128", np.complex128)
# Byte strings; `.numpy()` gives object arrays of `bytes`, as TensorFlow's does.
string = DType(7, "string", np.object_)

_ALL = (
    float16, bfloat16, float32, float64, int8, int16, int32, int64,
    uint8, uint16, uint32, uint64, bool, complex64, complex128, string,
)  # fmt: skip
_BY_ENUM = {d.as_datatype_enum: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"half": float16, "float": float32, "double": float64})
_PYTHON_TYPES = {
    builtins.float: float32,
    builtins.int: int32,
    builtins.bool: bool,
    complex: complex128,
}


def as_dtype(type_value):
    """Converts a DType, name, enum number, numpy dtype or Python type to a ``DType``."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, builtins.bool):
        raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")
    if isinstance(type_value, int):
        try:
            return _BY_ENUM[type_value]
        except KeyError:
            raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None
    if isinstance(type_value, str):
        try:
            return _BY_NAME[type_value]
        except KeyError:
            raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None
    if type_value in _PYTHON_TYPES:
        return _PYTHON_TYPES[type_value]
    try:
        numpy_dtype = np.dtype(type_value)
    except TypeError:
        numpy_dtype = None
    # numpy's object, bytes and str dtypes (any length) all hold TensorFlow strings.
    if numpy_dtype is not None and numpy_dtype.kind in "OSU":
        return string
    name = None if numpy_dtype is None else numpy_dtype.name
    if numpy_dtype is not None and numpy_dtype.names is not None:
        # The quantized types' numpy dtypes are one-field records (`[('qint8', 'i1')]`).
        for d in QUANTIZED_DTYPES:
            if numpy_dtype == d.as_numpy_dtype:
                return d
    if name in _BY_NAME:
        return _BY_NAME[name]
    raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")


def unwrap_quantized(value, dtype):
    """A numpy array of a quantized type's record dtype as its integer field, and the quantized
    type (the dtype asked for, else the array's), as TensorFlow converts such arrays."""
    names = getattr(getattr(value, "dtype", None), "names", None)
    if not isinstance(value, np.ndarray) or names is None:
        return value, dtype
    try:
        quantized = as_dtype(value.dtype)
    except TypeError:
        return value, dtype
    return value[names[0]], quantized if dtype is None else dtype


def enum_of(dtype):
    """The enum number of a dtype-like value, or None for None."""
    return None if dtype is None else as_dtype(dtype).as_datatype_enum


def cast(x, dtype, name=None):
    """`tf.dtypes.cast`, the same as `tf.cast`."""
    from ferroflow.array_ops import cast as cast_

    return cast_(x, dtype)


def complex(real, imag, name=None):  # noqa: A001 - TensorFlow's name
    """`tf.dtypes.complex`, the same as `tf.complex`."""
    from ferroflow.math import complex as complex_

    return complex_(real, imag)


def saturate_cast(value, dtype, name=None):
    """`tf.dtypes.saturate_cast`, the same as `tf.saturate_cast`."""
    from ferroflow.cast_ops import saturate_cast as saturate_cast_

    return saturate_cast_(value, dtype, name)


# --- quantized dtypes, and dtypes without ferroflow tensors --------------------------------------
# TensorFlow's quantized types are storage types: their tensors hold the integer storage type's
# elements (`.numpy()` gives those), and only the ops TensorFlow registers for them accept them
# (the Rust core's `ops::quantized`). The handle and narrow dtypes are DType objects (names,
# enums, properties, `as_dtype`) without tensors: an op or conversion asked for one raises.

_NUMPY_FLOATS = ("float16", "float32", "float64")
_INTENSITY_MAX = {
    "bool": True, "uint8": 255, "uint16": 65535, "int8": 127, "int16": 32767,
    "int64": 2**63 - 1, "uint64": 2**64 - 1, "int32": 2**31 - 1, "uint32": 2**32 - 1,
    "float32": 1, "float64": 1,
}  # fmt: skip
_QUANTIZED_NAMES = ("qint8", "quint8", "qint16", "quint16", "qint32")

qint8 = DType(11, "qint8", np.dtype([("qint8", np.int8)]))
quint8 = DType(12, "quint8", np.dtype([("quint8", np.uint8)]))
qint16 = DType(15, "qint16", np.dtype([("qint16", np.int16)]))
quint16 = DType(16, "quint16", np.dtype([("quint16", np.uint16)]))
qint32 = DType(13, "qint32", np.dtype([("qint32", np.int32)]))


class _HandleDType(DType):
    """`resource` and `variant`: handles, with no numpy type and no size."""

    __slots__ = ()

    @property
    def as_numpy_dtype(self):
        raise KeyError(self._enum)  # TensorFlow's lookup error

    @property
    def size(self):
        return 0

    @property
    def limits(self):
        raise KeyError(self._enum)  # TensorFlow looks the numpy type up


resource = _HandleDType(20, "resource", None)
variant = _HandleDType(21, "variant", None)
float8_e5m2 = DType(24, "float8_e5m2", ml_dtypes.float8_e5m2)
float8_e4m3fn = DType(25, "float8_e4m3fn", ml_dtypes.float8_e4m3fn)
float8_e4m3fnuz = DType(26, "float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz)
float8_e4m3b11fnuz = DType(27, "float8_e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz)
float8_e5m2fnuz = DType(28, "float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz)
int4 = DType(29, "int4", ml_dtypes.int4)
uint4 = DType(30, "uint4", ml_dtypes.uint4)
int2 = DType(31, "int2", ml_dtypes.int2)
uint2 = DType(32, "uint2", ml_dtypes.uint2)
float4_e2m1fn = DType(33, "float4_e2m1fn", ml_dtypes.float4_e2m1fn)

QUANTIZED_DTYPES = frozenset({qint8, quint8, qint16, quint16, qint32})
_WITHOUT_TENSORS = (
    qint8, quint8, qint16, quint16, qint32, resource, variant, float8_e5m2, float8_e4m3fn,
    float8_e4m3fnuz, float8_e4m3b11fnuz, float8_e5m2fnuz, int4, uint4, int2, uint2, float4_e2m1fn,
)  # fmt: skip
for _d in _WITHOUT_TENSORS:
    _BY_ENUM[_d.as_datatype_enum] = _d
    _BY_NAME[_d.name] = _d
del _d

experimental = types.SimpleNamespace(
    float4_e2m1fn=float4_e2m1fn,
    float8_e4m3b11fnuz=float8_e4m3b11fnuz,
    float8_e4m3fn=float8_e4m3fn,
    float8_e4m3fnuz=float8_e4m3fnuz,
    float8_e5m2=float8_e5m2,
    float8_e5m2fnuz=float8_e5m2fnuz,
    int2=int2,
    int4=int4,
    uint2=uint2,
    uint4=uint4,
)
