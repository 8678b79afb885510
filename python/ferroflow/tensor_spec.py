"""`tf.TensorSpec`: the shape (dimensions may be None) and dtype a `tf.function` input has."""

from ferroflow import dtypes as _dtypes
from ferroflow.tensor_shape import TensorShape

__all__ = ["TensorSpec"]


class TensorSpec:
    __slots__ = ("_dtype", "_name", "_shape")

    def __init__(self, shape, dtype=_dtypes.float32, name=None):
        self._shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, other):
        """True when `other` (a spec or tensor) has this dtype and a shape this one admits."""
        return self._dtype == other.dtype and self._shape.is_compatible_with(other.shape)

    def __eq__(self, other):
        return (
            isinstance(other, TensorSpec)
            and self._dtype == other._dtype
            and self._shape.dims == other._shape.dims
            and self._name == other._name
        )

    def __hash__(self):
        return hash((self._dtype, self._shape, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype=tf.{self._dtype.name}, name={self._name!r})"
