"""`tf.linalg.LinearOperatorZeros`: a (batch of) zero matrix that stores only its shape."""

from ferroflow import dtypes as _dtypes
from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators._sized import SizedOperator, refuse_ref
from ferroflow.linalg_operators.base import make_composite_tensor
from ferroflow.tensor_shape import TensorShape

__all__ = ["LinearOperatorZeros"]


@make_composite_tensor
class LinearOperatorZeros(SizedOperator):
    """The ``num_rows x num_columns`` zero matrix (optionally a batch, ``batch_shape``).

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorZeros(2, 3, is_square=False, is_self_adjoint=False)
    >>> op.to_dense().numpy()
    array([[0., 0., 0.],
           [0., 0., 0.]], dtype=float32)
    """

    def __init__(
        self,
        num_rows,
        num_columns=None,
        batch_shape=None,
        dtype=None,
        is_non_singular=False,
        is_self_adjoint=True,
        is_positive_definite=False,
        is_square=True,
        assert_proper_shapes=False,
        name="LinearOperatorZeros",
    ):
        parameters = _util.parameters_of(locals())
        dtype = _dtypes.as_dtype(dtype or _dtypes.float32)
        self._assert_proper_shapes = assert_proper_shapes
        if not is_self_adjoint and is_square:
            raise ValueError("A zero operator is always self adjoint.")
        if is_non_singular:
            raise ValueError("A zero operator is always singular.")
        if is_positive_definite:
            raise ValueError("A zero operator is always not positive-definite.")
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_of(locals()))
        refuse_ref(num_rows, "num_rows")
        refuse_ref(num_columns, "num_columns")
        refuse_ref(batch_shape, "batch_shape")
        if num_columns is None:
            num_columns = num_rows
        self._num_rows, self._num_rows_static = self._size_arg(num_rows, "num_rows")
        self._num_columns, self._num_columns_static = self._size_arg(num_columns, "num_columns")
        rows, cols = self._num_rows_static, self._num_columns_static
        if rows is not None and cols is not None and is_square and rows != cols:
            raise ValueError(
                f"LinearOperatorZeros initialized as is_square=True, but got num_rows({rows}) "
                f"!= num_columns({cols})"
            )
        self._init_batch_shape(batch_shape)

    def _shape(self):
        rows, cols = self._num_rows_static, self._num_columns_static
        return self._with_batch_shape(
            TensorShape([None if rows is None else int(rows), None if cols is None else int(cols)])
        )

    def _shape_tensor(self):
        from ferroflow.array_ops import stack

        return self._with_batch_shape_tensor(stack([self._num_rows, self._num_columns], axis=0))

    def _assert_non_singular(self):
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(None, None, "Zero operators are always non-invertible.")

    def _assert_positive_definite(self):
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(None, None, "Zero operators are always non-positive definite.")

    def _assert_self_adjoint(self):
        return None

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        from ferroflow.array_ops import concat, shape, zeros
        from ferroflow.linalg_ops import adjoint as adjoint_

        if self._assert_proper_shapes:
            self._check_proper_shape(adjoint_(x) if adjoint_arg else x)
        x_shape = shape(x)
        if self.is_square:
            if adjoint_arg:
                out_shape = concat([x_shape[:-2], [x_shape[-1], x_shape[-2]]], axis=0)
            else:
                out_shape = x_shape
            return self._possibly_broadcast_batch_shape(zeros(out_shape, dtype=x.dtype))
        n = self._num_columns if adjoint else self._num_rows
        m = x_shape[-2] if adjoint_arg else x_shape[-1]
        out_shape = concat([x_shape[:-2], [n, m]], axis=0)
        return self._possibly_broadcast_batch_shape(zeros(out_shape, dtype=x.dtype))

    def _linop_matmul(self, left_operator, right_operator):
        if not left_operator.is_square or not right_operator.is_square:
            raise ValueError(
                "Matmul with non-square `LinearOperator`s or non-square `LinearOperatorZeros` "
                "not supported at this time."
            )
        return left_operator

    def _determinant(self):
        from ferroflow.array_ops import zeros

        return self._batch_filled(zeros)

    def _trace(self):
        from ferroflow.array_ops import zeros

        return self._batch_filled(zeros)

    def _diag_part(self):
        return self._zeros_diag()

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """``mat`` (broadcast against the batch shape)."""
        return self._possibly_broadcast_batch_shape(mat)

    def _zeros_diag(self):
        from ferroflow.array_ops import zeros

        return self._filled_diag(zeros)

    def _eigvals(self):
        return self._zeros_diag()

    @property
    def _composite_tensor_prefer_static_fields(self):
        return ("num_rows", "num_columns", "batch_shape")

    @property
    def _composite_tensor_fields(self):
        return ("num_rows", "num_columns", "batch_shape", "dtype", "assert_proper_shapes")

    def __getitem__(self, slices):
        return self._slice_batch_shape(slices)
