"""`tf.SparseTensor` and `tf.SparseTensorSpec`: a tensor given by the positions (`indices`, int64
[N, rank]) and `values` ([N]) of its nonzero entries and its `dense_shape` (int64 [rank]), a
composite of those three tensors. The `tf.sparse` functions are in `sparse_ops`."""

import numpy as np

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor
from ferroflow.tensor_shape import TensorShape
from ferroflow.tensor_spec import TensorSpec
from ferroflow.type_spec import BatchableTypeSpec, CompositeTensor

__all__ = ["SparseTensor", "SparseTensorSpec"]


def _static_value(tensor):
    if _core.is_symbolic(tensor):
        return None
    return tensor.numpy()


def _shape_of_dense_shape(dense_shape):
    """The static shape a dense_shape tensor tells: its values when known (-1 unknown), else
    unknown dims of its length."""
    known = _static_value(dense_shape)
    if known is not None:
        return TensorShape([None if d < 0 else int(d) for d in known.tolist()])
    n = dense_shape.shape.dims[0] if dense_shape.shape.rank == 1 else None
    return TensorShape(None if n is None else [None] * n)


def _check_rank(shape, rank, what):
    if shape.rank is not None and shape.rank != rank:
        raise ValueError(f"Shape {shape} must have rank {rank}")


def _check_dims(a, b):
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")


class SparseTensor(CompositeTensor):
    """A sparse tensor: `dense[tuple(indices[i])] = values[i]`, zero elsewhere.

    >>> import ferroflow as tf
    >>> st = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    >>> tf.sparse.to_dense(st).numpy().tolist()
    [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]]
    """

    __slots__ = ("_dense_shape", "_dense_shape_default", "_indices", "_values")

    @classmethod
    def from_value(cls, sparse_tensor_value):
        if not is_sparse(sparse_tensor_value):
            raise TypeError(
                f"Argument sparse_tensor_value={sparse_tensor_value} is neither a SparseTensor "
                "nor SparseTensorValue."
            )
        return cls(
            sparse_tensor_value.indices,
            sparse_tensor_value.values,
            sparse_tensor_value.dense_shape,
        )

    def __init__(self, indices, values, dense_shape):
        indices = convert_to_tensor(indices, dtype=_dtypes.int64)
        values = convert_to_tensor(values)
        dense_shape = convert_to_tensor(dense_shape, dtype=_dtypes.int64)
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        self._dense_shape_default = _shape_of_dense_shape(dense_shape)
        _check_rank(indices.shape, 2, "indices")
        _check_rank(values.shape, 1, "values")
        _check_rank(dense_shape.shape, 1, "dense_shape")
        _check_dims(indices.shape.dims[0], values.shape.dims[0])
        _check_dims(indices.shape.dims[1], dense_shape.shape.dims[0])

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self):
        return self._dense_shape_default

    def get_shape(self):
        return self._dense_shape_default

    def set_shape(self, shape):
        shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self._dense_shape_default = self._dense_shape_default.merge_with(shape)

    @property
    def ndim(self):
        return self._dense_shape_default.rank

    def with_values(self, new_values):
        """This sparse tensor with `new_values` (same count; any dtype) at its indices."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    @property
    def _type_spec(self):
        return SparseTensorSpec(self.shape, self.dtype)

    def _shape_invariant_to_type_spec(self, shape):
        shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        if shape.rank is not None and shape.rank != 1:
            raise ValueError(
                f"Expected a shape with 1 dimension. Obtained: {shape} which has "
                f"{shape.rank} dimensions."
            )
        rank = None if shape.rank is None else shape.dims[0]
        return SparseTensorSpec(TensorShape(None if rank is None else [None] * rank), self.dtype)

    def consumers(self):
        return []

    def _numpy(self):
        """The dense numpy array (eager values only)."""
        if any(_core.is_symbolic(t) for t in (self._indices, self._values, self._dense_shape)):
            raise ValueError("SparseTensor.numpy() is only supported in eager mode.")
        arr = np.zeros(self._dense_shape.numpy(), dtype=self.dtype.as_numpy_dtype)
        for i, v in zip(self._indices.numpy(), self._values.numpy()):
            arr[tuple(i)] = v
        return arr

    def __tf_tensor__(self, dtype=None, name=None):
        raise ValueError(
            f"Attempt to convert a value ({self}) with an unsupported type "
            f"({type(self)}) to a Tensor."
        )

    def __repr__(self):
        return (
            f"SparseTensor(indices={self._indices!s}, values={self._values!s}, "
            f"dense_shape={self._dense_shape!s})"
        )

    __str__ = __repr__

    # Elementwise operators with a dense operand (TensorFlow's SparseDenseCwise* ops).
    def __mul__(self, other):
        from ferroflow import sparse_ops

        return sparse_ops._sparse_dense_cwise(self, other, "mul")

    def __truediv__(self, other):
        from ferroflow import sparse_ops

        return sparse_ops._sparse_dense_cwise(self, other, "truediv")

    def __div__(self, other):
        from ferroflow import sparse_ops

        return sparse_ops._sparse_dense_cwise(self, other, "div")


class SparseTensorSpec(BatchableTypeSpec):
    """The spec of a `SparseTensor`: its dense shape (dims may be None) and dtype."""

    __slots__ = ("_dtype", "_shape")

    def __init__(self, shape=None, dtype=_dtypes.float32):
        self._shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self._dtype = _dtypes.as_dtype(dtype)

    @property
    def value_type(self):
        return SparseTensor

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def _serialize(self):
        return (self._shape, self._dtype)

    @property
    def _component_specs(self):
        rank = self._shape.rank
        return [
            TensorSpec([None, rank], _dtypes.int64),
            TensorSpec([None], self._dtype),
            TensorSpec([rank], _dtypes.int64),
        ]

    def _to_components(self, value):
        if not isinstance(value, SparseTensor):
            value = SparseTensor.from_value(value)
        return [value.indices, value.values, value.dense_shape]

    def _from_components(self, tensor_list):
        indices, values, dense_shape = tensor_list
        if self._shape.is_fully_defined() and _core.is_symbolic(dense_shape):
            # Inside a trace keyed by this spec every call has this dense shape: a constant
            # lets the body's ops know their sizes (TensorFlow restores it the same way).
            dense_shape = convert_to_tensor(
                np.array(self._shape.as_list(), np.int64), dtype=_dtypes.int64
            )
        result = SparseTensor(indices, values, dense_shape)
        result._dense_shape_default = result._dense_shape_default.merge_with(self._shape)
        return result

    def _example_tensor_list(self):
        from ferroflow.array_ops import zeros

        rank = 0 if self._shape.rank is None else self._shape.rank
        dims = [1] * rank if self._shape.rank is None else self._shape.dims
        return [
            zeros([1, rank], _dtypes.int64),
            zeros([1], self._dtype),
            convert_to_tensor(
                np.array([1 if d is None else d for d in dims], np.int64), dtype=_dtypes.int64
            ),
        ]

    def _batch(self, batch_size):
        return SparseTensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype)

    def _unbatch(self):
        if self._shape.rank == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        dims = None if self._shape.rank is None else self._shape.dims[1:]
        return SparseTensorSpec(dims, self._dtype)

    @classmethod
    def from_value(cls, value):
        if isinstance(value, SparseTensor):
            return cls(value.shape, value.dtype)
        raise TypeError(
            "Expected SparseTensor or SparseTensorValue. Received: "
            f"{value} of type {type(value).__name__}."
        )

    def __repr__(self):
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"


def is_sparse(x):
    return isinstance(x, SparseTensor)
