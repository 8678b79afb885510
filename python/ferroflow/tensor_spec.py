"""`tf.TensorSpec`: the shape (dimensions may be None) and dtype a `tf.function` input has."""

from ferroflow import dtypes as _dtypes
from ferroflow.tensor_shape import TensorShape
from ferroflow.type_spec import BatchableTypeSpec

__all__ = ["TensorSpec"]


class TensorSpec(BatchableTypeSpec):
    """A dense tensor's spec: its own single component (a leaf of `tf.nest` even with
    `expand_composites=True`)."""

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

    @property
    def value_type(self):
        from ferroflow._core import Tensor

        return Tensor

    @property
    def _component_specs(self):
        return self

    def _to_components(self, value):
        return value

    def _from_components(self, components):
        return components

    def _serialize(self):
        return (self._shape, self._dtype, self._name)

    def is_subtype_of(self, other):
        from ferroflow.type_spec import _shape_subtype

        return (
            isinstance(other, TensorSpec)
            and (not self._name or self._name == other._name)
            and self._dtype == other._dtype
            and _shape_subtype(self._shape, other._shape)
        )

    def _batch(self, batch_size):
        return TensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype)

    def _unbatch(self):
        if self._shape.rank == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        dims = None if self._shape.rank is None else self._shape.dims[1:]
        return TensorSpec(dims, self._dtype)

    @property
    def _flat_tensor_specs(self):
        return [self]

    def _to_tensor_list(self, value):
        return [value]

    def is_compatible_with(self, other):
        """True when `other` (a spec or tensor) has this dtype and a shape this one admits."""
        from ferroflow.type_spec import CompositeTensor, TypeSpec

        if isinstance(other, CompositeTensor) or (
            isinstance(other, TypeSpec) and not isinstance(other, TensorSpec)
        ):
            return False
        if not hasattr(other, "dtype") or not hasattr(other, "shape"):
            return False
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
