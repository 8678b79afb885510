"""`tf.linalg.LinearOperatorFullMatrix`: an operator over a dense (batch) matrix."""

from ferroflow import dtypes as _dtypes
from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator, make_composite_tensor

__all__ = ["LinearOperatorFullMatrix"]

_ALLOWED = (
    _dtypes.float16,
    _dtypes.float32,
    _dtypes.float64,
    _dtypes.complex64,
    _dtypes.complex128,
)


@make_composite_tensor
class LinearOperatorFullMatrix(LinearOperator):
    """``A`` given as a dense tensor of shape ``batch_shape + [M, N]``.

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorFullMatrix([[1.0, 2.0], [3.0, 4.0]])
    >>> op.matvec([1.0, 1.0]).numpy()
    array([3., 7.], dtype=float32)
    """

    def __init__(
        self,
        matrix,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorFullMatrix",
    ):
        parameters = _util.parameters_of(locals())
        self._matrix = _util.convert_nonref_to_tensor(matrix)
        if self._matrix.dtype not in _ALLOWED:
            raise TypeError(
                f"Argument `matrix` must have dtype in {list(_ALLOWED)}. Received: "
                f"{self._matrix.dtype}."
            )
        if self._matrix.shape.rank is not None and self._matrix.shape.rank < 2:
            raise ValueError(
                f"Argument `matrix` must have at least 2 dimensions. Received: {self._matrix}."
            )
        super().__init__(
            dtype=self._matrix.dtype, parameters=parameters, name=name, **_util.hints_of(locals())
        )

    @property
    def matrix(self):
        return self._matrix

    def _shape(self):
        from ferroflow.tensor_shape import TensorShape

        return TensorShape(self._matrix.shape)

    def _shape_tensor(self):
        from ferroflow.array_ops import shape

        return shape(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        from ferroflow.linalg import matmul

        return matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        # The matrix itself, a variable included (as TensorFlow).
        return self._matrix

    @property
    def _composite_tensor_fields(self):
        return ("matrix",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"matrix": 2}
