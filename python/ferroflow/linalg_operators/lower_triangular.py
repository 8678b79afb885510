"""`tf.linalg.LinearOperatorLowerTriangular`: a lower triangular (batch) matrix."""

from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator, make_composite_tensor
from ferroflow.tensor_shape import TensorShape

__all__ = ["LinearOperatorLowerTriangular"]


@make_composite_tensor
class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of ``tril`` (the part above the diagonal is ignored); solves are
    triangular solves, the determinant is the product of the diagonal.

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorLowerTriangular([[2.0, 9.0], [1.0, 4.0]])
    >>> op.to_dense().numpy()
    array([[2., 0.],
           [1., 4.]], dtype=float32)
    """

    def __init__(
        self,
        tril,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorLowerTriangular",
    ):
        parameters = _util.parameters_of(locals())
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        self._tril = _util.convert_nonref_to_tensor(tril)
        if self._tril.shape.rank is not None and self._tril.shape.rank < 2:
            raise ValueError(f"Argument tril must have at least 2 dimensions.  Found: {self._tril}")
        is_square = True
        super().__init__(
            dtype=self._tril.dtype, parameters=parameters, name=name, **_util.hints_of(locals())
        )

    @property
    def tril(self):
        return self._tril

    def _get_tril(self):
        from ferroflow.linalg_ops import band_part

        return band_part(self._tril, -1, 0)

    def _get_diag(self):
        from ferroflow.linalg_ops import diag_part

        return diag_part(self._tril)

    def _shape(self):
        return TensorShape(self._tril.shape)

    def _shape_tensor(self):
        from ferroflow.array_ops import shape

        return shape(self._tril)

    def _assert_non_singular(self):
        return _util.assert_no_entries_with_modulus_zero(
            self._get_diag(), message="Singular operator:  Diagonal contained zero values."
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        from ferroflow.linalg import matmul

        return matmul(self._get_tril(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _linop_matmul(self, left_operator, right_operator):
        if hasattr(right_operator, "_check_diag"):
            return LinearOperatorLowerTriangular(
                tril=left_operator.to_dense() * right_operator.diag,
                is_non_singular=_util.combined_non_singular_hint(right_operator, left_operator),
                is_self_adjoint=_util.combined_commuting_self_adjoint_hint(
                    right_operator, left_operator
                ),
                is_positive_definite=None,
                is_square=True,
            )
        return super()._linop_matmul(left_operator, right_operator)

    def _determinant(self):
        from ferroflow.math import reduce_prod

        return reduce_prod(self._get_diag(), axis=[-1])

    def _log_abs_determinant(self):
        from ferroflow.math import abs as abs_
        from ferroflow.math import log, reduce_sum

        return reduce_sum(log(abs_(self._get_diag())), axis=[-1])

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        from ferroflow.linalg_ops import adjoint as adjoint_
        from ferroflow.linalg_ops import triangular_solve

        rhs = adjoint_(rhs) if adjoint_arg else rhs
        tril, rhs = _util.broadcast_matrix_batch_dims([self._get_tril(), rhs])
        return triangular_solve(tril, rhs, lower=True, adjoint=adjoint)

    def _to_dense(self):
        return self._get_tril()

    def _eigvals(self):
        return self._get_diag()

    @property
    def _composite_tensor_fields(self):
        return ("tril",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"tril": 2}
