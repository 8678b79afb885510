"""`tf.IndexedSlices` and `tf.IndexedSlicesSpec`: rows `indices` of a tensor of `dense_shape`
holding `values` (a sparse gradient, a scatter update), a composite of those tensors.
`tf.convert_to_tensor` makes it dense (repeated rows summed)."""

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor
from ferroflow.tensor_shape import TensorShape
from ferroflow.tensor_spec import TensorSpec
from ferroflow.type_spec import CompositeTensor, TypeSpec

__all__ = ["IndexedSlices", "IndexedSlicesSpec"]


def _known_shape(dense_shape):
    dense_shape = convert_to_tensor(dense_shape)
    if _core.is_symbolic(dense_shape):
        n = dense_shape.shape.dims[0] if dense_shape.shape.rank == 1 else None
        return TensorShape(None if n is None else [None] * n)
    return TensorShape([int(d) for d in dense_shape.numpy().reshape(-1)])


class IndexedSlices(CompositeTensor):
    """Slices `values[i]` at rows `indices[i]` of a tensor of `dense_shape`.

    >>> import ferroflow as tf
    >>> s = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([2]), tf.constant([3, 2]))
    >>> tf.convert_to_tensor(s).numpy().tolist()
    [[0.0, 0.0], [0.0, 0.0], [1.0, 2.0]]
    """

    __slots__ = ("_dense_shape", "_indices", "_values")

    def __init__(self, values, indices, dense_shape=None):
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        # Kept as given (TensorFlow converts it only where a tensor is needed).
        self._dense_shape = dense_shape

    @property
    def values(self):
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def shape(self):
        if self._dense_shape is None:
            return TensorShape(None)
        return _known_shape(self._dense_shape)

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def device(self):
        return self._values.device

    @property
    def name(self):
        return getattr(self._values, "name", None)

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    @property
    def _type_spec(self):
        indices_shape = self._indices.shape.merge_with(TensorShape(self._values.shape.dims[:1]))
        dense = TensorShape([None] + self._values.shape.dims[1:])
        dense_shape_dtype = None
        if self._dense_shape is not None:
            dense_shape_dtype = convert_to_tensor(self._dense_shape).dtype
            dense = dense.merge_with(_known_shape(self._dense_shape))
        return IndexedSlicesSpec(
            dense, self.dtype, self._indices.dtype, dense_shape_dtype, indices_shape
        )

    def consumers(self):
        return []

    def __tf_tensor__(self, dtype=None, name=None):
        if dtype is not None and _dtypes.as_dtype(dtype) != self.dtype:
            raise ValueError(
                f"Incompatible tensor conversion requested to `dtype` "
                f"{_dtypes.as_dtype(dtype).name} for IndexedSlices ({self}) with dtype "
                f"{self.dtype.name}"
            )
        if self._dense_shape is None:
            raise ValueError(
                "Tensor conversion requested for IndexedSlices for argument `value` without "
                f"dense_shape: {self!s}"
            )
        from ferroflow import array_ops
        from ferroflow.sparse_ops import _scatter

        shape = array_ops.cast(convert_to_tensor(self._dense_shape), _dtypes.int64)
        rows = array_ops.expand_dims(array_ops.cast(self._indices, _dtypes.int64), 1)
        return _scatter(rows, self._values, shape)

    def __str__(self):
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!s}"
        return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}{shape})"

    __repr__ = __str__


class IndexedSlicesSpec(TypeSpec):
    """The spec of an `IndexedSlices`: dense shape, values dtype, indices dtype, dense_shape
    dtype (None: no dense_shape tensor) and the indices' shape."""

    __slots__ = (
        "_dense_shape_dtype",
        "_indices_dtype",
        "_indices_shape",
        "_shape",
        "_values_dtype",
    )

    def __init__(
        self,
        shape=None,
        dtype=_dtypes.float32,
        indices_dtype=_dtypes.int64,
        dense_shape_dtype=None,
        indices_shape=None,
    ):
        self._shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self._values_dtype = _dtypes.as_dtype(dtype)
        self._indices_dtype = _dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = (
            None if dense_shape_dtype is None else _dtypes.as_dtype(dense_shape_dtype)
        )
        indices_shape = (
            indices_shape if isinstance(indices_shape, TensorShape) else TensorShape(indices_shape)
        )
        self._indices_shape = indices_shape.with_rank(1)

    @property
    def value_type(self):
        return IndexedSlices

    def _serialize(self):
        return (
            self._shape,
            self._values_dtype,
            self._indices_dtype,
            self._dense_shape_dtype,
            self._indices_shape,
        )

    @property
    def _component_specs(self):
        rest = [] if self._shape.rank is None else self._shape.dims[1:]
        values_shape = None if self._shape.rank is None else self._indices_shape.dims + rest
        specs = [
            TensorSpec(values_shape, self._values_dtype),
            TensorSpec(self._indices_shape, self._indices_dtype),
        ]
        if self._dense_shape_dtype is not None:
            specs.append(TensorSpec([self._shape.rank], self._dense_shape_dtype))
        return tuple(specs)

    def _to_components(self, value):
        if value.dense_shape is None:
            return (value.values, value.indices)
        return (value.values, value.indices, convert_to_tensor(value.dense_shape))

    def _from_components(self, tensor_list):
        return IndexedSlices(*tensor_list)

    def _example_tensor_list(self):
        from ferroflow.array_ops import zeros

        rest = [1 if d is None else d for d in (self._shape.dims or [1])[1:]]
        out = [zeros([1, *rest], self._values_dtype), zeros([1], self._indices_dtype)]
        if self._dense_shape_dtype is not None:
            dims = [1 if d is None else d for d in (self._shape.dims or [1])]
            out.append(convert_to_tensor(dims, dtype=self._dense_shape_dtype))
        return out
