"""`tf.RaggedTensorSpec`: the type of a RaggedTensor (static shape, dtype, ragged rank, row
splits dtype). Its components are the flat values and the nested row splits, outermost first,
as TensorFlow's; uniform dimensions come back from the spec's shape."""

from ferroflow import dtypes as _dtypes
from ferroflow.tensor_shape import TensorShape
from ferroflow.tensor_spec import TensorSpec
from ferroflow.type_spec import BatchableTypeSpec

__all__ = ["RaggedTensorSpec"]


class RaggedTensorSpec(BatchableTypeSpec):
    """Describes a RaggedTensor.

    >>> import ferroflow as tf
    >>> tf.RaggedTensorSpec([2, None], tf.int32)
    RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64)
    """

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype", "_flat_values_spec")

    def __init__(
        self,
        shape=None,
        dtype=_dtypes.float32,
        ragged_rank=None,
        row_splits_dtype=_dtypes.int64,
        flat_values_spec=None,
    ):
        self._shape = TensorShape(shape)
        self._row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        if flat_values_spec is not None:
            if dtype is None:
                dtype = flat_values_spec.dtype
            elif _dtypes.as_dtype(dtype) != flat_values_spec.dtype:
                raise ValueError("dtype must be the same as flat_values_spec.dtype")
        elif dtype is None:
            raise ValueError("At least one of dtype or flat_values_spec must be provided")
        self._dtype = _dtypes.as_dtype(dtype)
        self._flat_values_spec = flat_values_spec
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        self._ragged_rank = ragged_rank
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(
                f"Argument `ragged_rank` ({ragged_rank}) must be less than rank ({rank})."
            )

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    @property
    def ragged_rank(self):
        return self._ragged_rank

    @property
    def row_splits_dtype(self):
        return self._row_splits_dtype

    @property
    def flat_values_spec(self):
        return self._flat_values_spec

    @property
    def value_type(self):
        from ferroflow._core import Tensor
        from ferroflow.ragged.ragged_tensor import RaggedTensor

        return RaggedTensor if self._ragged_rank > 0 else Tensor

    def _serialize(self):
        if self._flat_values_spec is None:
            return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)
        return (
            self._shape,
            self._dtype,
            self._ragged_rank,
            self._row_splits_dtype,
            self._flat_values_spec,
        )

    @property
    def _component_specs(self):
        if self._ragged_rank <= 0:
            return [TensorSpec(self._shape, self._dtype)]
        flat = self._flat_values_spec
        if flat is None:
            inner = (
                TensorShape(None)
                if self._shape.rank is None
                else TensorShape(self._shape.dims[self._ragged_rank + 1 :])
            )
            flat = TensorSpec(TensorShape([None]).concatenate(inner), self._dtype)
        outer = self._shape[0] if self._shape.rank else None
        splits = [TensorSpec([None if outer is None else outer + 1], self._row_splits_dtype)]
        splits += [TensorSpec([None], self._row_splits_dtype)] * (self._ragged_rank - 1)
        return [flat, *splits]

    def _to_components(self, value):
        from ferroflow.ragged.ragged_tensor import RaggedTensor

        if isinstance(value, RaggedTensor):
            return [value.flat_values, *value.nested_row_splits]
        return [value]

    def _from_components(self, tensor_list):
        from ferroflow.ragged.ragged_tensor import _from_splits_with_shape

        tensor_list = list(tensor_list)
        if self._ragged_rank <= 0 or len(tensor_list) == 1:
            return tensor_list[0]
        return _from_splits_with_shape(tensor_list[0], tensor_list[1:], self._shape)

    def _batch(self, batch_size):
        if self._flat_values_spec is not None:
            raise ValueError("Customized value_type is not supported.")
        return RaggedTensorSpec(
            TensorShape([batch_size]).concatenate(self._shape),
            self._dtype,
            self._ragged_rank + 1,
            self._row_splits_dtype,
        )

    def _unbatch(self):
        if self._flat_values_spec is not None:
            raise ValueError("Customized value_type is not supported.")
        return RaggedTensorSpec(
            self._shape[1:], self._dtype, self._ragged_rank - 1, self._row_splits_dtype
        )

    @classmethod
    def from_value(cls, value):
        """The spec of a RaggedTensor."""
        return cls(
            shape=value.shape,
            dtype=value.values.dtype,
            ragged_rank=value.ragged_rank,
            row_splits_dtype=value.row_splits.dtype,
        )

    def is_compatible_with(self, spec_or_value):
        from ferroflow.ragged.ragged_tensor import RaggedTensor

        if self._ragged_rank == 0 and not isinstance(spec_or_value, (RaggedTensor, type(self))):
            dtype = getattr(spec_or_value, "dtype", None)
            shape = getattr(spec_or_value, "shape", None)
            if dtype is None or shape is None:
                return False
            return dtype == self._dtype and self._shape.is_compatible_with(shape)
        return super().is_compatible_with(spec_or_value)
