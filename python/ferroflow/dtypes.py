"""Element types (`tf.float32`, ...) as TensorFlow presents them.

Each DType carries TensorFlow's enum number, which is also what the Rust core uses.
"""

import builtins

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
        return self._name in ("float16", "bfloat16", "float32", "float64")

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
        return False

    @property
    def is_numpy_compatible(self):
        return True

    @property
    def size(self):
        return np.dtype(self._np).itemsize

    @property
    def min(self):
        return self._limits()[0]

    @property
    def max(self):
        return self._limits()[1]

    @property
    def limits(self):
        return self._limits()

    def _limits(self):
        if self.is_integer:
            info = np.iinfo(self._np)
        elif self._name == "bfloat16":
            info = ml_dtypes.finfo(self._np)
        elif self.is_floating:
            info = np.finfo(self._np)
        else:
            raise TypeError(f"Cannot find minimum value of {self}.")
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

_ALL = (
    float16, bfloat16, float32, float64, int8, int16, int32, int64,
    uint8, uint16, uint32, uint64, bool, complex64, complex128,
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
        name = np.dtype(type_value).name
    except TypeError:
        name = None
    if name in _BY_NAME:
        return _BY_NAME[name]
    raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")


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
